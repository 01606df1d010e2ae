/* source_replay: a recording as a source, paced by the records' ts_ms. In
 * the dashboard a fleet recording's records of one poll become one frame. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "model/fleet.h"
#include "record/replay.h"
#include "source_priv.h"
#include "util/xalloc.h"

struct recorded {
	struct source s;
	struct replay *r;
	bool asap; /* recorded time is not waited for, as in a headless replay */
	/* The recorded spacing of frames, 0 when unknown. The thread that
	 * takes frames writes it, and any thread reads it. */
	_Atomic uint64_t cadence_ms;
	/* The frame last returned, for pacing. Only its time is kept, so a
	 * large record is not held while the next one is read. */
	struct frame *prev;
	struct frame *ahead; /* the next record, read ahead, or NULL at the end */
	bool need_ahead;     /* ahead is still to be read */
};

static struct frame *read_one(struct replay *r)
{
	struct frame *f = frame_new();

	if (replay_next(r, f) != 1) {
		frame_unref(f);
		return NULL;
	}
	return f;
}

/* Reads the record after the one last returned, once that one is out, so
 * that a recording still being written, such as a FIFO or tail -f, shows
 * each record as soon as it comes. */
static void read_ahead(struct recorded *rc)
{
	if (!rc->need_ahead)
		return;
	rc->need_ahead = false;
	rc->ahead = read_one(rc->r);
	/* The recorded cadence is the first positive gap of ts_ms; a longer
	 * one is a pause in the recording. */
	const struct frame *p = rc->prev, *n = rc->ahead;
	if (!atomic_load(&rc->cadence_ms) && p && n && frame_has(p, FRAME_F_TS) && frame_has(n, FRAME_F_TS) && n->ts_ms > p->ts_ms &&
	    n->ts_ms - p->ts_ms <= REPLAY_MAX_GAP_MS)
		atomic_store(&rc->cadence_ms, n->ts_ms - p->ts_ms);
}

static bool fleet_record(const struct frame *f)
{
	return frame_has(f, FRAME_F_TS) && frame_has(f, FRAME_F_HOST) && frame_has(f, FRAME_F_BACKEND) && f->host &&
	       f->backend && strcmp(f->backend, "prometheus") == 0;
}

/* A fleet recording (--prometheus, one record per host per poll) shown in
 * the dashboard. The records of one poll, with the same ts_ms and distinct
 * hosts, become one frame with the poll's time, source and events, and their
 * hosts become a fleet beside it (*fleet), so that a replay opens on the
 * fleet summary as the live view does. It reads one record past the poll and
 * keeps it as the next. Headless replays stay record for record. */
static struct frame *group_fleet(struct recorded *rc, struct frame *first, struct fleet **fleet)
{
	struct frame *top = frame_new();
	struct fleet *fl = fleet_new(first->driver);

	top->ts_ms = first->ts_ms;
	top->backend = frame_str(top, first->backend);
	top->driver = frame_str(top, first->driver);
	top->valid = first->valid & (UINT64_C(1) << FRAME_F_TS | UINT64_C(1) << FRAME_F_BACKEND |
				     UINT64_C(1) << FRAME_F_DRIVER);
	*fleet = fl;
	for (struct frame *f = first; f;) {
		for (size_t i = 0; i < f->nevents; i++) {
			struct event *e = frame_add_event(top);
			if (e)
				frame_copy_event(top, e, &f->events[i]);
		}
		fleet_add_host(fl, f->host, f);
		frame_unref(f);
		rc->need_ahead = true;
		read_ahead(rc);
		f = rc->ahead;
		if (!f || !fleet_record(f) || f->ts_ms != first->ts_ms || fleet_find(fl, f->host))
			break;
		rc->ahead = NULL;
	}
	rc->need_ahead = false; /* rc->ahead is the next poll's first record */
	return top;
}

static struct frame *rec_next(struct source *s, struct fleet **fleet)
{
	struct recorded *rc = (struct recorded *)s;

	read_ahead(rc);
	struct frame *f = rc->ahead;
	if (!f)
		return NULL;
	rc->ahead = NULL;
	rc->need_ahead = true;
	if (!rc->asap && fleet_record(f))
		f = group_fleet(rc, f, fleet);
	if (!rc->prev)
		rc->prev = frame_new();
	frame_reset(rc->prev);
	rc->prev->valid = f->valid & (UINT64_C(1) << FRAME_F_TS);
	rc->prev->ts_ms = f->ts_ms;
	return f;
}

static uint64_t rec_due_ms(struct source *s, double interval_s, double speed)
{
	struct recorded *rc = (struct recorded *)s;

	read_ahead(rc);
	if (rc->asap || !rc->ahead)
		return 0;
	return replay_delay_ms(rc->prev, rc->ahead, speed, (uint64_t)(interval_s * 1000.0 + 0.5));
}

static int rec_rewind(struct source *s)
{
	struct recorded *rc = (struct recorded *)s;
	int e = replay_rewind(rc->r);

	if (e < 0)
		return e;
	frame_unref(rc->prev);
	frame_unref(rc->ahead);
	rc->prev = rc->ahead = NULL;
	rc->need_ahead = true;
	return 0;
}

static int rec_seek_time(struct source *s, uint64_t ts_ms, uint64_t *before)
{
	struct recorded *rc = (struct recorded *)s;
	int err = replay_seek_time(rc->r, ts_ms, before);
	if (err < 0)
		return err;
	frame_unref(rc->prev);
	frame_unref(rc->ahead);
	rc->prev = rc->ahead = NULL;
	rc->need_ahead = true;
	return 0;
}

static void rec_destroy(struct source *s)
{
	struct recorded *rc = (struct recorded *)s;

	frame_unref(rc->prev);
	frame_unref(rc->ahead);
	free(rc);
}

static void rec_set_cancel(struct source *s, const volatile sig_atomic_t *cancel)
{
	replay_set_cancel(((struct recorded *)s)->r, cancel);
}

static bool rec_recorded(const struct source *s)
{
	(void)s;
	return true;
}

static uint64_t rec_cadence_ms(struct source *s)
{
	return atomic_load(&((struct recorded *)s)->cadence_ms);
}

static const struct source_ops RECORDED_OPS = {
	.next = rec_next,
	.destroy = rec_destroy,
	.recorded = rec_recorded,
	.due_ms = rec_due_ms,
	.cadence_ms = rec_cadence_ms,
	.rewind = rec_rewind,
	.seek_time = rec_seek_time,
	.set_cancel = rec_set_cancel,
};

struct source *source_replay(struct replay *r, bool asap)
{
	struct recorded *rc = xcalloc(1, sizeof(*rc));

	source_init(&rc->s, &RECORDED_OPS, 0);
	rc->asap = asap;
	rc->r = r;
	rc->need_ahead = true;
	return &rc->s;
}
