/* test_ratewin: the window rule of rates. The shortest window is the smaller
 * of 100 ms and the poll interval, less a tenth for a late poll; a window
 * shorter than that keeps the baseline, an empty one or a clock that went
 * back starts afresh, and an interval of 0 allows any window that is not
 * empty. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/ratewin.h"

#define MS 1000000ull

static void test_min_from_interval(void **state)
{
	(void)state;
	assert_int_equal(ratewin_min_ns(1.0), 90 * MS);
	assert_int_equal(ratewin_min_ns(60.0), 90 * MS);
	assert_int_equal(ratewin_min_ns(0.1), 90 * MS);
	assert_int_equal(ratewin_min_ns(0.05), 45 * MS);
	assert_int_equal(ratewin_min_ns(0), 0);
	/* Not an interval at all: the 100 ms rule. */
	assert_int_equal(ratewin_min_ns(-1), 90 * MS);
	assert_int_equal(ratewin_min_ns(NAN), 90 * MS);
	assert_int_equal(ratewin_min_ns(INFINITY), 90 * MS);
}

static void test_judge(void **state)
{
	const uint64_t t0 = 5000 * MS, min = ratewin_min_ns(1.0);

	(void)state;
	/* Detection primed the counters; the first poll came 4 ms later. */
	assert_int_equal(ratewin_judge(t0, t0 + 4 * MS, min), RATEWIN_SHORT);
	assert_int_equal(ratewin_judge(t0, t0 + 40 * MS, min), RATEWIN_SHORT);
	assert_int_equal(ratewin_judge(t0, t0 + min - 1, min), RATEWIN_SHORT);
	assert_int_equal(ratewin_judge(t0, t0 + min, min), RATEWIN_RATE);
	assert_int_equal(ratewin_judge(t0, t0 + 1000 * MS, min), RATEWIN_RATE);
	/* A poll of a 100 ms interval that the one before it was 3 ms late
	 * for still carries a rate. */
	assert_int_equal(ratewin_judge(t0, t0 + 97 * MS, ratewin_min_ns(0.1)), RATEWIN_RATE);
	/* Empty windows never carry one, whatever the minimum: the two
	 * samples are of one instant, and the newer one is the baseline. */
	assert_int_equal(ratewin_judge(t0, t0, min), RATEWIN_AFRESH);
	assert_int_equal(ratewin_judge(t0, t0, 0), RATEWIN_AFRESH);
	assert_int_equal(ratewin_judge(t0, t0 + 1, 0), RATEWIN_RATE);
	/* A clock that went back. */
	assert_int_equal(ratewin_judge(t0, t0 - 1, min), RATEWIN_AFRESH);
	assert_int_equal(ratewin_judge(t0, 0, 0), RATEWIN_AFRESH);
	/* No wrap at the far end of the clock. */
	assert_int_equal(ratewin_judge(UINT64_MAX - 10, UINT64_MAX, min), RATEWIN_SHORT);
	assert_int_equal(ratewin_judge(0, UINT64_MAX, min), RATEWIN_RATE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_min_from_interval),
		cmocka_unit_test(test_judge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
