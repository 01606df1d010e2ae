/* test_fmt: number formatting without printf, checked against snprintf
 * itself as the oracle: integers with padding, fixed decimals over a sweep
 * of values (ties to even where printf holds them exactly), huge and
 * non-finite values, and buffers too small. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/fmt.h"

static void test_u64(void **state)
{
	char a[32], b[32];
	static const uint64_t vals[] = {0, 1, 9, 10, 99, 100, 12345, 4294967296ull, UINT64_MAX};

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		for (unsigned w = 0; w < 6; w++) {
			size_t n = fmt_u64(a, sizeof(a), vals[i], w, ' ');
			snprintf(b, sizeof(b), "%*llu", (int)w, (unsigned long long)vals[i]);
			assert_string_equal(a, b);
			assert_int_equal(n, strlen(b));
			fmt_u64(a, sizeof(a), vals[i], w, '0');
			snprintf(b, sizeof(b), "%0*llu", (int)w, (unsigned long long)vals[i]);
			assert_string_equal(a, b);
			/* Cut short by every smaller buffer, as snprintf cuts. */
			for (size_t room = 1; room < 24; room++) {
				n = fmt_u64(a, room, vals[i], w, '0');
				snprintf(b, room, "%0*llu", (int)w, (unsigned long long)vals[i]);
				assert_string_equal(a, b);
				assert_int_equal(n, strlen(b));
			}
		}
	}
}

static void test_fixed_matches_printf(void **state)
{
	char a[64], b[64];

	(void)state;
	/* Steps of 1/8 (held exactly: ties are real ties) and of 0.001. */
	for (int i = -2000; i <= 2000; i++) {
		double exact = i / 8.0, near = i * 0.001;
		for (unsigned d = 0; d <= 3; d++) {
			fmt_fixed(a, sizeof(a), exact, d);
			snprintf(b, sizeof(b), "%.*f", (int)d, exact);
			if (strcmp(b, "-0") == 0 || strncmp(b, "-0.0", 4) == 0)
				memmove(b, b + 1, strlen(b)); /* no "-0": a small negative is 0 */
			assert_string_equal(a, b);
		}
		fmt_fixed(a, sizeof(a), near, 0);
		snprintf(b, sizeof(b), "%.0f", near);
		if (strcmp(b, "-0") == 0)
			strcpy(b, "0");
		assert_string_equal(a, b);
	}
	fmt_fixed(a, sizeof(a), 85520809984.0 / 1073741824.0, 1);
	assert_string_equal(a, "79.6");
	fmt_fixed(a, sizeof(a), 0.5, 0);
	assert_string_equal(a, "0"); /* ties to even, as printf */
	fmt_fixed(a, sizeof(a), 1.5, 0);
	assert_string_equal(a, "2");
	fmt_fixed(a, sizeof(a), 1.25, 6);
	assert_string_equal(a, "1.250000");
}

static void test_fixed_edges(void **state)
{
	char a[400], b[400];

	(void)state;
	fmt_fixed(a, sizeof(a), 1e300, 1);
	snprintf(b, sizeof(b), "%.1f", 1e300);
	assert_string_equal(a, b);
	fmt_fixed(a, sizeof(a), 2e15, 0);
	assert_string_equal(a, "2000000000000000");
	fmt_fixed(a, sizeof(a), NAN, 0);
	assert_string_equal(a, "nan");
	fmt_fixed(a, sizeof(a), -INFINITY, 2);
	assert_string_equal(a, "-inf");
	/* Too small a buffer: cut, terminated, the length written. */
	assert_int_equal(fmt_fixed(a, 4, 123.456, 2), 3);
	assert_string_equal(a, "123");
	assert_int_equal(fmt_u64(a, 3, 98765, 0, ' '), 2);
	assert_string_equal(a, "98");
	assert_int_equal(fmt_u64(a, 1, 5, 0, ' '), 0);
	assert_string_equal(a, "");
	a[0] = 'x';
	assert_int_equal(fmt_fixed(a, 0, 1.0, 1), 0);
	assert_int_equal(a[0], 'x'); /* n = 0: nothing written */
}

/* fmt_cat appends within the buffer, cuts what does not fit, and always
 * leaves a terminated text. */
static void test_cat(void **state)
{
	char a[8];

	(void)state;
	size_t at = fmt_u64(a, sizeof(a), 5, 0, ' ');
	at = fmt_cat(a, sizeof(a), at, "x");
	at += fmt_u64(a + at, sizeof(a) - at, 16, 0, ' ');
	assert_int_equal(at, 4);
	assert_string_equal(a, "5x16");
	at = fmt_cat(a, sizeof(a), at, " (max");
	assert_int_equal(at, 7);
	assert_string_equal(a, "5x16 (m");
	assert_int_equal(fmt_cat(a, sizeof(a), at, "more"), 7);
	assert_string_equal(a, "5x16 (m");
	/* A padded number cut short keeps its padding first, as printf does. */
	assert_int_equal(fmt_u64(a, 4, 7, 6, '0'), 3);
	assert_string_equal(a, "000");
	a[0] = 'y';
	assert_int_equal(fmt_cat(a, 0, 0, "z"), 0);
	assert_int_equal(a[0], 'y');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_fixed_matches_printf),
		cmocka_unit_test(test_fixed_edges),
		cmocka_unit_test(test_cat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
