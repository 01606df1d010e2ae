/* test_line_reader: JSON Lines framing (the record format's rule 5): \n ends
 * a line, one trailing \r is dropped, a last line without \n counts, a BOM at
 * the start is ignored, and a line over the cap is skipped without being
 * held; with objects on, an object printed over several lines is one item. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/line_reader.h"
#include "record/record_encode.h"
#include "testutil.h"

struct fx {
	char *dir, *path;
	int fd;
	struct line_reader lr;
	bool open;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->dir = testutil_tmpdir();
	fx->path = testutil_path(fx->dir, "lines");
	fx->fd = -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (fx->open)
		line_reader_fini(&fx->lr);
	if (fx->fd >= 0)
		close(fx->fd);
	testutil_rmtree(fx->dir);
	free(fx->dir);
	free(fx->path);
	free(fx);
	return 0;
}

/* Writes data to the fixture's file and starts a reader over it with cap. */
static struct line_reader *reader(struct fx *fx, const void *data, size_t len, size_t cap)
{
	if (fx->open)
		line_reader_fini(&fx->lr);
	if (fx->fd >= 0)
		close(fx->fd);
	testutil_write_file(fx->path, data, len);
	fx->fd = open(fx->path, O_RDONLY | O_CLOEXEC);
	assert_true(fx->fd >= 0);
	line_reader_init(&fx->lr, fx->fd, cap);
	fx->open = true;
	return &fx->lr;
}

/* The next line must be want[0..wlen). */
static void expect_line(struct line_reader *lr, const char *want, size_t wlen)
{
	const char *line;
	size_t len;
	int rc = line_reader_next(lr, &line, &len);

	if (rc != 1)
		fail_msg("expected a line \"%.*s\", got rc %d", (int)wlen, want, rc);
	if (len != wlen || memcmp(line, want, len) != 0)
		fail_msg("got line \"%.*s\" (%zu bytes), want \"%.*s\"", (int)(len > 80 ? 80 : len), line, len,
			 (int)wlen, want);
}
#define LINE(lr, s) expect_line((lr), (s), sizeof(s) - 1)

static void expect_end(struct line_reader *lr)
{
	const char *line;
	size_t len;

	assert_int_equal(line_reader_next(lr, &line, &len), 0);
	assert_int_equal(line_reader_next(lr, &line, &len), 0); /* and it stays there */
}

#define DATA(s) (s), sizeof(s) - 1

