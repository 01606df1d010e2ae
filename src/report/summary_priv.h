/* summary_priv: what summary.c and summary_procs.c share while reading. */
#ifndef GPUR_SUMMARY_PRIV_H
#define GPUR_SUMMARY_PRIV_H

#include "report/summary.h"

struct summary_pair {
	uint64_t seq;
	uint32_t group, gpu;
};

struct summary_priv {
	struct frame *prev;          /* the record waiting for its successor */
	uint32_t slot_a[FRAME_MAX_GPUS], slot_b[FRAME_MAX_GPUS];
	uint32_t orig_a[FRAME_MAX_GPUS], orig_b[FRAME_MAX_GPUS];
	uint32_t *cur_slot, *prev_slot, *cur_orig, *prev_orig;
	uint64_t seq;                /* records added */
	size_t gpus_cap;
	/* Per position of the record being credited. */
	double stretch_e[FRAME_MAX_GPUS];
	bool stretch_known[FRAME_MAX_GPUS];
	uint32_t rows[FRAME_MAX_GPUS];
	double util_sum[FRAME_MAX_GPUS];
	bool util_all[FRAME_MAX_GPUS];
	/* Process entries, by open addressing over indices into procs, each + 1, with 0 for empty. */
	uint32_t *phash;
	size_t phash_n;
	size_t procs_cap;
	/* Groups, the same way. */
	uint32_t *ghash;
	size_t ghash_n, groups_cap;
	/* (group, GPU) pairs credited in the current record. */
	struct summary_pair *pairs;
	size_t pairs_n;
};

/* Credits the process rows of record p, whose GPUs are at slot[] and whose
 * stretch lasts dt_ms, with the GPUs' stretch energies in priv. */
void summary_credit_procs(struct summary *s, const struct frame *p, const uint32_t *slot, uint64_t dt_ms);
/* Sorts and caps processes and groups, for summary_finish. */
void summary_finish_procs(struct summary *s);
void summary_free_procs(struct summary *s);
/* A copy of s cut to SUMMARY_STR_MAX bytes on a character boundary, or NULL for NULL. */
char *summary_strdup(const char *s);

#endif
