/* test_json_parse: the strict pull parser: what it accepts and rejects, how
 * it decodes strings (U+FFFD for anything invalid, cuts on a character
 * boundary) and how it flags numbers out of range. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/json_parse.h"
#include "util/buf.h"

#define FFFD "\xEF\xBF\xBD"

/* Whether s[0..n) is exactly one valid JSON text. */
static bool valid_n(const char *s, size_t n)
{
	struct jsonp_parser jp;

	jsonp_init(&jp, s, n);
	return jsonp_skip(&jp) && jsonp_at_end(&jp);
}

static bool valid(const char *s)
{
	return valid_n(s, strlen(s));
}

static void test_accepts_valid_json(void **state)
{
	static const char *const ok[] = {
		"{}", "[]", " \t\r\n{ } \n", "0", "-0", "12", "-12", "0.5", "-0.0", "1e5", "1E+5",
		"1e-5", "-1.5e-3", "123456789012345678901234567890", "true", "false", "null", "\"\"",
		"\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u0041\\u00e9\\uD83D\\uDE00\"",
		"{\"a\":[1,2,{\"b\":null}],\"c\":true,\"d\":false,\"e\":\"x\"}",
		"[[[[]]],[{}],{\"\":{}}]", "{\"a\" : 1 , \"b\" : [ 1 , 2 ] }",
		"\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \x7F\"",
		"{\"a\":1,\"a\":2}", /* duplicates are valid JSON; the reader keeps the last */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!valid(ok[i]))
			fail_msg("rejected valid JSON: %s", ok[i]);
}

