/* test_report_downsample: per-column min/max/mean on a shared grid; a spike
 * survives any number of widenings; all series of a grid widen together;
 * flags are ORed; an unknown column stays unknown (not 0). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/downsample.h"

static const uint64_t T0 = 1764583200000ull;

static void test_first_columns(void **state)
{
	struct downsample_grid g;
	struct downsample_series *s = calloc(1, sizeof(*s));

	(void)state;
	downsample_grid_init(&g);
	downsample_attach(&g, s);
	assert_int_equal(downsample_column(&g, T0), 0);
	assert_int_equal(downsample_column(&g, T0 + 999), 0);
	assert_int_equal(downsample_column(&g, T0 + 1000), 1);
	assert_int_equal(downsample_column(&g, T0 - 1), SIZE_MAX); /* before the origin */
	downsample_add(s, 0, 10);
	downsample_add(s, 0, 30);
	downsample_add(s, 0, 20);
	assert_int_equal(s->col[0].n, 3);
	assert_true(s->col[0].min == 10 && s->col[0].max == 30 && s->col[0].sum == 60);
	assert_int_equal(s->col[1].n, 0);
	assert_int_equal(g.used, 2);
	assert_int_equal(g.width_ms, DOWNSAMPLE_MIN_WIDTH_MS);
	downsample_grid_fini(&g);
	free(s);
}

/* A day at 1 s, one spike of 1000 in a sea of 1..9: the spike is some
 * column's max, the mean of every column is that of its values, and the
 * grid never holds more than its columns. */
static void test_day_keeps_spike_and_means(void **state)
{
	struct downsample_grid g;
	struct downsample_series *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct downsample_flags *f = calloc(1, sizeof(*f));
	const uint64_t n = 86400, spike = 54321;
	double total = 0;

	(void)state;
	downsample_grid_init(&g);
	downsample_attach(&g, a);
	downsample_attach(&g, b);
	downsample_attach_flags(&g, f);
	for (uint64_t i = 0; i < n; i++) {
		size_t c = downsample_column(&g, T0 + i * 1000);
		double v = i == spike ? 1000 : (double)(i % 9 + 1);
		downsample_add(a, c, v);
		downsample_add(b, c, 2 * v);
		if (i == 7)
			f->bits[c] |= 4u;
		total += v;
	}
	assert_true(g.used <= DOWNSAMPLE_COLUMNS);
	assert_true(g.used > DOWNSAMPLE_COLUMNS / 2);
	/* The width is the smallest power-of-two multiple of 1 s that fits a day. */
	assert_int_equal(g.width_ms, 1000u * 256);
	double max = 0, sum = 0;
	uint64_t cnt = 0;
	size_t spike_col = (size_t)(spike * 1000 / g.width_ms);
	for (size_t c = 0; c < g.used; c++) {
		if (a->col[c].max > max)
			max = a->col[c].max;
		sum += a->col[c].sum;
		cnt += a->col[c].n;
		assert_true(b->col[c].n == a->col[c].n);
		assert_true(b->col[c].max == 2 * a->col[c].max); /* the two series merged alike */
	}
	assert_true(max == 1000);
	assert_true(a->col[spike_col].max == 1000);
	assert_true(a->col[spike_col].min == 1);
	assert_int_equal(cnt, n);
	assert_true(sum == total);
	assert_true(f->bits[0] == 4u); /* the flag of second 7 is in the first column */
	assert_true(f->bits[1] == 0);
	downsample_grid_fini(&g);
	free(a);
	free(b);
	free(f);
}

/* A late series (a GPU that appears halfway) joins the grid as it is. */
static void test_unknown_column_stays_unknown(void **state)
{
	struct downsample_grid g;
	struct downsample_series *s = calloc(1, sizeof(*s));

	(void)state;
	downsample_grid_init(&g);
	downsample_attach(&g, s);
	for (uint64_t i = 0; i < 2000; i++) {
		size_t c = downsample_column(&g, T0 + i * 1000);
		if (i < 500 || i >= 1500)
			downsample_add(s, c, 0); /* a measured 0 */
	}
	size_t known = 0, unknown = 0;
	for (size_t c = 0; c < g.used; c++)
		s->col[c].n ? known++ : unknown++;
	assert_true(unknown > 0);
	assert_true(known > 0);
	assert_int_equal(downsample_col_start(&g, 1), T0 + g.width_ms);
	downsample_add(s, 0, 0.0 / 0.0); /* NaN is not a value */
	downsample_add(s, DOWNSAMPLE_COLUMNS, 1); /* past the end: ignored */
	downsample_grid_fini(&g);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_columns),
		cmocka_unit_test(test_day_keeps_spike_and_means),
		cmocka_unit_test(test_unknown_column_stays_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
