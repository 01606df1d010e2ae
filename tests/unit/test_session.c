/* test_session: each GPU's peak and mean since the session began: peaks,
 * means over known values only, unknown staying unknown (never 0), a lost
 * GPU keeping its figures, reset, and the bound on GPUs (the one seen longest
 * ago evicted). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/frame.h"
#include "view/session.h"

/* A value below 0 is not known (no test value is negative but one). */
#define NONE (-1000.0)

/* Appends GPU id with the util, temp and power that are not NONE. */
static struct gpu *add_gpu(struct frame *f, const char *id, double util, double temp, double power)
{
	struct gpu *g = frame_add_gpu(f);

	assert_non_null(g);
	if (id) {
		g->device_id = frame_str(f, id);
		gpu_set(g, GPU_F_DEVICE_ID);
	}
	if (util != NONE) {
		g->util_pct = util;
		gpu_set(g, GPU_F_UTIL);
	}
	if (temp != NONE) {
		g->temp_c = temp;
		gpu_set(g, GPU_F_TEMP);
	}
	if (power != NONE) {
		g->power_w = power;
		gpu_set(g, GPU_F_POWER);
	}
	return g;
}

/* Pushes a frame at ts_ms (0: none) with one GPU id. */
static void push_one(struct session *s, uint64_t ts_ms, const char *id, double util, double temp, double power)
{
	struct frame *f = frame_new();

	if (ts_ms) {
		f->ts_ms = ts_ms;
		frame_set(f, FRAME_F_TS);
	}
	add_gpu(f, id, util, temp, power);
	session_push(s, f);
	frame_unref(f);
}

static struct session_stat stat_of(const struct session *s, const char *id, enum session_metric m)
{
	struct session_stat st;

	assert_true(session_get(s, id, m, &st));
	return st;
}

static void test_peak_and_mean(void **state)
{
	struct session *s = session_new(8);

	(void)state;
	push_one(s, 1000, "GPU-a", 10, 60, 200);
	push_one(s, 2000, "GPU-a", 50, 71.5, 250);
	push_one(s, 3000, "GPU-a", 30, 65, 150);
	struct session_stat u = stat_of(s, "GPU-a", SESSION_UTIL);
	assert_int_equal(u.n, 3);
	assert_float_equal(u.peak, 50, 1e-9);
	assert_float_equal(u.mean, 30, 1e-9);
	struct session_stat t = stat_of(s, "GPU-a", SESSION_TEMP);
	assert_float_equal(t.peak, 71.5, 1e-9);
	assert_float_equal(t.mean, 65.5, 1e-9);
	struct session_stat p = stat_of(s, "GPU-a", SESSION_POWER);
	assert_float_equal(p.peak, 250, 1e-9);
	assert_float_equal(p.mean, 200, 1e-9);
	uint64_t ms;
	assert_true(session_span_ms(s, &ms));
	assert_int_equal(ms, 2000);
	assert_int_equal(session_frames(s), 3);
	assert_int_equal(session_gpus(s), 1);
	session_free(s);
}

/* A peak below zero is a peak (a cold sensor), not 0. */
static void test_negative_values(void **state)
{
	struct session *s = session_new(8);

	(void)state;
	push_one(s, 0, "GPU-cold", NONE, -20, NONE);
	push_one(s, 0, "GPU-cold", NONE, -10, NONE);
	struct session_stat t = stat_of(s, "GPU-cold", SESSION_TEMP);
	assert_int_equal(t.n, 2);
	assert_float_equal(t.peak, -10, 1e-9);
	assert_float_equal(t.mean, -15, 1e-9);
	uint64_t ms = 42;
	assert_false(session_span_ms(s, &ms)); /* no frame had a time */
	assert_int_equal(ms, 0);
	session_free(s);
}

/* Unknown values count towards nothing: the mean is over the known ones,
 * and a value never known stays unknown (n = 0), never a 0. */
