/* view_fleet: the fleet summary of --prometheus — one line per host, sorted
 * with < > and r, filtered with /, Enter opens the host's ordinary GPU and
 * process view, Esc or Backspace comes back. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fleet.h"
#include "tui/tui_priv.h"
#include "util/clock.h"
#include "util/xalloc.h"

#define KEY_ESC 27
#undef CTRL
#define CTRL(c) ((c) & 0x1f)

static const struct fleet *fleet_of(const struct tui *t)
{
	return t->fleet_frame ? t->fleet_frame->fleet : NULL;
}

/* The rows for the current fleet, order and filter; the selection follows
 * its host across frames. */
static void rebuild(struct tui *t)
{
	const struct fleet *fl = fleet_of(t);
	size_t n = fl ? fl->nhosts : 0;

	if (n > t->frows_cap) {
		t->frows = xreallocarray(t->frows, n, sizeof(*t->frows));
		t->frows_cap = n;
	}
	struct fleet_view_opts o = {.sort = t->fsort, .reverse = t->freverse, .filter = lineedit_text(&t->ffilter)};
	t->nfrows = fl ? fleet_view(fl, &o, t->frows) : 0;
	if (t->fsel_host[0])
		for (size_t i = 0; i < t->nfrows; i++)
			if (strcmp(fl->hosts[t->frows[i].host].name, t->fsel_host) == 0) {
				t->fsel = i;
				break;
			}
	if (t->fsel >= t->nfrows)
		t->fsel = t->nfrows ? t->nfrows - 1 : 0;
}

static void remember(struct tui *t)
{
	const struct fleet *fl = fleet_of(t);
	if (fl && t->fsel < t->nfrows)
		snprintf(t->fsel_host, sizeof(t->fsel_host), "%s", fl->hosts[t->frows[t->fsel].host].name);
}

struct frame *tui_fleet_take(struct tui *t, struct frame *f, bool keep)
{
	if (keep) {
		frame_unref(t->fleet_frame);
		t->fleet_frame = frame_ref(f);
	}
	if (t->host_open) {
		const struct fleet_host *h = fleet_find(f->fleet, t->host);
		if (h) {
			struct frame *hf = frame_ref(h->frame);
			frame_unref(f);
			return hf;
		}
	}
	return f;
}

bool tui_fleet_listing(const struct tui *t)
{
	return fleet_of(t) && !t->host_open;
}

const char *tui_fleet_problem(const struct tui *t, char *buf, size_t n)
{
	const struct fleet *fl = fleet_of(t);
	if (!fl || !fl->error || !t->host_open) /* the summary has a line of its own */
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

static void open_host(struct tui *t)
{
	const struct fleet *fl = fleet_of(t);
	if (!fl || t->fsel >= t->nfrows)
		return;
	snprintf(t->host, sizeof(t->host), "%s", fl->hosts[t->frows[t->fsel].host].name);
	t->host_open = true;
	t->sel = t->top = t->gpu_top = 0;
	lineedit_clear(&t->filter);
	t->seq = 0; /* the host's frame at once */
}

static bool filter_key(struct tui *t, int ch)
{
	if (ch == KEY_ESC) {
		lineedit_clear(&t->ffilter);
		t->fediting = false;
	} else if (ch == '\n' || ch == KEY_ENTER || ch == '\r') {
		t->fediting = false;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == CTRL('h')) {
		lineedit_backspace(&t->ffilter);
	} else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f) {
		lineedit_byte(&t->ffilter, (unsigned char)ch);
	}
	t->fsel = t->ftop = 0;
	t->fsel_host[0] = '\0';
	rebuild(t);
	return true;
}

