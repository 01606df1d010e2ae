/* test_canvas: the dashboard's screen without a terminal. Frames are drawn
 * into a canvas with ANSI strings and the bytes a flush would write are
 * checked: a first flush clears and sends everything, an unchanged frame
 * writes nothing, a changed cell is one cursor address and the cell,
 * attributes change where they change, a wide character goes whole, the
 * bottom-right cell is spared where it would scroll. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tui/canvas.h"

#define RESET "\033[0m\033[39;49m"

static void ansi_caps(struct canvas_caps *k)
{
	memset(k, 0, sizeof(*k));
	k->cup = "\033[%i%p1%d;%p2%dH";
	k->clear = "\033[H\033[2J";
	k->sgr0 = "\033[0m";
	k->op = "\033[39;49m";
	k->bold = "\033[1m";
	k->dim = "\033[2m";
	k->rev = "\033[7m";
	k->setaf = "\033[3%p1%dm";
	k->setab = "\033[4%p1%dm";
	k->corner_ok = false;
	for (int i = 0; i < CANVAS_PAIRS; i++)
		k->fg[i] = k->bg[i] = -1;
	k->fg[2] = COLOR_GREEN;
	k->fg[3] = COLOR_BLACK;
	k->bg[3] = COLOR_CYAN;
}

static void put_text(struct canvas *c, int y, int x, const char *s)
{
	for (; *s; s++, x++)
		canvas_put(c, y, x, (unsigned char)*s, 1);
}

/* The bytes of the next flush, as a string (they hold no NUL). */
static const char *render(struct canvas *c)
{
	static char text[4096];
	const struct buf *b = canvas_render(c);

	assert_true(b->len < sizeof(text));
	memcpy(text, b->data, b->len);
	text[b->len] = '\0';
	return text;
}

static void init(struct canvas *c, bool utf8)
{
	struct canvas_caps k;

	ansi_caps(&k);
	canvas_init(c, &k, utf8, -1);
}

/* The first flush resets the attributes, clears and sends every row, the
 * last one short of its last cell; the next, with nothing changed, sends
 * nothing at all, and so does one with no frame drawn since. */
static void test_first_then_nothing(void **state)
{
	(void)state;
	struct canvas c;

	init(&c, true);
	canvas_begin(&c, 3, 10);
	put_text(&c, 1, 2, "hi");
	assert_string_equal(render(&c), RESET "\033[H\033[2J"
					    "\033[1;1H          "
					    "\033[2;1H  hi      "
					    "\033[3;1H         ");
	canvas_begin(&c, 3, 10);
	put_text(&c, 1, 2, "hi");
	assert_int_equal(canvas_render(&c)->len, 0);
	/* A render with no frame begun since the last one keeps the frame:
	 * nothing to send, and a repaint sends it again, not a blank screen. */
	assert_int_equal(canvas_render(&c)->len, 0);
	canvas_invalidate(&c);
	assert_string_equal(render(&c), RESET "\033[H\033[2J"
					    "\033[1;1H          "
					    "\033[2;1H  hi      "
					    "\033[3;1H         ");
	canvas_begin(&c, 3, 10);
	assert_string_equal(render(&c), "\033[2;3H  ");
	canvas_fini(&c);
}

/* One changed cell: its address and the cell. Two changes far apart: two
 * addresses; close together: one span over the cells between. */
static void test_changes(void **state)
{
	(void)state;
	struct canvas c;

	init(&c, true);
	canvas_begin(&c, 2, 40);
	render(&c);
	canvas_begin(&c, 2, 40);
	put_text(&c, 0, 5, "X");
	assert_string_equal(render(&c), "\033[1;6HX");
	canvas_begin(&c, 2, 40);
	put_text(&c, 0, 5, "X");
	put_text(&c, 0, 1, "a");
	put_text(&c, 0, 30, "b");
	assert_string_equal(render(&c), "\033[1;2Ha\033[1;31Hb");
	canvas_begin(&c, 2, 40);
	put_text(&c, 0, 5, "X");
	put_text(&c, 0, 1, "c");
	put_text(&c, 0, 4, "d");
	put_text(&c, 0, 30, "b");
	assert_string_equal(render(&c), "\033[1;2Hc  d");
	/* What was drawn and is no longer: blanked. */
	canvas_begin(&c, 2, 40);
	assert_string_equal(render(&c), "\033[1;2H     \033[1;31H ");
	canvas_fini(&c);
}

