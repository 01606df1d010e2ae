/* scripted_backend: a live backend driven by a test's script (GPU count,
 * per-GPU loss, library failure, open failures, hangs), and a clock the test
 * moves. Used to prove the sampler without hardware. */
#ifndef GPUR_SCRIPTED_BACKEND_H
#define GPUR_SCRIPTED_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"
#include "sampler.h"
#include "util/clock.h"

#define SCRIPT_MAX_GPUS 16

struct script {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char name[16];
	const char *driver;        /* NULL: the backend reports none */
	size_t ngpus;
	bool lost[SCRIPT_MAX_GPUS];  /* this GPU answers GPU_IS_LOST */
	bool fail_polls;           /* polls fail as a whole (-ENODEV) */
	int open_failures;         /* the next N opens fail */
	bool hang;                 /* poll blocks while set */
	bool stray_row;            /* add a process row past the last GPU */
	bool remote;               /* its pids are another machine's */
	unsigned pid_base;         /* row pids: pid_base + GPU index (default 1000) */
	/* Counters (under mu): */
	int polls, opens, reinits;
	bool in_poll;
	unsigned long long open_times[64]; /* fake-clock ms of each open */
	const struct clock *clock;
};

void script_init(struct script *sc, const char *name, size_t ngpus, const struct clock *clock);
void script_fini(struct script *sc);
/* A backend bound to sc; starts open (as if detected) when opened is true. */
struct backend *scripted_backend_new(struct script *sc, bool opened);
/* Blocks until the backend is inside a hanging poll (sc->in_poll). */
void script_wait_in_poll(struct script *sc);
/* Sets hang = false and wakes the poll. */
void script_release(struct script *sc);
/* Runs fn(sc, arg) under the script's lock. */
void script_set(struct script *sc, void (*fn)(struct script *, void *), void *arg);

struct fake_clock {
	struct clock c;
	atomic_ullong ms;
};
void fake_clock_init(struct fake_clock *fc, unsigned long long start_ms);
/* The sampler options the tests use: the fake clock and env given, host
 * "testhost", a stale frame after 1 s, a hang said after 5 s, re-detection
 * backing off from 1 s to 30 s, and wait_ms for a poll's answer. */
struct sampler_opts script_sampler_opts(struct fake_clock *fc, struct backend_env *env, uint64_t wait_ms);
void fake_clock_advance(struct fake_clock *fc, unsigned long long ms);

#endif
