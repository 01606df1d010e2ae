/* canvas: the dashboard draws each frame into its own grid of cells. At a
 * flush each row is compared with what the terminal was last sent, and only
 * the span that changed is written as a cursor address, the attributes where
 * they change, and the characters. All of it goes out in one write(2).
 *
 * curses sets the terminal up (alternate screen, keypad, mouse, colours),
 * decodes the keys and restores the terminal at the end, and its terminfo
 * strings make the escape sequences. Its screen update (doupdate) is not
 * used for frames, because it cost more than everything else the dashboard
 * does together, half of the drawing thread at 0.1 s. So nothing may draw on
 * curses' windows once the canvas runs, and keys are read from a pad, which
 * wgetch() never refreshes (tui.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/canvas.h"
#include "util/readfile.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* Included last, because it defines macros named after every capability
 * ("columns" and the rest). */
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

void canvas_caps_terminfo(struct canvas_caps *caps, const short *fg, const short *bg, int npairs)
{
	memset(caps, 0, sizeof(*caps));
	caps->cup = cap("cup");
	caps->clear = cap("clear");
	caps->sgr0 = cap("sgr0");
	caps->op = cap("op");
	caps->bold = cap("bold");
	caps->dim = cap("dim");
	caps->rev = cap("rev");
	caps->setaf = cap("setaf");
	caps->setab = cap("setab");
	/* Writing the bottom-right cell scrolls a terminal with automatic
	 * margins unless it defers the wrap (xenl). */
	caps->corner_ok = tigetflag("am") != 1 || tigetflag("xenl") == 1;
	for (int i = 0; i < CANVAS_PAIRS; i++) {
		caps->fg[i] = fg && i < npairs ? fg[i] : -1;
		caps->bg[i] = bg && i < npairs ? bg[i] : -1;
	}
}

void canvas_init(struct canvas *c, const struct canvas_caps *caps, bool utf8, int fd)
{
	memset(c, 0, sizeof(*c));
	c->caps = *caps;
	/* The ANSI form, which nearly every terminal has, is written without
	 * tiparm()'s interpreter. */
	c->ansi_cup = caps->cup && strcmp(caps->cup, "\033[%i%p1%d;%p2%dH") == 0;
	c->utf8 = utf8;
	c->fd = fd;
	c->repaint = true;
	c->cy = c->cx = -1;
	buf_init(&c->out);
}

void canvas_begin(struct canvas *c, int rows, int cols)
{
	size_t n = (size_t)(rows > 0 ? rows : 0) * (size_t)(cols > 0 ? cols : 0);

	if (rows != c->rows || cols != c->cols || !c->cells) {
		free(c->cells);
		free(c->sent);
		free(c->blanks);
		c->cells = xreallocarray(NULL, n ? n : 1, sizeof(*c->cells));
		c->sent = xreallocarray(NULL, n ? n : 1, sizeof(*c->sent));
		c->blanks = xreallocarray(NULL, cols > 0 ? (size_t)cols : 1, sizeof(*c->blanks));
		for (int x = 0; x < cols; x++)
			c->blanks[x] = BLANK;
		c->rows = rows;
		c->cols = cols;
		c->repaint = true;
		c->blank = false;
	}
	c->cur = 0;
	/* A render leaves the cells blank, row by row while each is still in
	 * the cache, so a frame after a render starts with nothing to do. */
	bool blank = c->blank;
	c->blank = false;
	if (blank)
		return;
	/* A blank row is copied to each, which is several times cheaper than
	 * a loop over the whole screen. */
	size_t w = (size_t)(cols > 0 ? cols : 0);
	for (size_t at = 0; w && at < n; at += w)
		memcpy(c->cells + at, c->blanks, w * sizeof(*c->cells));
}

void canvas_fini(struct canvas *c)
{
	free(c->cells);
	free(c->sent);
	free(c->blanks);
	c->cells = c->sent = c->blanks = NULL;
	buf_fini(&c->out);
}

void canvas_invalidate(struct canvas *c)
{
	c->repaint = true;
}