bool tui_fleet_key(struct tui *t, int ch)
{
	if (!fleet_of(t))
		return false;
	if (t->host_open) {
		/* Esc clears the process filter first; then it goes back. */
		bool back = ch == KEY_BACKSPACE || ch == 127 || ch == CTRL('h') || (ch == KEY_ESC && lineedit_empty(&t->filter));
		if (back) {
			t->host_open = false;
			t->show_cmd = t->show_tree = false;
			t->seq = 0;
		}
		return back;
	}
	if (t->fediting)
		return filter_key(t, ch);
	rebuild(t);
	int page = t->rows > 8 ? t->rows - 6 : 1;
	switch (ch) {
	case KEY_UP:
	case 'k':
		t->fsel = t->fsel ? t->fsel - 1 : 0;
		break;
	case KEY_DOWN:
	case 'j':
		t->fsel = t->fsel + 1 < t->nfrows ? t->fsel + 1 : t->fsel;
		break;
	case KEY_PPAGE:
		t->fsel = t->fsel > (size_t)page ? t->fsel - (size_t)page : 0;
		break;
	case KEY_NPAGE:
		t->fsel = t->fsel + (size_t)page < t->nfrows ? t->fsel + (size_t)page : (t->nfrows ? t->nfrows - 1 : 0);
		break;
	case KEY_HOME:
		t->fsel = 0;
		break;
	case KEY_END:
		t->fsel = t->nfrows ? t->nfrows - 1 : 0;
		break;
	case '<':
	case '>':
		t->fsort = (enum fleet_col)(((int)t->fsort + (ch == '<' ? FLEET__COUNT - 1 : 1)) % FLEET__COUNT);
		break;
	case 'r':
		t->freverse = !t->freverse;
		break;
	case '/':
		t->fediting = true;
		break;
	case KEY_ESC:
		lineedit_clear(&t->ffilter);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		open_host(t);
		return true;
	case 'q':
	case KEY_F(10):
	case CTRL('c'):
	case '?':
	case KEY_F(1):
	case 'p':
	case 'd':
	case 'D':
	case KEY_MOUSE:
		return false; /* the dashboard's own */
	default:
		return true; /* process-table keys mean nothing here */
	}
	remember(t);
	rebuild(t);
	return true;
}

/* Column widths for the terminal's width: the host column takes what the
 * figures leave, between 12 and 48; the container the rest. */
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
	const struct fleet *fl = fleet_of(t);
	char buf[600];
	int w[FLEET__COUNT], bottom = y + h;

	if (!fl || h < 3)
		return;
	rebuild(t);
	widths(t, w);
	/* The fleet in one line; what is wrong with the source, in red. */
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
		const char *arrow = (int)t->fsort != c ? "" : (FLEET_COLS[c].numeric != t->freverse)
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
	if (t->fsel < t->ftop)
		t->ftop = t->fsel;
	if (t->fsel >= t->ftop + (size_t)rows)
		t->ftop = t->fsel - (size_t)rows + 1;
	if (t->ftop + (size_t)rows > t->nfrows)
		t->ftop = t->nfrows > (size_t)rows ? t->nfrows - (size_t)rows : 0;
	for (int i = 0; i < rows && t->ftop + (size_t)i < t->nfrows; i++)
		draw_row(t, y + i, w, &t->frows[t->ftop + (size_t)i], t->ftop + (size_t)i == t->fsel);
	if (!t->nfrows)
		tui_text(t, y, 0, fl->nhosts ? "(no host matches the filter: Esc clears it)" : "(no hosts in this answer)",
			 t->cols);
}

void tui_fleet_draw_keys(struct tui *t, int y)
{
	char buf[300];

	tui_attr(t, TC_SEL, true);
	canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	if (t->fediting) {
		tui_prompt(t, y, "filter hosts", &t->ffilter, "(Enter keep, Esc clear)");
	} else {
		snprintf(buf, sizeof(buf), "q quit  %s select  </> sort  r rev  / filter%s%s  %s host's GPUs  ? help",
			 t->utf8 ? "\u2191\u2193" : "j/k", lineedit_empty(&t->ffilter) ? "" : " ",
			 lineedit_text(&t->ffilter), t->utf8 ? "\u23ce" : "Enter");
		tui_text(t, y, 0, buf, t->cols);
	}
	tui_attr(t, TC_SEL, false);
}

void tui_fleet_free(struct tui *t)
{
	frame_unref(t->fleet_frame);
	t->fleet_frame = NULL;
	free(t->frows);
	t->frows = NULL;
	t->nfrows = t->frows_cap = 0;
}
