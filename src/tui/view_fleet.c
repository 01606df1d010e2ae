/* view_fleet: the fleet summary of --prometheus, with one line per host,
 * sorted with < > and r and filtered with /. Enter opens the host's ordinary
 * GPU and process view, and Esc or Backspace comes back; the keys are rows of
 * keys.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fleet.h"
#include "tui/tui_priv.h"
#include "util/clock.h"
#include "util/xalloc.h"

static const struct fleet *fleet_of(const struct tui *t)
{
	return t->fleet.fleet;
}

/* Builds the rows for the current fleet, order and filter. The selection
 * follows its host across frames. */
static void rebuild(struct tui *t)
{
	struct tui_fleet *fv = &t->fleet;
	const struct fleet *fl = fleet_of(t);
	size_t n = fl ? fl->nhosts : 0;

	if (n > fv->cap) {
		fv->rows = xreallocarray(fv->rows, n, sizeof(*fv->rows));
		fv->cap = n;
	}
	struct fleet_view_opts o = {.sort = fv->sort, .reverse = fv->reverse, .filter = lineedit_text(&fv->filter)};
	fv->nrows = fl ? fleet_view(fl, &o, fv->rows) : 0;
	if (fv->sel_host[0])
		for (size_t i = 0; i < fv->nrows; i++)
			if (strcmp(fl->hosts[fv->rows[i].host].name, fv->sel_host) == 0) {
				fv->sel = i;
				break;
			}
	if (fv->sel >= fv->nrows)
		fv->sel = fv->nrows ? fv->nrows - 1 : 0;
}

static void remember(struct tui *t)
{
	struct tui_fleet *fv = &t->fleet;
	const struct fleet *fl = fleet_of(t);
	if (fl && fv->sel < fv->nrows)
		snprintf(fv->sel_host, sizeof(fv->sel_host), "%s", fl->hosts[fv->rows[fv->sel].host].name);
}

struct frame *tui_fleet_take(struct tui *t, struct frame *f, struct fleet *fl, bool keep)
{
	struct tui_fleet *fv = &t->fleet;
	if (keep) {
		fleet_unref(fv->fleet);
		fv->fleet = fleet_ref(fl);
	}
	const struct fleet_host *h = fv->host_open ? fleet_find(fl, fv->host) : NULL;
	if (h) {
		struct frame *hf = frame_ref(h->frame);
		frame_unref(f);
		f = hf;
	}
	fleet_unref(fl);
	return f;
}

bool tui_fleet_listing(const struct tui *t)
{
	return fleet_of(t) && !t->fleet.host_open;
}

const char *tui_fleet_problem(const struct tui *t, char *buf, size_t n)
{
	const struct fleet *fl = fleet_of(t);
	if (!fl || !fl->error || !t->fleet.host_open) /* the summary has a line of its own */
		return NULL;
	uint64_t now = clock_wall_ms();
	uint64_t retry = fl->retry_ms > now ? (fl->retry_ms - now + 999) / 1000 : 0;
	if (fl->good_ts_ms)
		snprintf(buf, n, "STALE (data from %" PRIu64 " s ago, retry in %" PRIu64 " s): %s",
			 now > fl->good_ts_ms ? (now - fl->good_ts_ms) / 1000 : 0, retry, fl->error);
	else
		snprintf(buf, n, "retry in %" PRIu64 " s: %s", retry, fl->error);
	return buf;
}

unsigned tui_fleet_key_move(struct tui *t, int ch)
{
	struct tui_fleet *fv = &t->fleet;
	size_t page = t->rows > 8 ? (size_t)t->rows - 6 : 1;

	rebuild(t);
	size_t last = fv->nrows ? fv->nrows - 1 : 0;
	if (ch == KEY_UP || ch == 'k')
		fv->sel = fv->sel ? fv->sel - 1 : 0;
	else if (ch == KEY_DOWN || ch == 'j')
		fv->sel = fv->sel < last ? fv->sel + 1 : fv->sel;
	else if (ch == KEY_PPAGE)
		fv->sel = fv->sel > page ? fv->sel - page : 0;
	else if (ch == KEY_NPAGE)
		fv->sel = fv->sel + page < last ? fv->sel + page : last;
	else
		fv->sel = ch == KEY_HOME ? 0 : last;
	remember(t);
	rebuild(t);
	return KEYS_REDRAW;
}

unsigned tui_fleet_key_sort(struct tui *t, int ch)
{
	struct tui_fleet *fv = &t->fleet;

	rebuild(t);
	if (ch == 'r')
		fv->reverse = !fv->reverse;
	else
		fv->sort = (enum fleet_col)(((int)fv->sort + (ch == '<' ? FLEET__COUNT - 1 : 1)) % FLEET__COUNT);
	remember(t);
	rebuild(t);
	return KEYS_REDRAW;
}

unsigned tui_fleet_key_filter(struct tui *t, int ch)
{
	if (ch == '/') {
		t->mode = TUI_MODE_FLEET_FILTER;
		return KEYS_REDRAW;
	}
	rebuild(t);
	lineedit_clear(&t->fleet.filter);
	remember(t);
	rebuild(t);
	return KEYS_REDRAW;
}

unsigned tui_fleet_key_open(struct tui *t, int ch)
{
	struct tui_fleet *fv = &t->fleet;
	const struct fleet *fl = fleet_of(t);

	(void)ch;
	rebuild(t);
	if (!fl || fv->sel >= fv->nrows)
		return 0;
	snprintf(fv->host, sizeof(fv->host), "%s", fl->hosts[fv->rows[fv->sel].host].name);
	fv->host_open = true;
	t->table.sel = t->table.top = t->gpu_top = 0;
	lineedit_clear(&t->table.filter);
	t->seq = 0; /* show the host's frame at once */
	return KEYS_REDRAW;
}