static void test_unknown_is_not_zero(void **state)
{
	struct session *s = session_new(8);

	(void)state;
	push_one(s, 1000, "GPU-a", 40, NONE, 100);
	push_one(s, 2000, "GPU-a", NONE, NONE, NONE);
	push_one(s, 3000, "GPU-a", 20, NONE, NONE);
	struct session_stat u = stat_of(s, "GPU-a", SESSION_UTIL);
	assert_int_equal(u.n, 2);
	assert_float_equal(u.mean, 30, 1e-9);
	assert_float_equal(u.peak, 40, 1e-9);
	struct session_stat p = stat_of(s, "GPU-a", SESSION_POWER);
	assert_int_equal(p.n, 1);
	assert_float_equal(p.mean, 100, 1e-9);
	struct session_stat t = stat_of(s, "GPU-a", SESSION_TEMP);
	assert_int_equal(t.n, 0);
	/* A measured 0 is a value. */
	push_one(s, 4000, "GPU-a", NONE, 0, NONE);
	t = stat_of(s, "GPU-a", SESSION_TEMP);
	assert_int_equal(t.n, 1);
	assert_float_equal(t.peak, 0, 1e-9);
	/* Not tracked at all, an id of NULL and a metric out of range. */
	struct session_stat x = {.n = 7};
	assert_false(session_get(s, "GPU-other", SESSION_UTIL, &x));
	assert_int_equal(x.n, 0);
	assert_false(session_get(s, NULL, SESSION_UTIL, &x));
	assert_false(session_get(s, "GPU-a", SESSION__COUNT, &x));
	session_free(s);
}

/* A lost GPU's readings are not taken (and a recording may still carry
 * some): its figures stay what they were, and so do those of a GPU absent
 * from later frames. */
static void test_lost_and_absent_keep_figures(void **state)
{
	struct session *s = session_new(8);
	struct frame *f;
	struct gpu *g;

	(void)state;
	f = frame_new();
	add_gpu(f, "GPU-a", 80, 70, 300);
	add_gpu(f, "GPU-b", 10, 40, 100);
	session_push(s, f);
	frame_unref(f);

	f = frame_new();
	g = add_gpu(f, "GPU-a", 0, 0, 0);
	g->state = GPU_STATE_LOST;
	gpu_set(g, GPU_F_STATE);
	session_push(s, f); /* GPU-b absent */
	frame_unref(f);

	struct session_stat u = stat_of(s, "GPU-a", SESSION_UTIL);
	assert_int_equal(u.n, 1);
	assert_float_equal(u.mean, 80, 1e-9);
	assert_float_equal(stat_of(s, "GPU-a", SESSION_POWER).peak, 300, 1e-9);
	assert_float_equal(stat_of(s, "GPU-b", SESSION_TEMP).mean, 40, 1e-9);
	assert_int_equal(session_gpus(s), 2);
	session_free(s);
}

/* GPUs without a device_id are not tracked; a repeat of an id within one
 * frame counts once (the first). */
static void test_ids(void **state)
{
	struct session *s = session_new(8);
	struct frame *f = frame_new();

	(void)state;
	add_gpu(f, NULL, 99, 99, 99);
	add_gpu(f, "", 99, 99, 99);
	add_gpu(f, "GPU-a", 10, NONE, NONE);
	add_gpu(f, "GPU-a", 90, NONE, NONE);
	session_push(s, f);
	frame_unref(f);
	assert_int_equal(session_gpus(s), 1);
	struct session_stat u = stat_of(s, "GPU-a", SESSION_UTIL);
	assert_int_equal(u.n, 1);
	assert_float_equal(u.peak, 10, 1e-9);
	session_free(s);
}

