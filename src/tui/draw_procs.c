/* draw_procs: the process table, sorted, filtered and scrolled, with the
 * selected row kept by identity across frames, and the overlays: the help and
 * the column picker, whose texts the key table makes. The details screen is
 * in view_details.c. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tui/tui_priv.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/xalloc.h"

/* The time the table's TIME column counts to: the frame's own time, so that
 * a replay shows ages as recorded, else now. */
static uint64_t table_now(const struct frame *f)
{
	return f && frame_has(f, FRAME_F_TS) ? f->ts_ms : clock_wall_ms();
}

void tui_build_view(struct tui *t)
{
	const struct frame *f = t->frame;
	struct proctable_opts o = {
		.sort = t->set.sort,
		.reverse = t->set.reverse,
		.filter = lineedit_empty(&t->table.filter) ? NULL : lineedit_text(&t->table.filter),
		.only_user = t->table.only_mine ? t->me : NULL,
		.hidden_gpu = t->table.hide_idle ? t->table.hidden_gpu : NULL,
		.now_ms = table_now(f),
	};

	t->table.nview = 0;
	if (!f)
		return;
	if (t->table.cap < f->nprocs) {
		t->table.cap = f->nprocs;
		t->table.view = xreallocarray(t->table.view, t->table.cap, sizeof(*t->table.view));
	}
	t->table.nview = proctable_view(f, &o, t->table.view, t->table.cap);
	/* Keep the selection on the same process when rows move. */
	size_t keep = t->table.sel < t->table.nview ? t->table.sel : (t->table.nview ? t->table.nview - 1 : 0);
	for (size_t i = 0; i < t->table.nview; i++) {
		const struct gpu_process *p = &f->procs[t->table.view[i]];
		if (p->pid == t->table.sel_pid && p->gpu_index == t->table.sel_dev) {
			keep = i;
			break;
		}
	}
	t->table.sel = keep;
	tui_groups_after_view(t);
	if (t->table.sel >= t->table.nview)
		t->table.sel = t->table.nview ? t->table.nview - 1 : 0;
	for (size_t i = 0; i < t->table.nview; i++) {
		const struct gpu_process *p = &f->procs[t->table.view[i]];
		if (p->pid == t->table.sel_pid && p->gpu_index == t->table.sel_dev) {
			t->table.sel = i;
			break;
		}
	}
}

void tui_move_sel(struct tui *t, long delta)
{
	if (!t->table.nview)
		return;
	long s = (long)t->table.sel + delta;
	s = s < 0 ? 0 : s >= (long)t->table.nview ? (long)t->table.nview - 1 : s;
	t->table.sel = (size_t)s;
	const struct gpu_process *p = tui_selected(t);
	if (p) {
		t->table.sel_pid = p->pid;
		t->table.sel_dev = p->gpu_index;
	}
}

const struct gpu_process *tui_selected(const struct tui *t)
{
	/* The list of groups hides the process rows, so none is selected. */
	if (!t->frame || t->table.sel >= t->table.nview || tui_groups_listing(t))
		return NULL;
	return &t->frame->procs[t->table.view[t->table.sel]];
}

/* Makes CONTAINER as wide as the widest owner among all the rows, so that it
 * does not change as the table scrolls. It is at least its title's width,
 * and at most CONTAINER_MAX_W and a quarter of the terminal, so that COMMAND
 * keeps the most. */
#define CONTAINER_MAX_W 40
static int container_width(struct tui *t, uint64_t now)
{
	const struct frame *f = t->frame;
	int w = PROCTABLE_COLS[PROCTABLE_CONTAINER].width, cap = CONTAINER_MAX_W;
	char cell[600];

	if (t->cols / 4 < cap)
		cap = t->cols / 4 > w ? t->cols / 4 : w;
	for (size_t i = 0; f && i < t->table.nview && w < cap; i++) {
		proctable_cell(f, &f->procs[t->table.view[i]], PROCTABLE_CONTAINER, now, cell, sizeof(cell));
		int cw = tui_text_width(t, cell);
		if (cw > w)
			w = cw < cap ? cw : cap;
	}
	return w;
}

/* Makes PID as wide as the longest pid among the rows, since a recording can
 * hold another system's 32-bit pids, and at least its default width. */
static int pid_width(const struct tui *t)
{
	const struct frame *f = t->frame;
	int w = PROCTABLE_COLS[PROCTABLE_PID].width, digits = 1;
	uint64_t max = 0;

	for (size_t i = 0; f && i < t->table.nview; i++) {
		const struct gpu_process *p = &f->procs[t->table.view[i]];
		if (process_has(p, PROC_F_PID) && p->pid > max)
			max = p->pid;
	}
	for (; max >= 10; max /= 10)
		digits++;
	return digits > w ? digits : w;
}

