/* canvas: the dashboard draws each frame into its own grid of cells. At a
 * flush each row is compared with what the terminal was last sent, and
 * only the span that changed is written: a cursor address, the attributes
 * where they change, the characters. All of it goes out in one write(2).
 *
 * curses sets the terminal up (alternate screen, keypad, mouse, colours),
 * decodes the keys and restores the terminal at the end; its terminfo
 * strings make the escape sequences. Its screen update (doupdate) is not
 * used for frames: it cost more than everything else the dashboard does
 * together (at 0.1 s, half of the drawing thread). So nothing may draw on
 * curses' windows once the canvas runs, and keys are read from a pad,
 * which wgetch() never refreshes (tui.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/tui_priv.h"
#include "util/readfile.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* Last: it defines macros named after every capability ("columns"...). */
#include <term.h>

/* The right half of a wide character. */
#define CANVAS_TAIL 0x110000u
/* Unchanged cells worth a cursor address instead of being sent again. */
#define CANVAS_GAP 8

static const struct canvas_cell BLANK = {' ', 0};

/* A terminfo string capability, or NULL when the terminal has none. */
static const char *cap(const char *name)
{
	char *s = tigetstr(name);
	return s == (char *)-1 || !s || !*s ? NULL : s;
}

void canvas_setup(struct tui *t, const short *fg, const short *bg)
{
	struct canvas_term *ct = &t->term;

	memset(ct, 0, sizeof(*ct));
	ct->cup = cap("cup");
	ct->clear = cap("clear");
	ct->sgr0 = cap("sgr0");
	ct->op = cap("op");
	ct->bold = cap("bold");
	ct->dim = cap("dim");
	ct->rev = cap("rev");
	ct->setaf = cap("setaf");
	ct->setab = cap("setab");
	/* The ANSI form, which nearly every terminal has, is written without
	 * tiparm()'s interpreter. */
	ct->ansi_cup = ct->cup && strcmp(ct->cup, "\033[%i%p1%d;%p2%dH") == 0;
	/* Writing the bottom-right cell scrolls a terminal with automatic
	 * margins unless it defers the wrap (xenl). */
	ct->corner_ok = tigetflag("am") != 1 || tigetflag("xenl") == 1;
	for (int i = 0; i < TC__COUNT; i++) {
		ct->fg[i] = fg ? fg[i] : -1;
		ct->bg[i] = bg ? bg[i] : -1;
	}
	ct->cy = ct->cx = -1;
	buf_init(&ct->out);
}

void canvas_begin(struct tui *t)
{
	size_t n = (size_t)t->rows * (size_t)t->cols;

	if (t->rows != t->crows || t->cols != t->ccols || !t->cells) {
		free(t->cells);
		free(t->sent);
		t->cells = xreallocarray(NULL, n ? n : 1, sizeof(*t->cells));
		t->sent = xreallocarray(NULL, n ? n : 1, sizeof(*t->sent));
		t->crows = t->rows;
		t->ccols = t->cols;
		t->repaint = true;
	}
	for (size_t i = 0; i < n; i++)
		t->cells[i] = BLANK;
	t->cur_attr = 0;
}

void canvas_free(struct tui *t)
{
	free(t->cells);
	free(t->sent);
	t->cells = t->sent = NULL;
	buf_fini(&t->term.out);
}

void canvas_invalidate(struct tui *t)
{
	t->repaint = true;
}

/* As curses' wattr_on/wattr_off: a colour pair replaces the one in force. */
void canvas_attr(struct tui *t, attr_t a, bool on)
{
	if (on)
		t->cur_attr = PAIR_NUMBER(a) > 0 ? (t->cur_attr & ~A_COLOR) | a : t->cur_attr | a;
	else
		t->cur_attr &= PAIR_NUMBER(a) > 0 ? ~(a | A_COLOR) : ~a;
}

