/* test_utf8: strict decoding (maximal invalid prefixes as U+FFFD), encoding,
 * sanitising for the terminal and cutting on character boundaries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"
#include "util/utf8.h"

#define FFFD "\xEF\xBF\xBD"

/* Decodes one code point of the literal s (its length taken from sizeof). */
#define DECODE(s, cp) utf8_decode((s), sizeof(s) - 1, (cp))

static void test_decode_valid(void **state)
{
	uint32_t cp;

	(void)state;
	assert_int_equal(DECODE("A", &cp), 1);
	assert_int_equal(cp, 'A');
	assert_int_equal(utf8_decode("\0", 1, &cp), 1);
	assert_int_equal(cp, 0);
	assert_int_equal(DECODE("\x7F", &cp), 1);
	assert_int_equal(cp, 0x7F);
	assert_int_equal(DECODE("\xC2\x80", &cp), 2);
	assert_int_equal(cp, 0x80);
	assert_int_equal(DECODE("\xC3\xA9", &cp), 2);
	assert_int_equal(cp, 0xE9);
	assert_int_equal(DECODE("\xDF\xBF", &cp), 2);
	assert_int_equal(cp, 0x7FF);
	assert_int_equal(DECODE("\xE0\xA0\x80", &cp), 3);
	assert_int_equal(cp, 0x800);
	assert_int_equal(DECODE("\xE2\x82\xAC", &cp), 3);
	assert_int_equal(cp, 0x20AC);
	assert_int_equal(DECODE("\xED\x9F\xBF", &cp), 3); /* just below the surrogates */
	assert_int_equal(cp, 0xD7FF);
	assert_int_equal(DECODE("\xEE\x80\x80", &cp), 3);
	assert_int_equal(cp, 0xE000);
	assert_int_equal(DECODE("\xEF\xBF\xBF", &cp), 3);
	assert_int_equal(cp, 0xFFFF);
	assert_int_equal(DECODE("\xF0\x90\x80\x80", &cp), 4);
	assert_int_equal(cp, 0x10000);
	assert_int_equal(DECODE("\xF0\x9F\x98\x80", &cp), 4);
	assert_int_equal(cp, 0x1F600);
	assert_int_equal(DECODE("\xF4\x8F\xBF\xBF", &cp), 4);
	assert_int_equal(cp, 0x10FFFF);
	/* Only the first code point is consumed. */
	assert_int_equal(DECODE("\xC3\xA9" "abc", &cp), 2);
	assert_int_equal(cp, 0xE9);
}

static void test_decode_invalid(void **state)
{
	static const struct {
		const char *s;
		size_t n, used;
	} cases[] = {
		{"\x80", 1, 1},                 /* lone continuation */
		{"\xBF", 1, 1},
		{"\xC0\x80", 2, 1},             /* overlong lead bytes are never valid */
		{"\xC1\xBF", 2, 1},
		{"\xF5\x80\x80\x80", 4, 1},     /* beyond U+10FFFF */
		{"\xFF", 1, 1},
		{"\xFE", 1, 1},
		{"\xC3", 1, 1},                 /* truncated by the end of input */
		{"\xC3" "A", 2, 1},             /* bad continuation: only the lead goes */
		{"\xE2\x82", 2, 2},             /* truncated 3-byte: its prefix as one FFFD */
		{"\xE2\x82" "A", 3, 2},
		{"\xF0\x9F\x98", 3, 3},
		{"\xF0\x9F\x98" "x", 4, 3},
		{"\xE0\x80\x80", 3, 1},         /* overlong 3-byte */
		{"\xE0\x9F\xBF", 3, 1},
		{"\xED\xA0\x80", 3, 1},         /* UTF-16 surrogate D800 */
		{"\xED\xBF\xBF", 3, 1},         /* DFFF */
		{"\xF0\x80\x80\x80", 4, 1},     /* overlong 4-byte */
		{"\xF0\x8F\xBF\xBF", 4, 1},
		{"\xF4\x90\x80\x80", 4, 1},     /* U+110000 */
	};
	uint32_t cp;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cp = 0;
		size_t used = utf8_decode(cases[i].s, cases[i].n, &cp);
		if (used != cases[i].used || cp != UTF8_REPLACEMENT)
			fail_msg("case %zu: used %zu (want %zu), cp %#x", i, used, cases[i].used, (unsigned)cp);
	}
}

static void test_encode_round_trips(void **state)
{
	static const uint32_t cps[] = {0, 'a', 0x7F, 0x80, 0x7FF, 0x800, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF};
	char out[4];
	uint32_t back;

	(void)state;
	for (size_t i = 0; i < sizeof(cps) / sizeof(cps[0]); i++) {
		size_t n = utf8_encode(cps[i], out);
		size_t want = cps[i] < 0x80 ? 1 : cps[i] < 0x800 ? 2 : cps[i] < 0x10000 ? 3 : 4;
		assert_int_equal(n, want);
		assert_int_equal(utf8_decode(out, n, &back), n);
		assert_int_equal(back, cps[i]);
	}
	assert_int_equal(utf8_encode(0x20AC, out), 3);
	assert_memory_equal(out, "\xE2\x82\xAC", 3);
}

/* Runs utf8_append_safe over the literal-with-length s and compares. */
static void check_safe(const char *s, size_t n, bool utf8, const char *want)
{
	struct buf b;

	buf_init(&b);
	buf_puts(&b, ">"); /* appends after what is there */
	utf8_append_safe(&b, s, n, utf8);
	if (strcmp(buf_cstr(&b) + 1, want) != 0 || b.data[0] != '>')
		fail_msg("append_safe(\"%.*s\", %d) = \"%s\", want \"%s\"", (int)n, s, utf8, b.data, want);
	buf_fini(&b);
}
#define SAFE(s, utf8, want) check_safe((s), sizeof(s) - 1, (utf8), (want))