/* Whether a row of the view is idle. */
static bool any_idle(const struct tui *t)
{
	const struct frame *f = t->frame;
	for (size_t i = 0; f && i < t->table.nview; i++)
		if (f->procs[t->table.view[i]].idle_since_ms)
			return true;
	return false;
}

/* Sets the columns' widths, with PID and CONTAINER as wide as their cells,
 * and which columns show. On a narrow terminal the less telling ones give
 * way so that COMMAND, whose width 0 means the rest, keeps 20. CONTAINER
 * first narrows to its title's width, and the sort column stays. */
static uint32_t column_widths(struct tui *t, uint64_t now, int *width)
{
	static const enum proctable_col give_way[] = {PROCTABLE_MEMBW, PROCTABLE_HOSTMEM, PROCTABLE_TIME,
						       PROCTABLE_TYPE, PROCTABLE_CONTAINER, PROCTABLE_CPU, PROCTABLE_IDLE};
	uint32_t shown = t->set.columns;
	int fixed = 0, room = t->cols - 20;

	/* IDLE shows only while some row is idle, or when it is the sort
	 * column: most of the time no process is. */
	if ((shown >> PROCTABLE_IDLE & 1u) && t->set.sort != PROCTABLE_IDLE && !any_idle(t))
		shown &= ~(1u << PROCTABLE_IDLE);

	for (int c = 0; c < PROCTABLE__COUNT; c++)
		width[c] = PROCTABLE_COLS[c].width;
	width[PROCTABLE_PID] = pid_width(t);
	if (shown >> PROCTABLE_CONTAINER & 1u)
		width[PROCTABLE_CONTAINER] = container_width(t, now);
	for (int c = 0; c < PROCTABLE__COUNT; c++)
		if (shown >> c & 1u)
			fixed += width[c] + 1;
	for (size_t k = 0; k < sizeof(give_way) / sizeof(give_way[0]) && (shown >> PROCTABLE_COMMAND & 1u) && fixed > room;
	     k++) {
		enum proctable_col g = give_way[k];
		int base = PROCTABLE_COLS[g].width;
		if (g == PROCTABLE_CONTAINER && width[g] > base) {
			int cut = fixed - room < width[g] - base ? fixed - room : width[g] - base;
			width[g] -= cut;
			fixed -= cut;
			if (fixed <= room)
				break;
		}
		if ((shown >> g & 1u) && g != t->set.sort) {
			shown &= ~(1u << g);
			fixed -= width[g] + 1;
		}
	}
	return shown;
}

/* Sets where each column shown starts, in table.col_x and table.col_of,
 * which the mouse uses too. A column that does not fit is cut or left
 * out. */
static void place_columns(struct tui *t, uint64_t now)
{
	int width[PROCTABLE__COUNT], x = 0, n = 0;
	uint32_t shown = column_widths(t, now, width);

	t->table.shown = 0;
	for (int c = 0; c < PROCTABLE__COUNT; c++) {
		if (!(shown >> c & 1u))
			continue;
		int w = width[c];
		if (w == 0)
			w = t->cols - x;
		if (x + w > t->cols) {
			if (x + 4 > t->cols)
				break;
			w = t->cols - x;
		}
		t->table.col_x[n] = x;
		t->table.col_of[n++] = (enum proctable_col)c;
		t->table.shown |= 1u << c;
		x += w + 1;
	}
	t->table.col_x[n] = t->cols;
	t->table.ncols = n;
}

/* Draws the titles on row y, the sort column's with its arrow. */
static void draw_titles(struct tui *t, int y)
{
	char title[40];

	tui_attr(t, TC_SEL, true);
	canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	for (int i = 0; i < t->table.ncols; i++) {
		enum proctable_col c = t->table.col_of[i];
		const char *arrow = "";
		if (c == t->set.sort)
			arrow = t->set.reverse ? (t->utf8 ? "\u25b2" : "^") : (t->utf8 ? "\u25bc" : "v");
		fmt_cat(title, sizeof(title), fmt_cat(title, sizeof(title), 0, PROCTABLE_COLS[c].title), arrow);
		int w = t->table.col_x[i + 1] - t->table.col_x[i] - 1;
		if (PROCTABLE_COLS[c].right)
			tui_text_right(t, y, t->table.col_x[i], title, w);
		else
			tui_text(t, y, t->table.col_x[i], title, w);
	}
	tui_attr(t, TC_SEL, false);
}

/* Draws row vi of the view on row y, with unknown cells dimmed and the
 * selected row reversed. */