void canvas_attr(struct canvas *c, attr_t a, bool on)
{
	if (on)
		c->cur = PAIR_NUMBER(a) > 0 ? (c->cur & ~A_COLOR) | a : c->cur | a;
	else
		c->cur &= PAIR_NUMBER(a) > 0 ? ~(a | A_COLOR) : ~a;
}

void canvas_put(struct canvas *c, int y, int x, uint32_t ch, int w)
{
	if (y < 0 || y >= c->rows || x < 0 || x + w > c->cols || w < 1 || w > 2)
		return;
	struct canvas_cell *row = c->cells + (size_t)y * (size_t)c->cols;
	/* When half of a wide character is overwritten, the other half becomes
	 * blank. */
	if (row[x].ch == CANVAS_TAIL && x > 0)
		row[x - 1] = BLANK;
	int end = x + w - 1;
	if (end + 1 < c->cols && row[end + 1].ch == CANVAS_TAIL)
		row[end + 1] = BLANK;
	row[x] = (struct canvas_cell){ch, c->cur};
	if (w == 2)
		row[x + 1] = (struct canvas_cell){CANVAS_TAIL, c->cur};
}

/* Clips a run of n one-column cells from (y, x) to the canvas and clears
 * the halves of wide characters it cuts at its two ends, which is what n
 * calls of canvas_put() do, since each call clears its right neighbour's
 * tail before the next one writes there. Returns the row and sets *x and
 * *n to the part inside, or returns NULL when none is. */
static struct canvas_cell *run_begin(struct canvas *c, int y, int *x, int *n)
{
	int a = *x, b = *x + *n; /* [a, b) */

	if (y < 0 || y >= c->rows || *n <= 0)
		return NULL;
	a = a < 0 ? 0 : a;
	b = b > c->cols ? c->cols : b;
	if (a >= b)
		return NULL;
	struct canvas_cell *row = c->cells + (size_t)y * (size_t)c->cols;
	if (row[a].ch == CANVAS_TAIL && a > 0)
		row[a - 1] = BLANK;
	if (b < c->cols && row[b].ch == CANVAS_TAIL)
		row[b] = BLANK;
	*n = b - a;
	*x = a;
	return row;
}

void canvas_hline(struct canvas *c, int y, int x, uint32_t ch, int n)
{
	struct canvas_cell *row = run_begin(c, y, &x, &n);

	if (!row)
		return;
	struct canvas_cell cell = {ch, c->cur};
	for (int i = 0; i < n; i++)
		row[x + i] = cell;
}

void canvas_put_ascii(struct canvas *c, int y, int x, const char *s, int n)
{
	int from = x;
	struct canvas_cell *row = run_begin(c, y, &x, &n);

	if (!row)
		return;
	s += x - from;
	for (int i = 0; i < n; i++)
		row[x + i] = (struct canvas_cell){(unsigned char)s[i], c->cur};
}

static bool printable(char ch)
{
	return (unsigned char)((unsigned char)ch - 0x20) < 0x5f;
}

int canvas_put_printable(struct canvas *c, int y, int x, const char *s, int max)
{
	int n = 0;

	if (max <= 0 || !printable(s[0]))
		return 0;
	if (y < 0 || y >= c->rows || x < 0 || x >= c->cols) {
		/* Partly or wholly outside: counted, then clipped as a run. */
		while (n < max && printable(s[n]))
			n++;
		canvas_put_ascii(c, y, x, s, n);
		return n;
	}
	/* Scanned and written in one pass, which is most of what drawing a
	 * frame's text costs. */
	int lim = max < c->cols - x ? max : c->cols - x;
	struct canvas_cell *row = c->cells + (size_t)y * (size_t)c->cols;
	attr_t a = c->cur;
	if (row[x].ch == CANVAS_TAIL && x > 0)
		row[x - 1] = BLANK;
	while (n < lim && printable(s[n])) {
		row[x + n] = (struct canvas_cell){(unsigned char)s[n], a};
		n++;
	}
	if (x + n < c->cols && row[x + n].ch == CANVAS_TAIL)
		row[x + n] = BLANK;
	/* The rest of the run, past the right edge, is only counted. */
	while (n < max && printable(s[n]))
		n++;
	return n;
}

