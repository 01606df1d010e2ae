/* source: the live and the recorded frame sources, and what they share. */
#include "source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/fleet.h"

#include "util/xalloc.h"

/* ---- live ---- */

struct live {
	struct source s;
	struct sampler *sampler;
};

static struct frame *live_next(struct source *s)
{
	return sampler_tick(((struct live *)s)->sampler);
}

static uint64_t live_due_ms(struct source *s, double interval_s, double speed)
{
	(void)s;
	(void)speed;
	return (uint64_t)(interval_s * 1000.0 + 0.5);
}

static uint64_t live_busy_ms(struct source *s, const char **name)
{
	struct sampler *sm = ((struct live *)s)->sampler;
	uint64_t most = 0;

	for (size_t i = 0; i < sampler_nbackends(sm); i++) {
		uint64_t ms = sampler_busy_ms(sm, i);
		if (ms > most) {
			most = ms;
			*name = sampler_backend_name(sm, i);
		}
	}
	return most;
}

static void live_destroy(struct source *s)
{
	free(s);
}

static const struct source_ops LIVE_OPS = {
	.next = live_next, .due_ms = live_due_ms, .busy_ms = live_busy_ms, .destroy = live_destroy,
};

struct source *source_live(struct sampler *sm, uint64_t first_due_ms)
{
	struct live *l = xcalloc(1, sizeof(*l));

	l->s.ops = &LIVE_OPS;
	l->s.first_due_ms = first_due_ms;
	seen_init(&l->s.seen);
	l->sampler = sm;
	return &l->s;
}

/* ---- recorded ---- */

struct recorded {
	struct source s;
	struct replay *r;
	/* The frame last returned, for pacing: only its time is kept, so a
	 * large record is not held while the next one is read. */
	struct frame *prev;
	struct frame *ahead; /* the next record, read ahead; NULL at the end */
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

/* Reads the record after the one last returned, once that one is out: a
 * recording that is still being written (a FIFO, tail -f) shows each record
 * as soon as it comes. */
static void read_ahead(struct recorded *rc)
{
	if (!rc->need_ahead)
		return;
	rc->need_ahead = false;
	rc->ahead = read_one(rc->r);
	/* The recorded cadence: the first positive gap of ts_ms (a longer
	 * one is a pause in the recording). */
	const struct frame *p = rc->prev, *n = rc->ahead;
	if (!atomic_load(&rc->s.cadence_ms) && p && n && frame_has(p, FRAME_F_TS) && frame_has(n, FRAME_F_TS) && n->ts_ms > p->ts_ms &&
	    n->ts_ms - p->ts_ms <= REPLAY_MAX_GAP_MS)
		atomic_store(&rc->s.cadence_ms, n->ts_ms - p->ts_ms);
}

static bool fleet_record(const struct frame *f)
{
	return frame_has(f, FRAME_F_TS) && frame_has(f, FRAME_F_HOST) && frame_has(f, FRAME_F_BACKEND) && f->host &&
	       f->backend && strcmp(f->backend, "prometheus") == 0;
}

/* A fleet recording (--prometheus: one record per host per poll) shown in
 * the dashboard: the records of one poll — same ts_ms, distinct hosts —
 * become one frame with their hosts as a fleet, so a replay opens on the
 * fleet summary as the live view does. Reads one record past the poll
 * (kept as the next). Headless replays stay record for record. */
static struct frame *group_fleet(struct recorded *rc, struct frame *first)
{
	struct frame *top = frame_new();
	struct fleet *fl = fleet_new(first->driver);

	top->ts_ms = first->ts_ms;
	top->backend = frame_str(top, first->backend);
	top->driver = frame_str(top, first->driver);
	top->valid = first->valid & (UINT64_C(1) << FRAME_F_TS | UINT64_C(1) << FRAME_F_BACKEND |
				     UINT64_C(1) << FRAME_F_DRIVER);
	top->fleet = fl;
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

static struct frame *rec_next(struct source *s)
{
	struct recorded *rc = (struct recorded *)s;

	read_ahead(rc);
	struct frame *f = rc->ahead;
	if (!f)
		return NULL;
	rc->ahead = NULL;
	rc->need_ahead = true;
	if (!s->asap && fleet_record(f))
		f = group_fleet(rc, f);
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
	if (s->asap || !rc->ahead)
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

static const struct source_ops RECORDED_OPS = {
	.next = rec_next, .due_ms = rec_due_ms, .rewind = rec_rewind, .seek_time = rec_seek_time, .set_cancel = rec_set_cancel,
	.destroy = rec_destroy,
};

struct source *source_replay(struct replay *r, bool asap)
{
	struct recorded *rc = xcalloc(1, sizeof(*rc));

	rc->s.ops = &RECORDED_OPS;
	rc->s.recorded = true;
	rc->s.asap = asap;
	seen_init(&rc->s.seen);
	rc->r = r;
	rc->need_ahead = true;
	return &rc->s;
}

/* ---- shared ---- */

void source_free(struct source *s)
{
	if (!s)
		return;
	seen_fini(&s->seen);
	s->ops->destroy(s);
}

static struct frame *take(struct source *s)
{
	struct frame *f = s->ops->next(s);

	if (!f)
		return NULL;
	s->yielded++;
	seen_update(&s->seen, f);
	return f;
}

struct frame *source_next(struct source *s)
{
	struct frame *f = take(s);

	if (f)
		seen_attach(&s->seen, f);
	return f;
}

void source_adopt(struct source *s, struct frame *f)
{
	s->yielded++;
	seen_update(&s->seen, f);
	seen_attach(&s->seen, f);
}

struct sampler *source_sampler(struct source *s)
{
	return s->ops == &LIVE_OPS ? ((struct live *)s)->sampler : NULL;
}

uint64_t source_due_ms(struct source *s, double interval_s, double speed)
{
	if (s->yielded == 0)
		return s->first_due_ms;
	return s->ops->due_ms(s, interval_s, speed);
}

int source_seek(struct source *s, enum source_seek where, struct frame **last, uint64_t *skipped)
{
	*last = NULL;
	*skipped = 0;
	if (!s->ops->rewind)
		return -ENOTSUP;
	/* End reads every record (not a jump from the time index): what each
	 * GPU last read while ok stays exact (a LOST GPU's "last seen"). */
	int e = s->ops->rewind(s);
	if (e < 0)
		return e;
	seen_clear(&s->seen);
	s->yielded = 0;
	if (where == SOURCE_SEEK_START)
		return 0;
	struct frame *f;
	while (!(s->cancel && *s->cancel) && (f = take(s))) {
		frame_unref(*last);
		*last = f;
		(*skipped)++;
	}
	if (*last)
		seen_attach(&s->seen, *last);
	return 0;
}

int source_seek_time(struct source *s, uint64_t ts_ms, uint64_t *before)
{
	*before = 0;
	if (!s->ops->seek_time)
		return -ENOTSUP;
	int e = s->ops->seek_time(s, ts_ms, before);
	if (e < 0)
		return e;
	seen_clear(&s->seen);
	s->yielded = 0;
	return 0;
}

uint64_t source_busy_ms(struct source *s, const char **name)
{
	*name = NULL;
	return s->ops->busy_ms ? s->ops->busy_ms(s, name) : 0;
}

void source_set_cancel(struct source *s, const volatile sig_atomic_t *cancel)
{
	s->cancel = cancel;
	if (s->ops->set_cancel)
		s->ops->set_cancel(s, cancel);
}