static void draw_row(struct tui *t, int y, size_t vi, uint64_t now)
{
	const struct frame *f = t->frame;
	const struct gpu_process *p = &f->procs[t->table.view[vi]];
	bool sel = vi == t->table.sel;
	char cell[4200];

	if (sel) {
		tui_attr(t, TC_SEL, true);
		canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	}
	for (int i = 0; i < t->table.ncols; i++) {
		enum proctable_col c = t->table.col_of[i];
		int w = t->table.col_x[i + 1] - t->table.col_x[i] - 1;
		proctable_cell(f, p, c, now, cell, sizeof(cell));
		bool unknown = strcmp(cell, "--") == 0;
		if (unknown && !sel)
			tui_attr(t, TC_DIM, true);
		if (PROCTABLE_COLS[c].right)
			tui_text_right(t, y, t->table.col_x[i], cell, w);
		else
			tui_text(t, y, t->table.col_x[i], cell, w);
		if (unknown && !sel)
			tui_attr(t, TC_DIM, false);
	}
	if (sel)
		tui_attr(t, TC_SEL, false);
}

void tui_draw_procs(struct tui *t, int y, int h)
{
	const struct frame *f = t->frame;
	uint64_t now = table_now(f);

	t->table.y = y;
	t->table.rows = 0;
	if (h < 3 && t->groups.by != GROUP_BY_NONE)
		return;
	int took = tui_groups_title(t, y);
	y += took;
	h -= took;
	if (tui_groups_listing(t)) {
		tui_groups_draw(t, y, h);
		return;
	}
	t->table.y = y;
	if (h < 2)
		return;
	place_columns(t, now);
	draw_titles(t, y);
	int rows = h - 1;
	t->table.rows = rows;
	/* The selection stays in sight. */
	t->table.top = tui_scroll_top(t->table.sel, t->table.top, t->table.nview, rows, false);
	for (int r = 0; r < rows && t->table.top + (size_t)r < t->table.nview; r++)
		draw_row(t, y + 1 + r, t->table.top + (size_t)r, now);
	if (!t->table.nview && f) {
		tui_attr(t, TC_DIM, true);
		tui_text(t, y + 1, 0, f->nprocs ? "(no process matches: / filter, u mine, i idle)" : "(no GPU processes)",
			 t->cols);
		tui_attr(t, TC_DIM, false);
	}
}

/* Draws the help of the screen's mode, made from the key table. It is at most
 * KEYS_HELP_W columns and KEYS_HELP_LINES lines, so that its box fits
 * 80x24. */
static void draw_help(struct tui *t)
{
	char lines[KEYS_HELP_LINES][KEYS_HELP_BYTES];
	int n = (int)keys_help(tui_screen_mode(t), t->utf8, lines, KEYS_HELP_LINES);
	int w = t->cols - 4 < KEYS_HELP_W + 4 ? t->cols - 4 : KEYS_HELP_W + 4, h = n + 2;
	int y = (t->rows - h) / 2, x = (t->cols - w) / 2;

	if (tui_box(t, y, x, h, w, " gpur keys "))
		for (int i = 0; i < n; i++)
			tui_text(t, y + 1 + i, x + 2, lines[i], w - 4);
}

/* Draws the column picker, whose title and last line give its keys'
 * hints. */
static void draw_columns(struct tui *t)
{
	const enum key_foot own = KEYS_FOOT_OWN;
	struct key_hint hints[8];
	char title[96], line[80];
	int h = PROCTABLE__COUNT + 3, w = 40;
	int y = (t->rows - h) / 2, x = (t->cols - w) / 2;

	size_t n = keys_hints(TUI_MODE_COLUMNS, &own, 1, t->utf8, hints, sizeof(hints) / sizeof(hints[0]));
	keys_join(hints, n ? 1 : 0, "", NULL, line, sizeof(line));
	snprintf(title, sizeof(title), " columns: %s ", line);
	if (!tui_box(t, y, x, h, w, title))
		return;
	for (int c = 0; c < PROCTABLE__COUNT; c++) {
		snprintf(line, sizeof(line), "[%c] %s", t->set.columns >> c & 1u ? 'x' : ' ', PROCTABLE_COLS[c].title);
		if (c == t->col_cursor)
			tui_attr(t, TC_SEL, true);
		tui_text(t, y + 1 + c, x + 2, line, w - 4);
		if (c == t->col_cursor)
			tui_attr(t, TC_SEL, false);
	}
	keys_join(hints + (n ? 1 : 0), n ? n - 1 : 0, "   ", NULL, line, sizeof(line));
	tui_text(t, y + h - 2, x + 2, line, w - 4);
}

void tui_draw_overlays(struct tui *t)
{
	if (t->mode == TUI_MODE_HELP)
		draw_help(t);
	tui_details_draw(t);
	tui_tree_draw(t);
	if (t->mode == TUI_MODE_COLUMNS)
		draw_columns(t);
}
