/* sampler: polls every live backend on a worker thread of its own and
 * composes their latest results into frames, with a fleet source's hosts
 * beside them. A backend that hangs stalls only its worker, a backend that
 * fails is closed and re-detected with backoff, and GPUs keep their
 * positions by device_id. */
#ifndef GPUR_SAMPLER_H
#define GPUR_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "model/frame.h"
#include "util/clock.h"

struct fleet;

struct sampler_opts {
	const struct clock *clock;   /* backoff, hang and stale timing */
	const struct backend_env *env; /* for re-detection */
	const char *host;            /* the record's host */
	uint64_t wait_ms;            /* real time a tick waits for its polls */
	uint64_t stale_ms;           /* a slower answer leaves identity only */
	uint64_t hang_note_ms;       /* "no answer from X for N s" after this (5000) */
	uint64_t backoff_min_ms;     /* re-detection backoff, from 1000 doubling ... */
	uint64_t backoff_max_ms;     /* ... to 30000 */
	struct sysstat *sysstat;     /* host figures, or NULL */
};

struct sampler;

/* Takes ownership of the n backends, opened or not, since its worker detects
 * an unopened one with backoff, and starts their workers. Returns NULL, with
 * the backends freed, when a thread cannot be started. */
struct sampler *sampler_new(struct backend **backends, size_t n, const struct sampler_opts *o);
/* Stops the workers. A hung one is abandoned: detached, and freed at its
 * end. */
void sampler_free(struct sampler *s);
/* Requests a poll from every idle worker, waits up to wait_ms for them and
 * returns the composed frame, which the caller unrefs. When fleet is not
 * NULL, *fleet gets the hosts of a fleet source that came beside the frame,
 * which the caller unrefs too, or NULL. */
struct frame *sampler_tick(struct sampler *s, struct fleet **fleet);
/* Paced frames, live with one backend on the real clock, are the other way to
 * run a sampler than ticks. Instead of a tick waking the worker and waiting
 * for it, the worker polls when a frame is due and hands the composed frame
 * over itself, so a healthy poll wakes one thread, not three. The caller's
 * thread is the watchdog. It sleeps on a timer that the worker pushes on
 * after every frame, and wakes only when a frame is wait_ms overdue, as in a
 * hung call. It then composes a frame from what is known, every interval
 * until the worker answers again, so a hung backend never freezes the
 * frames. */
struct sampler_run_opts {
	uint64_t first_due_ms; /* the first frame, after this */
	double interval_s;
	/* Takes each frame and the fleet beside it, or NULL, and unrefs both.
	 * It is called from the worker's thread or the watchdog's, never two
	 * at once. It returns false when it wants no more frames. */
	bool (*frame)(void *ctx, struct frame *fr, struct fleet *fl);
	void *ctx;
};
/* True when s can pace, which takes exactly one backend. */
bool sampler_can_pace(const struct sampler *s);
/* Runs paced frames until p->frame returns false, giving 0, or until
 * sampler_stop_run(), giving 1. Returns -errno, with nothing started, when
 * the timer cannot be made. It returns with pacing off, and no callback runs
 * after it. */
int sampler_run(struct sampler *s, const struct sampler_run_opts *p);
/* Ends sampler_run() at once from any thread, even one not begun yet, and
 * even while the worker's call hangs. */
void sampler_stop_run(struct sampler *s);
/* Sets a new interval for sampler_run() from any thread. The next frame is
 * due that long after the last. */
void sampler_set_interval(struct sampler *s, double interval_s);
/* Where detection stands: the backends open, those that failed to open and
 * are not trying now, and those still trying, whose first attempt has not
 * answered yet. */
struct sampler_census {
	size_t open, failed, pending;
};
void sampler_census(struct sampler *s, struct sampler_census *c);
/* Forgets the backends that never opened and are not trying now, after
 * calling report(name, why) for each, and does not retry them. Call it before
 * publishing frames, because GPU positions start afresh. Returns how many
 * were dropped. */
size_t sampler_drop_absent(struct sampler *s, void (*report)(const char *name, const char *why, void *ctx),
			   void *ctx);
/* The number of backends, and the name and status of one, for the UI. */
size_t sampler_nbackends(const struct sampler *s);
/* The name of backend i. */
const char *sampler_backend_name(const struct sampler *s, size_t i);
/* How many milliseconds the backend's current call has been running, or 0
 * if idle. */
uint64_t sampler_busy_ms(struct sampler *s, size_t i);

#endif
