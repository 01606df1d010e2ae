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
	return t->fleet.frame ? t->fleet.frame->fleet : NULL;
}

/* The rows for the current fleet, order and filter; the selection follows
 * its host across frames. */
static void rebuild(struct tui *t)
{
	const struct fleet *fl = fleet_of(t);
	size_t n = fl ? fl->nhosts : 0;

	if (n > t->fleet.cap) {
		t->fleet.rows = xreallocarray(t->fleet.rows, n, sizeof(*t->fleet.rows));
		t->fleet.cap = n;
	}
	struct fleet_view_opts o = {.sort = t->fleet.sort, .reverse = t->fleet.reverse, .filter = lineedit_text(&t->fleet.filter)};
	t->fleet.nrows = fl ? fleet_view(fl, &o, t->fleet.rows) : 0;
	if (t->fleet.sel_host[0])
		for (size_t i = 0; i < t->fleet.nrows; i++)
			if (strcmp(fl->hosts[t->fleet.rows[i].host].name, t->fleet.sel_host) == 0) {
				t->fleet.sel = i;
				break;
			}
	if (t->fleet.sel >= t->fleet.nrows)
		t->fleet.sel = t->fleet.nrows ? t->fleet.nrows - 1 : 0;
}

static void remember(struct tui *t)
{
	const struct fleet *fl = fleet_of(t);
	if (fl && t->fleet.sel < t->fleet.nrows)
		snprintf(t->fleet.sel_host, sizeof(t->fleet.sel_host), "%s", fl->hosts[t->fleet.rows[t->fleet.sel].host].name);
}

struct frame *tui_fleet_take(struct tui *t, struct frame *f, bool keep)
{
	if (keep) {
		frame_unref(t->fleet.frame);
		t->fleet.frame = frame_ref(f);
	}
	if (t->fleet.host_open) {
		const struct fleet_host *h = fleet_find(f->fleet, t->fleet.host);
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

static void open_host(struct tui *t)
{
	const struct fleet *fl = fleet_of(t);
	if (!fl || t->fleet.sel >= t->fleet.nrows)
		return;
	snprintf(t->fleet.host, sizeof(t->fleet.host), "%s", fl->hosts[t->fleet.rows[t->fleet.sel].host].name);
	t->fleet.host_open = true;
	t->table.sel = t->table.top = t->gpu_top = 0;
	lineedit_clear(&t->table.filter);
	t->seq = 0; /* the host's frame at once */
}

static bool filter_key(struct tui *t, int ch)
{
	if (ch == KEY_ESC) {
		lineedit_clear(&t->fleet.filter);
		t->fleet.editing = false;
	} else if (ch == '\n' || ch == KEY_ENTER || ch == '\r') {
		t->fleet.editing = false;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == CTRL('h')) {
		lineedit_backspace(&t->fleet.filter);
	} else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f) {
		lineedit_byte(&t->fleet.filter, (unsigned char)ch);
	}
	t->fleet.sel = t->fleet.top = 0;
	t->fleet.sel_host[0] = '\0';
	rebuild(t);
	return true;
}

bool tui_fleet_key(struct tui *t, int ch)
{
	if (!fleet_of(t))
		return false;
	if (t->fleet.host_open) {
		/* Esc clears the process filter first; then it goes back. */
		bool back = ch == KEY_BACKSPACE || ch == 127 || ch == CTRL('h') || (ch == KEY_ESC && lineedit_empty(&t->table.filter));
		if (back) {
			t->fleet.host_open = false;
			t->show_cmd = t->show_tree = false;
			t->seq = 0;
		}
		return back;
	}
	if (t->fleet.editing)
		return filter_key(t, ch);
	rebuild(t);
	int page = t->rows > 8 ? t->rows - 6 : 1;
	switch (ch) {
	case KEY_UP:
	case 'k':
		t->fleet.sel = t->fleet.sel ? t->fleet.sel - 1 : 0;
		break;
	case KEY_DOWN:
	case 'j':
		t->fleet.sel = t->fleet.sel + 1 < t->fleet.nrows ? t->fleet.sel + 1 : t->fleet.sel;
		break;
	case KEY_PPAGE:
		t->fleet.sel = t->fleet.sel > (size_t)page ? t->fleet.sel - (size_t)page : 0;
		break;
	case KEY_NPAGE:
		t->fleet.sel = t->fleet.sel + (size_t)page < t->fleet.nrows ? t->fleet.sel + (size_t)page : (t->fleet.nrows ? t->fleet.nrows - 1 : 0);
		break;
	case KEY_HOME:
		t->fleet.sel = 0;
		break;
	case KEY_END:
		t->fleet.sel = t->fleet.nrows ? t->fleet.nrows - 1 : 0;
		break;
	case '<':
	case '>':
		t->fleet.sort = (enum fleet_col)(((int)t->fleet.sort + (ch == '<' ? FLEET__COUNT - 1 : 1)) % FLEET__COUNT);
		break;
	case 'r':
		t->fleet.reverse = !t->fleet.reverse;
		break;
	case '/':
		t->fleet.editing = true;
		break;
	case KEY_ESC:
		lineedit_clear(&t->fleet.filter);
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
		const char *arrow = (int)t->fleet.sort != c ? "" : (FLEET_COLS[c].numeric != t->fleet.reverse)
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
	if (t->fleet.sel < t->fleet.top)
		t->fleet.top = t->fleet.sel;
	if (t->fleet.sel >= t->fleet.top + (size_t)rows)
		t->fleet.top = t->fleet.sel - (size_t)rows + 1;
	if (t->fleet.top + (size_t)rows > t->fleet.nrows)
		t->fleet.top = t->fleet.nrows > (size_t)rows ? t->fleet.nrows - (size_t)rows : 0;
	for (int i = 0; i < rows && t->fleet.top + (size_t)i < t->fleet.nrows; i++)
		draw_row(t, y + i, w, &t->fleet.rows[t->fleet.top + (size_t)i], t->fleet.top + (size_t)i == t->fleet.sel);
	if (!t->fleet.nrows)
		tui_text(t, y, 0, fl->nhosts ? "(no host matches the filter: Esc clears it)" : "(no hosts in this answer)",
			 t->cols);
}

void tui_fleet_draw_keys(struct tui *t, int y)
{
	char buf[300];

	tui_attr(t, TC_SEL, true);
	canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	if (t->fleet.editing) {
		tui_prompt(t, y, "filter hosts", &t->fleet.filter, "(Enter keep, Esc clear)");
	} else {
		snprintf(buf, sizeof(buf), "q quit  %s select  </> sort  r rev  / filter%s%s  %s host's GPUs  ? help",
			 t->utf8 ? "\u2191\u2193" : "j/k", lineedit_empty(&t->fleet.filter) ? "" : " ",
			 lineedit_text(&t->fleet.filter), t->utf8 ? "\u23ce" : "Enter");
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
	frame_unref(fv->frame);
	fv->frame = NULL;
	free(fv->rows);
	fv->rows = NULL;
	fv->nrows = fv->cap = 0;
}
