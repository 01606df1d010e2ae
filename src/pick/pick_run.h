/* pick_run: --select and --wait over a source, live, a fleet or a
 * recording. --select polls for --stable (or reads a recording to its end)
 * and prints the N best free GPUs; --wait polls until N are free, says so
 * on a status line meanwhile, and hands back what to run. */
#ifndef GPUR_PICK_RUN_H
#define GPUR_PICK_RUN_H

#include <signal.h>
#include <stdbool.h>

#include "model/gpusel.h"
#include "pick/pick.h"
#include "pick/pick_exec.h"
#include "source.h"

struct pick_env {
	struct source *source;  /* borrowed */
	bool recorded;          /* a recording: its ts_ms are the clock, and it ends */
	bool fleet;             /* a fleet source (--prometheus), whose hosts come beside its frames */
	double interval;        /* seconds between polls; for a recording, the step of a record without ts_ms */
	double warmup;          /* live, seconds from the first poll, which does not count, to the next */
	const struct gpusel *sel; /* --gpus, or NULL */
	/* Set by the signal handlers to the number of the signal that asks gpur
	 * to stop. */
	const volatile sig_atomic_t *stop;
};

/* Runs --select or --wait as o says, with messages on stderr and --select's
 * choice on stdout. Returns the exit status: 0; 1 when too few GPUs are
 * free for --select, or on a failure; 124 when --wait timed out; 128 + N
 * when signal N stopped it. When --wait has its GPUs, *launch gets what to
 * run (pick_exec() runs it) and the status is 0. */
int pick_run(const struct pick_opts *o, const struct pick_env *e, struct pick_launch **launch);

#endif
