/* test_replay_pace: the TUI's replay pace from recorded ts_ms (the record format,
 * issue: gaps capped at 5 s; missing or backward ts_ms -> --interval). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "record/replay.h"

static void stamp(struct frame *f, uint64_t ts)
{
	f->ts_ms = ts;
	frame_set(f, FRAME_F_TS);
}

static void test_recorded_gap(void **state)
{
	(void)state;
	struct frame *a = frame_new(), *b = frame_new();
	stamp(a, 1000);
	stamp(b, 1250);
	assert_int_equal(replay_delay_ms(a, b, 1, 1000), 250);
	assert_int_equal(replay_delay_ms(a, b, 2, 1000), 125);
	assert_int_equal(replay_delay_ms(a, b, 0.25, 1000), 1000);
	frame_unref(a);
	frame_unref(b);
}

static void test_gap_capped_at_5s(void **state)
{
	(void)state;
	struct frame *a = frame_new(), *b = frame_new();
	stamp(a, 1000);
	stamp(b, 1000 + 3600 * 1000);
	assert_int_equal(replay_delay_ms(a, b, 1, 1000), REPLAY_MAX_GAP_MS);
	assert_int_equal(replay_delay_ms(a, b, 64, 1000), 78);
	frame_unref(a);
	frame_unref(b);
}

static void test_missing_or_backward_uses_interval(void **state)
{
	(void)state;
	struct frame *a = frame_new(), *b = frame_new();
	assert_int_equal(replay_delay_ms(a, b, 1, 700), 700); /* neither has ts_ms */
	stamp(a, 5000);
	assert_int_equal(replay_delay_ms(a, b, 1, 700), 700); /* cur lacks it */
	stamp(b, 4000);
	assert_int_equal(replay_delay_ms(a, b, 1, 700), 700); /* backwards */
	stamp(b, 5000);
	assert_int_equal(replay_delay_ms(a, b, 2, 700), 350); /* standing still */
	assert_int_equal(replay_delay_ms(NULL, b, 1, 700), 700); /* first frame */
	frame_unref(a);
	frame_unref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_gap),
		cmocka_unit_test(test_gap_capped_at_5s),
		cmocka_unit_test(test_missing_or_backward_uses_interval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