static void test_rejects_invalid_json(void **state)
{
	static const char *const bad[] = {
		"", "   ", "[1,]", "{\"a\":1,}", "[,1]", "{,}", "[1,,2]", "[1 2]", "{\"a\":1 \"b\":2}",
		"01", "-01", "[01]", "00", "1.", ".5", "+1", "-", "1e", "1e+", "0x10", "1.e3", "--1",
		"NaN", "Infinity", "-Infinity", "'a'", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"",
		"\"\\U0041\"", "\"\\", "\"a\tb\"", "\"a\nb\"", "\"\x01\"", "\"\x1F\"", "{\"a\" 1}",
		"{1:2}", "{a:1}", "{\"a\"}", "{\"a\":}", "[1}", "{\"a\":1]", "[", "]", "{", "}",
		"tru", "nul", "True", "nulll", "truex", "{} x", "{}{}", "[] []", "1 2", "[\"a\":1]",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (valid(bad[i]))
			fail_msg("accepted invalid JSON: \"%s\"", bad[i]);
	/* An embedded NUL is a raw control character, in a string or between values. */
	assert_false(valid_n("\"a\0b\"", 5));
	assert_false(valid_n("[1,\0 2]", 7));
}

/* Builds n nested arrays: [[[...]]]. */
static char *nested(size_t n)
{
	char *s = malloc(2 * n + 1);

	assert_non_null(s);
	memset(s, '[', n);
	memset(s + n, ']', n);
	s[2 * n] = '\0';
	return s;
}

static void test_depth_limit(void **state)
{
	char *s;

	(void)state;
	s = nested(JSONP_MAX_DEPTH);
	assert_true(valid(s));
	free(s);
	s = nested(JSONP_MAX_DEPTH + 1);
	assert_false(valid(s));
	free(s);
	/* Far too deep fails without overrunning anything. */
	s = nested(100000);
	assert_false(valid(s));
	free(s);
	/* The limit counts objects too, and the parser is reusable after. */
	struct jsonp_parser jp;
	char *o = malloc(8 * (JSONP_MAX_DEPTH + 1) + 1);
	size_t n = 0;
	assert_non_null(o);
	for (int i = 0; i <= JSONP_MAX_DEPTH; i++)
		n += (size_t)sprintf(o + n, "{\"a\":");
	o[n++] = '1';
	for (int i = 0; i <= JSONP_MAX_DEPTH; i++)
		o[n++] = '}';
	assert_false(valid_n(o, n));
	jsonp_init(&jp, "[1]", 3);
	assert_true(jsonp_skip(&jp) && jsonp_at_end(&jp));
	free(o);
}

/* Decodes the string literal s (a JSON text) keeping at most max bytes. */
static char *string_of(const char *s, size_t n, size_t max, bool *ok)
{
	struct jsonp_parser jp;
	struct buf b;

	buf_init(&b);
	jsonp_init(&jp, s, n);
	*ok = jsonp_string(&jp, &b, max) && jsonp_at_end(&jp);
	char *r = strdup(buf_cstr(&b));
	assert_non_null(r);
	buf_fini(&b);
	return r;
}

static void check_string(const char *json, size_t n, size_t max, const char *want)
{
	bool ok;
	char *got = string_of(json, n, max, &ok);

	if (!ok)
		fail_msg("json_string rejected %s", json);
	if (strcmp(got, want) != 0)
		fail_msg("jsonp_string(%s, max %zu) = \"%s\", want \"%s\"", json, max, got, want);
	free(got);
}
#define STR(json, want) check_string((json), sizeof(json) - 1, 1000, (want))
#define STR_MAX(json, max, want) check_string((json), sizeof(json) - 1, (max), (want))

static void test_string_escapes(void **state)
{
	(void)state;
	STR("\"plain\"", "plain");
	STR("\"\"", "");
	STR("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t");
	STR("\"\\u0041\\u00e9\\u20AC\"", "A\xC3\xA9\xE2\x82\xAC");
	STR("\"\\u001f\"", "\x1F"); /* escaped controls are fine */
}

static void test_surrogates(void **state)
{
	(void)state;
	STR("\"\\uD83D\\uDE00\"", "\xF0\x9F\x98\x80");
	STR("\"\\ud83d\\ude00\"", "\xF0\x9F\x98\x80");
	STR("\"\\uDBFF\\uDFFF\"", "\xF4\x8F\xBF\xBF");
	/* Lone halves become U+FFFD; what follows them is kept. */
	STR("\"\\uD83D\"", FFFD);
	STR("\"\\uD83Dx\"", FFFD "x");
	STR("\"\\uDE00\"", FFFD);
	STR("\"\\uDE00\\uD83D\"", FFFD FFFD);
	STR("\"\\uD83D\\u0041\"", FFFD "A");
	STR("\"\\uD83D\\n\"", FFFD "\n");
	STR("\"\\uD83D\\uD83D\\uDE00\"", FFFD "\xF0\x9F\x98\x80");
	/* A broken escape after a high half is still a syntax error. */
	bool ok;
	free(string_of("\"\\uD83D\\uZZZZ\"", 14, 100, &ok));
	assert_false(ok);
}

static void test_nul_and_invalid_utf8(void **state)
{
	(void)state;
	STR("\"a\\u0000b\"", "a" FFFD "b");
	STR("\"\xFF\"", FFFD);
	STR("\"a\xC3\"", "a" FFFD);             /* cut short by the closing quote */
	STR("\"\xC0\x80\"", FFFD FFFD);          /* overlong NUL */
	STR("\"\xED\xA0\x80\"", FFFD FFFD FFFD); /* encoded surrogate */
	STR("\"\xE2\x82" "A\"", FFFD "A");
	STR("\"\xF4\x90\x80\x80\"", FFFD FFFD FFFD FFFD);
	STR("\"ok \xC3\xA9\"", "ok \xC3\xA9");
}

static void test_string_cut_on_a_character_boundary(void **state)
{
	(void)state;
	STR_MAX("\"abcdef\"", 3, "abc");
	STR_MAX("\"abcdef\"", 6, "abcdef");
	STR_MAX("\"abcdef\"", 0, "");
	STR_MAX("\"a\xC3\xA9\"", 2, "a");
	STR_MAX("\"a\xC3\xA9\"", 3, "a\xC3\xA9");
	STR_MAX("\"\xE2\x82\xAC\xE2\x82\xAC\"", 5, "\xE2\x82\xAC");
	STR_MAX("\"\xF0\x9F\x98\x80z\"", 3, "");
	STR_MAX("\"\\u00e9\\u00e9\"", 3, "\xC3\xA9");
	STR_MAX("\"\\uD83D\\uDE00\"", 3, "");
	/* Once a character is dropped, a shorter one after it is not kept. */
	STR_MAX("\"\xC3\xA9" "a\"", 1, "");
	STR_MAX("\"x\xE2\x82\xAC" "abc\"", 3, "x");
	STR_MAX("\"x\\u20ACabc\"", 3, "x");
	/* The dropped rest is still validated, and the cursor ends after it. */
	bool ok;
	free(string_of("\"abc\\q\"", 7, 2, &ok));
	assert_false(ok);
	free(string_of("\"abc\x01\"", 6, 2, &ok));
	assert_false(ok);

	struct jsonp_parser jp;
	struct buf b;
	const char *arr = "[\"abcdef\",7]";
	struct jsonp_number num;
	buf_init(&b);
	jsonp_init(&jp, arr, strlen(arr));
	assert_true(jsonp_array_begin(&jp));
	assert_true(jsonp_array_next(&jp));
	assert_true(jsonp_string(&jp, &b, 2));
	assert_string_equal(buf_cstr(&b), "ab");
	assert_true(jsonp_array_next(&jp));
	assert_true(jsonp_number(&jp, &num));
	assert_int_equal(num.i, 7);
	assert_false(jsonp_array_next(&jp));
	assert_true(jsonp_at_end(&jp));
	buf_fini(&b);
}

static struct jsonp_number number(const char *s)
{
	struct jsonp_parser jp;
	struct jsonp_number n;

	jsonp_init(&jp, s, strlen(s));
	if (!jsonp_number(&jp, &n) || !jsonp_at_end(&jp))
		fail_msg("json_number rejected %s", s);
	return n;
}

static void test_numbers(void **state)
{
	struct jsonp_number n;

	(void)state;
	n = number("0");
	assert_true(n.is_int && !n.overflow && n.i == 0);
	n = number("-0");
	assert_true(n.is_int && !n.overflow && n.i == 0);
	n = number("42");
	assert_true(n.is_int && !n.overflow && n.i == 42 && n.d == 42.0);
	n = number("-17");
	assert_true(n.is_int && n.i == -17 && n.d == -17.0);
	n = number("1.5");
	assert_true(!n.is_int && !n.overflow && n.d == 1.5);
	n = number("42.0"); /* has a fraction: not an integer literal, value 42 */
	assert_true(!n.is_int && !n.overflow && n.d == 42.0);
	n = number("-2.5E+2");
	assert_true(!n.is_int && n.d == -250.0);
	n = number("1e300");
	assert_true(!n.is_int && !n.overflow && n.d == 1e300);
	n = number("5e-324");
	assert_true(!n.overflow && n.d == 5e-324);
	n = number("1e-400"); /* underflow to zero is still a number */
	assert_false(n.overflow);
	assert_true(n.d == 0.0);
}

static void test_integer_overflow_is_flagged(void **state)
{
	struct jsonp_number n;

	(void)state;
	n = number("9223372036854775807");
	assert_true(n.is_int && !n.overflow && n.i == INT64_MAX);
	n = number("-9223372036854775808");
	assert_true(n.is_int && !n.overflow && n.i == INT64_MIN);
	static const char *const over[] = {
		"9223372036854775808", "-9223372036854775809", "18446744073709551615",
		"18446744073709551616", "99999999999999999999", "-99999999999999999999999999",
		"1000000000000000000000000000000000000000000",
	};
	for (size_t i = 0; i < sizeof(over) / sizeof(over[0]); i++) {
		n = number(over[i]);
		if (!n.is_int || !n.overflow)
			fail_msg("%s: is_int %d overflow %d", over[i], n.is_int, n.overflow);
	}
}

static void test_real_overflow_is_flagged(void **state)
{
	struct jsonp_number n;

	(void)state;
	n = number("1e400");
	assert_true(!n.is_int && n.overflow);
	n = number("-1e400");
	assert_true(n.overflow);
	n = number("1.8e308");
	assert_true(n.overflow);
	n = number("1.7e308");
	assert_false(n.overflow);
}

static void test_pull_api(void **state)
{
	const char *s = "{\"name\":\"gpu\",\"n\":3,\"on\":true,\"off\":false,\"none\":null,\"arr\":[1,\"x\"],"
			"\"a_very_long_key_that_does_not_fit\":{}}";
	struct jsonp_parser jp;
	struct jsonp_number num;
	struct buf b;
	char key[8];
	size_t klen;

	(void)state;
	buf_init(&b);
	jsonp_init(&jp, s, strlen(s));
	assert_int_equal(jsonp_peek(&jp), JSONP_OBJECT);
	assert_true(jsonp_object_begin(&jp));

	assert_true(jsonp_object_next(&jp, key, sizeof(key), &klen));
	assert_string_equal(key, "name");
	assert_int_equal(klen, 4);
	assert_int_equal(jsonp_peek(&jp), JSONP_STRING);
	assert_true(jsonp_string(&jp, &b, 64));
	assert_string_equal(buf_cstr(&b), "gpu");

	assert_true(jsonp_object_next(&jp, key, sizeof(key), &klen));
	assert_string_equal(key, "n");
	assert_int_equal(jsonp_peek(&jp), JSONP_NUMBER);
	assert_true(jsonp_number(&jp, &num));
	assert_int_equal(num.i, 3);

	assert_true(jsonp_object_next(&jp, key, sizeof(key), &klen));
	assert_int_equal(jsonp_peek(&jp), JSONP_TRUE);
	assert_true(jsonp_literal(&jp, JSONP_TRUE));
	assert_true(jsonp_object_next(&jp, key, sizeof(key), &klen));
	assert_int_equal(jsonp_peek(&jp), JSONP_FALSE);
	assert_true(jsonp_literal(&jp, JSONP_FALSE));
	assert_true(jsonp_object_next(&jp, key, sizeof(key), &klen));
	assert_string_equal(key, "none");
	assert_int_equal(jsonp_peek(&jp), JSONP_NULL);
	assert_true(jsonp_literal(&jp, JSONP_NULL));

	assert_true(jsonp_object_next(&jp, key, sizeof(key), &klen));
	assert_string_equal(key, "arr");
	assert_true(jsonp_array_begin(&jp));
	assert_true(jsonp_array_next(&jp));
	assert_true(jsonp_number(&jp, &num));
	assert_true(jsonp_array_next(&jp));
	assert_int_equal(jsonp_peek(&jp), JSONP_STRING);
	assert_true(jsonp_skip(&jp));
	assert_false(jsonp_array_next(&jp));

	/* A key too long for the buffer is cut and its length says "matches nothing". */
	assert_true(jsonp_object_next(&jp, key, sizeof(key), &klen));
	assert_int_equal(klen, sizeof(key));
	assert_string_equal(key, "a_very_");
	assert_true(jsonp_skip(&jp));

	assert_false(jsonp_object_next(&jp, key, sizeof(key), &klen));
	assert_false(jp.failed);
	assert_true(jsonp_at_end(&jp));
	buf_fini(&b);
}

static void test_errors_are_sticky(void **state)
{
	struct jsonp_parser jp;
	struct jsonp_number num;

	(void)state;
	jsonp_init(&jp, "[1,x,2]", 7);
	assert_true(jsonp_array_begin(&jp));
	assert_true(jsonp_array_next(&jp));
	assert_true(jsonp_number(&jp, &num));
	assert_true(jsonp_array_next(&jp));
	assert_false(jsonp_skip(&jp));
	assert_true(jp.failed);
	assert_false(jsonp_array_next(&jp));
	assert_int_equal(jsonp_peek(&jp), JSONP_ERROR);
	assert_false(jsonp_at_end(&jp));
	/* Asking for the wrong type is an error too. */
	jsonp_init(&jp, "\"s\"", 3);
	assert_false(jsonp_number(&jp, &num));
	assert_true(jp.failed);
	jsonp_init(&jp, "null", 4);
	assert_false(jsonp_literal(&jp, JSONP_TRUE));
	/* A trailing comma ends the iteration with an error, not one more element. */
	jsonp_init(&jp, "[1,]", 4);
	assert_true(jsonp_array_begin(&jp));
	assert_true(jsonp_array_next(&jp));
	assert_true(jsonp_number(&jp, &num));
	assert_false(jsonp_array_next(&jp));
	assert_true(jp.failed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts_valid_json),
		cmocka_unit_test(test_rejects_invalid_json),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_string_escapes),
		cmocka_unit_test(test_surrogates),
		cmocka_unit_test(test_nul_and_invalid_utf8),
		cmocka_unit_test(test_string_cut_on_a_character_boundary),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_integer_overflow_is_flagged),
		cmocka_unit_test(test_real_overflow_is_flagged),
		cmocka_unit_test(test_pull_api),
		cmocka_unit_test(test_errors_are_sticky),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
