/* view_groups: the process table grouped (g), with its state and its
 * calls. */
#ifndef GPUR_VIEW_GROUPS_H
#define GPUR_VIEW_GROUPS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/group.h"

struct tui;

/* How the table is grouped, which the settings keep, this frame's groups,
 * the selection, kept by the group's key across frames, and the group opened
 * with Enter. */
struct tui_groups {
	enum group_by by;
	struct grouping list;
	bool open; /* one group's processes are shown, the group with key */
	char key[GROUP_KEY_MAX], label[GROUP_KEY_MAX];
	size_t sel, top; /* selected group and first visible one */
	char sel_key[GROUP_KEY_MAX];
	bool sel_valid;
};

/* Whether the table shows the list of groups, being grouped with none
 * opened. */
bool tui_groups_listing(const struct tui *t);
/* After the view is built, narrows it to the opened group or groups it. */
void tui_groups_after_view(struct tui *t);
/* Moves the selection in the list of groups by delta, clamped. */
void tui_groups_move(struct tui *t, long delta);
/* Keys, which are rows of keys.c and return KEY_* flags. g cycles the
 * grouping, and Enter in the list opens the selected group. */
unsigned tui_groups_key_cycle(struct tui *t, int ch);
unsigned tui_groups_key_open(struct tui *t, int ch);
/* Draws the table's title line when grouped at row y, and returns the rows
 * it took, 0 or 1. */
int tui_groups_title(struct tui *t, int y);
/* Draws the list of groups from row y to y + h - 1. */
void tui_groups_draw(struct tui *t, int y, int h);

#endif
