/* text: safe, width-aware text for the dashboard. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "tui/tui_priv.h"
#include "util/fmt.h"
#include "util/utf8.h"

/* wcwidth() of a character, remembered for the box-drawing, block and
 * geometric characters (U+2500 to U+25FF) that bars and borders repeat on
 * every frame. The dashboard draws from one thread. */
static int char_width(uint32_t cp)
{
	static int8_t known[256];
	static bool filled[256];

	if (cp < 0x2500 || cp > 0x25ff)
		return wcwidth((wchar_t)cp);
	unsigned k = cp - 0x2500;
	if (!filled[k]) {
		known[k] = (int8_t)wcwidth((wchar_t)cp);
		filled[k] = true;
	}
	return known[k];
}

/* Walks the safe text of s over at most w columns. Control characters,
 * escapes, reordering characters and invalid UTF-8 become U+FFFD, or '?'
 * outside UTF-8, and wide characters take two columns. Draws the text at
 * (y, x) when draw is set, and returns the columns. */
static int render(struct tui *t, int y, int x, const char *s, int w, bool draw)
{
	int cols = 0;
	size_t i = 0;

	if (!s)
		return 0;
	while (s[i]) {
		uint32_t cp = (unsigned char)s[i];
		int cw = 1;
		if (cp >= 0x20 && cp < 0x7f) {
			/* A run of printable ASCII, which is most of what is
			 * drawn, goes to the canvas in one piece. */
			if (cols >= w)
				break;
			size_t n = 1;
			if (draw) {
				n = (size_t)canvas_put_printable(&t->canvas, y, x + cols, s + i, w - cols);
			} else {
				for (unsigned char c; cols + (int)n < w && (c = (unsigned char)s[i + n]) >= 0x20 && c < 0x7f;)
					n++;
			}
			i += n;
			cols += (int)n;
			continue;
		} else {
			size_t rest = strnlen(s + i, 4);
			i += utf8_decode(s + i, rest, &cp);
			if (utf8_is_unsafe(cp))
				cp = UTF8_REPLACEMENT;
			if (!t->utf8 && cp >= 0x80)
				cp = '?';
			cw = cp < 0x80 ? 1 : char_width(cp);
			if (cw == 0)
				continue; /* a combining mark; a cell holds one character,
					   * so "é" written as e + U+0301 shows as "e" */
			if (cw < 0 || cw > 2) {
				cp = t->utf8 ? UTF8_REPLACEMENT : '?'; /* unprintable here */
				cw = 1;
			}
		}
		if (cols + cw > w)
			break;
		if (draw)
			canvas_put(&t->canvas, y, x + cols, cp, cw);
		cols += cw;
	}
	return cols;
}

int tui_text(struct tui *t, int y, int x, const char *s, int w)
{
	if (w <= 0 || y < 0 || y >= t->rows || x < 0 || x >= t->cols)
		return 0;
	if (x + w > t->cols)
		w = t->cols - x;
	return render(t, y, x, s, w, true);
}

int tui_text_right(struct tui *t, int y, int x, const char *s, int w)
{
	int cw = tui_text_width(t, s);
	if (cw > w)
		cw = w;
	return tui_text(t, y, x + w - cw, s, cw);
}

int tui_text_width(struct tui *t, const char *s)
{
	return render(t, 0, 0, s, 1 << 20, false);
}

void tui_attr(struct tui *t, enum tui_color c, bool on)
{
	attr_t a = 0;

	if (t->color && c != TC_NONE) {
		a = (attr_t)COLOR_PAIR(c);
		if (c == TC_HEAD)
			a |= A_BOLD;
	} else {
		/* Monochrome, since the design must read without colour. */
		switch (c) {
		case TC_HEAD: a = A_BOLD; break;
		case TC_CRIT: a = A_BOLD; break;
		case TC_DIM: a = A_DIM; break;
		case TC_SEL: a = A_REVERSE; break;
		default: break;
		}
	}
	if (c == TC_SEL)
		a |= A_REVERSE;
	canvas_attr(&t->canvas, a, on);
}

void tui_bar(struct tui *t, int y, int x, int w, double pct, enum tui_color c)
{
	if (w < 3 || y >= t->rows || x + w > t->cols)
		return;
	canvas_put(&t->canvas, y, x, '[', 1);
	canvas_put(&t->canvas, y, x + w - 1, ']', 1);
	int inner = w - 2;
	if (pct < 0) {
		tui_attr(t, TC_DIM, true);
		canvas_hline(&t->canvas, y, x + 1, '.', inner);
		tui_attr(t, TC_DIM, false);
		return;
	}
	if (pct > 100)
		pct = 100;
	/* Eighths of a cell in UTF-8, whole cells in ASCII. */
	int eighths = (int)(pct / 100.0 * inner * 8 + 0.5);
	static const uint32_t parts[] = {' ', 0x258f, 0x258e, 0x258d, 0x258c, 0x258b, 0x258a, 0x2589, 0x2588};
	tui_attr(t, c, true);
	for (int i = 0; i < inner; i++) {
		int fill = eighths - i * 8;
		fill = fill < 0 ? 0 : fill > 8 ? 8 : fill;
		canvas_put(&t->canvas, y, x + 1 + i, t->utf8 ? parts[fill] : fill >= 4 ? '|' : ' ', 1);
	}
	tui_attr(t, c, false);
}

