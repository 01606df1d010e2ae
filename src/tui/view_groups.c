/* view_groups: the process table grouped (g). It shows the list of groups,
 * one row each, and one opened group (Enter), whose processes the table
 * shows until Esc or Backspace (keys.c's key_back). The aggregation is
 * group.c's. */
#include <stdio.h>
#include <string.h>

#include "tui/tui_priv.h"

bool tui_groups_listing(const struct tui *t)
{
	return t->groups.by != GROUP_BY_NONE && !t->groups.open;
}

void tui_groups_after_view(struct tui *t)
{
	struct tui_groups *g = &t->groups;

	if (g->by == GROUP_BY_NONE || !t->frame) {
		g->list.ngroups = 0;
		return;
	}
	if (g->open) {
		t->table.nview = group_filter(t->frame, t->table.view, t->table.nview, g->by, g->key);
		return;
	}
	group_build(&g->list, t->frame, t->table.view, t->table.nview, g->by, proctable_group_sort(t->set.sort),
		    t->set.reverse);
	/* The selection stays on the same group when groups move. */
	size_t n = g->list.ngroups, keep = g->sel < n ? g->sel : (n ? n - 1 : 0);
	char key[GROUP_KEY_MAX];
	for (size_t i = 0; g->sel_valid && i < n; i++) {
		group_key(&t->frame->procs[g->list.groups[i].first], g->by, key);
		if (strcmp(key, g->sel_key) == 0) {
			keep = i;
			break;
		}
	}
	g->sel = keep;
}

static void remember_group(struct tui *t)
{
	if (t->groups.sel < t->groups.list.ngroups) {
		group_key(&t->frame->procs[t->groups.list.groups[t->groups.sel].first], t->groups.by, t->groups.sel_key);
		t->groups.sel_valid = true;
	}
}

void tui_groups_move(struct tui *t, long delta)
{
	size_t n = t->groups.list.ngroups;
	if (!n)
		return;
	long s = (long)t->groups.sel + delta;
	t->groups.sel = s < 0 ? 0 : s >= (long)n ? n - 1 : (size_t)s;
	remember_group(t);
}

unsigned tui_groups_key_open(struct tui *t, int ch)
{
	(void)ch;
	if (t->groups.sel >= t->groups.list.ngroups)
		return 0;
	const struct gpu_process *p = &t->frame->procs[t->groups.list.groups[t->groups.sel].first];
	group_key(p, t->groups.by, t->groups.key);
	group_label(p, t->groups.by, t->groups.label, sizeof(t->groups.label));
	t->groups.open = true;
	t->table.sel = t->table.top = 0;
	return KEYS_REDRAW | KEYS_REBUILD;
}

unsigned tui_groups_key_cycle(struct tui *t, int ch)
{
	char msg[64];

	(void)ch;
	t->groups.by = (enum group_by)((t->groups.by + 1) % GROUP_BY__COUNT);
	t->groups.open = false;
	t->groups.sel = t->groups.top = 0;
	t->groups.sel_valid = false;
	t->set.group = t->groups.by;
	t->set_dirty = true;
	snprintf(msg, sizeof(msg), t->groups.by ? "grouped by %s" : "not grouped", group_name(t->groups.by));
	tui_set_status(t, msg);
	return KEYS_REDRAW | KEYS_REBUILD;
}

int tui_groups_title(struct tui *t, int y)
{
	char buf[GROUP_KEY_MAX + 128];

	if (t->groups.by == GROUP_BY_NONE)
		return 0;
	if (t->groups.open)
		snprintf(buf, sizeof(buf), "%s %s: %zu process%s   (Esc: back to the groups)",
			 group_name(t->groups.by), t->groups.label, t->table.nview, t->table.nview == 1 ? "" : "es");
	else
		snprintf(buf, sizeof(buf), "grouped by %s: %zu group%s   (Enter opens, g: next grouping)",
			 group_name(t->groups.by), t->groups.list.ngroups, t->groups.list.ngroups == 1 ? "" : "s");
	canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	tui_attr(t, TC_HEAD, true);
	tui_text(t, y, 0, buf, t->cols); /* the label is made safe here */
	tui_attr(t, TC_HEAD, false);
	return 1;
}

/* The group table's columns, with numbers first and the owner taking the
 * rest. */
enum { GC_MEM, GC_IDLE, GC_UTIL, GC_PROCS, GC_GPUS, GC_NAME, GC__COUNT };
static const struct {
	const char *title;
	int width;
	bool right;
} GCOLS[GC__COUNT] = {
	[GC_MEM] = {"GPU-MEM", 8, true}, [GC_IDLE] = {"IDLE-MEM", 8, true}, [GC_UTIL] = {"GPU%", 5, true},
	[GC_PROCS] = {"PROCS", 6, true},
	[GC_GPUS] = {"GPUS", 10, false}, [GC_NAME] = {NULL, 0, false},
};

/* The group column the table's sort column sorts by (group_build). */
static int sorted_column(enum proctable_col c)
{
	static const int by_sort[] = {
		[GROUP_SORT_MEM] = GC_MEM, [GROUP_SORT_UTIL] = GC_UTIL, [GROUP_SORT_GPUS] = GC_GPUS,
		[GROUP_SORT_LABEL] = GC_NAME, [GROUP_SORT_PROCS] = GC_PROCS,
	};
	return by_sort[proctable_group_sort(c)];
}

