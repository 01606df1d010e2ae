/* view_fleet: the fleet summary of --prometheus, its state and its calls
 * (view_fleet.c). */
#ifndef GPUR_VIEW_FLEET_H
#define GPUR_VIEW_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "model/fleet.h"
#include "model/frame.h"
#include "output/fleet_view.h"
#include "view/lineedit.h"

struct tui;

/* The summary: the latest frame with the fleet, its rows in their order
 * and filter, the selection (kept by host name across frames), and the
 * host opened with Enter. */
struct tui_fleet {
	struct frame *frame; /* a reference; NULL before a fleet came */
	struct fleet_row *rows;
	size_t nrows, cap;
	size_t sel, top; /* selected row, first visible row */
	char sel_host[FLEET_NAME_MAX + 1];
	enum fleet_col sort;
	bool reverse;
	bool editing; /* typing the filter */
	struct lineedit filter;
	bool host_open;
	char host[FLEET_NAME_MAX + 1]; /* the opened host */
};

void tui_fleet_init(struct tui_fleet *fv);
void tui_fleet_fini(struct tui_fleet *fv);
/* A new frame f (consumed) from a fleet source: keeps it for the summary
 * when keep, and returns what the screen shows (a reference): the opened
 * host's frame, or f itself. */
struct frame *tui_fleet_take(struct tui *t, struct frame *f, bool keep);
/* Whether the fleet summary is on the screen (a fleet, no host opened). */
bool tui_fleet_listing(const struct tui *t);
/* Keys of the summary (select, sort, filter, Enter opens a host) and of an
 * opened host (Esc or Backspace: back). Returns whether ch was taken. */
bool tui_fleet_key(struct tui *t, int ch);
/* The summary from row y to y + h - 1. */
void tui_fleet_draw(struct tui *t, int y, int h);
/* The summary's key hints (or its filter being typed) on row y. */
void tui_fleet_draw_keys(struct tui *t, int y);
/* The source's failure for the header (stale since, error, next retry), or
 * NULL when it answers. Into buf. */
const char *tui_fleet_problem(const struct tui *t, char *buf, size_t n);

#endif