size_t tui_scroll_top(size_t sel, size_t top, size_t n, int rows, bool fill)
{
	size_t r = rows > 0 ? (size_t)rows : 1;

	if (sel < top)
		top = sel;
	if (sel >= top + r)
		top = sel - r + 1;
	if (fill && top + r > n)
		top = n > r ? n - r : 0;
	return top > n ? 0 : top;
}

bool tui_overlay(struct tui *t, enum tui_mode m, const char *what, const struct gpu_process **p,
		 struct tui_inside *in)
{
	char title[96];
	int y = 1, x = 1, h = t->rows - 2, w = t->cols - 2;

	*p = tui_selected(t);
	if (t->mode != m)
		return false;
	snprintf(title, sizeof(title), " %s %" PRIu64 " ", what, *p ? (*p)->pid : 0);
	if (!tui_box(t, y, x, h, w, title))
		return false;
	*in = (struct tui_inside){.x = x + 2, .w = w - 4, .y = y + 1, .end = y + h - 1};
	if (!*p || !t->frame)
		tui_text(t, in->y, in->x, "(no process selected)", in->w);
	return true;
}

bool tui_box(struct tui *t, int y, int x, int h, int w, const char *title)
{
	if (h < 3 || w < 10 || y + h > t->rows || x + w > t->cols)
		return false;
	for (int r = 0; r < h; r++)
		canvas_hline(&t->canvas, y + r, x, ' ', w);
	if (t->utf8) {
		canvas_hline(&t->canvas, y, x, 0x2500, w);
		canvas_hline(&t->canvas, y + h - 1, x, 0x2500, w);
		canvas_vline(&t->canvas, y, x, 0x2502, h);
		canvas_vline(&t->canvas, y, x + w - 1, 0x2502, h);
		canvas_put(&t->canvas, y, x, 0x250c, 1);
		canvas_put(&t->canvas, y, x + w - 1, 0x2510, 1);
		canvas_put(&t->canvas, y + h - 1, x, 0x2514, 1);
		canvas_put(&t->canvas, y + h - 1, x + w - 1, 0x2518, 1);
	} else {
		canvas_hline(&t->canvas, y, x, '-', w);
		canvas_hline(&t->canvas, y + h - 1, x, '-', w);
		canvas_vline(&t->canvas, y + 1, x, '|', h - 2);
		canvas_vline(&t->canvas, y + 1, x + w - 1, '|', h - 2);
	}
	tui_attr(t, TC_HEAD, true);
	tui_text(t, y, x + 2, title, w - 4);
	tui_attr(t, TC_HEAD, false);
	return true;
}

void tui_size(char *buf, size_t n, bool known, uint64_t bytes)
{
	static const char units[] = "BKMGTP";
	double v = (double)bytes;
	int u = 0;

	if (!known) {
		snprintf(buf, n, "--");
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	size_t at = u == 0 ? fmt_u64(buf, n, bytes, 0, ' ') : fmt_fixed(buf, n, v, v < 10 ? 1 : 0);
	if (at + 1 < n) {
		buf[at] = units[u];
		buf[at + 1] = '\0';
	}
}

void tui_prompt(struct tui *t, int y, enum tui_mode m)
{
	const struct key_prompt *p = keys_prompt(m);
	const enum key_foot own = KEYS_FOOT_OWN;
	struct key_hint hints[8];
	char keys[200], buf[LINEEDIT_MAX + 400];

	if (!p)
		return;
	const struct lineedit *e = p->line(t);
	const char *text = lineedit_text(e);
	size_t n = keys_hints(m, &own, 1, t->utf8, hints, sizeof(hints) / sizeof(hints[0]));
	keys_join(hints, n, ", ", NULL, keys, sizeof(keys));
	snprintf(buf, sizeof(buf), "%s: %.*s_%s   (%s)", p->title, (int)e->cur, text, text + e->cur, keys);
	tui_text(t, y, 0, buf, t->cols);
}

void tui_line_init(struct tui_line *l, char *buf, size_t cap)
{
	l->b = buf;
	l->n = 0;
	l->cap = cap;
	if (cap)
		buf[0] = '\0';
}

void tui_line_put(struct tui_line *l, const char *s)
{
	size_t len = strlen(s);

	if (l->n + 1 >= l->cap)
		return;
	if (len > l->cap - 1 - l->n)
		len = l->cap - 1 - l->n;
	memcpy(l->b + l->n, s, len);
	l->n += len;
	l->b[l->n] = '\0';
}

void tui_line_u64(struct tui_line *l, uint64_t v, int width, char pad)
{
	char num[24];

	fmt_u64(num, sizeof(num), v, width, pad);
	tui_line_put(l, num);
}

void tui_line_fixed(struct tui_line *l, double v, int decimals)
{
	char num[32];

	fmt_fixed(num, sizeof(num), v, decimals);
	tui_line_put(l, num);
}

void tui_line_puts(struct tui_line *l, const char *const *parts)
{
	for (; *parts; parts++)
		tui_line_put(l, *parts);
}

void tui_join(char *buf, size_t n, const char *const *parts)
{
	struct tui_line l;

	tui_line_init(&l, buf, n);
	tui_line_puts(&l, parts);
}

void tui_hms(char *buf, size_t n, time_t ts)
{
	struct tm tm;

	if (!localtime_r(&ts, &tm) || !strftime(buf, n, "%H:%M:%S", &tm))
		snprintf(buf, n, "--:--:--");
}
