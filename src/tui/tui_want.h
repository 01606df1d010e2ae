/* tui_want: which processes' /proc figures the dashboard asks the sampler
 * for (proc/pidwant.h), and what it asked last. */
#ifndef GPUR_TUI_WANT_H
#define GPUR_TUI_WANT_H

#include <stdbool.h>
#include <stddef.h>

struct tui;
struct pidwant;

struct tui_want {
	struct pidwant *set; /* NULL when not asked, because a --log needs every process */
	unsigned pids[256];  /* the pids last asked for */
	size_t n;
	bool all;  /* every pid was asked for */
	bool sent; /* something was asked */
	bool tree, tree_sent; /* the parents were asked for, and whether that was said */
};

/* Tells the sampler whose /proc figures the screen needs: the rows shown, or
 * every process when the table is sorted by CPU or host memory, since the
 * order needs them all, or when more rows are shown than are kept here. It
 * says nothing when that is what it said last, or while the screen is
 * paused. */
void tui_want_update(struct tui *t);
/* At the end, wants every pid again. */
void tui_want_fini(struct tui_want *w);

#endif
