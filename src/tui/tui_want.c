/* tui_want: the processes whose /proc figures the screen needs. When the
 * dashboard runs live and nothing else reads them, with no --log, only the
 * rows on its screen have their CPU % and RSS read again each poll. What it
 * asks is sent only when it changes. */
#include "tui/tui_want.h"

#include <string.h>

#include "proc/pidwant.h"
#include "tui/tui_priv.h"

void tui_want_update(struct tui *t)
{
	struct tui_want *w = &t->want;
	unsigned pids[sizeof(w->pids) / sizeof(w->pids[0])];

	if (!w->set || t->frozen)
		return;
	/* Parents cost a probe per poll, so they are wanted only while the
	 * process tree is open. */
	bool tree = t->mode == TUI_MODE_TREE;
	if (!w->tree_sent || tree != w->tree) {
		pidwant_tree(w->set, tree);
		w->tree = tree;
		w->tree_sent = true;
	}
	long got = proctable_wanted(t->frame, t->table.view, t->table.nview, t->table.top,
				    t->table.rows > 0 ? (size_t)t->table.rows : 0, t->set.sort, pids,
				    sizeof(pids) / sizeof(pids[0]));
	bool all = got < 0;
	size_t n = all ? 0 : (size_t)got;
	if (w->sent && all == w->all && (all || (n == w->n && memcmp(pids, w->pids, n * sizeof(*pids)) == 0)))
		return; /* as before */
	if (all)
		pidwant_all(w->set);
	else
		pidwant_set(w->set, pids, n);
	w->all = all;
	w->n = n;
	memcpy(w->pids, pids, n * sizeof(*pids));
	w->sent = true;
}

void tui_want_fini(struct tui_want *w)
{
	if (w->set) {
		pidwant_all(w->set);
		pidwant_tree(w->set, true);
	}
}
