/* test_kvparse: the shared procfs/sysfs/fdinfo parser — numbers at and past
 * 2^64, signs, fields, key-value lines (separators, blanks, CRLF, a missing
 * last newline, embedded NUL, over-long lines and keys, prefix collisions),
 * each unit, and single-value sysfs files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/kvparse.h"

#define S(lit) lit, sizeof(lit) - 1

static void test_u64(void **state)
{
	(void)state;
	uint64_t v = 7;

	assert_int_equal(kvparse_u64(S("0"), UINT64_MAX, &v), 1);
	assert_int_equal(v, 0);
	assert_int_equal(kvparse_u64(S("18446744073709551615"), UINT64_MAX, &v), 20);
	assert_true(v == UINT64_MAX);
	/* 2^64 and beyond: an error, not a wrapped or clamped value. */
	v = 7;
	assert_int_equal(kvparse_u64(S("18446744073709551616"), UINT64_MAX, &v), -ERANGE);
	assert_int_equal(kvparse_u64(S("99999999999999999999"), UINT64_MAX, &v), -ERANGE);
	assert_int_equal(kvparse_u64(S("184467440737095516150"), UINT64_MAX, &v), -ERANGE);
	assert_int_equal(v, 7);
	/* Leading zeros do not count towards overflow. */
	assert_int_equal(kvparse_u64(S("0000000000000000000000018446744073709551615"), UINT64_MAX, &v), 43);
	assert_true(v == UINT64_MAX);
	/* The caller's max. */
	assert_int_equal(kvparse_u64(S("1000"), 999, &v), -ERANGE);
	assert_int_equal(kvparse_u64(S("999"), 999, &v), 3);
	assert_int_equal(kvparse_u64(S("5"), 4, &v), -ERANGE);
	/* Stops at the first non-digit, and at len (not at a NUL). */
	assert_int_equal(kvparse_u64(S("123 kB"), UINT64_MAX, &v), 3);
	assert_int_equal(v, 123);
	assert_int_equal(kvparse_u64("12345", 2, UINT64_MAX, &v), 2);
	assert_int_equal(v, 12);
	assert_int_equal(kvparse_u64(S("12\0" "34"), UINT64_MAX, &v), 2);
	/* No digit: nothing; signs and blanks are not digits. */
	v = 7;
	assert_int_equal(kvparse_u64(S(""), UINT64_MAX, &v), 0);
	assert_int_equal(kvparse_u64(S("+1"), UINT64_MAX, &v), 0);
	assert_int_equal(kvparse_u64(S("-1"), UINT64_MAX, &v), 0);
	assert_int_equal(kvparse_u64(S(" 1"), UINT64_MAX, &v), 0);
	assert_int_equal(v, 7);
}

/* Against strtoull on every digit string of a pattern around 2^64. */
static void test_u64_agrees_with_strtoull(void **state)
{
	(void)state;
	char s[32];

	for (unsigned i = 0; i < 2000; i++) {
		uint64_t base = UINT64_MAX - 1000 + i;
		for (int shift = 0; shift < 3; shift++) {
			int n = snprintf(s, sizeof(s), "%llu%.*s", (unsigned long long)base, shift, "99");
			uint64_t v = 0;
			errno = 0;
			unsigned long long ref = strtoull(s, NULL, 10);
			bool over = errno == ERANGE;
			ssize_t r = kvparse_u64(s, (size_t)n, UINT64_MAX, &v);
			if (over) {
				assert_int_equal(r, -ERANGE);
			} else {
				assert_int_equal(r, n);
				assert_true(v == ref);
			}
		}
	}
}

