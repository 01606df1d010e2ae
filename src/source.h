/* source: where frames come from, the live sampler or a recording, behind
 * one closed interface. The frame pipeline (feed.c) asks a source what it
 * can do, whether it is recorded, can seek or paces its own frames, only
 * through the calls below, never by looking at which kind it is. A source
 * yields frames and, for a fleet source, the hosts beside each as a message
 * of their own (model/fleet.h). It says when the next frame is due, may
 * seek, and keeps what every GPU last read while it was ok (model/seen.h).
 * The kinds of source implement source_priv.h. */
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
	double interval_s; /* between frames, 0 for the next as soon as one is out */
	/* Takes each frame and the fleet beside it, or NULL, and unrefs both.
	 * It is called from a thread of the source's own, never two at once,
	 * and returns false when it wants no more frames. */
	bool (*take)(void *ctx, struct frame *fr, struct fleet *fl);
	void *ctx;
};

/* The live sampler, borrowed, as a source, with frames every interval_s and
 * the first after first_due_ms. */
struct source *source_live(struct sampler *s, uint64_t first_due_ms);
/* A recording, borrowed, as a source, paced by its ts_ms unless asap is set.
 * Once a frame is out, it reads the next record ahead to know when that is
 * due. */
struct source *source_replay(struct replay *r, bool asap);
/* NULL is a no-op. */
void source_free(struct source *s);

/* The next frame, which the caller unrefs, or NULL at the end. Every frame is
 * remembered, and a frame with a lost GPU gets f->seen. *fleet gets the
 * hosts of a fleet source beside the frame, which the caller unrefs, or
 * NULL. */
struct frame *source_next(struct source *s, struct fleet **fleet);
/* How long in ms to wait before the next frame: interval_s for a source that
 * keeps no time of its own, and the recorded spacing at speed for a
 * recording. */
uint64_t source_due_ms(struct source *s, double interval_s, double speed);

/* Whether the frames are of another machine or time, and so never
 * signalled. */
bool source_recorded(const struct source *s);
/* The recorded spacing of frames in ms, 0 when unknown or live. Any
 * thread may ask. */
uint64_t source_cadence_ms(struct source *s);
/* Whether source_seek() and source_seek_time() can work here, as on a
 * recording. It is false for a source without them, where they return
 * -ENOTSUP. */
bool source_can_seek(const struct source *s);
/* Seeking to the start makes the next frame the first again. Seeking to the
 * end reads every remaining frame and returns the last and the fleet beside
 * it, which the caller unrefs, or NULL when there is none. Returns 0,
 * -ENOTSUP where the source cannot seek, or -errno. */
int source_seek(struct source *s, enum source_seek where, struct frame **last, struct fleet **last_fleet,
		uint64_t *skipped);
/* Makes the next frame the first at or after ts_ms in recorded time, with
 * the number of frames before it in *before. Returns 0, -ENOTSUP when the
 * source cannot seek, -ENODATA, or -errno. */
int source_seek_time(struct source *s, uint64_t ts_ms, uint64_t *before);
/* The longest time in ms that a backend has not answered, with its name. It
 * is 0, with *name NULL, when none is busy or the source has no backends. */
uint64_t source_busy_ms(struct source *s, const char **name);
/* While *cancel is set, a long read, such as a seek to the end or a read
 * waiting for input and interrupted by a signal, gives up. With NULL it
 * never does. */
void source_set_cancel(struct source *s, const volatile sig_atomic_t *cancel);

/* Whether the source can pace its own frames, as a live one with one backend
 * can, its worker being the clock. It is false for a source that cannot. */
bool source_can_pace(const struct source *s);
/* Hands frames to p->take, each when due, until take returns false, giving
 * 0, or source_pace_stop() is called, giving 1. Returns -ENOTSUP where the
 * source cannot pace, or -errno when pacing cannot start, with nothing
 * handed over. It returns with pacing off, and take is not called after it.
 * Frames handed over are counted and remembered as source_next()'s are. */
int source_pace(struct source *s, const struct source_pace *p);
/* Ends source_pace() at once from any thread, even one not begun yet. */
void source_pace_stop(struct source *s);
/* Sets a new interval for source_pace() from any thread. The next frame is
 * due that long after the last. */
void source_pace_interval(struct source *s, double interval_s);

#endif
