/* fleet_view: the fleet summary without curses. It makes one row per host
 * (GPUs, mean utilisation, memory, power, lost and suspended GPUs, busiest
 * container), says which hosts pass the filter and in what order, and gives
 * the text of each cell. The dashboard (tui/view_fleet.c) and --once share
 * it. */
#ifndef GPUR_FLEET_VIEW_H
#define GPUR_FLEET_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "model/fleet.h"

enum fleet_col {
	FLEET_HOST, FLEET_GPUS, FLEET_UTIL, FLEET_MEM, FLEET_POWER, FLEET_BAD, FLEET_CONTAINER, FLEET__COUNT
};

struct fleet_col_info {
	const char *title; /* header text */
	int width;         /* display columns; 0 for the last means the rest of the line */
	bool numeric;      /* natural order is descending; text ascends */
	bool right;        /* right-aligned */
};

extern const struct fleet_col_info FLEET_COLS[FLEET__COUNT];

/* One host's figures. Each is a sum or mean over the GPUs that know the
 * value, and its known flag is false when none does. */
struct fleet_row {
	size_t host; /* index into the fleet's hosts */
	size_t gpus, lost, suspended;
	bool util_known, mem_known, total_known, power_known;
	double util_mean;
	long double mem_used, mem_total, power_w;
};

void fleet_row_compute(const struct fleet *fl, size_t host, struct fleet_row *r);

struct fleet_view_opts {
	enum fleet_col sort;
	bool reverse;       /* false for the column's natural order */
	const char *filter; /* case-insensitive (ASCII) substring of the host or its container; NULL or "" for all */
};

/* Fills rows[0..fl->nhosts) with the hosts that pass o's filter, sorted by
 * o->sort, with unknown values last in either direction and ties broken by
 * host name. Returns how many there are. */
size_t fleet_view(const struct fleet *fl, const struct fleet_view_opts *o, struct fleet_row *rows);

/* Writes the text of r's cell in column c into buf of n > 0 bytes, or "--"
 * when it is unknown. */
void fleet_cell(const struct fleet *fl, const struct fleet_row *r, enum fleet_col c, char *buf, size_t n);

/* Writes one line about the whole fleet into buf: hosts, GPUs and lost ones,
 * and the source's state (stale since when, the error, the next retry).
 * now_ms is the wall clock. */
void fleet_status(const struct fleet *fl, uint64_t now_ms, char *buf, size_t n);

#endif
