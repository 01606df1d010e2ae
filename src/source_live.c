/* source_live: the live sampler as a source. Each frame is a tick of the
 * sampler. With one backend the source can instead pace itself: the
 * backend's worker polls when a frame is due and hands it over from its own
 * thread (sampler.h), so the frame pipeline never drives the sampler. */
#include <stdlib.h>

#include "sampler.h"
#include "source_priv.h"
#include "util/xalloc.h"

struct live {
	struct source s;
	struct sampler *sampler;
	/* Where paced frames go. It is set before the sampler runs and read
	 * by the thread that hands a frame over, and the sampler orders the
	 * two. */
	struct source_pace pace;
};

static struct frame *live_next(struct source *s, struct fleet **fleet)
{
	return sampler_tick(((struct live *)s)->sampler, fleet);
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

static bool live_can_pace(const struct source *s)
{
	return sampler_can_pace(((const struct live *)s)->sampler);
}

/* Takes a frame from the sampler, on its worker's thread or the
 * watchdog's. */
static bool live_paced(void *ctx, struct frame *fr, struct fleet *fl)
{
	struct live *l = ctx;

	source_adopt(&l->s, fr);
	return l->pace.take(l->pace.ctx, fr, fl);
}

/* The thread that calls this is the watchdog (sampler_run). */
static int live_pace(struct source *s, uint64_t first_due_ms, const struct source_pace *p)
{
	struct live *l = (struct live *)s;

	l->pace = *p;
	struct sampler_run_opts sp = {
		.first_due_ms = first_due_ms,
		.interval_s = p->interval_s,
		.frame = live_paced,
		.ctx = l,
	};
	return sampler_run(l->sampler, &sp);
}

static void live_pace_stop(struct source *s)
{
	sampler_stop_run(((struct live *)s)->sampler);
}

static void live_pace_interval(struct source *s, double interval_s)
{
	sampler_set_interval(((struct live *)s)->sampler, interval_s);
}

static void live_destroy(struct source *s)
{
	free(s);
}

static const struct source_ops LIVE_OPS = {
	.next = live_next,
	.destroy = live_destroy,
	.busy_ms = live_busy_ms,
	.can_pace = live_can_pace,
	.pace = live_pace,
	.pace_stop = live_pace_stop,
	.pace_interval = live_pace_interval,
};

struct source *source_live(struct sampler *sm, uint64_t first_due_ms)
{
	struct live *l = xcalloc(1, sizeof(*l));

	source_init(&l->s, &LIVE_OPS, first_due_ms);
	l->sampler = sm;
	return &l->s;
}
