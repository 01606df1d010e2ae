/* process: one GPU process row of a frame (a process on two GPUs is two rows). */
#ifndef GPUR_PROCESS_H
#define GPUR_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/field.h"

#define PROCESS_CMDLINE_MAX 4096
/* A recorded pid may be any 32-bit process id. Linux's are at most 4,194,304,
 * but a recording is foreign data (the original gpur's came from Windows and
 * macOS too). A live pid above PID_MAX_LIMIT is never taken. */
#define PROCESS_PID_MAX 4294967295.0
/* Name limits. Kubernetes caps pod names at 253 bytes (a DNS subdomain) and
 * namespaces at 63 (a DNS label), and container names get the common 256. */
#define PROCESS_CONTAINER_NAME_MAX 256
#define PROCESS_POD_NAME_MAX 253
#define PROCESS_POD_NAMESPACE_MAX 63

/* One of a process's parents, which is not recorded: its pid and its comm,
 * which is NULL when its /proc entry could not be read. */
struct process_parent {
	uint64_t pid;
	const char *name;
};

enum process_kind { PROCESS_COMPUTE, PROCESS_GRAPHICS, PROCESS_BOTH, PROCESS_KIND__COUNT };

enum process_field {
	PROC_F_PID, PROC_F_GPU_INDEX, PROC_F_NAME, PROC_F_CMDLINE, PROC_F_USER, PROC_F_KIND,
	PROC_F_GPU_MEM, PROC_F_GPU_UTIL, PROC_F_MEM_BW, PROC_F_ENC, PROC_F_DEC, PROC_F_CPU,
	PROC_F_HOST_MEM, PROC_F_CONTAINER, PROC_F_CONTAINER_PID, PROC_F_POD, PROC_F_UNIT,
	PROC_F_START, PROC_F_CONTAINER_NAME, PROC_F_POD_NAME, PROC_F_POD_NAMESPACE, PROC_F__COUNT
};

struct gpu_process {
	uint64_t valid; /* bit (1 << enum process_field) set = known */
	uint64_t pid;
	uint64_t gpu_index; /* position in the frame's gpus, always < ngpus */
	const char *name, *cmdline, *user;
	uint8_t kind; /* enum process_kind */
	/* Measured quantities are FIELD_NUM, so any finite number is kept exactly. */
	long double gpu_mem_bytes;
	long double gpu_util_pct, mem_bw_pct, enc_pct, dec_pct;
	long double cpu_pct; /* % of one core */
	long double host_mem_bytes;
	const char *container;
	const char *container_name; /* the runtime's or the kubelet's name for it */
	uint64_t container_pid;
	const char *pod, *pod_name, *pod_namespace, *unit;
	uint64_t start_ms; /* an integer in ms since the epoch, like a record's ts_ms */
	/* Not recorded. The pid is this machine's, in a live local backend's
	 * row, so /proc describes it and it may be signalled. Replayed and
	 * remote rows are never local. */
	bool local;
	/* Not recorded. The cgroup that the attribution comes from, which the
	 * details screen shows, or NULL. */
	const char *cgroup_path;
	/* Not recorded. /proc/PID/stat's starttime in clock ticks after boot,
	 * the process's identity for a signal, or 0 when unknown. */
	uint64_t start_ticks;
	/* Not recorded. Its backend says its pids may be signalled
	 * (backend_can_signal); it is set together with local. */
	bool can_signal;
	/* Not recorded. gpur runs in a PID namespace of its own, and this pid,
	 * the host's as the driver gives it, is not in its procfs. The row's
	 * /proc details are therefore unknown rather than another process's. */
	bool pid_hidden;
	/* Not recorded. Its parents from /proc, nearest first, up to its
	 * container's init or PID 1 (proctree.h), in the frame's arena.
	 * Replayed and remote rows have none. */
	const struct process_parent *parents;
	size_t nparents;
	/* Not recorded. When it is idle (model/idle.h), since when it has been
	 * quiet, in ms since the epoch; 0 when it is not idle. */
	uint64_t idle_since_ms;
};

extern const struct field PROCESS_FIELDS[];
extern const size_t PROCESS_NFIELDS;
extern const struct field_alias PROCESS_ALIASES[];
extern const size_t PROCESS_NALIASES;
extern const char *const PROCESS_KIND_NAMES[PROCESS_KIND__COUNT];

/* Who the row belongs to, in one word for a table cell. It is the pod as
 * "namespace/name", written into buf of size n > 0; else the container's
 * name; else the container as recorded ("docker:05cff9470056",
 * "slurm:4242"); else the pod uid. Returns NULL when none is known. A systemd
 * unit alone is no owner, because a plain service or a login session has no
 * container. */
const char *process_label(const struct gpu_process *p, char *buf, size_t n);
/* Writes the row's pod for people into buf of size n > 0: "namespace/name",
 * else the name alone, else the pod uid, or "" when no pod is known. Returns
 * buf. */
const char *process_pod_text(const struct gpu_process *p, char *buf, size_t n);

/* The process's name for a one-word cell, written into buf of size n > 0. It
 * is its comm when known, else the last path component of its command line's
 * first word, because a recording of the original gpur has a command line but
 * no comm. Returns NULL when neither is known. */
const char *process_short_name(const struct gpu_process *p, char *buf, size_t n);

static inline bool process_has(const struct gpu_process *p, enum process_field f)
{
	return (p->valid >> f) & 1u;
}
static inline void process_set(struct gpu_process *p, enum process_field f)
{
	p->valid |= UINT64_C(1) << f;
}

#endif
