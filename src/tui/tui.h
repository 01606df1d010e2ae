/* tui: the terminal dashboard (ncursesw), the only part of gpur that
 * includes curses. It reads frames from the feed and sends it only control
 * messages. */
#ifndef GPUR_TUI_H
#define GPUR_TUI_H

#include <signal.h>
#include <stdbool.h>

#include "feed.h"
#include "output/sink.h"

/* What the dashboard is told of the command line. */
struct tui_opts {
	const char *procfs;      /* where the rows' pids are looked up, for signals */
	const char *replay_path; /* the recording played, or NULL when live */
	bool fleet;              /* --prometheus, whose rows are other machines' */
	bool read_only;          /* never signal */
	bool no_color;
	/* Set by a signal handler when gpur is asked to stop; it may be NULL. */
	const volatile sig_atomic_t *stop;
};

/* Runs the dashboard until q, a stop request, a closed terminal or --count.
 * Through want, which may be NULL, it says which processes' /proc figures it
 * needs: those on its screen, or all when it sorts by them. Returns the exit
 * status. */
struct pidwant;
int tui_run(const struct tui_opts *opts, struct feed *feed, struct sink *sink, struct pidwant *want);

#endif