void tui_fleet_close_host(struct tui *t)
{
	t->fleet.host_open = false;
	t->mode = TUI_MODE_PROCS;
	t->seq = 0; /* show the summary's frame at once */
}

struct lineedit *tui_fleet_filter_line(struct tui *t)
{
	return &t->fleet.filter;
}

unsigned tui_fleet_filter_edited(struct tui *t)
{
	t->fleet.sel = t->fleet.top = 0;
	t->fleet.sel_host[0] = '\0';
	rebuild(t);
	return KEYS_REDRAW;
}

/* Column widths for the terminal's width. The host column takes what the
 * figures leave, between 12 and 48, and the container the rest. */
static void widths(const struct tui *t, int *w)
{
	int fixed = 0;
	for (int c = 0; c < FLEET__COUNT; c++) {
		w[c] = FLEET_COLS[c].width;
		if (c != FLEET_HOST && c != FLEET_CONTAINER)
			fixed += w[c] + 1;
	}
	int host = t->cols - fixed - 1 - 20;
	w[FLEET_HOST] = host < 12 ? 12 : host > 48 ? 48 : host;
	w[FLEET_CONTAINER] = t->cols - fixed - w[FLEET_HOST] - 1;
	if (w[FLEET_CONTAINER] < 0)
		w[FLEET_CONTAINER] = 0;
}

static void draw_row(struct tui *t, int y, const int *w, const struct fleet_row *r, bool sel)
{
	const struct fleet *fl = fleet_of(t);
	char cell[FLEET_NAME_MAX + 64];
	int x = 0;

	if (sel) {
		tui_attr(t, TC_SEL, true);
		canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	}
	bool bad = r->lost || r->suspended;
	for (int c = 0; c < FLEET__COUNT; c++) {
		if (w[c] <= 0)
			continue;
		fleet_cell(fl, r, (enum fleet_col)c, cell, sizeof(cell));
		if (bad && c == FLEET_BAD && !sel)
			tui_attr(t, TC_CRIT, true);
		if (FLEET_COLS[c].right)
			tui_text_right(t, y, x, cell, w[c]);
		else
			tui_text(t, y, x, cell, w[c]);
		if (bad && c == FLEET_BAD && !sel)
			tui_attr(t, TC_CRIT, false);
		x += w[c] + 1;
	}
	if (sel)
		tui_attr(t, TC_SEL, false);
}

void tui_fleet_draw(struct tui *t, int y, int h)
{
	struct tui_fleet *fv = &t->fleet;
	const struct fleet *fl = fleet_of(t);
	char buf[600];
	int w[FLEET__COUNT], bottom = y + h;

	if (!fl || h < 3)
		return;
	rebuild(t);
	widths(t, w);
	/* Draws the fleet in one line, with what is wrong with the source in red. */
	fleet_status(fl, clock_wall_ms(), buf, sizeof(buf));
	if (fl->error)
		tui_attr(t, TC_CRIT, true);
	tui_text(t, y++, 0, buf, t->cols);
	if (fl->error)
		tui_attr(t, TC_CRIT, false);
	tui_attr(t, TC_HEAD, true);
	canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	int x = 0;
	for (int c = 0; c < FLEET__COUNT; c++) {
		if (w[c] <= 0)
			continue;
		const char *arrow = (int)fv->sort != c ? "" : (FLEET_COLS[c].numeric != fv->reverse)
								      ? (t->utf8 ? "\u25bc" : "v")
								      : (t->utf8 ? "\u25b2" : "^");
		snprintf(buf, sizeof(buf), "%s%s", FLEET_COLS[c].title, arrow);
		if (FLEET_COLS[c].right)
			tui_text_right(t, y, x, buf, w[c]);
		else
			tui_text(t, y, x, buf, w[c]);
		x += w[c] + 1;
	}
	tui_attr(t, TC_HEAD, false);
	y++;
	int rows = bottom - y;
	if (rows < 1)
		rows = 1;
	fv->top = tui_scroll_top(fv->sel, fv->top, fv->nrows, rows, true);
	for (int i = 0; i < rows && fv->top + (size_t)i < fv->nrows; i++)
		draw_row(t, y + i, w, &fv->rows[fv->top + (size_t)i], fv->top + (size_t)i == fv->sel);
	if (!fv->nrows)
		tui_text(t, y, 0, fl->nhosts ? "(no host matches the filter: Esc clears it)" : "(no hosts in this answer)",
			 t->cols);
}

void tui_fleet_draw_keys(struct tui *t, int y)
{
	char buf[600];
	struct key_hint hints[16];
	const enum key_foot own = KEYS_FOOT_OWN;

	tui_attr(t, TC_SEL, true);
	canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	if (t->mode == TUI_MODE_FLEET_FILTER) {
		tui_prompt(t, y, TUI_MODE_FLEET_FILTER);
	} else {
		size_t n = keys_hints(TUI_MODE_FLEET, &own, 1, t->utf8, hints, sizeof(hints) / sizeof(hints[0]));
		keys_join(hints, n, "  ", lineedit_text(&t->fleet.filter), buf, sizeof(buf));
		tui_text(t, y, 0, buf, t->cols);
	}
	tui_attr(t, TC_SEL, false);
}

void tui_fleet_init(struct tui_fleet *fv)
{
	memset(fv, 0, sizeof(*fv));
	lineedit_init(&fv->filter, LINEEDIT_MAX);
}

void tui_fleet_fini(struct tui_fleet *fv)
{
	fleet_unref(fv->fleet);
	fv->fleet = NULL;
	free(fv->rows);
	fv->rows = NULL;
	fv->nrows = fv->cap = 0;
}
