/* clock: injectable time, so backoff and "no answer for 5 s" logic is tested
 * with a clock the test moves. */
#ifndef GPUR_CLOCK_H
#define GPUR_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>

struct clock {
	uint64_t (*mono_ms)(const struct clock *c);  /* monotonic milliseconds */
	uint64_t (*wall_ms)(const struct clock *c);  /* ms since the Unix epoch */
	void *ctx;
};

/* The real clocks (CLOCK_MONOTONIC, CLOCK_REALTIME). */
extern const struct clock CLOCK_SYSTEM;
/* The monotonic clock in nanoseconds. */
uint64_t clock_mono_ns(void);
/* The wall clock in milliseconds since the Unix epoch, as CLOCK_SYSTEM
 * reads it. */
uint64_t clock_wall_ms(void);

static inline uint64_t clock_mono(const struct clock *c) { return c->mono_ms(c); }
static inline uint64_t clock_wall(const struct clock *c) { return c->wall_ms(c); }

/* A clock that moves only when told to. Its wall time starts at start_ms and
 * its monotonic time at 0. It makes recordings reproducible
 * (GPUR_VIRTUAL_CLOCK_MS). */
struct clock_virtual {
	struct clock c;
	uint64_t start_ms;
	_Atomic uint64_t now_ms; /* monotonic, and read by any thread */
};
void clock_virtual_init(struct clock_virtual *v, uint64_t start_ms);
/* Moves the virtual clock forward by ms. */
void clock_virtual_advance(struct clock_virtual *v, uint64_t ms);

#endif
