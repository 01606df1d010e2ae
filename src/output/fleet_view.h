/* fleet_view: the fleet summary without curses — one row per host (GPUs,
 * mean utilisation, memory, power, lost/suspended GPUs, busiest container),
 * which hosts pass the filter and in what order, and the text of each cell.
 * Shared by the dashboard (tui/view_fleet.c) and --once. */
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
	int width;         /* display columns; 0 for the last = the rest of the line */
	bool numeric;      /* natural order descending (text: ascending) */
	bool right;        /* right-aligned */
};

extern const struct fleet_col_info FLEET_COLS[FLEET__COUNT];

/* One host's figures; a sum or mean over the GPUs that know the value
 * (known false: none does). */
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
	bool reverse;       /* false: the column's natural order */
	const char *filter; /* case-insensitive (ASCII) substring of the host or its container; NULL/"": all */
};

/* Fills rows[0..fl->nhosts) with the hosts that pass o's filter, sorted by
 * o->sort: unknown values last in either direction, ties by host name.
 * Returns how many. */
size_t fleet_view(const struct fleet *fl, const struct fleet_view_opts *o, struct fleet_row *rows);

/* The text of r's cell in column c ("--" when unknown) into buf (n > 0). */
void fleet_cell(const struct fleet *fl, const struct fleet_row *r, enum fleet_col c, char *buf, size_t n);

/* One line about the whole fleet (hosts, GPUs, lost, and the source's
 * state: stale since when, the error, the next retry) into buf; now_ms is
 * the wall clock. */
void fleet_status(const struct fleet *fl, uint64_t now_ms, char *buf, size_t n);

#endif