void canvas_put(struct tui *t, int y, int x, uint32_t ch, int w)
{
	if (y < 0 || y >= t->crows || x < 0 || x + w > t->ccols || w < 1 || w > 2)
		return;
	struct canvas_cell *row = t->cells + (size_t)y * (size_t)t->ccols;
	/* Half of a wide character overwritten: the other half becomes blank. */
	if (row[x].ch == CANVAS_TAIL && x > 0)
		row[x - 1] = BLANK;
	int end = x + w - 1;
	if (end + 1 < t->ccols && row[end + 1].ch == CANVAS_TAIL)
		row[end + 1] = BLANK;
	row[x] = (struct canvas_cell){ch, t->cur_attr};
	if (w == 2)
		row[x + 1] = (struct canvas_cell){CANVAS_TAIL, t->cur_attr};
}

void canvas_hline(struct tui *t, int y, int x, uint32_t ch, int n)
{
	for (int i = 0; i < n; i++)
		canvas_put(t, y, x + i, ch, 1);
}

void canvas_vline(struct tui *t, int y, int x, uint32_t ch, int n)
{
	for (int i = 0; i < n; i++)
		canvas_put(t, y + i, x, ch, 1);
}

static void put_str(struct buf *b, const char *s)
{
	if (s)
		buf_puts(b, s);
}

static void put_uint(struct buf *b, unsigned v)
{
	char d[12];
	int n = 0;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		buf_putc(b, d[--n]);
}

static void move_to(struct canvas_term *ct, int y, int x)
{
	if (ct->cy == y && ct->cx == x)
		return;
	if (ct->ansi_cup) {
		buf_append(&ct->out, "\033[", 2);
		put_uint(&ct->out, (unsigned)y + 1);
		buf_putc(&ct->out, ';');
		put_uint(&ct->out, (unsigned)x + 1);
		buf_putc(&ct->out, 'H');
	} else if (ct->cup) {
		put_str(&ct->out, tiparm(ct->cup, y, x));
	}
	ct->cy = y;
	ct->cx = x;
}

/* The escape sequence that sets attributes a from any state: reset, then
 * each attribute; made once per distinct a and kept. */
static void set_attr(struct canvas_term *ct, attr_t a)
{
	if (ct->attr_known && ct->attr == a)
		return;
	for (int i = 0; i < ct->nsgr; i++)
		if (ct->sgr[i].attr == a) {
			buf_append(&ct->out, ct->sgr[i].seq, ct->sgr[i].len);
			goto done;
		}
	struct buf s;
	buf_init(&s);
	put_str(&s, ct->sgr0);
	put_str(&s, ct->op);
	if (a & A_BOLD)
		put_str(&s, ct->bold);
	if (a & A_DIM)
		put_str(&s, ct->dim);
	if (a & A_REVERSE)
		put_str(&s, ct->rev);
	int pair = PAIR_NUMBER(a);
	if (pair > 0 && pair < TC__COUNT) {
		if (ct->fg[pair] >= 0 && ct->setaf)
			put_str(&s, tiparm(ct->setaf, ct->fg[pair]));
		if (ct->bg[pair] >= 0 && ct->setab)
			put_str(&s, tiparm(ct->setab, ct->bg[pair]));
	}
	buf_append(&ct->out, s.data, s.len);
	if (ct->nsgr < (int)(sizeof(ct->sgr) / sizeof(ct->sgr[0])) && s.len <= sizeof(ct->sgr[0].seq)) {
		struct canvas_sgr *c = &ct->sgr[ct->nsgr++];
		c->attr = a;
		memcpy(c->seq, s.data, s.len);
		c->len = (uint8_t)s.len;
	}
	buf_fini(&s);
done:
	ct->attr = a;
	ct->attr_known = true;
}