void canvas_vline(struct canvas *c, int y, int x, uint32_t ch, int n)
{
	for (int i = 0; i < n; i++)
		canvas_put(c, y + i, x, ch, 1);
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

static void move_to(struct canvas *c, int y, int x)
{
	if (c->cy == y && c->cx == x)
		return;
	if (c->ansi_cup) {
		buf_append(&c->out, "\033[", 2);
		put_uint(&c->out, (unsigned)y + 1);
		buf_putc(&c->out, ';');
		put_uint(&c->out, (unsigned)x + 1);
		buf_putc(&c->out, 'H');
	} else if (c->caps.cup) {
		put_str(&c->out, tiparm(c->caps.cup, y, x));
	}
	c->cy = y;
	c->cx = x;
}

/* The escape sequence that sets attributes a from any state: a reset, then
 * each attribute. It is made once per distinct a and kept. */
static void set_attr(struct canvas *c, attr_t a)
{
	const struct canvas_caps *k = &c->caps;

	if (c->attr_known && c->attr == a)
		return;
	for (int i = 0; i < c->nsgr; i++)
		if (c->sgr[i].attr == a) {
			buf_append(&c->out, c->sgr[i].seq, c->sgr[i].len);
			goto done;
		}
	struct buf s;
	buf_init(&s);
	put_str(&s, k->sgr0);
	put_str(&s, k->op);
	if (a & A_BOLD)
		put_str(&s, k->bold);
	if (a & A_DIM)
		put_str(&s, k->dim);
	if (a & A_REVERSE)
		put_str(&s, k->rev);
	int pair = PAIR_NUMBER(a);
	if (pair > 0 && pair < CANVAS_PAIRS) {
		if (k->fg[pair] >= 0 && k->setaf)
			put_str(&s, tiparm(k->setaf, k->fg[pair]));
		if (k->bg[pair] >= 0 && k->setab)
			put_str(&s, tiparm(k->setab, k->bg[pair]));
	}
	buf_append(&c->out, s.data, s.len);
	if (c->nsgr < (int)(sizeof(c->sgr) / sizeof(c->sgr[0])) && s.len <= sizeof(c->sgr[0].seq)) {
		struct canvas_sgr *g = &c->sgr[c->nsgr++];
		g->attr = a;
		memcpy(g->seq, s.data, s.len);
		g->len = (uint8_t)s.len;
	}
	buf_fini(&s);
done:
	c->attr = a;
	c->attr_known = true;
}

/* Writes cells [a, b] of row y. */
static void send_span(struct canvas *c, int y, const struct canvas_cell *row, int a, int b)
{
	if (y == c->rows - 1 && b == c->cols - 1 && !c->caps.corner_ok) {
		b--; /* never the bottom-right cell */
		if (b >= a && row[b + 1].ch == CANVAS_TAIL)
			b--; /* nor a wide character that would cover it */
	}
	if (b < a)
		return;
	move_to(c, y, a);
	for (int x = a; x <= b; x++) {
		uint32_t ch = row[x].ch;
		if (ch == CANVAS_TAIL)
			continue;
		set_attr(c, row[x].attr);
		if (ch < 0x80) {
			buf_putc(&c->out, (char)ch);
		} else if (!c->utf8) {
			buf_putc(&c->out, '?'); /* never happens, because it is drawn as ASCII */
		} else {
			char enc[4];
			buf_append(&c->out, enc, utf8_encode(ch, enc));
		}
	}
	/* At the right margin the terminal may be waiting to wrap, so the
	 * next span addresses the cursor again. */
	c->cx = b + 1 < c->cols ? b + 1 : -1;
	if (c->cx < 0)
		c->cy = -1;
}

/* Cells are compared as one word each, and four at a time while they agree:
 * most of a frame is what the terminal already shows, and this comparison
 * is most of what a flush costs. */
_Static_assert(sizeof(struct canvas_cell) == sizeof(uint64_t), "a cell is compared as one word");

static inline uint64_t cell_word(const struct canvas_cell *c)
{
	uint64_t w;
	memcpy(&w, c, sizeof(w));
	return w;
}

/* The first cell in [a, b) where row and old differ, or b when none does. */
static int next_diff(const struct canvas_cell *row, const struct canvas_cell *old, int a, int b)
{
	while (b - a >= 4 && memcmp(row + a, old + a, 4 * sizeof(*row)) == 0)
		a += 4;
	while (a < b && cell_word(&row[a]) == cell_word(&old[a]))
		a++;
	return a < b ? a : b;
}

/* The last cell in (a, b] where row and old differ, or a when none does. */
static int last_diff(const struct canvas_cell *row, const struct canvas_cell *old, int a, int b)
{
	while (b - a >= 4 && memcmp(row + b - 3, old + b - 3, 4 * sizeof(*row)) == 0)
		b -= 4;
	while (b > a && cell_word(&row[b]) == cell_word(&old[b]))
		b--;
	return b;
}

/* Writes the changed cells of row y within [a, b], where both a and b
 * changed, in spans. A run of CANVAS_GAP unchanged cells or more is skipped
 * with a cursor address, which takes about as many bytes as the run's ASCII
 * and fewer than its block glyphs or attribute changes. A shorter run is
 * sent again. */
static void send_changed(struct canvas *c, int y, const struct canvas_cell *row, const struct canvas_cell *old, int a,
			 int b)
{
	while (a <= b) {
		/* The span ends at the last change before a long enough run of
		 * unchanged cells, or at b. */
		int e = a;
		for (;;) {
			int n = next_diff(row, old, e + 1, b + 1);
			if (n > b || n - e - 1 >= CANVAS_GAP)
				break;
			e = n;
		}
		/* Whole wide characters only. */
		int s = a;
		if (row[s].ch == CANVAS_TAIL && s > 0)
			s--;
		if (e + 1 < c->cols && row[e + 1].ch == CANVAS_TAIL)
			e++;
		send_span(c, y, row, s, e);
		a = e + 1 <= b ? next_diff(row, old, e + 1, b + 1) : e + 1;
	}
}

const struct buf *canvas_render(struct canvas *c)
{
	int cols = c->cols;

	buf_reset(&c->out);
	if (!c->cells)
		return &c->out;
	if (c->repaint) {
		/* Everything is sent, from a cleared screen in the default attributes. */
		c->attr_known = false;
		set_attr(c, 0);
		put_str(&c->out, c->caps.clear);
		c->cy = c->cx = -1;
	}
	if (c->blank) {
		/* No frame was begun since the last render, so the frame is
		 * still what was sent: nothing to send, or all of it again. */
		for (int y = 0; c->repaint && y < c->rows; y++)
			send_span(c, y, c->sent + (size_t)y * (size_t)cols, 0, cols - 1);
		c->repaint = false;
		return &c->out;
	}
	for (int y = 0; y < c->rows; y++) {
		struct canvas_cell *row = c->cells + (size_t)y * (size_t)cols;
		struct canvas_cell *old = c->sent + (size_t)y * (size_t)cols;
		if (c->repaint) {
			send_span(c, y, row, 0, cols - 1);
			memcpy(old, row, (size_t)cols * sizeof(*row));
		} else if (memcmp(row, old, (size_t)cols * sizeof(*row)) != 0) {
			int a = next_diff(row, old, 0, cols);
			int b = last_diff(row, old, a, cols - 1);
			send_changed(c, y, row, old, a, b);
			memcpy(old + a, row + a, (size_t)(b - a + 1) * sizeof(*row));
		}
		memcpy(row, c->blanks, (size_t)cols * sizeof(*row));
	}
	/* The frame is in sent now, and the cells are ready for the next. */
	c->blank = true;
	c->repaint = false;
	return &c->out;
}

void canvas_flush(struct canvas *c)
{
	const struct buf *out = canvas_render(c);

	if (out->len && writefile_all(c->fd, out->data, out->len) != 0)
		c->repaint = true; /* the terminal did not take it all, so start over */
}

void canvas_end(struct canvas *c, int last)
{
	/* The default attributes, and the cursor on the last line, where
	 * curses' endwin() expects to leave it. */
	buf_reset(&c->out);
	c->attr_known = false;
	set_attr(c, 0);
	c->cy = c->cx = -1;
	if (last >= 0)
		move_to(c, last, 0);
	if (c->out.len)
		(void)writefile_all(c->fd, c->out.data, c->out.len);
}
