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

uint64_t clock_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t sys_wall(const struct clock *c)
{
	(void)c;
	return clock_wall_ms();
}

const struct clock CLOCK_SYSTEM = {sys_mono, sys_wall, NULL};

static uint64_t virt_mono(const struct clock *c)
{
	return atomic_load(&((struct clock_virtual *)c->ctx)->now_ms);
}

static uint64_t virt_wall(const struct clock *c)
{
	struct clock_virtual *v = c->ctx;
	return v->start_ms + atomic_load(&v->now_ms);
}

void clock_virtual_init(struct clock_virtual *v, uint64_t start_ms)
{
	v->c.mono_ms = virt_mono;
	v->c.wall_ms = virt_wall;
	v->c.ctx = v;
	v->start_ms = start_ms;
	atomic_init(&v->now_ms, 0);
}

void clock_virtual_advance(struct clock_virtual *v, uint64_t ms)
{
	atomic_fetch_add(&v->now_ms, ms);
}
