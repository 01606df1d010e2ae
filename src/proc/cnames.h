/* cnames: container, pod and namespace names from the node's own files
 * under --rootfs, with no API and no socket. The files are those that the
 * runtimes write for themselves, as README's container section lists them:
 * Docker's config.v2.json, Podman's containers.json, and the kubelet's log
 * links and pod directories. Names are looked up once per container and
 * cached. */
#ifndef GPUR_CNAMES_H
#define GPUR_CNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/process.h"
#include "proc/cnames_parse.h"

#define CNAMES_CACHE_SETS 1024
#define CNAMES_CACHE_WAYS 4      /* 4,096 containers, where the least recently used of a set goes */
#define CNAMES_RETRY_MS 60000    /* a container with a name still unknown may be looked up again after this */
#define CNAMES_RESCAN_MS 10000   /* var/log/containers and var/log/pods are listed at most this often */
#define CNAMES_SCAN_MAX 4096     /* log links and pod directories kept from one listing */
#define CNAMES_DOCKER_MAX (1u << 20)   /* bytes of config.v2.json read at most; a larger file's names are unknown */
#define CNAMES_PODMAN_MAX (16u << 20)  /* bytes of containers.json read at most; a larger file's names are unknown */
#define CNAMES_PASSWD_MAX (4u << 20)   /* bytes of etc/passwd read at most, for a rootless owner's home */

/* The runtime that a cgroup path names, from procinfo's container prefix. */
enum cnames_runtime { CNAMES_DOCKER, CNAMES_PODMAN, CNAMES_CONTAINERD, CNAMES_CRIO, CNAMES_OTHER };

/* What a lookup found. "" means unknown, since a known name is never
 * empty. */
struct cnames_result {
	char container_name[PROCESS_CONTAINER_NAME_MAX + 1];
	char pod_name[PROCESS_POD_NAME_MAX + 1];
	char pod_namespace[PROCESS_POD_NAMESPACE_MAX + 1];
};

struct cnames;

/* Returns a name cache that reads under rootfs, which is copied: "/" on the
 * host, or "/host" in a container with the host's root there. With a rootfs
 * that is NULL or cannot be opened, every name is unknown. Free it with
 * cnames_free(), where NULL is a no-op. It is not thread-safe and has one
 * caller, procinfo's thread. */
struct cnames *cnames_new(const char *rootfs);
void cnames_free(struct cnames *c);

/* The runtime for a container prefix as the record writes it ("docker",
 * "podman", "containerd" or "crio", and "cri-containerd" too), or
 * CNAMES_OTHER for any other. */
enum cnames_runtime cnames_runtime_from(const char *s, size_t len);

/* Looks up the names of the container id run by rt, in the pod of pod_uid,
 * at monotonic time now_ms. id is 64 lowercase hex and NUL-terminated: the
 * full id of the cgroup path, not the 12-digit short form. pod_uid has
 * dashes, as in a process's `pod`, and is NULL or "" outside Kubernetes.
 * Fills out, which is zeroed first. A name that cannot be read stays "",
 * because a missing or unreadable file, broken JSON or a container that is
 * not listed is never an error.
 *
 * With a pod uid, or for containerd and CRI-O, the names come first from the
 * kubelet's log links (pod name, namespace, container name) and then from the
 * pod directory of pod_uid (pod name and namespace). A name still unknown
 * then comes from Docker's config.v2.json or Podman's containers.json. For a
 * rootless container (owner_uid >= 0) those are in that user's home, found
 * in rootfs's etc/passwd, and under run/user/UID.
 *
 * A cached container reads nothing. A container is read again only when a
 * name it could have is still unknown and CNAMES_RETRY_MS have passed since
 * it was last read, because a log link can appear after the container
 * starts. The log-link and pod directories are listed at most once per
 * CNAMES_RESCAN_MS, on a miss, and one listing serves every container in it.
 * Paths resolve inside rootfs, so a symlink cannot lead out of it. That is
 * done with openat2 RESOLVE_IN_ROOT; without openat2, under a rootfs other
 * than "/", no symlink is followed at all.
 *
 * Returns 0, or -EINVAL with out zeroed when id is not 64 lowercase hex.
 *
 * procinfo calls it when it first sees a (pid, start time) whose cgroup names
 * a container, passing that container's runtime, full id and pod uid from
 * its cache entry. It keeps each non-empty name of out in the entry, and so
 * in every frame (PROC_F_CONTAINER_NAME, PROC_F_POD_NAME,
 * PROC_F_POD_NAMESPACE). It calls again at each poll while a name that the
 * container could have is unknown, so that every process of one container
 * shows the same names; such a call is a lookup here, and the files are read
 * again only as said above. Once the names are known, it never calls
 * again. */
int cnames_lookup(struct cnames *c, enum cnames_runtime rt, const char *id, const char *pod_uid, long owner_uid,
		  uint64_t now_ms, struct cnames_result *out);

/* Says which runtime made the Kubernetes container id (64 lowercase hex)
 * whose cgroup path does not say so, as under the kubelet's cgroupfs driver.
 * The answer comes from the directory that the node keeps for it under
 * rootfs, tried in this order. Docker's var/lib/docker/containers/<id>
 * (cri-dockerd) gives CNAMES_DOCKER. containerd's task directory of the
 * kubelet's namespace, run/containerd/io.containerd.runtime.v2.task/k8s.io/<id>,
 * gives CNAMES_CONTAINERD. CRI-O's container directory in containers/storage,
 * run/containers/storage/overlay-containers/<id> (the runroot) or
 * var/lib/containers/storage/overlay-containers/<id> (the graphroot), gives
 * CNAMES_CRIO. Returns CNAMES_OTHER when none is there, when c is NULL, or
 * when id is not a full id. It makes at most four directory opens and is not
 * cached, because procinfo asks once per process. */
enum cnames_runtime cnames_cri_runtime(struct cnames *c, const char *id);

/* The files opened and directories listed so far, successful or not. Tests
 * use it to check that a cached lookup adds nothing. */
unsigned long cnames_reads(const struct cnames *c);

/* For tests, resolves paths as on a kernel without openat2(2). */
void cnames_set_no_openat2(struct cnames *c, bool on);

#endif
