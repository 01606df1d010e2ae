/* health: the freshness rules of GET /health. */
#include "serve/health.h"

#include <inttypes.h>
#include <stdio.h>

/* The interval a stale frame is judged by: at least 1 s when gpur polls as
 * fast as it can. */
static uint64_t interval_of(const struct health_in *in)
{
	return in->interval_ms ? in->interval_ms : 1000;
}

bool health_check(const struct health_in *in, char *why, size_t n)
{
	uint64_t iv = interval_of(in);

	if (!in->have_frame) {
		snprintf(why, n, "no frame yet");
		return false;
	}
	if (in->nbackends && in->nlost == in->nbackends) {
		snprintf(why, n, "every backend is lost (%s)", in->lost_names && *in->lost_names ? in->lost_names : "?");
		return false;
	}
	if (!in->live)
		return true;
	if (in->busy_ms > 2 * iv) {
		const char *name = in->busy_name ? in->busy_name : "backend";
		/* Tenths below 10 s, so that a short interval's first 503 does
		 * not say "for 0 s". */
		if (in->busy_ms < 10000)
			snprintf(why, n, "%s: no answer for %" PRIu64 ".%" PRIu64 " s", name, in->busy_ms / 1000,
				 in->busy_ms % 1000 / 100);
		else
			snprintf(why, n, "%s: no answer for %" PRIu64 " s", name, in->busy_ms / 1000);
		return false;
	}
	uint64_t age = in->now_ms > in->published_ms ? in->now_ms - in->published_ms : 0;
	if (age > 3 * iv) {
		snprintf(why, n, "the newest frame is %" PRIu64 ".%01" PRIu64 " s old (interval %" PRIu64 ".%03" PRIu64 " s)",
			 age / 1000, age % 1000 / 100, iv / 1000, iv % 1000);
		return false;
	}
	return true;
}