/* Cells [a, b] of row y. */
static void send_span(struct tui *t, int y, const struct canvas_cell *row, int a, int b)
{
	struct canvas_term *ct = &t->term;

	if (y == t->crows - 1 && b == t->ccols - 1 && !ct->corner_ok) {
		b--; /* never the bottom-right cell */
		if (b >= a && row[b + 1].ch == CANVAS_TAIL)
			b--; /* nor a wide character that would cover it */
	}
	if (b < a)
		return;
	move_to(ct, y, a);
	for (int x = a; x <= b; x++) {
		uint32_t ch = row[x].ch;
		if (ch == CANVAS_TAIL)
			continue;
		set_attr(ct, row[x].attr);
		if (ch < 0x80) {
			buf_putc(&ct->out, (char)ch);
		} else if (!t->utf8) {
			buf_putc(&ct->out, '?'); /* never happens: drawn as ASCII */
		} else {
			char enc[4];
			buf_append(&ct->out, enc, utf8_encode(ch, enc));
		}
	}
	/* At the right margin the terminal may be waiting to wrap: the next
	 * span addresses the cursor again. */
	ct->cx = b + 1 < t->ccols ? b + 1 : -1;
	if (ct->cx < 0)
		ct->cy = -1;
}

static bool same_cell(const struct canvas_cell *x, const struct canvas_cell *y)
{
	return x->ch == y->ch && x->attr == y->attr;
}

/* The changed cells of row y within [a, b] (both changed), in spans: a run
 * of CANVAS_GAP unchanged cells or more is skipped with a cursor address
 * (about as many bytes as the run's ASCII, fewer than its block glyphs or
 * attribute changes), a shorter one is sent again. */
static void send_changed(struct tui *t, int y, const struct canvas_cell *row, const struct canvas_cell *old, int a,
			 int b)
{
	int cols = t->ccols;

	while (a <= b) {
		int e = a, same = 0;
		for (int x = a + 1; x <= b && same < CANVAS_GAP; x++) {
			if (same_cell(&row[x], &old[x])) {
				same++;
			} else {
				same = 0;
				e = x;
			}
		}
		/* Whole wide characters only. */
		int s = a;
		if (row[s].ch == CANVAS_TAIL && s > 0)
			s--;
		if (e + 1 < cols && row[e + 1].ch == CANVAS_TAIL)
			e++;
		send_span(t, y, row, s, e);
		for (a = e + 1; a <= b && same_cell(&row[a], &old[a]); a++)
			;
	}
}

void canvas_flush(struct tui *t)
{
	struct canvas_term *ct = &t->term;
	int cols = t->ccols;

	if (!t->cells)
		return;
	buf_reset(&ct->out);
	if (t->repaint) {
		/* Everything: from a cleared screen in the default attributes. */
		ct->attr_known = false;
		set_attr(ct, 0);
		put_str(&ct->out, ct->clear);
		ct->cy = ct->cx = -1;
	}
	for (int y = 0; y < t->crows; y++) {
		const struct canvas_cell *row = t->cells + (size_t)y * (size_t)cols;
		struct canvas_cell *old = t->sent + (size_t)y * (size_t)cols;
		int a = 0, b = cols - 1;
		if (!t->repaint) {
			if (memcmp(row, old, (size_t)cols * sizeof(*row)) == 0)
				continue;
			while (a < cols && memcmp(&row[a], &old[a], sizeof(*row)) == 0)
				a++;
			while (b > a && memcmp(&row[b], &old[b], sizeof(*row)) == 0)
				b--;
		}
		if (t->repaint) {
			send_span(t, y, row, a, b);
		} else {
			send_changed(t, y, row, old, a, b);
		}
		memcpy(old + a, row + a, (size_t)(b - a + 1) * sizeof(*row));
	}
	t->repaint = false;
	if (ct->out.len && writefile_all(STDOUT_FILENO, ct->out.data, ct->out.len) != 0)
		t->repaint = true; /* the terminal did not take it all: start over */
}

void canvas_end(struct tui *t)
{
	struct canvas_term *ct = &t->term;

	/* The default attributes, and the cursor on the last line, where
	 * curses' endwin() expects to leave it. */
	buf_reset(&ct->out);
	ct->attr_known = false;
	set_attr(ct, 0);
	ct->cy = ct->cx = -1;
	if (t->rows > 0)
		move_to(ct, t->rows - 1, 0);
	if (ct->out.len)
		(void)writefile_all(STDOUT_FILENO, ct->out.data, ct->out.len);
}
