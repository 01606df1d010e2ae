/* hooks: --on-event. The frame pipeline hands every frame's events over;
 * those of the chosen kinds wait in a bounded queue, and a thread of their
 * own runs a few hooks at once, each given one event as a JSON line on its
 * standard input and GPUR_EVENT, GPUR_GPU and GPUR_PID in its environment.
 * A poll never waits for a hook. A hook that fails, hangs past its time or
 * cannot start, and events dropped from a full queue, become note events in
 * a later frame; those notes never run a hook themselves. */
#ifndef GPUR_HOOKS_H
#define GPUR_HOOKS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/frame.h"

#define HOOKS_QUEUE_MAX 256   /* events waiting for a hook; more are dropped */
#define HOOKS_RUNNING_MAX 4   /* hooks that run at once */
#define HOOKS_TIMEOUT_MS 10000 /* a hook still running then is killed, with its process group */
#define HOOKS_GRACE_MS 2000   /* between SIGTERM and SIGKILL when gpur stops */
/* While events are dropped, the note that counts them comes when the queue
 * has emptied, or after this long when it has not. */
#define HOOKS_DROP_NOTE_MS 60000
/* The longest GPUR_EVENT value, in bytes. */
#define HOOKS_ENV_MAX 64

struct hooks_opts {
	const char *command; /* run as /bin/sh -c command, copied */
	uint32_t kinds;      /* the kinds that run it (output/hook_kinds.h) */
	/* A dashboard owns the terminal: a hook's output goes nowhere, and the
	 * notes only into frames. Otherwise the hook's output and the notes
	 * also go to gpur's standard error. */
	bool quiet;
	uint64_t timeout_ms; /* 0 for HOOKS_TIMEOUT_MS */
	uint64_t grace_ms;   /* 0 for HOOKS_GRACE_MS */
};

/* What the runner has done, for tests and the manual's promises. */
struct hooks_stats {
	uint64_t queued, dropped, started, failed;
	unsigned running, running_max; /* now, and the most at once */
};

struct hooks;

/* Takes a copy of the environment, less any GPUR_EVENT, GPUR_GPU and
 * GPUR_PID, and starts the thread. Returns NULL with errno set when it
 * cannot. hooks_free() frees it. */
struct hooks *hooks_new(const struct hooks_opts *o);
/* Queues a hook for each event of fr whose kind was chosen, then adds to fr
 * the notes the runner has for it. fr is the frame being delivered, not yet
 * published. It never waits for a hook. */
void hooks_feed(struct hooks *h, struct frame *fr);
/* Blocks until no event waits and no hook runs, or until a signal handler
 * sets *stop (stop may be NULL); SIGINT, SIGTERM and SIGHUP are let in only
 * while it waits. Returns true when every hook has ended. */
bool hooks_wait(struct hooks *h, const volatile sig_atomic_t *stop);
/* Drops the events still waiting, sends SIGTERM to the process group of
 * every hook that runs and SIGKILL after the grace, reaps them all, stops
 * the thread and frees h. NULL is a no-op. */
void hooks_free(struct hooks *h);
void hooks_stats(struct hooks *h, struct hooks_stats *st);

#endif