static void test_reset(void **state)
{
	struct session *s = session_new(8);

	(void)state;
	push_one(s, 1000, "GPU-a", 90, 80, 400);
	push_one(s, 5000, "GPU-a", 70, 60, 300);
	session_reset(s);
	struct session_stat x;
	assert_false(session_get(s, "GPU-a", SESSION_UTIL, &x));
	assert_int_equal(session_gpus(s), 0);
	assert_int_equal(session_frames(s), 0);
	uint64_t ms;
	assert_false(session_span_ms(s, &ms));
	/* The next frame begins afresh: its values alone, its time the start. */
	push_one(s, 9000, "GPU-a", 20, NONE, 100);
	push_one(s, 10000, "GPU-a", 40, NONE, 100);
	struct session_stat u = stat_of(s, "GPU-a", SESSION_UTIL);
	assert_int_equal(u.n, 2);
	assert_float_equal(u.peak, 40, 1e-9);
	assert_float_equal(u.mean, 30, 1e-9);
	assert_int_equal(stat_of(s, "GPU-a", SESSION_TEMP).n, 0);
	assert_true(session_span_ms(s, &ms));
	assert_int_equal(ms, 1000);
	session_free(s);
}

/* At the bound, a new GPU takes the place of the one seen longest ago;
 * the others keep their figures and are still found. */
static void test_eviction(void **state)
{
	struct session *s = session_new(3);

	(void)state;
	push_one(s, 0, "GPU-a", 1, NONE, NONE);
	push_one(s, 0, "GPU-b", 2, NONE, NONE);
	push_one(s, 0, "GPU-c", 3, NONE, NONE);
	push_one(s, 0, "GPU-a", 11, NONE, NONE); /* a seen again: b is the oldest */
	push_one(s, 0, "GPU-d", 4, NONE, NONE);
	struct session_stat x;
	assert_int_equal(session_gpus(s), 3);
	assert_false(session_get(s, "GPU-b", SESSION_UTIL, &x));
	assert_float_equal(stat_of(s, "GPU-a", SESSION_UTIL).mean, 6, 1e-9);
	assert_float_equal(stat_of(s, "GPU-c", SESSION_UTIL).mean, 3, 1e-9);
	assert_float_equal(stat_of(s, "GPU-d", SESSION_UTIL).mean, 4, 1e-9);
	/* b again: a new GPU with no past (c is now the oldest). */
	push_one(s, 0, "GPU-b", 50, NONE, NONE);
	assert_false(session_get(s, "GPU-c", SESSION_UTIL, &x));
	struct session_stat b = stat_of(s, "GPU-b", SESSION_UTIL);
	assert_int_equal(b.n, 1);
	assert_float_equal(b.mean, 50, 1e-9);
	session_free(s);
}

/* The bound is fixed: many more GPUs than it over time never hold more, and
 * a full frame of the largest size is tracked whole. */
static void test_bounded(void **state)
{
	struct session *s = session_new(SESSION_MAX_GPUS + 5);
	char id[32];

	(void)state;
	for (int round = 0; round < 3; round++) {
		struct frame *f = frame_new();
		for (int i = 0; i < SESSION_MAX_GPUS; i++) {
			snprintf(id, sizeof(id), "GPU-%d-%d", round, i);
			add_gpu(f, id, i % 100, NONE, NONE);
		}
		session_push(s, f);
		frame_unref(f);
		assert_int_equal(session_gpus(s), SESSION_MAX_GPUS);
	}
	struct session_stat x;
	assert_false(session_get(s, "GPU-1-0", SESSION_UTIL, &x));
	assert_true(session_get(s, "GPU-2-0", SESSION_UTIL, &x));
	assert_true(session_get(s, "GPU-2-1023", SESSION_UTIL, &x));
	assert_float_equal(x.peak, 23, 1e-9);
	session_free(s);
	session_free(NULL);
	s = session_new(0); /* clamped to 1 */
	push_one(s, 0, "GPU-a", 1, NONE, NONE);
	push_one(s, 0, "GPU-b", 2, NONE, NONE);
	assert_int_equal(session_gpus(s), 1);
	assert_true(session_get(s, "GPU-b", SESSION_UTIL, &x));
	session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peak_and_mean),
		cmocka_unit_test(test_negative_values),
		cmocka_unit_test(test_unknown_is_not_zero),
		cmocka_unit_test(test_lost_and_absent_keep_figures),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