static void test_i64(void **state)
{
	(void)state;
	int64_t v = 7;

	assert_int_equal(kvparse_i64(S("-273150"), &v), 7);
	assert_int_equal(v, -273150);
	assert_int_equal(kvparse_i64(S("+42"), &v), 3);
	assert_int_equal(v, 42);
	assert_int_equal(kvparse_i64(S("9223372036854775807"), &v), 19);
	assert_true(v == INT64_MAX);
	assert_int_equal(kvparse_i64(S("-9223372036854775808"), &v), 20);
	assert_true(v == INT64_MIN);
	v = 7;
	assert_int_equal(kvparse_i64(S("9223372036854775808"), &v), -ERANGE);
	assert_int_equal(kvparse_i64(S("-9223372036854775809"), &v), -ERANGE);
	assert_int_equal(kvparse_i64(S("-"), &v), 0);
	assert_int_equal(kvparse_i64(S("+"), &v), 0);
	assert_int_equal(kvparse_i64(S("--1"), &v), 0);
	assert_int_equal(kvparse_i64(S(""), &v), 0);
	assert_int_equal(v, 7);
}

static void test_fields(void **state)
{
	(void)state;
	struct kvparse_cur c;
	const char *f;
	size_t n;
	uint64_t v;

	kvparse_cur_init(&c, S("cpu  100 \t0 18446744073709551616 x1 7\n"));
	assert_true(kvparse_field(&c, &f, &n));
	assert_memory_equal(f, "cpu", 3);
	assert_int_equal(n, 3);
	assert_true(kvparse_field_u64(&c, UINT64_MAX, &v));
	assert_int_equal(v, 100);
	assert_true(kvparse_field_u64(&c, UINT64_MAX, &v));
	assert_int_equal(v, 0);
	/* Over 2^64, then not all digits: no number, the cursor stays. */
	assert_false(kvparse_field_u64(&c, UINT64_MAX, &v));
	assert_true(kvparse_field(&c, &f, &n));
	assert_int_equal(n, 20);
	assert_false(kvparse_field_u64(&c, UINT64_MAX, &v));
	assert_true(kvparse_field(&c, &f, &n));
	assert_memory_equal(f, "x1", 2);
	assert_false(kvparse_field_u64(&c, 6, &v)); /* over max */
	assert_true(kvparse_field_u64(&c, 7, &v));
	assert_int_equal(v, 7);
	assert_false(kvparse_field(&c, &f, &n));
	assert_false(kvparse_field_u64(&c, UINT64_MAX, &v));

	kvparse_cur_init(&c, S("12abc"));
	assert_false(kvparse_field_u64(&c, UINT64_MAX, &v)); /* digits then garbage */
	kvparse_cur_init(&c, "", 0);
	assert_false(kvparse_field(&c, &f, &n));
}

static void test_lines(void **state)
{
	(void)state;
	static char big[KVPARSE_MAX_LINE + 40];
	struct kvparse_iter it;
	const char *l;
	size_t n;

	kvparse_iter_init(&it, S("a\r\n\nb\r\nlast"));
	assert_true(kvparse_line(&it, &l, &n));
	assert_int_equal(n, 1);
	assert_true(kvparse_line(&it, &l, &n));
	assert_int_equal(n, 0);
	assert_true(kvparse_line(&it, &l, &n));
	assert_memory_equal(l, "b", 1);
	assert_int_equal(n, 1);
	assert_true(kvparse_line(&it, &l, &n)); /* no trailing newline */
	assert_int_equal(n, 4);
	assert_memory_equal(l, "last", 4);
	assert_false(kvparse_line(&it, &l, &n));

	/* A line over the bound is skipped; one at it is kept. */
	memset(big, 'x', sizeof(big));
	big[KVPARSE_MAX_LINE + 1] = '\n';
	memcpy(big + KVPARSE_MAX_LINE + 2, "ok\n", 3);
	kvparse_iter_init(&it, big, KVPARSE_MAX_LINE + 5);
	assert_true(kvparse_line(&it, &l, &n));
	assert_int_equal(n, 2);
	assert_memory_equal(l, "ok", 2);
	assert_false(kvparse_line(&it, &l, &n));
	big[KVPARSE_MAX_LINE] = '\n';
	kvparse_iter_init(&it, big, KVPARSE_MAX_LINE + 1);
	assert_true(kvparse_line(&it, &l, &n));
	assert_int_equal(n, KVPARSE_MAX_LINE);
}

