/* source: where frames come from — the live sampler or a recording — behind
 * one closed interface: the frame pipeline (feed.c) asks a source what it
 * can do (is it recorded, can it seek, does it pace its own frames) only
 * through the calls below, never by looking at which kind it is. A source
 * yields frames and, from a fleet source, the hosts beside each (its own
 * message, model/fleet.h), says when the next one is due, may seek, and
 * keeps what every GPU last read while it was ok (model/seen.h). The kinds
 * of source implement source_priv.h. */
#ifndef GPUR_SOURCE_H
#define GPUR_SOURCE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/frame.h"

struct fleet;
struct replay;
struct sampler;
struct source;

enum source_seek { SOURCE_SEEK_START, SOURCE_SEEK_END };

/* Where a source that paces its own frames (source_pace) hands them. */
struct source_pace {
	double interval_s; /* between frames; 0: the next as soon as one is out */
	/* Takes each frame and the fleet beside it, or NULL (the callee unrefs
	 * both), from a thread of the source's own, never two at once; false:
	 * no more frames. */
	bool (*take)(void *ctx, struct frame *fr, struct fleet *fl);
	void *ctx;
};

/* The live sampler (borrowed) as a source; frames every interval_s, the
 * first after first_due_ms. */
struct source *source_live(struct sampler *s, uint64_t first_due_ms);
/* A recording (borrowed) as a source, paced by its ts_ms (asap: not paced).
 * Once a frame is out, reads the next record ahead to know when it is due. */
struct source *source_replay(struct replay *r, bool asap);
/* NULL is a no-op. */
void source_free(struct source *s);

/* The next frame (caller unrefs) or NULL at the end; every frame is
 * remembered, and a frame with a lost GPU gets f->seen. *fleet: the hosts
 * of a fleet source beside the frame (caller unrefs), or NULL. */
struct frame *source_next(struct source *s, struct fleet **fleet);
/* How long to wait before the next frame (ms): interval_s for a source that
 * keeps no time of its own, the recorded spacing at speed for a recording. */
uint64_t source_due_ms(struct source *s, double interval_s, double speed);

/* Whether the frames are of another machine or time (never signalled). */
bool source_recorded(const struct source *s);
/* The recorded spacing of frames in ms, 0 when unknown or live. Any
 * thread may ask. */
uint64_t source_cadence_ms(struct source *s);
/* Whether source_seek() and source_seek_time() can work here (a recording);
 * false for a source without them, where they return -ENOTSUP. */
bool source_can_seek(const struct source *s);
/* Start: the next frame is the first again. End: reads every remaining
 * frame and returns the last and the fleet beside it (caller unrefs both;
 * NULL when none). Returns 0, or -ENOTSUP where the source cannot seek,
 * or -errno. */
int source_seek(struct source *s, enum source_seek where, struct frame **last, struct fleet **last_fleet,
		uint64_t *skipped);
/* The next frame is the first at or after ts_ms (recorded time); *before:
 * the frames before it. 0, -ENOTSUP (cannot seek), -ENODATA, or -errno. */
int source_seek_time(struct source *s, uint64_t ts_ms, uint64_t *before);
/* The longest a backend has not answered (ms) and its name (*name NULL and
 * 0 when none is busy or the source has no backends). */
uint64_t source_busy_ms(struct source *s, const char **name);
/* While *cancel is set, a long read (a seek to the end, a read waiting for
 * input and interrupted by a signal) gives up. NULL: never. */
void source_set_cancel(struct source *s, const volatile sig_atomic_t *cancel);

/* Whether the source can pace its own frames (live with one backend: its
 * worker is the clock). False for a source that cannot. */
bool source_can_pace(const struct source *s);
/* Hands frames to p->take, each when due, until take returns false (0) or
 * source_pace_stop() is called (1); -ENOTSUP where the source cannot pace,
 * or -errno when pacing cannot start (nothing was handed over). Returns
 * with pacing off: take is not called after it. Frames handed over are
 * counted and remembered as source_next()'s are. */
int source_pace(struct source *s, const struct source_pace *p);
/* Ends source_pace() from any thread (also one not begun yet), at once. */
void source_pace_stop(struct source *s);
/* A new interval for source_pace(), from any thread: the next frame is due
 * that long after the last. */
void source_pace_interval(struct source *s, double interval_s);

#endif