static void group_cell(const struct tui *t, const struct group *grp, int c, char *buf, size_t n)
{
	switch (c) {
	case GC_MEM:
		tui_size(buf, n, grp->mem_known, field_num_u64(grp->mem_bytes));
		break;
	case GC_IDLE:
		/* What its idle processes hold; blank when none is idle. */
		if (grp->nidle)
			tui_size(buf, n, true, field_num_u64(grp->idle_bytes));
		else if (n)
			buf[0] = '\0';
		break;
	case GC_UTIL:
		if (grp->util_known)
			snprintf(buf, n, "%.0f", field_num_whole(grp->util_pct));
		else
			snprintf(buf, n, "--");
		break;
	case GC_PROCS:
		snprintf(buf, n, "%zu", grp->nprocs);
		break;
	case GC_GPUS:
		group_gpus(grp, buf, n);
		break;
	default: {
		const struct gpu_process *p = &t->frame->procs[grp->first];
		group_label(p, t->groups.by, buf, n);
		/* A name gets its id beside it, so that two alike stay apart. */
		if (t->groups.by == GROUP_BY_CONTAINER && process_has(p, PROC_F_CONTAINER) && p->container &&
		    strcmp(buf, p->container) != 0) {
			size_t at = strlen(buf);
			snprintf(buf + at, n - at, "  %s", p->container);
		}
		if (!grp->mem_known) {
			size_t at = strlen(buf);
			snprintf(buf + at, n - at, "  (GPU memory of %zu unknown)", grp->nmem_unknown);
		}
	}
	}
}

void tui_groups_draw(struct tui *t, int y, int h)
{
	char cell[GROUP_KEY_MAX * 2 + 64], title[64];
	int x[GC__COUNT + 1], at = 0;
	const struct grouping *g = &t->groups.list;

	t->table.y = y;
	t->table.rows = 0;
	t->table.ncols = 0; /* no sorting by a click on a group title */
	if (h < 2)
		return;
	/* IDLE-MEM shows only while some group holds idle memory. */
	bool hide[GC__COUNT] = {[GC_IDLE] = true};
	for (size_t i = 0; i < g->ngroups && hide[GC_IDLE]; i++)
		hide[GC_IDLE] = g->groups[i].nidle == 0;
	for (int c = 0; c < GC__COUNT; c++) {
		x[c] = at;
		if (!hide[c])
			at += GCOLS[c].width + 1;
	}
	x[GC__COUNT] = t->cols;
	int sorted = sorted_column(t->set.sort);
	tui_attr(t, TC_SEL, true);
	canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	for (int c = 0; c < GC__COUNT; c++) {
		if (hide[c])
			continue;
		const char *arrow = c != sorted ? "" : t->set.reverse ? (t->utf8 ? "\u25b2" : "^") : (t->utf8 ? "\u25bc" : "v");
		const char *name = GCOLS[c].title;
		char upper[16];
		if (!name) {
			snprintf(upper, sizeof(upper), "%s", group_name(t->groups.by));
			for (char *s = upper; *s; s++)
				*s = (char)(*s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s);
			name = upper;
		}
		snprintf(title, sizeof(title), "%s%s", name, arrow);
		int w = (c + 1 < GC__COUNT ? x[c + 1] : t->cols + 1) - x[c] - 1;
		if (GCOLS[c].right)
			tui_text_right(t, y, x[c], title, w);
		else
			tui_text(t, y, x[c], title, w);
	}
	tui_attr(t, TC_SEL, false);

	int rows = h - 1;
	t->table.rows = rows;
	t->groups.top = tui_scroll_top(t->groups.sel, t->groups.top, g->ngroups, rows, false);
	for (int r = 0; r < rows && t->groups.top + (size_t)r < g->ngroups; r++) {
		size_t gi = t->groups.top + (size_t)r;
		bool sel = gi == t->groups.sel;
		if (sel) {
			tui_attr(t, TC_SEL, true);
			canvas_hline(&t->canvas, y + 1 + r, 0, ' ', t->cols);
		}
		for (int c = 0; c < GC__COUNT; c++) {
			if (hide[c])
				continue;
			int w = (c + 1 < GC__COUNT ? x[c + 1] : t->cols + 1) - x[c] - 1;
			group_cell(t, &g->groups[gi], c, cell, sizeof(cell));
			bool dim = !sel && strcmp(cell, "--") == 0;
			if (dim)
				tui_attr(t, TC_DIM, true);
			if (GCOLS[c].right)
				tui_text_right(t, y + 1 + r, x[c], cell, w);
			else
				tui_text(t, y + 1 + r, x[c], cell, w);
			if (dim)
				tui_attr(t, TC_DIM, false);
		}
		if (sel)
			tui_attr(t, TC_SEL, false);
	}
	if (!g->ngroups && t->frame) {
		tui_attr(t, TC_DIM, true);
		tui_text(t, y + 1, 0, t->frame->nprocs ? "(no process matches: / filter, u mine, i idle)" : "(no GPU processes)",
			 t->cols);
		tui_attr(t, TC_DIM, false);
	}
}
