/* proctable: the dashboard's process table without curses: the column
 * descriptors, which rows of a frame pass the filters and in what order, and
 * the text of each cell. */
#ifndef GPUR_PROCTABLE_H
#define GPUR_PROCTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"
#include "model/group.h"

enum proctable_col {
	PROCTABLE_PID, PROCTABLE_USER, PROCTABLE_DEV, PROCTABLE_TYPE, PROCTABLE_GPU,
	PROCTABLE_MEMBW, PROCTABLE_GPUMEM, PROCTABLE_CPU, PROCTABLE_HOSTMEM, PROCTABLE_TIME,
	PROCTABLE_CONTAINER, PROCTABLE_COMMAND, PROCTABLE__COUNT
};

struct proctable_col_info {
	const char *name;  /* config name: pid, user, dev, ... command */
	const char *title; /* header text: "PID", "USER", ... "COMMAND" */
	int width;         /* display columns; 0 for COMMAND = the rest of the line */
	bool numeric;      /* natural order descending (text: ascending) */
	bool right;        /* right-aligned */
};

extern const struct proctable_col_info PROCTABLE_COLS[PROCTABLE__COUNT];

/* What groups are ordered by when the table is sorted by column c: GPU-MEM
 * and GPU% by their sums, DEV by the number of GPUs, USER, CONTAINER and
 * COMMAND by the label, any other column by the process count. */
enum group_sort proctable_group_sort(enum proctable_col c);

/* The column whose config name is name[0..len) (ASCII case ignored), or -1. */
int proctable_col_by_name(const char *name, size_t len);

struct proctable_opts {
	enum proctable_col sort;
	bool reverse;          /* false: the column's natural order */
	const char *filter;    /* case-insensitive (ASCII) substring over pid, user,
	                        * name, cmdline, container, pod, unit; NULL/"" = all */
	const char *only_user; /* exact user name; NULL = everyone */
	const bool *hidden_gpu; /* indexed by gpu_index, f->ngpus entries; may be NULL */
	uint64_t now_ms;       /* wall clock (ms since the epoch), for TIME */
};

/* Fills rows[0..cap) with indices into f->procs of the rows that pass o's
 * filters, sorted by o->sort: rows whose value is unknown come last in either
 * direction, ties go by pid then gpu_index (ascending) then frame order.
 * When more than cap rows pass, the first cap of the sorted order are kept
 * (sorting them all takes a temporary array; size rows for f->nprocs to
 * avoid it). An out-of-range o->sort sorts by PID. Returns the number of
 * rows written. */
size_t proctable_view(const struct frame *f, const struct proctable_opts *o, size_t *rows, size_t cap);
/* The pids whose /proc figures (CPU %, RSS) a table showing view rows
 * [top, top + shown) of f sorted by sort needs fresh, into pids (at most
 * cap); -1 when it needs every process's: sorted by CPU % or host memory
 * (the order depends on them all), no frame, or more than cap rows. */
long proctable_wanted(const struct frame *f, const size_t *view, size_t nview, size_t top, size_t shown,
		      enum proctable_col sort, unsigned *pids, size_t cap);

/* Writes the text of p's cell in column c into buf (at most n-1 bytes plus a
 * NUL; nothing when n is 0): "--" when unknown. Text from the frame is copied
 * unsanitised but never cut inside a UTF-8 sequence. now_ms is the wall
 * clock for TIME. */
void proctable_cell(const struct frame *f, const struct gpu_process *p, enum proctable_col c,
		    uint64_t now_ms, char *buf, size_t n);

#endif
