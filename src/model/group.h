/* group: process rows grouped by who owns them — the container, the pod, the
 * batch job or the user — one group each with its process count, summed GPU
 * memory and utilisation and the GPUs it uses. The dashboard's grouped
 * table, the --once totals and the exporter's container series all come
 * from here. */
#ifndef GPUR_GROUP_H
#define GPUR_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

enum group_by {
	GROUP_BY_NONE, GROUP_BY_CONTAINER, GROUP_BY_POD, GROUP_BY_JOB,
	GROUP_BY_USER, GROUP_BY__COUNT
};

/* The size of a group key or label, NUL included. A pod's namespace/name
 * with its one-byte prefix fits. */
#define GROUP_KEY_MAX 384
/* What a row without an owner of the mode's kind is grouped as. */
#define GROUP_NONE_LABEL "(none)"

/* One group of the view's rows. */
struct group {
	size_t first;     /* index into f->procs of its first row in view order */
	size_t nprocs;    /* rows, so a process on two GPUs counts twice */
	/* Sums. A sum is unknown (its known flag false) when any row's value
	 * is, because a part would read as the whole. nmem_unknown and
	 * nutil_unknown say how many rows lacked the value. */
	bool mem_known, util_known;
	size_t nmem_unknown, nutil_unknown;
	long double mem_bytes, util_pct;
	/* GPU memory its idle processes hold (model/idle.h), and how many. */
	long double idle_bytes;
	size_t nidle;
	size_t ngpus;     /* distinct GPUs used */
	uint32_t gpus[FRAME_MAX_GPUS / 32]; /* bit gpu_index set = used */
};

/* The groups of a frame's view, reused from frame to frame. */
struct grouping {
	struct group *groups;
	size_t ngroups, cap;
	size_t *index; /* open addressing over groups; a slot holds a group's index + 1, 0 when empty */
	size_t index_cap;
};

void group_init(struct grouping *g);
void group_fini(struct grouping *g);

/* "none", "container", "pod", "job" or "user", and "?" out of range. */
const char *group_name(enum group_by by);
/* The mode whose name is name[0..len), or -1. */
int group_by_name(const char *name, size_t len);

/* Writes p's group key under mode by into key, of GROUP_KEY_MAX bytes. The
 * key is the identity that rows are grouped by, or "" when p has no owner of
 * that kind; such rows form one "(none)" group. By container, the key is the
 * container id, else the pod uid, else the pod's namespace/name. These are
 * process_label's owners taken by identity, so two containers of one pod are
 * two groups, and a systemd unit alone is no container. By pod, it is the pod
 * uid, else namespace/name; by job, a "slurm:" container; by user, the user.
 * Returns whether p has an owner, that is whether the key is not "". Keys
 * longer than the buffer are cut, so two owners alike in their first 380
 * bytes share a group. */
bool group_key(const struct gpu_process *p, enum group_by by, char *key);

/* Writes the text a person reads for p's group into buf, at most n-1 bytes
 * plus a NUL, never cut inside a UTF-8 sequence and not sanitised. By
 * container, it is the container's name, else its id ("docker:05cff9470056"),
 * else the pod as "pod ns/name". By pod, it is "ns/name", else the name, else
 * the uid. By job it is "slurm:4242", and by user the user's name. It is
 * GROUP_NONE_LABEL when there is no owner. */
void group_label(const struct gpu_process *p, enum group_by by, char *buf, size_t n);

/* What groups are ordered by. */
enum group_sort {
	GROUP_SORT_MEM,   /* summed GPU memory */
	GROUP_SORT_UTIL,  /* summed GPU utilisation */
	GROUP_SORT_GPUS,  /* the number of GPUs used */
	GROUP_SORT_LABEL, /* the label */
	GROUP_SORT_PROCS, /* the process count */
};

/* Groups rows[0..nrows), indices into f->procs such as a proctable_view's,
 * under mode by; GROUP_BY_NONE makes no groups. Then sorts the groups by
 * sort: numbers descend and text ascends, reverse flips that, unknown sums
 * come last either way, and ties are broken by label and then by key. The
 * cost is O(rows). */
void group_build(struct grouping *g, const struct frame *f, const size_t *rows, size_t nrows, enum group_by by,
		 enum group_sort sort, bool reverse);

/* Writes the GPUs of grp as "0,1" or "0-3,6" into buf, cut with a "+" when
 * the list does not fit, or "--" when there are none. */
void group_gpus(const struct group *grp, char *buf, size_t n);

/* Keeps, in order, only the rows of rows[0..nrows) whose key under by is key,
 * and returns how many are left. */
size_t group_filter(const struct frame *f, size_t *rows, size_t nrows, enum group_by by, const char *key);

#endif