/* Attributes: the full sequence from a reset where they change, back to
 * the default after; a colour pair replaces the one in force. */
static void test_attributes(void **state)
{
	(void)state;
	struct canvas c;

	init(&c, true);
	canvas_begin(&c, 2, 20);
	render(&c);
	canvas_begin(&c, 2, 20);
	canvas_attr(&c, (attr_t)COLOR_PAIR(2) | A_BOLD, true);
	put_text(&c, 0, 0, "ok");
	canvas_attr(&c, (attr_t)COLOR_PAIR(2) | A_BOLD, false);
	put_text(&c, 0, 2, "!");
	assert_string_equal(render(&c), "\033[1;1H" RESET "\033[1m\033[32mok" RESET "!");
	/* Pair 3 (black on cyan, reversed) on top of pair 2: pair 3 alone. */
	canvas_begin(&c, 2, 20);
	canvas_attr(&c, (attr_t)COLOR_PAIR(2), true);
	canvas_attr(&c, (attr_t)COLOR_PAIR(3) | A_REVERSE, true);
	put_text(&c, 1, 0, "s");
	assert_string_equal(render(&c), "\033[1;1H   \033[2;1H" RESET "\033[7m\033[30m\033[46ms");
	canvas_fini(&c);
}

/* A wide character is sent whole, its two cells one character; drawing
 * over its right half blanks its left. Outside UTF-8 a code point that
 * reached the canvas is a '?'. */
static void test_wide(void **state)
{
	(void)state;
	struct canvas c;

	init(&c, true);
	canvas_begin(&c, 2, 10);
	render(&c);
	canvas_begin(&c, 2, 10);
	canvas_put(&c, 0, 3, 0x4E2D, 2);
	assert_string_equal(render(&c), "\033[1;4H\xe4\xb8\xad");
	canvas_begin(&c, 2, 10);
	canvas_put(&c, 0, 3, 0x4E2D, 2);
	canvas_put(&c, 0, 4, 'x', 1);
	assert_string_equal(render(&c), "\033[1;4H x");
	/* One that does not fit is not drawn. */
	canvas_begin(&c, 2, 10);
	canvas_put(&c, 0, 9, 0x4E2D, 2);
	assert_string_equal(render(&c), "\033[1;5H ");
	canvas_fini(&c);

	init(&c, false);
	canvas_begin(&c, 2, 10);
	canvas_put(&c, 0, 0, 0xE9, 1);
	assert_non_null(strstr(render(&c), "\033[1;1H?"));
	canvas_fini(&c);
}

/* Draws wide characters at every other position of row 1, so that any run
 * starting or ending anywhere cuts one in half. */
static void wide_row(struct canvas *c)
{
	canvas_begin(c, 3, 12);
	canvas_attr(c, A_BOLD, true);
	for (int x = 0; x + 1 < 12; x += 2)
		canvas_put(c, 1, x, 0x4E2D, 2);
	canvas_attr(c, A_BOLD, false);
}

/* A run written at once (canvas_put_ascii, canvas_put_printable,
 * canvas_hline) leaves the same cells as the same characters put one at a
 * time: the halves of wide characters it cuts are cleared, and what falls
 * outside the canvas, left, right, above or below, is dropped. */
