/* test_lineedit: the one line editor of the dashboard's text fields (the
 * process filter, the fleet's host filter, the time to jump to): UTF-8
 * typed byte by byte as a terminal sends it, backspace over a whole
 * character, a cursor, a bound no character is cut at, and nothing that is
 * not shown as itself let in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "view/lineedit.h"

static void type(struct lineedit *e, const char *s)
{
	lineedit_insert(e, s, strlen(s));
}

static void test_ascii(void **state)
{
	(void)state;
	struct lineedit e;

	lineedit_init(&e, 64);
	assert_true(lineedit_empty(&e));
	assert_true(lineedit_byte(&e, 'a'));
	type(&e, "bc d");
	assert_string_equal(lineedit_text(&e), "abc d");
	assert_int_equal(e.cur, 5);
	assert_true(lineedit_backspace(&e));
	assert_true(lineedit_backspace(&e));
	assert_string_equal(lineedit_text(&e), "abc");
	lineedit_clear(&e);
	assert_string_equal(lineedit_text(&e), "");
	assert_false(lineedit_backspace(&e));
}

/* A character's bytes come one at a time: nothing shows until the last;
 * backspace takes the whole character. */
static void test_utf8(void **state)
{
	(void)state;
	struct lineedit e;

	lineedit_init(&e, 64);
	assert_false(lineedit_byte(&e, 0xC5));
	assert_string_equal(lineedit_text(&e), "");
	assert_true(lineedit_byte(&e, 0x93)); /* œ */
	type(&e, "ud-\xF0\x9F\x9A\x80"); /* a 4-byte rocket */
	assert_string_equal(lineedit_text(&e), "\xC5\x93ud-\xF0\x9F\x9A\x80");
	assert_true(lineedit_backspace(&e));
	assert_string_equal(lineedit_text(&e), "\xC5\x93ud-");
	lineedit_home(&e);
	assert_true(lineedit_right(&e));
	assert_int_equal(e.cur, 2); /* past œ's two bytes */
	assert_true(lineedit_backspace(&e));
	assert_string_equal(lineedit_text(&e), "ud-");
	/* Backspace while a character is half typed drops its bytes. */
	lineedit_end(&e);
	lineedit_byte(&e, 0xE2);
	lineedit_byte(&e, 0x82);
	assert_false(lineedit_backspace(&e));
	assert_false(lineedit_byte(&e, 0xAC));
	assert_string_equal(lineedit_text(&e), "ud-");
}

/* Invalid sequences, controls and stray bytes never enter the text. */
static void test_invalid(void **state)
{
	(void)state;
	struct lineedit e;

	lineedit_init(&e, 64);
	type(&e, "a\x80"         /* a continuation byte alone */
		 "\xC0\xAF"      /* overlong */
		 "\xED\xA0\x80"  /* a surrogate */
		 "\xF5\x80\x80\x80" /* past U+10FFFF */
		 "\xC3" "b"      /* cut short by an ASCII byte, which stays */
		 "\x1b\x07\x7f"  /* controls */
		 "\xC2\x85"      /* C1 NEL */
		 "\xC3\xA9");    /* é */
	assert_string_equal(lineedit_text(&e), "ab\xC3\xA9");
}

/* Inserting and deleting at the cursor, which moves by whole characters. */
static void test_cursor(void **state)
{
	(void)state;
	struct lineedit e;

	lineedit_init(&e, 64);
	type(&e, "h\xC3\xA9llo");
	assert_int_equal(e.cur, 6);
	assert_true(lineedit_left(&e));
	assert_true(lineedit_left(&e));
	assert_true(lineedit_left(&e));
	assert_int_equal(e.cur, 3);
	assert_true(lineedit_left(&e));
	assert_int_equal(e.cur, 1); /* before é, not inside it */
	type(&e, "\xE2\x82\xAC");
	assert_string_equal(lineedit_text(&e), "h\xE2\x82\xAC\xC3\xA9llo");
	assert_int_equal(e.cur, 4);
	assert_true(lineedit_delete(&e));
	assert_string_equal(lineedit_text(&e), "h\xE2\x82\xACllo");
	lineedit_home(&e);
	assert_false(lineedit_left(&e));
	assert_false(lineedit_backspace(&e));
	lineedit_end(&e);
	assert_false(lineedit_right(&e));
	assert_false(lineedit_delete(&e));
}

/* The bound: a character that does not fit whole is left out whole. */
static void test_bound(void **state)
{
	(void)state;
	struct lineedit e;

	lineedit_init(&e, 5);
	type(&e, "abcd\xC3\xA9");
	assert_string_equal(lineedit_text(&e), "abcd");
	assert_true(lineedit_byte(&e, 'e'));
	assert_false(lineedit_byte(&e, 'f'));
	assert_string_equal(lineedit_text(&e), "abcde");
	lineedit_init(&e, 100000);
	assert_int_equal(e.max, LINEEDIT_MAX);
	for (int i = 0; i < 200; i++)
		lineedit_insert(&e, "\xC3\xA9", 2);
	assert_int_equal(e.len, LINEEDIT_MAX - 1); /* 63 é, the 64th would pass 127 bytes */
	assert_int_equal(strlen(lineedit_text(&e)), e.len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ascii),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_cursor),
		cmocka_unit_test(test_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
