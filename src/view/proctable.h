/* proctable: the dashboard's process table without curses. It holds the
 * column descriptors, says which rows of a frame pass the filters and in what
 * order, and gives the text of each cell. */
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
	PROCTABLE_IDLE, /* how long an idle process has been idle (model/idle.h), blank for the rest */
	PROCTABLE_CONTAINER, PROCTABLE_COMMAND, PROCTABLE__COUNT
};

struct proctable_col_info {
	const char *name;  /* config name, from pid, user, dev ... to command */
	const char *title; /* header text, from "PID", "USER" ... to "COMMAND" */
	int width;         /* display columns; 0 for COMMAND means the rest of the line */
	bool numeric;      /* natural order is descending; text ascends */
	bool right;        /* right-aligned */
};

extern const struct proctable_col_info PROCTABLE_COLS[PROCTABLE__COUNT];

/* What groups are ordered by when the table is sorted by column c. GPU-MEM
 * and GPU% order them by their sums, DEV by the number of GPUs, USER,
 * CONTAINER and COMMAND by the label, and any other column by the process
 * count. */
enum group_sort proctable_group_sort(enum proctable_col c);

/* The column whose config name is name[0..len), ignoring ASCII case, or -1. */
int proctable_col_by_name(const char *name, size_t len);

struct proctable_opts {
	enum proctable_col sort;
	bool reverse;          /* false for the column's natural order */
	const char *filter;    /* case-insensitive (ASCII) substring over pid, user, name,
	                        * cmdline, container, pod and unit; NULL or "" for all */
	const char *only_user; /* exact user name, or NULL for everyone */
	const bool *hidden_gpu; /* indexed by gpu_index with f->ngpus entries, or NULL */
	uint64_t now_ms;       /* wall clock in ms since the epoch, for TIME */
};

/* Fills rows[0..cap) with indices into f->procs of the rows that pass o's
 * filters, sorted by o->sort. Rows whose value is unknown come last in either
 * direction, and ties go by pid, then gpu_index ascending, then frame order.
 * When more than cap rows pass, the first cap of the sorted order are kept;
 * sorting them all takes a temporary array, which sizing rows for f->nprocs
 * avoids. An out-of-range o->sort sorts by PID. Returns the number of rows
 * written. */
size_t proctable_view(const struct frame *f, const struct proctable_opts *o, size_t *rows, size_t cap);
/* Writes into pids, at most cap of them, the pids whose /proc figures (CPU %,
 * RSS) are needed fresh by a table that shows view rows [top, top + shown)
 * of f sorted by sort. Returns -1 when it needs every process's figures:
 * when sorted by CPU % or host memory, since the order depends on them all,
 * when there is no frame, or when there are more than cap rows. */
long proctable_wanted(const struct frame *f, const size_t *view, size_t nview, size_t top, size_t shown,
		      enum proctable_col sort, unsigned *pids, size_t cap);

/* Writes the text of p's cell in column c into buf, at most n-1 bytes plus a
 * NUL and nothing when n is 0, or "--" when the value is unknown. Text from
 * the frame is copied unsanitised but never cut inside a UTF-8 sequence.
 * now_ms is the wall clock for TIME. */
void proctable_cell(const struct frame *f, const struct gpu_process *p, enum proctable_col c,
		    uint64_t now_ms, char *buf, size_t n);

#endif