static void test_runs(void **state)
{
	(void)state;
	static const char text[] = "abcdefghijklmnop";
	struct canvas a, b;

	init(&a, true);
	init(&b, true);
	for (int y = -1; y <= 3; y++)
		for (int x = -3; x <= 13; x++)
			for (int n = 0; n <= 15; n += 3) {
				wide_row(&a);
				wide_row(&b);
				canvas_attr(&a, A_DIM, true);
				canvas_attr(&b, A_DIM, true);
				canvas_put_ascii(&a, y, x, text, n);
				for (int i = 0; i < n; i++)
					canvas_put(&b, y, x + i, (unsigned char)text[i], 1);
				assert_memory_equal(a.cells, b.cells, 3 * 12 * sizeof(*a.cells));

				/* A run written while it is scanned ends at the
				 * first byte that is not printable ASCII, or at
				 * its limit, and leaves the same cells. */
				wide_row(&a);
				wide_row(&b);
				canvas_attr(&a, (attr_t)COLOR_PAIR(2), true);
				canvas_attr(&b, (attr_t)COLOR_PAIR(2), true);
				int want = n < 5 ? n : 5;
				assert_int_equal(canvas_put_printable(&a, y, x, "abcde\001fghij", n), want);
				canvas_put_ascii(&b, y, x, "abcde", want);
				assert_memory_equal(a.cells, b.cells, 3 * 12 * sizeof(*a.cells));
				assert_int_equal(canvas_put_printable(&a, y, x, "\tab", n), 0);
				assert_memory_equal(a.cells, b.cells, 3 * 12 * sizeof(*a.cells));

				wide_row(&a);
				wide_row(&b);
				canvas_hline(&a, y, x, 0x2500, n);
				for (int i = 0; i < n; i++)
					canvas_put(&b, y, x + i, 0x2500, 1);
				assert_memory_equal(a.cells, b.cells, 3 * 12 * sizeof(*a.cells));
			}
	canvas_fini(&a);
	canvas_fini(&b);
}

/* The bottom-right cell is written only where the terminal does not
 * scroll for it. */
static void test_corner(void **state)
{
	(void)state;
	struct canvas c;
	struct canvas_caps k;

	init(&c, true);
	canvas_begin(&c, 2, 4);
	render(&c);
	canvas_begin(&c, 2, 4);
	put_text(&c, 1, 0, "abcd");
	assert_string_equal(render(&c), "\033[2;1Habc");
	canvas_fini(&c);

	ansi_caps(&k);
	k.corner_ok = true;
	canvas_init(&c, &k, true, -1);
	canvas_begin(&c, 2, 4);
	render(&c);
	canvas_begin(&c, 2, 4);
	put_text(&c, 1, 0, "abcd");
	assert_string_equal(render(&c), "\033[2;1Habcd");
	canvas_fini(&c);
}

/* A new size, an invalidation and a write the terminal did not take all
 * repaint: clear, then everything. */
static void test_repaint(void **state)
{
	(void)state;
	struct canvas c;
	int fds[2];
	char got[256];

	init(&c, true);
	canvas_begin(&c, 1, 4);
	render(&c);
	canvas_begin(&c, 1, 4);
	assert_int_equal(canvas_render(&c)->len, 0);
	canvas_invalidate(&c);
	assert_string_equal(render(&c), RESET "\033[H\033[2J\033[1;1H   ");
	canvas_begin(&c, 1, 5);
	assert_string_equal(render(&c), RESET "\033[H\033[2J\033[1;1H    ");
	/* Its fd is -1: the write fails, so the next flush repaints. */
	canvas_begin(&c, 1, 5);
	put_text(&c, 0, 0, "z");
	canvas_flush(&c);
	canvas_begin(&c, 1, 5);
	put_text(&c, 0, 0, "z");
	assert_string_equal(render(&c), RESET "\033[H\033[2J\033[1;1Hz   ");
	canvas_fini(&c);

	/* A flush writes what render gives, to the canvas's fd. */
	assert_int_equal(pipe(fds), 0);
	struct canvas_caps k;
	ansi_caps(&k);
	canvas_init(&c, &k, true, fds[1]);
	canvas_begin(&c, 1, 3);
	put_text(&c, 0, 0, "ab");
	canvas_flush(&c);
	ssize_t n = read(fds[0], got, sizeof(got) - 1);
	assert_true(n > 0);
	got[n] = '\0';
	assert_string_equal(got, RESET "\033[H\033[2J\033[1;1Hab");
	/* The end: the default attributes and the cursor on the last line. */
	canvas_end(&c, 0);
	n = read(fds[0], got, sizeof(got) - 1);
	assert_true(n > 0);
	got[n] = '\0';
	assert_string_equal(got, RESET "\033[1;1H");
	canvas_fini(&c);
	close(fds[0]);
	close(fds[1]);
}

/* A terminal, as little of one as the canvas's ANSI output needs: cursor
 * addresses, the clear, SGR with the codes ansi_caps() gives, UTF-8 text
 * with U+4E2D two columns wide, and a wide character's orphaned half
 * blanked as terminals do. Each cell keeps its character and what its
 * attributes look like (bold, dim, reverse, colours), which is what the
 * user sees. */
