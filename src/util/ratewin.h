/* ratewin: the rule for the window of time a rate is measured over. A rate
 * (power from an energy counter, an engine's busy share, a CPU %) is the
 * change of a counter between two samples divided by the time between them,
 * and over a window of a few milliseconds it says little: the counters tick
 * coarsely and the moment each one is read is uncertain. So no rate comes from
 * a window shorter than the smaller of 100 ms and the poll interval. Until a
 * window is long enough the rate is unknown, and the older sample stays the
 * baseline, so that the next poll's window is long enough. */
#ifndef GPUR_RATEWIN_H
#define GPUR_RATEWIN_H

#include <stdint.h>

/* The longest minimum window: 100 ms. */
#define RATEWIN_MAX_NS 100000000ull

/* The shortest window in ns that carries a rate when polls come every
 * interval_s seconds: the smaller of 100 ms and the interval, less a tenth,
 * because a poll, paced by a timer, comes a little late now and then, which
 * shortens the window after it, and some clocks read whole milliseconds. An
 * interval of 0, as fast as possible, gives 0: any window that is not empty
 * carries a rate. A negative or NaN interval gives the 100 ms rule. */
uint64_t ratewin_min_ns(double interval_s);

/* What a window from a baseline sample at from_ns to a new sample at to_ns,
 * on one monotonic clock, allows. */
enum ratewin_verdict {
	RATEWIN_RATE,   /* at least min_ns and not empty: the rate is measured and the new sample is the baseline */
	RATEWIN_SHORT,  /* shorter: no rate, and the older baseline stays */
	RATEWIN_AFRESH, /* empty, or the clock went back: no rate, and the new sample is the baseline */
};
/* Judges the window from from_ns to to_ns against min_ns, the value of
 * ratewin_min_ns(). An empty window is two samples of one instant, as a
 * millisecond clock or a virtual one that moves by steps reads them, and the
 * newer sample is then as good a baseline as the older, and more up to date.
 * A counter that went back is the caller's to see: its samples start afresh
 * whatever the window. */
enum ratewin_verdict ratewin_judge(uint64_t from_ns, uint64_t to_ns, uint64_t min_ns);

#endif