static void test_append_safe_utf8(void **state)
{
	(void)state;
	SAFE("plain text ~!", true, "plain text ~!");
	SAFE("", true, "");
	SAFE("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", true, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
	/* Terminal escapes and other controls cannot reach the screen. */
	SAFE("\x1B[31mred", true, FFFD "[31mred");
	SAFE("a\tb\nc\rd", true, "a" FFFD "b" FFFD "c" FFFD "d");
	SAFE("nul\0x", true, "nul" FFFD "x");
	SAFE("del\x7F", true, "del" FFFD);
	SAFE("c1\xC2\x85\xC2\x9B", true, "c1" FFFD FFFD);      /* NEL and CSI */
	SAFE("\xC2\xA0nbsp", true, "\xC2\xA0nbsp");              /* U+00A0 is printable */
	SAFE("bad\xFF\xC3(", true, "bad" FFFD FFFD "(");
	SAFE("\xE2\x82", true, FFFD);
	/* Invisible format characters: a soft hyphen (U+00AD), a Hangul
	 * filler (U+3164), a deprecated format control (U+206A), an
	 * interlinear annotation (U+FFF9) and a tag (U+E0041) hide or change
	 * what a name reads as; a variation selector (U+FE0F) stays. */
	SAFE("ad\xC2\xADmin", true, "ad" FFFD "min");
	SAFE("\xE3\x85\xA4x", true, FFFD "x");
	SAFE("\xE2\x81\xAAx", true, FFFD "x");
	SAFE("\xEF\xBF\xB9x", true, FFFD "x");
	SAFE("\xF3\xA0\x81\x81x", true, FFFD "x");
	SAFE("\xE2\x9D\xA4\xEF\xB8\x8F", true, "\xE2\x9D\xA4\xEF\xB8\x8F");
}

static void test_append_safe_ascii(void **state)
{
	(void)state;
	SAFE("plain", false, "plain");
	SAFE("caf\xC3\xA9", false, "caf?");
	SAFE("\xE2\x82\xAC\xF0\x9F\x98\x80", false, "??"); /* one '?' per character */
	SAFE("\x1B[0m\x7F", false, "?[0m?");
	SAFE("\xFF\xE2\x82" "A", false, "??A");
}

static void test_trim(void **state)
{
	static const char euro2[] = "\xE2\x82\xAC\xE2\x82\xAC"; /* two 3-byte characters */
	static const char emoji[] = "\xF0\x9F\x98\x80";

	(void)state;
	assert_int_equal(utf8_trim("abc", 3, 5), 3);
	assert_int_equal(utf8_trim("abc", 3, 3), 3);
	assert_int_equal(utf8_trim("abcdef", 6, 3), 3);
	assert_int_equal(utf8_trim("abc", 3, 0), 0);
	assert_int_equal(utf8_trim("a\xC3\xA9", 3, 2), 1);
	assert_int_equal(utf8_trim("a\xC3\xA9" "b", 4, 3), 3);
	for (size_t max = 0; max < 3; max++)
		assert_int_equal(utf8_trim(euro2, 6, max), 0);
	for (size_t max = 3; max < 6; max++)
		assert_int_equal(utf8_trim(euro2, 6, max), 3);
	assert_int_equal(utf8_trim(euro2, 6, 6), 6);
	for (size_t max = 0; max < 4; max++)
		assert_int_equal(utf8_trim(emoji, 4, max), 0);
	assert_int_equal(utf8_trim(emoji, 4, 4), 4);
	/* A valid character cut short by the end of s is left out too. */
	assert_int_equal(utf8_trim("ab\xE2\x82", 4, 3), 2);
	/* Invalid bytes are cut where they fall: stray continuation bytes (a
	 * run of them, or one after a whole character), a bad sequence. */
	assert_int_equal(utf8_trim("\x80\x80\x80\x80\x80\x80\x80\x80", 8, 5), 5);
	assert_int_equal(utf8_trim("\xC3\xA9\xA9", 3, 2), 2);
	assert_int_equal(utf8_trim("a\xE0\x80\x80", 4, 3), 3);
	assert_int_equal(utf8_trim("a\xFF\x80\x80", 4, 3), 3);
}

static void test_append_valid(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b);
	buf_puts(&b, "xy");
	utf8_append_valid(&b, "a\xFF" "b\xC3\xA9", 5, 100);
	assert_string_equal(buf_cstr(&b), "xya" FFFD "b\xC3\xA9");
	/* max counts only what this call appends, and never splits a character. */
	buf_reset(&b);
	buf_puts(&b, "xy");
	utf8_append_valid(&b, "ab\xE2\x82\xAC" "c", 6, 4);
	assert_string_equal(buf_cstr(&b), "xyab");
	buf_reset(&b);
	utf8_append_valid(&b, "abcdef", 6, 3);
	assert_string_equal(buf_cstr(&b), "abc");
	buf_reset(&b);
	utf8_append_valid(&b, "\xFF\xFF", 2, 5); /* one FFFD fits, the second does not */
	assert_string_equal(buf_cstr(&b), FFFD);
	buf_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_valid),
		cmocka_unit_test(test_decode_invalid),
		cmocka_unit_test(test_encode_round_trips),
		cmocka_unit_test(test_append_safe_utf8),
		cmocka_unit_test(test_append_safe_ascii),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_append_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
