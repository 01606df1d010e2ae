/* clock: the system clock behind the injectable interface. */
#include "util/clock.h"

#include <time.h>

uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t sys_mono(const struct clock *c)
{
	(void)c;
	return clock_mono_ns() / 1000000u;
}

static uint64_t sys_wall(const struct clock *c)
{
	struct timespec ts;

	(void)c;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

const struct clock CLOCK_SYSTEM = {sys_mono, sys_wall, NULL};