#define TERM_ROWS 6
#define TERM_COLS 23
#define TAIL 0x110000u /* canvas.c's mark for a wide character's right half */

struct look {
	uint32_t ch;
	bool bold, dim, rev;
	short fg, bg;
};

struct term {
	struct look cell[TERM_ROWS][TERM_COLS];
	struct look pen; /* the attributes in force; ch unused */
	int y, x;
};

static void term_put(struct term *t, uint32_t ch, int w)
{
	/* The canvas addresses the cursor again after the right margin, so
	 * the terminal never wraps. */
	assert_true(t->y >= 0 && t->y < TERM_ROWS && t->x >= 0 && t->x + w <= TERM_COLS);
	struct look *row = t->cell[t->y], blank = t->pen;
	blank.ch = ' ';
	if (row[t->x].ch == TAIL && t->x > 0)
		row[t->x - 1] = blank;
	if (t->x + w < TERM_COLS && row[t->x + w].ch == TAIL)
		row[t->x + w] = blank;
	row[t->x] = t->pen;
	row[t->x].ch = ch;
	if (w == 2) {
		row[t->x + 1] = t->pen;
		row[t->x + 1].ch = TAIL;
	}
	t->x += w;
}

static void term_sgr(struct term *t, int code)
{
	if (code == 0) {
		t->pen.bold = t->pen.dim = t->pen.rev = false;
		t->pen.fg = t->pen.bg = -1;
	} else if (code == 1) {
		t->pen.bold = true;
	} else if (code == 2) {
		t->pen.dim = true;
	} else if (code == 7) {
		t->pen.rev = true;
	} else if (code >= 30 && code <= 37) {
		t->pen.fg = (short)(code - 30);
	} else if (code == 39) {
		t->pen.fg = -1;
	} else if (code >= 40 && code <= 47) {
		t->pen.bg = (short)(code - 40);
	} else if (code == 49) {
		t->pen.bg = -1;
	} else {
		fail_msg("SGR %d is not one the canvas writes", code);
	}
}

static void term_feed(struct term *t, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0x1b) {
			assert_true(i + 1 < n && s[i + 1] == '[');
			int p[4] = {0}, np = 0;
			bool any = false;
			for (i += 2; i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';'); i++) {
				if (s[i] == ';') {
					np++;
					assert_true(np < 4);
				} else {
					p[np] = p[np] * 10 + (s[i] - '0');
					any = true;
				}
			}
			assert_true(i < n);
			char fin = s[i++];
			if (fin == 'H') {
				t->y = any ? p[0] - 1 : 0;
				t->x = any ? p[1] - 1 : 0;
			} else if (fin == 'J') {
				assert_int_equal(p[0], 2);
				for (int y = 0; y < TERM_ROWS; y++)
					for (int x = 0; x < TERM_COLS; x++) {
						t->cell[y][x] = t->pen;
						t->cell[y][x].ch = ' ';
					}
			} else if (fin == 'm') {
				for (int k = 0; k <= np; k++)
					term_sgr(t, p[k]);
			} else {
				fail_msg("escape ending in '%c' is not one the canvas writes", fin);
			}
		} else if (c < 0x80) {
			term_put(t, c, 1);
			i++;
		} else {
			/* The canvas writes only U+4E2D (three bytes) and U+00E9
			 * (two) in this test. */
			if (c == 0xe4) {
				assert_true(i + 2 < n);
				term_put(t, 0x4E2D, 2);
				i += 3;
			} else {
				assert_int_equal(c, 0xc3);
				term_put(t, 0xE9, 1);
				i += 2;
			}
		}
	}
}

static bool look_eq(const struct look *a, const struct look *b)
{
	return a->ch == b->ch && a->bold == b->bold && a->dim == b->dim && a->rev == b->rev && a->fg == b->fg &&
	       a->bg == b->bg;
}