static long peak_rss_kib(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

/* First, while the process's peak RSS is still low: a 2 GiB file without a
 * newline is read through with a small, fixed footprint. */
static void test_sparse_2gib_line_is_skipped_without_being_held(void **state)
{
	struct fx *fx = *state;
	const off_t size = (off_t)2 << 30;
	const char *line;
	size_t len;

	testutil_write_file(fx->path, "{\"a\":\"", 6);
	fx->fd = open(fx->path, O_RDWR | O_CLOEXEC);
	assert_true(fx->fd >= 0);
	if (ftruncate(fx->fd, size) != 0)
		skip(); /* no sparse files here */
	assert_int_equal(lseek(fx->fd, 0, SEEK_END), size);
	assert_int_equal(lseek(fx->fd, 0, SEEK_SET), 0);

	long before = peak_rss_kib();
	line_reader_init(&fx->lr, fx->fd, RECORD_MAX_LINE);
	fx->open = true;
	assert_int_equal(line_reader_next(&fx->lr, &line, &len), 0);
	long grown = peak_rss_kib() - before;
	assert_int_equal(fx->lr.oversized, 1);
	assert_int_equal(fx->lr.lineno, 1);
	print_message("peak RSS grew by %ld KiB reading 2 GiB\n", grown);
	/* The cap (8 MiB) plus one read chunk; sanitizer builds keep freed
	 * blocks in quarantine, hence the room. Holding the line would be 2 GiB. */
	assert_true(grown < 40 * 1024);
}

static void test_huge_line_then_good_line(void **state)
{
	struct fx *fx = *state;
	const size_t huge = 20u << 20;
	char *data = malloc(huge + 64);

	assert_non_null(data);
	memset(data, 'x', huge);
	memcpy(data + huge, "\n{\"ok\":1}\n", 10);
	struct line_reader *lr = reader(fx, data, huge + 10, RECORD_MAX_LINE);
	free(data);
	LINE(lr, "{\"ok\":1}");
	expect_end(lr);
	assert_int_equal(lr->oversized, 1);
	assert_int_equal(lr->lineno, 2);
}

static void test_framing(void **state)
{
	struct fx *fx = *state;
	struct line_reader *lr;

	lr = reader(fx, DATA("a\nb\r\n\nc\r\r\nd\re\n\r\nlast"), 100);
	LINE(lr, "a");
	LINE(lr, "b");   /* CRLF */
	LINE(lr, "");    /* blank lines are lines; the reader above skips them */
	LINE(lr, "c\r"); /* only one \r goes */
	LINE(lr, "d\re"); /* a lone \r is no line end */
	LINE(lr, "");
	LINE(lr, "last"); /* no \n at the end of the file */
	expect_end(lr);
	assert_int_equal(lr->lineno, 7);
	assert_int_equal(lr->oversized, 0);

	lr = reader(fx, DATA(""), 100);
	expect_end(lr);
	lr = reader(fx, DATA("\n"), 100);
	LINE(lr, "");
	expect_end(lr);
	lr = reader(fx, DATA("x\r"), 100); /* a last line's \r goes too */
	LINE(lr, "x");
	expect_end(lr);
	lr = reader(fx, DATA("a\0b\n"), 100); /* NUL bytes are data */
	LINE(lr, "a\0b");
	expect_end(lr);
}

static void test_bom(void **state)
{
	struct fx *fx = *state;
	struct line_reader *lr;

	lr = reader(fx, DATA("\xEF\xBB\xBF{}\n"), 100);
	LINE(lr, "{}");
	expect_end(lr);
	lr = reader(fx, DATA("\xEF\xBB\xBF"), 100);
	expect_end(lr);
	/* Only at the start of the file, and only a whole mark. */
	lr = reader(fx, DATA("a\n\xEF\xBB\xBF" "b\n"), 100);
	LINE(lr, "a");
	LINE(lr, "\xEF\xBB\xBF" "b");
	expect_end(lr);
	lr = reader(fx, DATA("\xEF\xBB" "a\n"), 100);
	LINE(lr, "\xEF\xBB" "a");
	expect_end(lr);
	lr = reader(fx, DATA("\xEF\xBB\xBF\xEF\xBB\xBF" "x"), 100);
	LINE(lr, "\xEF\xBB\xBF" "x");
	expect_end(lr);
}

static void test_cap(void **state)
{
	struct fx *fx = *state;
	struct line_reader *lr;

	/* cap 8: exactly 8 kept (with or without \r), 9 skipped, the next line read. */
	lr = reader(fx, DATA("12345678\n123456789\n12345678\r\n123456789\r\nok\n"), 8);
	LINE(lr, "12345678");
	LINE(lr, "12345678");
	LINE(lr, "ok");
	expect_end(lr);
	assert_int_equal(lr->oversized, 2);
	assert_int_equal(lr->lineno, 5);

	lr = reader(fx, DATA("ok\n123456789"), 8); /* over the cap at the end of the file */
	LINE(lr, "ok");
	expect_end(lr);
	assert_int_equal(lr->oversized, 1);
	lr = reader(fx, DATA("12345678"), 8);
	LINE(lr, "12345678");
	expect_end(lr);
	lr = reader(fx, DATA("12345678\r"), 8);
	LINE(lr, "12345678");
	expect_end(lr);
	lr = reader(fx, DATA("123456789\r"), 8);
	expect_end(lr);
	assert_int_equal(lr->oversized, 1);

	/* The byte-order mark is not part of the first line: it does not count
	 * against the cap (with and without a newline, with \r), and a line of
	 * 9 after it is still too long. */
	lr = reader(fx, DATA("\xEF\xBB\xBF" "12345678\n" "\xEF\xBB\xBF" "123456\n" "\xEF\xBB\xBF" "12345\n"), 8);
	LINE(lr, "12345678");
	LINE(lr, "\xEF\xBB\xBF" "12345"); /* not at the start: bytes like any, 9 too many */
	assert_int_equal(lr->oversized, 1);
	lr = reader(fx, DATA("\xEF\xBB\xBF" "12345678\r"), 8);
	LINE(lr, "12345678");
	expect_end(lr);
	lr = reader(fx, DATA("\xEF\xBB\xBF" "123456789\nok\n"), 8);
	LINE(lr, "ok");
	assert_int_equal(lr->oversized, 1);
	lr = reader(fx, DATA("123456789\n" "\xEF\xBB\xBF" "123456\n" "\xEF\xBB\xBF" "12345\n"), 8);
	LINE(lr, "\xEF\xBB\xBF" "12345");
	assert_int_equal(lr->oversized, 2);
}

/* Lines that straddle the reader's 256 KiB chunks come out whole. */
static void test_lines_across_read_chunks(void **state)
{
	struct fx *fx = *state;
	const size_t chunk = 256u << 10;
	size_t n = 3 * chunk + 100;
	char *data = malloc(n);

	assert_non_null(data);
	memset(data, 'a', n);
	data[chunk - 1] = '\r'; /* CR at the end of one chunk, LF at the start of the next */
	data[chunk] = '\n';
	data[2 * chunk + 5] = '\n';
	data[n - 1] = '\n';
	struct line_reader *lr = reader(fx, data, n, 1u << 20);
	expect_line(lr, data, chunk - 1);
	expect_line(lr, data + chunk + 1, chunk + 4);
	expect_line(lr, data + 2 * chunk + 6, n - 1 - (2 * chunk + 6));
	expect_end(lr);
	free(data);
}

static void test_reads_a_pipe(void **state)
{
	int p[2];
	struct line_reader lr;
	const char *line;
	size_t len;

	(void)state;
	assert_int_equal(pipe(p), 0);
	/* Not seekable, and the first line is split over two writes. */
	assert_int_equal(write(p[1], "ab", 2), 2);
	line_reader_init(&lr, p[0], 100);
	assert_int_equal(write(p[1], "c\nd", 3), 3);
	assert_int_equal(write(p[1], "e\n", 2), 2);
	close(p[1]);
	assert_int_equal(line_reader_next(&lr, &line, &len), 1);
	assert_int_equal(len, 3);
	assert_memory_equal(line, "abc", 3);
	assert_int_equal(line_reader_next(&lr, &line, &len), 1);
	assert_memory_equal(line, "de", 2);
	assert_int_equal(line_reader_next(&lr, &line, &len), 0);
	line_reader_fini(&lr);
	close(p[0]);
}

static void test_read_error_is_returned(void **state)
{
	struct fx *fx = *state;
	const char *line;
	size_t len;

	fx->fd = open(fx->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fx->fd >= 0);
	line_reader_init(&fx->lr, fx->fd, 100);
	fx->open = true;
	assert_int_equal(line_reader_next(&fx->lr, &line, &len), -EISDIR);
	assert_int_equal(line_reader_next(&fx->lr, &line, &len), -EISDIR);
}

/* ---- objects over several lines (line_reader_objects) --------------------- */

static struct line_reader *objects(struct fx *fx, const void *data, size_t len, size_t cap)
{
	struct line_reader *lr = reader(fx, data, len, cap);

	line_reader_objects(lr);
	return lr;
}

/* The next item must be want, beginning at line `first` and spanning n lines. */
#define ITEM(lr, s, first, n)                                    \
	do {                                                     \
		LINE(lr, s);                                     \
		assert_int_equal((lr)->first_line, (first));     \
		assert_int_equal((lr)->nlines, (n));             \
	} while (0)

static void test_objects_pretty_and_lines_mixed(void **state)
{
	struct line_reader *lr = objects(*state, DATA("{\"a\":1}\n"
						      "{\n"
						      "  \"b\": [\n"
						      "    {\"c\": \"}{][\"},\r\n"
						      "    2\n"
						      "  ],\n"
						      "  \"d\": \"x\\\"}\"\n"
						      "}\n"
						      "{\"e\":2}\n"
						      "{\n"
						      "}"),
					 100);

	ITEM(lr, "{\"a\":1}", 1, 1);
	/* Brackets in strings and escaped quotes do not count; \r goes per line. */
	ITEM(lr, "{\n  \"b\": [\n    {\"c\": \"}{][\"},\n    2\n  ],\n  \"d\": \"x\\\"}\"\n}", 2, 7);
	ITEM(lr, "{\"e\":2}", 9, 1);
	/* The last object ends without a newline. */
	ITEM(lr, "{\n}", 10, 2);
	expect_end(lr);
	assert_int_equal(lr->oversized, 0);
}

/* A record cut off by a crash, then the next one: the piece comes back as it
 * stands (the caller skips it), and the next record is whole. */
static void test_objects_torn_then_whole(void **state)
{
	struct line_reader *lr = objects(*state, DATA("{\n"
						      "  \"a\": [\n"
						      "    1,\n"
						      "{\"b\":1}\n"
						      "{\"c\":[\n"
						      "{\n"
						      "  \"d\": 2\n"
						      "}\n"
						      "{\n"
						      "  \"e\": 3\n"),
					 100);

	ITEM(lr, "{\n  \"a\": [\n    1,", 1, 3);
	ITEM(lr, "{\"b\":1}", 4, 1);
	/* A torn line that leaves an object open, followed by a pretty one. */
	ITEM(lr, "{\"c\":[", 5, 1);
	ITEM(lr, "{\n  \"d\": 2\n}", 6, 3);
	/* The end of the file cuts the last one. */
	ITEM(lr, "{\n  \"e\": 3", 9, 2);
	expect_end(lr);
}

/* Only a line at column 0 that leaves an object open starts one: an
 * indented one, one that ends inside a string (a torn line) or one that
 * ends with '}' is a line of its own. */
static void test_objects_what_opens_one(void **state)
{
	struct line_reader *lr = objects(*state, DATA("  {\n"
						      "{\"a\":\"x\n"
						      "  \"b\": 1\n"
						      "{\"c\":{}}\n"
						      "[\n"
						      "}\n"),
					 100);

	LINE(lr, "  {");
	LINE(lr, "{\"a\":\"x");
	LINE(lr, "  \"b\": 1");
	LINE(lr, "{\"c\":{}}");
	LINE(lr, "[");
	LINE(lr, "}");
	expect_end(lr);
}

/* An object longer than the cap is skipped whole, counted once, and reading
 * goes on with the record after it. */
static void test_objects_over_the_cap(void **state)
{
	struct line_reader *lr = objects(*state, DATA("{\n"
						      "  \"a\": \"0123456789\",\n"
						      "  \"b\": \"0123456789\"\n"
						      "}\n"
						      "{\n"
						      "  \"c\": 1\n"
						      "}\n"
						      "{\n"
						      "  \"d\": \"0123456789\",\n"
						      "  \"e\": \"0123456789\",\n"
						      "{\"f\":1}\n"),
					 30);

	ITEM(lr, "{\n  \"c\": 1\n}", 5, 3);
	assert_int_equal(lr->oversized, 1);
	/* Skipped up to the next record, which is whole. */
	ITEM(lr, "{\"f\":1}", 11, 1);
	assert_int_equal(lr->oversized, 2);
	expect_end(lr);
	assert_int_equal(lr->lineno, 11);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_sparse_2gib_line_is_skipped_without_being_held),
		T(test_huge_line_then_good_line),
		T(test_framing),
		T(test_bom),
		T(test_cap),
		T(test_lines_across_read_chunks),
		T(test_reads_a_pipe),
		T(test_read_error_is_returned),
		T(test_objects_pretty_and_lines_mixed),
		T(test_objects_torn_then_whole),
		T(test_objects_what_opens_one),
		T(test_objects_over_the_cap),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
