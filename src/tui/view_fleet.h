/* view_fleet: the fleet summary of --prometheus, with its state and its
 * calls. */
#ifndef GPUR_VIEW_FLEET_H
#define GPUR_VIEW_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "model/fleet.h"
#include "model/frame.h"
#include "output/fleet_view.h"
#include "view/lineedit.h"

struct tui;

/* The summary: the latest fleet, its rows in their order and filter, the
 * selection, kept by host name across frames, and the host opened with
 * Enter. */
struct tui_fleet {
	struct fleet *fleet; /* a reference, or NULL before a fleet came */
	struct fleet_row *rows;
	size_t nrows, cap;
	size_t sel, top; /* selected row and first visible row */
	char sel_host[FLEET_NAME_MAX + 1];
	enum fleet_col sort;
	bool reverse;
	struct lineedit filter;
	bool host_open;
	char host[FLEET_NAME_MAX + 1]; /* the opened host */
};

void tui_fleet_init(struct tui_fleet *fv);
void tui_fleet_fini(struct tui_fleet *fv);
/* Takes a new frame f and the fleet fl beside it from a fleet source, and
 * consumes both. It keeps fl for the summary when keep is set, and returns a
 * reference to what the screen shows: the opened host's frame, or f
 * itself. */
struct frame *tui_fleet_take(struct tui *t, struct frame *f, struct fleet *fl, bool keep);
/* Whether the fleet summary is on the screen, with a fleet and no host
 * opened. */
bool tui_fleet_listing(const struct tui *t);
/* The summary's keys, which are rows of keys.c and return KEY_* flags. Up,
 * Down, PgUp, PgDn, Home and End select; < and > sort, and r reverses; /
 * types the filter and Esc clears it; Enter opens the selected host. */
unsigned tui_fleet_key_move(struct tui *t, int ch);
unsigned tui_fleet_key_sort(struct tui *t, int ch);
unsigned tui_fleet_key_filter(struct tui *t, int ch);
unsigned tui_fleet_key_open(struct tui *t, int ch);
/* Goes back from the opened host to the summary. */
void tui_fleet_close_host(struct tui *t);
/* The filter's prompt: its line, and what follows an edit, which puts the
 * selection back on the first host. */
struct lineedit *tui_fleet_filter_line(struct tui *t);
unsigned tui_fleet_filter_edited(struct tui *t);
/* Draws the summary from row y to y + h - 1. */
void tui_fleet_draw(struct tui *t, int y, int h);
/* Draws the summary's key hints, or its filter's prompt, on row y. */
void tui_fleet_draw_keys(struct tui *t, int y);
/* Writes into buf the source's failure for the header (stale since, error,
 * next retry), and returns NULL when the source answers. */
const char *tui_fleet_problem(const struct tui *t, char *buf, size_t n);

#endif
