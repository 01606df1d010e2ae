/* source: where frames come from — the live sampler or a recording — behind
 * one interface, so the frame pipeline (feed.c) never asks which it is. A
 * source yields frames, says when the next one is due, may seek, and keeps
 * what every GPU last read while it was ok (model/seen.h). */
#ifndef GPUR_SOURCE_H
#define GPUR_SOURCE_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "record/replay.h"
#include "model/frame.h"
#include "model/seen.h"
#include "sampler.h"

enum source_seek { SOURCE_SEEK_START, SOURCE_SEEK_END };

struct source;

struct source_ops {
	/* The next frame (caller unrefs), NULL at the end. */
	struct frame *(*next)(struct source *s);
	/* Milliseconds between the frame last returned and the next one, at
	 * speed; interval_s where the source keeps no time of its own. */
	uint64_t (*due_ms)(struct source *s, double interval_s, double speed);
	/* Back to the start (0 or -errno). Optional: -ENOTSUP. */
	int (*rewind)(struct source *s);
	/* The next frame is the first at or after ts_ms (the last one when
	 * none is that late); *before: frames before it. Optional. */
	int (*seek_time)(struct source *s, uint64_t ts_ms, uint64_t *before);
	/* While *cancel is set, a read blocked by a signal gives up (the
	 * source ends). Optional. */
	void (*set_cancel)(struct source *s, const volatile sig_atomic_t *cancel);
	/* The longest a backend has not answered, and its name. Optional. */
	uint64_t (*busy_ms)(struct source *s, const char **name);
	void (*destroy)(struct source *s);
};

struct source {
	const struct source_ops *ops;
	bool recorded;        /* frames of another machine or time: never signalled */
	bool asap;            /* recorded time is not waited for (headless replay) */
	uint64_t first_due_ms; /* before the first frame (a live --once's rate sample) */
	_Atomic uint64_t cadence_ms; /* the recorded spacing of frames, 0 = unknown (read by any thread) */
	const volatile sig_atomic_t *cancel; /* set: a long read (a seek to the end) gives up */
	uint64_t yielded;     /* frames returned since the start */
	struct seen seen;
};

/* The live sampler (borrowed) as a source; frames every interval_s. */
struct source *source_live(struct sampler *s, uint64_t first_due_ms);
/* A recording (borrowed) as a source, paced by its ts_ms (asap: not paced).
 * Once a frame is out, reads the next record ahead to know when it is due. */
struct source *source_replay(struct replay *r, bool asap);
void source_free(struct source *s);

/* The next frame (caller unrefs) or NULL at the end; every frame is
 * remembered in s->seen, and a frame with a lost GPU gets f->seen. */
struct frame *source_next(struct source *s);
/* A frame that reached the caller another way (a paced sampler's, below)
 * is counted and remembered as source_next() does. */
void source_adopt(struct source *s, struct frame *f);
/* The live source's sampler (its frames may be paced by it), NULL for a
 * recording. */
struct sampler *source_sampler(struct source *s);
/* How long to wait before the next frame. */
uint64_t source_due_ms(struct source *s, double interval_s, double speed);
/* Start: the next frame is the first again. End: reads every remaining
 * frame and returns the last (caller unrefs; NULL when none is left).
 * Returns 0, or -ENOTSUP for a live source, or -errno. */
int source_seek(struct source *s, enum source_seek where, struct frame **last, uint64_t *skipped);
/* The next frame is the first at or after ts_ms (recorded time); *before:
 * the frames before it. 0, -ENOTSUP (live), -ENODATA, or -errno. */
int source_seek_time(struct source *s, uint64_t ts_ms, uint64_t *before);
uint64_t source_busy_ms(struct source *s, const char **name);
void source_set_cancel(struct source *s, const volatile sig_atomic_t *cancel);

#endif
