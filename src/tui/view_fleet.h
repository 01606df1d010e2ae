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

/* The summary: the latest fleet, its rows in their order and filter, the
 * selection (kept by host name across frames), and the host opened with
 * Enter. */
struct tui_fleet {
	struct fleet *fleet; /* a reference; NULL before a fleet came */
	struct fleet_row *rows;
	size_t nrows, cap;
	size_t sel, top; /* selected row, first visible row */
	char sel_host[FLEET_NAME_MAX + 1];
	enum fleet_col sort;
	bool reverse;
	struct lineedit filter;
	bool host_open;
	char host[FLEET_NAME_MAX + 1]; /* the opened host */
};

void tui_fleet_init(struct tui_fleet *fv);
void tui_fleet_fini(struct tui_fleet *fv);
/* A new frame f and the fleet fl beside it (both consumed) from a fleet
 * source: keeps fl for the summary when keep, and returns what the screen
 * shows (a reference): the opened host's frame, or f itself. */
struct frame *tui_fleet_take(struct tui *t, struct frame *f, struct fleet *fl, bool keep);
/* Whether the fleet summary is on the screen (a fleet, no host opened). */
bool tui_fleet_listing(const struct tui *t);
/* The summary's keys (rows of keys.c; they return KEY_* flags): Up, Down,
 * PgUp, PgDn, Home, End select; < > sort, r reverses; / types the filter,
 * Esc clears it; Enter opens the selected host. */
unsigned tui_fleet_key_move(struct tui *t, int ch);
unsigned tui_fleet_key_sort(struct tui *t, int ch);
unsigned tui_fleet_key_filter(struct tui *t, int ch);
unsigned tui_fleet_key_open(struct tui *t, int ch);
/* Back from the opened host to the summary. */
void tui_fleet_close_host(struct tui *t);
/* The filter's prompt: its line, and what follows an edit (the selection
 * back to the first host). */
struct lineedit *tui_fleet_filter_line(struct tui *t);
unsigned tui_fleet_filter_edited(struct tui *t);
/* The summary from row y to y + h - 1. */
void tui_fleet_draw(struct tui *t, int y, int h);
/* The summary's key hints (or its filter's prompt) on row y. */
void tui_fleet_draw_keys(struct tui *t, int y);
/* The source's failure for the header (stale since, error, next retry), or
 * NULL when it answers. Into buf. */
const char *tui_fleet_problem(const struct tui *t, char *buf, size_t n);

#endif
