/* source: the calls every kind of source answers, with the default for an op
 * a kind leaves out, and what all sources share (counting, "last seen"). */
#include "source_priv.h"

#include <errno.h>

#include "model/fleet.h"

void source_init(struct source *s, const struct source_ops *ops, uint64_t first_due_ms)
{
	s->ops = ops;
	s->first_due_ms = first_due_ms;
	seen_init(&s->seen);
}

void source_free(struct source *s)
{
	if (!s)
		return;
	seen_fini(&s->seen);
	s->ops->destroy(s);
}

static struct frame *take(struct source *s, struct fleet **fleet)
{
	*fleet = NULL;
	struct frame *f = s->ops->next(s, fleet);

	if (!f)
		return NULL;
	s->yielded++;
	seen_update(&s->seen, f);
	return f;
}

struct frame *source_next(struct source *s, struct fleet **fleet)
{
	struct frame *f = take(s, fleet);

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

uint64_t source_due_ms(struct source *s, double interval_s, double speed)
{
	if (s->yielded == 0)
		return s->first_due_ms;
	if (!s->ops->due_ms)
		return (uint64_t)(interval_s * 1000.0 + 0.5);
	return s->ops->due_ms(s, interval_s, speed);
}

bool source_recorded(const struct source *s)
{
	return s->ops->recorded && s->ops->recorded(s);
}

uint64_t source_cadence_ms(struct source *s)
{
	return s->ops->cadence_ms ? s->ops->cadence_ms(s) : 0;
}

bool source_can_seek(const struct source *s)
{
	return s->ops->rewind != NULL;
}

int source_seek(struct source *s, enum source_seek where, struct frame **last, struct fleet **last_fleet,
		uint64_t *skipped)
{
	*last = NULL;
	*last_fleet = NULL;
	*skipped = 0;
	if (!s->ops->rewind)
		return -ENOTSUP;
	/* End reads every record rather than jumping by the time index, so
	 * what each GPU last read while ok stays exact, as a LOST GPU's
	 * "last seen" needs. */
	int e = s->ops->rewind(s);
	if (e < 0)
		return e;
	seen_clear(&s->seen);
	s->yielded = 0;
	if (where == SOURCE_SEEK_START)
		return 0;
	struct frame *f;
	struct fleet *fl;
	while (!(s->cancel && *s->cancel) && (f = take(s, &fl))) {
		frame_unref(*last);
		fleet_unref(*last_fleet);
		*last = f;
		*last_fleet = fl;
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

bool source_can_pace(const struct source *s)
{
	return s->ops->can_pace && s->ops->can_pace(s);
}

int source_pace(struct source *s, const struct source_pace *p)
{
	if (!s->ops->pace || !source_can_pace(s))
		return -ENOTSUP;
	return s->ops->pace(s, source_due_ms(s, p->interval_s, 1.0), p);
}

void source_pace_stop(struct source *s)
{
	if (s->ops->pace_stop)
		s->ops->pace_stop(s);
}

void source_pace_interval(struct source *s, double interval_s)
{
	if (s->ops->pace_interval)
		s->ops->pace_interval(s, interval_s);
}
