/* cnames_parse: the pure parsers behind cnames, each over (buf, len), none
 * touching a file: Docker's config.v2.json, Podman's containers.json, and
 * the names of the kubelet's log links and pod directories. Every name they
 * give out is inert: valid UTF-8, no control or invisible formatting
 * characters, NUL-terminated, bounded by its buffer. */
#ifndef GPUR_CNAMES_PARSE_H
#define GPUR_CNAMES_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/process.h"

#define CNAMES_ID_LEN 64         /* a container id: 64 lowercase hex digits */
#define CNAMES_K8S_LABEL_MAX 63  /* a DNS label: namespace, container name */
#define CNAMES_POD_UID_MAX 64    /* a UUID with dashes; static pods: 32 hex */

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

/* Whether s[0..len) is a container id: exactly 64 lowercase hex digits. */
bool cnames_id_valid(const char *s, size_t len);

/* Copies s[0..n) into out (outsz >= 1) made inert: invalid UTF-8 becomes
 * U+FFFD, control characters (C0, DEL, C1) and the invisible formatting
 * characters of utf8_is_unsafe are dropped, and the copy stops before the
 * first character that does not fit in outsz - 1 bytes. Always
 * NUL-terminates; returns the length written. */
size_t cnames_clean(const char *s, size_t n, char *out, size_t outsz);

/* Docker's config.v2.json (one JSON object): its top-level "Name" string
 * without the leading '/', cleaned into name (n >= 1 bytes with the NUL).
 * A duplicate key: the last wins. 0 with a non-empty name; -ENOENT when
 * the text is valid JSON but has no usable Name (missing, not a string,
 * empty once cleaned); -EINVAL when it is not one valid JSON object
 * (truncated, broken). name is "" unless 0 is returned. */
int cnames_parse_docker_config(const char *buf, size_t len, char *name, size_t n);

/* Podman's (containers/storage) containers.json or volatile-containers.json:
 * a JSON array of objects {"id": "<64 hex>", "names": ["name", ...], ...}.
 * Finds the first element whose "id" is id (a NUL-terminated string) and
 * cleans the first string of its "names" into name. The whole text must be
 * valid JSON; elements of other shapes are passed over. 0 with a non-empty
 * name; -ENOENT when id is not listed or has no usable name; -EINVAL when
 * the text is not a valid JSON array. name is "" unless 0 is returned. */
int cnames_parse_podman_containers(const char *buf, size_t len, const char *id, char *name, size_t n);

/* A kubelet log link's file name (not a path):
 * <pod>_<namespace>_<container>-<64 hex id>.log. Pod names and namespaces
 * cannot hold '_' (they are DNS names), so the first '_' ends the pod name
 * and the second the namespace; the container name runs to the '-' before
 * the id. Each part must be what Kubernetes allows (pod: 1-253 bytes of
 * [a-z0-9.-]; namespace and container: 1-63 bytes of [a-z0-9-]), so what
 * it gives out is plain ASCII. 0 with out filled, else -EINVAL (out
 * zeroed). */
int cnames_parse_kubelet_log_name(const char *s, size_t len, struct cnames_kubelet_log *out);

/* A pod directory's name: <namespace>_<pod>_<uid>, with the same rules for
 * namespace and pod, and a uid of 1-64 bytes of [0-9a-f-]. (Very old
 * kubelets named the directory by the uid alone: nothing to learn, -EINVAL.)
 * 0 with out filled, else -EINVAL (out zeroed). */
int cnames_parse_pod_dir_name(const char *s, size_t len, struct cnames_pod_dir *out);

#endif