/* How a canvas cell looks with ansi_caps()'s colours. */
static struct look cell_look(const struct canvas *c, const struct canvas_cell *cell)
{
	int pair = PAIR_NUMBER(cell->attr);
	struct look l = {
		.ch = cell->ch,
		.bold = (cell->attr & A_BOLD) != 0,
		.dim = (cell->attr & A_DIM) != 0,
		.rev = (cell->attr & A_REVERSE) != 0,
		.fg = pair > 0 ? c->caps.fg[pair] : -1,
		.bg = pair > 0 ? c->caps.bg[pair] : -1,
	};
	return l;
}

/* Random frames, each a fixed layout with a few random changes (runs of
 * text in random attributes, wide and accented characters, lines, whole
 * rows blanked), and now and then a repaint: after every flush the terminal
 * that took the bytes shows exactly the canvas. The last row stays blank,
 * because its last cell is never sent (test_corner). */
static void test_random_frames(void **state)
{
	static const attr_t attrs[] = {0, A_BOLD, A_DIM, (attr_t)COLOR_PAIR(2), (attr_t)COLOR_PAIR(3) | A_REVERSE};
	static const char letters[] = "ab c";
	struct canvas c;
	struct term t;
	unsigned seed = 12345;

	(void)state;
	memset(&t, 0, sizeof(t));
	init(&c, true);
	for (int frame = 0; frame < 3000; frame++) {
		canvas_begin(&c, TERM_ROWS, TERM_COLS);
		for (int y = 0; y < TERM_ROWS - 1; y++)
			canvas_put_ascii(&c, y, 1, "fixed text here", 15);
		seed = seed * 1103515245u + 12345u;
		int changes = (int)(seed >> 16) % 7;
		for (int k = 0; k < changes; k++) {
			seed = seed * 1103515245u + 12345u;
			unsigned r = seed >> 8;
			int y = (int)(r % (TERM_ROWS - 1)), x = (int)(r / 8 % (TERM_COLS + 4)) - 2;
			int len = (int)(r / 256 % 12);
			canvas_attr(&c, attrs[r / 4096 % 5], true);
			char text[16];
			for (int i = 0; i < len; i++)
				text[i] = letters[(r >> (i % 16)) & 3];
			switch (r / 32768 % 5) {
			case 0:
				canvas_put_ascii(&c, y, x, text, len);
				break;
			case 1:
				text[len] = '\0';
				canvas_put_printable(&c, y, x, text, len);
				break;
			case 2:
				canvas_put(&c, y, x, 0x4E2D, 2);
				break;
			case 3:
				canvas_put(&c, y, x, 0xE9, 1);
				break;
			default:
				canvas_hline(&c, y, x, r & 1 ? 0x2500 : ' ', len);
				break;
			}
			canvas_attr(&c, attrs[r / 4096 % 5], false);
		}
		/* hline draws U+2500, which the terminal here does not know:
		 * it stands for any other character, written as ASCII '-'. */
		for (int y = 0; y < TERM_ROWS; y++)
			for (int x = 0; x < TERM_COLS; x++)
				if (c.cells[y * TERM_COLS + x].ch == 0x2500)
					c.cells[y * TERM_COLS + x].ch = '-';
		struct canvas_cell frame_cells[TERM_ROWS * TERM_COLS];
		memcpy(frame_cells, c.cells, sizeof(frame_cells));
		if (frame % 997 == 500)
			canvas_invalidate(&c);
		const struct buf *out = canvas_render(&c);
		term_feed(&t, out->data, out->len);
		for (int y = 0; y < TERM_ROWS; y++)
			for (int x = 0; x < TERM_COLS; x++) {
				struct look want = cell_look(&c, &frame_cells[y * TERM_COLS + x]);
				struct look got = t.cell[y][x];
				if (!look_eq(&want, &got))
					fail_msg("frame %d, cell (%d, %d): the terminal shows U+%04X %d%d%d %d/%d, the canvas "
						 "U+%04X %d%d%d %d/%d (bold dim reverse fg/bg)",
						 frame, y, x, (unsigned)got.ch, got.bold, got.dim, got.rev, got.fg, got.bg,
						 (unsigned)want.ch, want.bold, want.dim, want.rev, want.fg, want.bg);
			}
	}
	canvas_fini(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_then_nothing),
		cmocka_unit_test(test_changes),
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_corner),
		cmocka_unit_test(test_repaint),
		cmocka_unit_test(test_random_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
