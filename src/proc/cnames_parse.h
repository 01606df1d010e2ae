/* cnames_parse: the pure parsers behind cnames, each over (buf, len) and
 * none touching a file. They read Docker's config.v2.json, Podman's
 * containers.json, and the names of the kubelet's log links and pod
 * directories. Every name they give out is inert: valid UTF-8 without control
 * or invisible formatting characters, NUL-terminated and bounded by its
 * buffer. */
#ifndef GPUR_CNAMES_PARSE_H
#define GPUR_CNAMES_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/process.h"

#define CNAMES_ID_LEN 64         /* a container id of 64 lowercase hex digits */
#define CNAMES_K8S_LABEL_MAX 63  /* a DNS label, as a namespace or container name is */
#define CNAMES_POD_UID_MAX 64    /* a UUID with dashes, or 32 hex for a static pod */

/* A kubelet log link, var/log/containers/<pod>_<namespace>_<container>-<id>.log */
struct cnames_kubelet_log {
	char id[CNAMES_ID_LEN + 1];
	char pod_name[PROCESS_POD_NAME_MAX + 1];
	char pod_namespace[CNAMES_K8S_LABEL_MAX + 1];
	char container_name[CNAMES_K8S_LABEL_MAX + 1];
};

/* A pod directory, var/log/pods/<namespace>_<pod>_<uid> */
struct cnames_pod_dir {
	char pod_namespace[CNAMES_K8S_LABEL_MAX + 1];
	char pod_name[PROCESS_POD_NAME_MAX + 1];
	char uid[CNAMES_POD_UID_MAX + 1];
};

/* Whether s[0..len) is a container id, which is exactly 64 lowercase hex
 * digits. */
bool cnames_id_valid(const char *s, size_t len);

/* Copies s[0..n) into out, of outsz >= 1 bytes, made inert. Invalid UTF-8
 * becomes U+FFFD, control characters (C0, DEL, C1) and the invisible
 * formatting characters of utf8_is_unsafe are dropped, and the copy stops
 * before the first character that does not fit in outsz - 1 bytes. It always
 * NUL-terminates, and returns the length written. */
size_t cnames_clean(const char *s, size_t n, char *out, size_t outsz);

/* Reads Docker's config.v2.json, one JSON object, and cleans its top-level
 * "Name" string without the leading '/' into name, of n >= 1 bytes with the
 * NUL. Of duplicate keys, the last wins. Returns 0 with a non-empty name;
 * -ENOENT when the text is valid JSON but has no usable Name, because it is
 * missing, not a string or empty once cleaned; and -EINVAL when the text is
 * not one valid JSON object, being truncated or broken. name is "" unless 0
 * is returned. */
int cnames_parse_docker_config(const char *buf, size_t len, char *name, size_t n);

/* Reads Podman's (containers/storage) containers.json or
 * volatile-containers.json, a JSON array of objects
 * {"id": "<64 hex>", "names": ["name", ...], ...}. Finds the first element
 * whose "id" is id, a NUL-terminated string, and cleans the first string of
 * its "names" into name. The whole text must be valid JSON, and elements of
 * other shapes are passed over. Returns 0 with a non-empty name; -ENOENT when
 * id is not listed or has no usable name; and -EINVAL when the text is not a
 * valid JSON array. name is "" unless 0 is returned. */
int cnames_parse_podman_containers(const char *buf, size_t len, const char *id, char *name, size_t n);

/* Parses a kubelet log link's file name, not a path:
 * <pod>_<namespace>_<container>-<64 hex id>.log. Pod names and namespaces
 * are DNS names and cannot hold '_', so the first '_' ends the pod name and
 * the second the namespace, and the container name runs to the '-' before
 * the id. Each part must be what Kubernetes allows: 1-253 bytes of
 * [a-z0-9.-] for the pod, and 1-63 bytes of [a-z0-9-] for the namespace and
 * the container. What it gives out is therefore plain ASCII. Returns 0 with
 * out filled, else -EINVAL with out zeroed. */
int cnames_parse_kubelet_log_name(const char *s, size_t len, struct cnames_kubelet_log *out);

/* Parses a pod directory's name, <namespace>_<pod>_<uid>, with the same rules
 * for namespace and pod and a uid of 1-64 bytes of [0-9a-f-]. Very old
 * kubelets named the directory by the uid alone, which has nothing to learn
 * from and gives -EINVAL. Returns 0 with out filled, else -EINVAL with out
 * zeroed. */
int cnames_parse_pod_dir_name(const char *s, size_t len, struct cnames_pod_dir *out);

#endif
