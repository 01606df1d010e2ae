/* draw_procs: the process table, with its state and its calls. */
#ifndef GPUR_DRAW_PROCS_H
#define GPUR_DRAW_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"
#include "view/lineedit.h"
#include "view/proctable.h"

struct tui;

/* The table: what narrows it, its rows as indexes into the frame's
 * processes, the selection, kept by identity across frames, and where it was
 * drawn, for the mouse. */
struct tui_table {
	struct lineedit filter; /* / */
	bool only_mine;         /* u */
	bool hide_idle;         /* i */
	bool hidden_gpu[FRAME_MAX_GPUS];
	size_t *view, nview, cap;
	size_t sel, top;           /* selected row and first visible row of the view */
	uint64_t sel_pid, sel_dev; /* the selected row's identity */
	int y, rows;               /* the title's row, and the rows under it */
	int col_x[PROCTABLE__COUNT + 1];
	enum proctable_col col_of[PROCTABLE__COUNT];
	int ncols;
	uint32_t shown; /* the columns on screen, of which narrow terminals hide some */
};

/* Draws the process table from row y to y + h - 1. */
void tui_draw_procs(struct tui *t, int y, int h);
/* Rebuilds the view of the process table for the current frame. */
void tui_build_view(struct tui *t);
/* Moves the selection by delta rows, clamped, and keeps its identity. */
void tui_move_sel(struct tui *t, long delta);
/* The selected row's process, or NULL when there is none or the list of
 * groups is shown. */
const struct gpu_process *tui_selected(const struct tui *t);

#endif
