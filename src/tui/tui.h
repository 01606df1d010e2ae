/* tui: the terminal dashboard (ncursesw). The only part of gpur that
 * includes curses; it reads frames from the feed and sends it only control
 * messages. */
#ifndef GPUR_TUI_H
#define GPUR_TUI_H

#include "cli.h"
#include "feed.h"
#include "output/sink.h"

/* Runs the dashboard until q, a signal, a closed terminal or --count.
 * With want (may be NULL), it says which processes' /proc figures it needs:
 * those on its screen, or all when it sorts by them. Returns the exit
 * status. */
struct pidwant;
int tui_run(const struct config *cfg, struct feed *feed, struct sink *sink, struct pidwant *want);

#endif
