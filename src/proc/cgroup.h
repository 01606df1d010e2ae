/* cgroup: which container, pod, systemd unit or batch job a process belongs
 * to, from the text of /proc/PID/cgroup (cgroup v1, v2 and hybrid). It is a
 * pure parser over (buf, len), with no allocation and no file access. */
#ifndef GPUR_CGROUP_H
#define GPUR_CGROUP_H

#include <stddef.h>

#define CGROUP_ID_MAX 64     /* a container id of 64 hex digits */
#define CGROUP_NAME_MAX 64   /* an LXC or nspawn name */
#define CGROUP_STR_MAX 256   /* the record's string fields; a unit name is at most 255 */
#define CGROUP_PATH_MAX 1024 /* the cgroup path kept for display, cut beyond this */

enum cgroup_runtime {
	CGROUP_RT_NONE,
	CGROUP_RT_DOCKER,     /* docker-<id>.scope, /docker/<id> (cri-dockerd too) */
	CGROUP_RT_PODMAN,     /* libpod-<id>.scope, libpod_parent/libpod-<id> */
	CGROUP_RT_CONTAINERD, /* cri-containerd-<id>.scope */
	CGROUP_RT_CRIO,       /* crio-<id>.scope, crio-<id> */
	/* A Kubernetes container under the cgroupfs driver, pod<uid>/<id>.
	 * The path does not say which runtime made it, since containerd and
	 * cri-dockerd both write it, so its record `container` is
	 * "k8s:<12 hex>" until the node's files name the runtime (procinfo
	 * asks cnames). */
	CGROUP_RT_CRI,
	CGROUP_RT_LXC,    /* lxc.payload.<name>, lxc.payload/<name>, lxc/<name> */
	CGROUP_RT_NSPAWN, /* machine-<name>.scope */
	CGROUP_RT_SLURM,  /* .../job_<id>/ under slurm or *slurmstepd.scope */
	CGROUP_RT__COUNT
};

struct cgroup_info {
	enum cgroup_runtime runtime;
	/* The runtime's full identity: 64 hex for docker, podman, containerd,
	 * crio and CRI, the name for lxc and nspawn, and the job id for
	 * slurm. */
	char id[CGROUP_ID_MAX + 1];
	/* The record's `container`, one of "docker:<12 hex>", "podman:…",
	 * "containerd:…", "crio:…", "k8s:…" (CGROUP_RT_CRI), "lxc:<name>",
	 * "nspawn:<name>" and "slurm:<job id>", or "" for none. */
	char container[CGROUP_STR_MAX];
	char pod[40];            /* Kubernetes pod UID with dashes, or a static pod's 32 hex, or "" */
	char unit[CGROUP_STR_MAX]; /* innermost systemd .service or .scope with escapes decoded, or "" */
	char slurm_step[24];     /* "0", "batch", "extern", "interactive" and so on, or "" */
	char path[CGROUP_PATH_MAX]; /* the cgroup the fields come from, without " (deleted)" */
	/* For a container in a user's delegated subtree, below
	 * user@UID.service as rootless Podman and Docker put it, that UID,
	 * whose home keeps its names; -1 otherwise. */
	long owner_uid;
};

/* Parses the whole text of /proc/PID/cgroup, buf[0..len), which need not be
 * NUL-terminated and whose last line needs no newline. On cgroup v2 the `0::`
 * line is used. On v1 and hybrid systems the hierarchies are taken in the
 * order name=systemd, memory, cpu/cpuacct, pids, the others and then `0::`;
 * the first that names a container or pod gives those, and the unit comes
 * from that line, else from the first line that names one. Fills *out
 * completely, with every string NUL-terminated, printable ASCII only, and ""
 * for unknown, and returns 0. Returns -EINVAL, with *out all unknown, when no
 * line is a cgroup line. Unknown path forms give no container, never a guess.
 * The work is linear in len, and lines over KVPARSE_MAX_LINE bytes are
 * skipped. */
int cgroup_parse(const char *buf, size_t len, struct cgroup_info *out);

/* Decodes systemd's \xHH escapes of s[0..len) into out, whose outsize is > 0;
 * out is always NUL-terminated and cut to fit. An escape that would give a
 * control character, a non-ASCII byte or '/' is kept as its four characters,
 * and any other control or non-ASCII byte becomes '?'. Returns the length
 * written. */
size_t cgroup_unescape(const char *s, size_t len, char *out, size_t outsize);

/* The runtime's name as the record writes it ("docker", "lxc" and so on). It
 * is "k8s" for CGROUP_RT_CRI, whose runtime the path does not name, and ""
 * for CGROUP_RT_NONE and values out of range. */
const char *cgroup_runtime_name(enum cgroup_runtime rt);

#endif
