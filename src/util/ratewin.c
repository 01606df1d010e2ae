/* ratewin: the minimum window of a rate and the verdict on a window. */
#include "util/ratewin.h"

uint64_t ratewin_min_ns(double interval_s)
{
	uint64_t ns = RATEWIN_MAX_NS;

	/* NaN fails both comparisons, and so keeps the 100 ms rule. */
	if (interval_s >= 0 && interval_s * 1e9 < (double)RATEWIN_MAX_NS)
		ns = (uint64_t)(interval_s * 1e9);
	return ns - ns / 10;
}

enum ratewin_verdict ratewin_judge(uint64_t from_ns, uint64_t to_ns, uint64_t min_ns)
{
	if (to_ns <= from_ns)
		return RATEWIN_AFRESH;
	if (to_ns - from_ns < min_ns)
		return RATEWIN_SHORT;
	return RATEWIN_RATE;
}