/* A read that filled its buffer may have cut its last line: left out. */
static void test_complete(void **state)
{
	(void)state;
	assert_int_equal(kvparse_complete(S("a: 1\nb: 12"), 64), 10);       /* not full: all */
	assert_int_equal(kvparse_complete(S("a: 1\nb: 12"), 11), 5);        /* full: up to the '\n' */
	assert_int_equal(kvparse_complete(S("a: 1\nb: 12\n"), 12), 11);
	assert_int_equal(kvparse_complete(S("btime 1700"), 11), 0);          /* no whole line */
}

static void test_kv(void **state)
{
	(void)state;
	struct kvparse_iter it;
	struct kvparse_kv kv;
	static const char fdinfo[] = "pos:\t0\n"
				     "drm-driver:\tamdgpu\n"
				     "drm-memory-gtt: \t46356 KiB\r\n"
				     "no separator here\n"
				     ":\tempty key\n"
				     "drm-engine-capacity-gfx:\t2\n"
				     "drm-engine-gfx:\t38124561233 ns\n"
				     "drm-pdev:\t0000:03:00.0\n"
				     "empty:\n"
				     "vram mem:\t1254388 kB\n"
				     "nul\0key:\t1\n"
				     "drm-engine-dma:\t182330112 ns";

	kvparse_iter_init(&it, fdinfo, sizeof(fdinfo) - 1);
	assert_true(kvparse_next(&it, ':', &kv));
	assert_true(kvparse_key_is(&kv, "pos"));
	assert_int_equal(kv.vlen, 1);
	assert_true(kvparse_next(&it, ':', &kv));
	assert_true(kvparse_key_is(&kv, "drm-driver"));
	assert_int_equal(kv.vlen, 6);
	assert_memory_equal(kv.val, "amdgpu", 6);
	/* Space then tab after the colon, CRLF: both trimmed. */
	assert_true(kvparse_next(&it, ':', &kv));
	assert_true(kvparse_key_is(&kv, "drm-memory-gtt"));
	assert_int_equal(kv.vlen, 9);
	assert_memory_equal(kv.val, "46356 KiB", 9);
	/* A line without ':' and one with an empty key are skipped. Prefix
	 * collisions: "drm-engine-capacity-gfx" is not "drm-engine-gfx", though
	 * both start with "drm-engine-". */
	assert_true(kvparse_next(&it, ':', &kv));
	assert_true(kvparse_key_is(&kv, "drm-engine-capacity-gfx"));
	assert_false(kvparse_key_is(&kv, "drm-engine-gfx"));
	assert_false(kvparse_key_is(&kv, "drm-engine-capacity-gfx0"));
	assert_false(kvparse_key_is(&kv, "drm-engine-capacity-gf"));
	size_t rest = 0;
	assert_true(kvparse_key_prefix(&kv, "drm-engine-capacity-", &rest));
	assert_int_equal(rest, 20);
	assert_true(kvparse_next(&it, ':', &kv));
	assert_true(kvparse_key_is(&kv, "drm-engine-gfx"));
	assert_false(kvparse_key_prefix(&kv, "drm-engine-capacity-", NULL));
	assert_true(kvparse_key_prefix(&kv, "drm-engine-", &rest));
	assert_memory_equal(kv.key + rest, "gfx", 3);
	assert_false(kvparse_key_prefix(&kv, "drm-engine-gfx", NULL)); /* nothing after it */
	/* The value holds later separators. */
	assert_true(kvparse_next(&it, ':', &kv));
	assert_true(kvparse_key_is(&kv, "drm-pdev"));
	assert_int_equal(kv.vlen, 12);
	assert_true(kvparse_next(&it, ':', &kv));
	assert_true(kvparse_key_is(&kv, "empty"));
	assert_int_equal(kv.vlen, 0);
	assert_true(kvparse_next(&it, ':', &kv));
	assert_true(kvparse_key_is(&kv, "vram mem"));
	/* An embedded NUL is a byte like another: no key matches across it. */
	assert_true(kvparse_next(&it, ':', &kv));
	assert_int_equal(kv.klen, 7);
	assert_false(kvparse_key_is(&kv, "nul"));
	assert_true(kvparse_next(&it, ':', &kv)); /* no newline at the end */
	assert_true(kvparse_key_is(&kv, "drm-engine-dma"));
	assert_int_equal(kv.vlen, 12);
	assert_false(kvparse_next(&it, ':', &kv));

	/* Blank-separated: /proc/stat. */
	kvparse_iter_init(&it, S("cpu  1 2 3\nintr\nbtime\t1700000000\n"));
	assert_true(kvparse_next(&it, ' ', &kv));
	assert_true(kvparse_key_is(&kv, "cpu"));
	assert_int_equal(kv.vlen, 5);
	assert_true(kvparse_next(&it, ' ', &kv)); /* "intr" alone has no separator */
	assert_true(kvparse_key_is(&kv, "btime"));
	assert_memory_equal(kv.val, "1700000000", 10);
	assert_false(kvparse_next(&it, ' ', &kv));
}

