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

/* A group key's and label's size, NUL included: a pod's namespace/name
 * with its one-byte prefix fits. */
#define GROUP_KEY_MAX 384
/* What a row without an owner of the mode's kind is grouped as. */
#define GROUP_NONE_LABEL "(none)"

/* One group of the view's rows. */
struct group {
	size_t first;     /* index into f->procs of its first row in view order */
	size_t nprocs;    /* rows (a process on two GPUs counts twice) */
	/* Sums; a sum is unknown (known false) when any row's value is: a part
	 * would read as the whole. nmem_unknown says how many rows lacked it. */
	bool mem_known, util_known;
	size_t nmem_unknown, nutil_unknown;
	long double mem_bytes, util_pct;
	size_t ngpus;     /* distinct GPUs used */
	uint32_t gpus[FRAME_MAX_GPUS / 32]; /* bit gpu_index set = used */
};

/* The groups of a frame's view, reused from frame to frame. */
struct grouping {
	struct group *groups;
	size_t ngroups, cap;
	size_t *index; /* open addressing over groups: slot + 1, 0 empty */
	size_t index_cap;
};

void group_init(struct grouping *g);
void group_fini(struct grouping *g);

/* "none", "container", "pod", "job", "user"; "?" out of range. */
const char *group_name(enum group_by by);
/* The mode whose name is name[0..len), or -1. */
int group_by_name(const char *name, size_t len);

/* Writes p's group key under mode by into key (GROUP_KEY_MAX
 * bytes): the identity rows are grouped by, "" when p has no owner of that
 * kind (those rows form one "(none)" group). container: the container id,
 * else the pod uid, else the pod's namespace/name (process_label's owners,
 * by identity, so two containers of one pod are two groups; a systemd unit
 * alone is no container); pod: the pod uid,
 * else namespace/name; job: a "slurm:" container; user: the user. Returns
 * whether p has an owner (key not ""). Keys longer than the buffer are cut
 * (two owners alike in their first 380 bytes share a group). */
bool group_key(const struct gpu_process *p, enum group_by by, char *key);

/* Writes the text a person reads for p's group into buf (at most n-1 bytes
 * plus a NUL, never cut inside a UTF-8 sequence; unsanitised): container: the
 * container's name, else its id ("docker:05cff9470056"), else the pod as
 * "pod ns/name"; pod: "ns/name", else the name, else the uid;
 * job: "slurm:4242"; user: the name. GROUP_NONE_LABEL when none. */
void group_label(const struct gpu_process *p, enum group_by by, char *buf, size_t n);

/* What groups are ordered by. */
enum group_sort {
	GROUP_SORT_MEM,   /* summed GPU memory */
	GROUP_SORT_UTIL,  /* summed GPU utilisation */
	GROUP_SORT_GPUS,  /* the number of GPUs used */
	GROUP_SORT_LABEL, /* the label */
	GROUP_SORT_PROCS, /* the process count */
};

/* Groups rows[0..nrows) (indices into f->procs, e.g. a proctable_view)
 * under mode by (NONE: no groups) and sorts the groups by sort; numbers
 * descending, text ascending, reverse flips that, unknown sums come last
 * either way, ties by label then key. O(rows). */
void group_build(struct grouping *g, const struct frame *f, const size_t *rows, size_t nrows, enum group_by by,
		 enum group_sort sort, bool reverse);

/* Writes the GPUs of grp as "0,1" or "0-3,6" into buf (cut with "+" when it
 * does not fit); "--" when none. */
void group_gpus(const struct group *grp, char *buf, size_t n);

/* Keeps in rows[0..nrows) only those whose key under by is key (order kept);
 * returns how many are left. */
size_t group_filter(const struct frame *f, size_t *rows, size_t nrows, enum group_by by, const char *key);

#endif
