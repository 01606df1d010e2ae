/* source_priv: what a kind of source implements, its ops, and the part every
 * source shares, for source.c and the kinds of source (source_live.c,
 * source_replay.c, a test's own). Everyone else uses source.h alone. */
#ifndef GPUR_SOURCE_PRIV_H
#define GPUR_SOURCE_PRIV_H

#include "model/seen.h"
#include "source.h"

/* One kind of source, a const table. next and destroy are required; any
 * other op may be NULL, and the source_* call of the same name then answers
 * as said beside the op, so no caller tests for NULL. */
struct source_ops {
	/* The next frame, which the caller unrefs, or NULL at the end. *fleet
	 * is NULL on entry and is set to the hosts beside the frame when the
	 * source is a fleet; the caller unrefs them too. */
	struct frame *(*next)(struct source *s, struct fleet **fleet);
	/* Frees the kind's own part; the shared part is source.c's. */
	void (*destroy)(struct source *s);
	/* Whether the frames are of another machine or time. Without it, they
	 * are not. */
	bool (*recorded)(const struct source *s);
	/* Milliseconds between the frame last returned and the next one, at
	 * speed. Without it, the source keeps no time of its own and the next
	 * frame is due after interval_s. */
	uint64_t (*due_ms)(struct source *s, double interval_s, double speed);
	/* The recorded spacing of frames, 0 when unknown; any thread may call
	 * it. Without it, the spacing is unknown. */
	uint64_t (*cadence_ms)(struct source *s);
	/* Goes back to the start, returning 0 or -errno. A source with it can
	 * seek, and without it both seeks answer -ENOTSUP. */
	int (*rewind)(struct source *s);
	/* Makes the next frame the first at or after ts_ms, or the last one
	 * when none is that late; *before is the number of frames before
	 * it. */
	int (*seek_time)(struct source *s, uint64_t ts_ms, uint64_t *before);
	/* While *cancel is set, a read blocked by a signal gives up and the
	 * source ends. Without it, the source has no such read. */
	void (*set_cancel)(struct source *s, const volatile sig_atomic_t *cancel);
	/* The longest a backend has not answered, and its name. Without it,
	 * nobody is busy. */
	uint64_t (*busy_ms)(struct source *s, const char **name);
	/* Whether pace can work now. Without it, the source cannot pace. */
	bool (*can_pace)(const struct source *s);
	/* As source_pace(), the first frame after first_due_ms. Each frame
	 * goes through source_adopt() before p->take. It is called only when
	 * can_pace says yes; otherwise source_pace() answers -ENOTSUP. */
	int (*pace)(struct source *s, uint64_t first_due_ms, const struct source_pace *p);
	/* As source_pace_stop() and source_pace_interval(). Without them,
	 * there is nothing to stop or to change. */
	void (*pace_stop)(struct source *s);
	void (*pace_interval)(struct source *s, double interval_s);
};

/* The shared part, first in each kind's own struct. Its fields are
 * source.c's, and a kind of source sets them only through source_init().
 * All belong to the thread that takes frames, the feed's or, while paced,
 * the source's own, one at a time, except cancel, which is set before that
 * thread starts and after it ends. */
struct source {
	const struct source_ops *ops;
	uint64_t first_due_ms; /* before the first frame, for a live --once's rate sample */
	const volatile sig_atomic_t *cancel; /* when set, a long read such as a seek to the end gives up */
	uint64_t yielded;      /* frames returned since the start */
	struct seen seen;
};

/* Sets up the shared part of a source of kind ops; the caller zeroes s. */
void source_init(struct source *s, const struct source_ops *ops, uint64_t first_due_ms);
/* A frame that the source hands over while it paces itself is counted and
 * remembered as source_next() does for the frames it returns. */
void source_adopt(struct source *s, struct frame *f);

#endif