static void test_long_key(void **state)
{
	(void)state;
	char buf[KVPARSE_MAX_KEY + 16];
	struct kvparse_iter it;
	struct kvparse_kv kv;

	memset(buf, 'k', sizeof(buf));
	buf[KVPARSE_MAX_KEY + 1] = ':';
	buf[KVPARSE_MAX_KEY + 2] = '\n';
	kvparse_iter_init(&it, buf, KVPARSE_MAX_KEY + 3);
	assert_false(kvparse_next(&it, ':', &kv)); /* key of MAX + 1 bytes */
	buf[KVPARSE_MAX_KEY] = ':';
	kvparse_iter_init(&it, buf, KVPARSE_MAX_KEY + 3);
	assert_true(kvparse_next(&it, ':', &kv));
	assert_int_equal(kv.klen, KVPARSE_MAX_KEY);
}

static void test_units(void **state)
{
	(void)state;
	uint64_t v = 7;

	assert_int_equal(kvparse_value(S("1024"), KVPARSE_UNIT_BYTES, &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(kvparse_value(S("1000 kB"), KVPARSE_UNIT_BYTES, &v), 0);
	assert_int_equal(v, 1024000);
	assert_int_equal(kvparse_value(S("46356 KiB"), KVPARSE_UNIT_BYTES, &v), 0);
	assert_int_equal(v, 46356ull * 1024);
	assert_int_equal(kvparse_value(S("8 MiB"), KVPARSE_UNIT_BYTES, &v), 0);
	assert_int_equal(v, 8388608);
	assert_int_equal(kvparse_value(S("3 GiB"), KVPARSE_UNIT_BYTES, &v), 0);
	assert_int_equal(v, 3ull << 30);
	assert_int_equal(kvparse_value(S(" \t12KiB \n"), KVPARSE_UNIT_BYTES, &v), 0);
	assert_int_equal(v, 12288);
	/* Overflow by scaling, and before it. */
	assert_int_equal(kvparse_value(S("18014398509481983 KiB"), KVPARSE_UNIT_BYTES, &v), 0);
	assert_true(v == 18014398509481983ull * 1024);
	assert_int_equal(kvparse_value(S("18014398509481984 KiB"), KVPARSE_UNIT_BYTES, &v), -ERANGE);
	assert_int_equal(kvparse_value(S("17179869184 GiB"), KVPARSE_UNIT_BYTES, &v), -ERANGE);
	assert_int_equal(kvparse_value(S("18446744073709551616"), KVPARSE_UNIT_BYTES, &v), -ERANGE);
	/* Units of another kind, unknown ones, case, garbage after. */
	assert_int_equal(kvparse_value(S("5 ns"), KVPARSE_UNIT_BYTES, &v), -EINVAL);
	assert_int_equal(kvparse_value(S("5 kb"), KVPARSE_UNIT_BYTES, &v), -EINVAL);
	assert_int_equal(kvparse_value(S("5 KiB x"), KVPARSE_UNIT_BYTES, &v), -EINVAL);
	assert_int_equal(kvparse_value(S("5 KiB\0"), KVPARSE_UNIT_BYTES, &v), -EINVAL);
	assert_int_equal(kvparse_value(S(""), KVPARSE_UNIT_BYTES, &v), -EINVAL);
	assert_int_equal(kvparse_value(S("KiB"), KVPARSE_UNIT_BYTES, &v), -EINVAL);
	assert_int_equal(kvparse_value(S("-5"), KVPARSE_UNIT_BYTES, &v), -EINVAL);
	assert_int_equal(kvparse_value(S("+5"), KVPARSE_UNIT_BYTES, &v), -EINVAL);
	assert_int_equal(kvparse_value(S("1.5 MiB"), KVPARSE_UNIT_BYTES, &v), -EINVAL);

	assert_int_equal(kvparse_value(S("38124561233 ns"), KVPARSE_UNIT_NS, &v), 0);
	assert_true(v == 38124561233ull);
	assert_int_equal(kvparse_value(S("38124561233"), KVPARSE_UNIT_NS, &v), 0);
	assert_int_equal(kvparse_value(S("5 KiB"), KVPARSE_UNIT_NS, &v), -EINVAL);

	assert_int_equal(kvparse_value(S("800 MHz"), KVPARSE_UNIT_HZ, &v), 0);
	assert_int_equal(v, 800000000);
	assert_int_equal(kvparse_value(S("19200 KHz"), KVPARSE_UNIT_HZ, &v), 0);
	assert_int_equal(v, 19200000);
	assert_int_equal(kvparse_value(S("19200 kHz"), KVPARSE_UNIT_HZ, &v), 0);
	assert_int_equal(kvparse_value(S("2 GHz"), KVPARSE_UNIT_HZ, &v), 0);
	assert_int_equal(v, 2000000000);
	assert_int_equal(kvparse_value(S("7 Hz"), KVPARSE_UNIT_HZ, &v), 0);
	assert_int_equal(v, 7);

	assert_int_equal(kvparse_value(S("93"), KVPARSE_UNIT_NONE, &v), 0);
	assert_int_equal(v, 93);
	assert_int_equal(kvparse_value(S("93 ns"), KVPARSE_UNIT_NONE, &v), -EINVAL);
}

static void test_single(void **state)
{
	(void)state;
	uint64_t u = 7;
	int64_t i = 7;

	assert_int_equal(kvparse_single_u64(S("52000\n"), &u), 0);
	assert_int_equal(u, 52000);
	assert_int_equal(kvparse_single_u64(S("25753026560"), &u), 0); /* no newline */
	assert_true(u == 25753026560ull);
	assert_int_equal(kvparse_single_u64(S("37\r\n"), &u), 0);
	assert_int_equal(kvparse_single_i64(S("-273150\n"), &i), 0);
	assert_int_equal(i, -273150);
	assert_int_equal(kvparse_single_i64(S("+5\n"), &i), 0);
	assert_int_equal(i, 5);
	u = 7;
	i = 7;
	assert_int_equal(kvparse_single_u64(S(""), &u), -EINVAL);
	assert_int_equal(kvparse_single_u64(S("\n"), &u), -EINVAL);
	assert_int_equal(kvparse_single_u64(S(" 5\n"), &u), -EINVAL);
	assert_int_equal(kvparse_single_u64(S("5 x\n"), &u), -EINVAL);
	assert_int_equal(kvparse_single_u64(S("5\n6\n"), &u), -EINVAL);
	assert_int_equal(kvparse_single_u64(S("5\0" "6"), &u), -EINVAL);
	assert_int_equal(kvparse_single_u64(S("-5\n"), &u), -EINVAL);
	assert_int_equal(kvparse_single_u64(S("Unknown\n"), &u), -EINVAL);
	assert_int_equal(kvparse_single_u64(S("18446744073709551616\n"), &u), -ERANGE);
	assert_int_equal(kvparse_single_i64(S("-\n"), &i), -EINVAL);
	assert_int_equal(kvparse_single_i64(S("9223372036854775808\n"), &i), -ERANGE);
	assert_int_equal(u, 7);
	assert_int_equal(i, 7);

	assert_int_equal(kvparse_trim_end(S("samsung\n")), 7);
	assert_int_equal(kvparse_trim_end(S(" \n")), 0);
	assert_int_equal(kvparse_trim_end(S("a b \t\r\n")), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_u64_agrees_with_strtoull),
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_long_key),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_single),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
