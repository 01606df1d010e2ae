/* text: safe, width-aware text for the dashboard. */
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "tui/tui_priv.h"
#include "util/buf.h"
#include "util/utf8.h"

/* The safe text of s cut to w columns into b; returns the columns. */
static int prepare(struct tui *t, const char *s, int w, struct buf *b)
{
	int cols = 0;
	size_t n = s ? strlen(s) : 0, i = 0;

	while (i < n) {
		uint32_t cp;
		size_t used = utf8_decode(s + i, n - i, &cp);
		i += used;
		int cw;
		if (utf8_is_unsafe(cp))
			cp = UTF8_REPLACEMENT; /* control, escape and reordering characters are inert */
		if (!t->utf8 && cp >= 0x80)
			cp = '?';
		cw = cp < 0x80 ? 1 : wcwidth((wchar_t)cp);
		if (cw < 0) {
			cp = t->utf8 ? UTF8_REPLACEMENT : '?';
			cw = 1;
		}
		if (cols + cw > w)
			break;
		char enc[4];
		buf_append(b, enc, utf8_encode(cp, enc));
		cols += cw;
	}
	buf_cstr(b);
	return cols;
}

int tui_text(struct tui *t, int y, int x, const char *s, int w)
{
	/* A line of the screen fits on the stack: no allocation per cell. */
	char stack[2048];
	struct buf b = {stack, 0, sizeof(stack)};

	if (w <= 0 || y < 0 || y >= t->rows || x >= t->cols)
		return 0;
	if (x + w > t->cols)
		w = t->cols - x;
	int cols = prepare(t, s, w, &b);
	mvaddstr(y, x, b.data);
	if (b.data != stack)
		buf_fini(&b);
	return cols;
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
	char stack[2048];
	struct buf b = {stack, 0, sizeof(stack)};

	int cols = prepare(t, s, 1 << 20, &b);
	if (b.data != stack)
		buf_fini(&b);
	return cols;
}

void tui_attr(struct tui *t, enum tui_color c, bool on)
{
	attr_t a = 0;

	if (t->color && c != TC_NONE) {
		a = (attr_t)COLOR_PAIR(c);
		if (c == TC_HEAD)
			a |= A_BOLD;
	} else {
		/* Monochrome: the design must read without colour. */
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
	if (on)
		attron(a);
	else
		attroff(a);
}

void tui_bar(struct tui *t, int y, int x, int w, double pct, enum tui_color c)
{
	if (w < 3 || y >= t->rows || x + w > t->cols)
		return;
	mvaddch(y, x, '[');
	mvaddch(y, x + w - 1, ']');
	int inner = w - 2;
	if (pct < 0) {
		tui_attr(t, TC_DIM, true);
		for (int i = 0; i < inner; i++)
			mvaddch(y, x + 1 + i, '.');
		tui_attr(t, TC_DIM, false);
		return;
	}
	if (pct > 100)
		pct = 100;
	/* Eighths of a cell in UTF-8, whole cells in ASCII. */
	int eighths = (int)(pct / 100.0 * inner * 8 + 0.5);
	static const char *const parts[] = {" ", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589", "\u2588"};
	tui_attr(t, c, true);
	for (int i = 0; i < inner; i++) {
		int fill = eighths - i * 8;
		fill = fill < 0 ? 0 : fill > 8 ? 8 : fill;
		if (t->utf8)
			mvaddstr(y, x + 1 + i, parts[fill]);
		else
			mvaddch(y, x + 1 + i, fill >= 4 ? '|' : ' ');
	}
	tui_attr(t, c, false);
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
	if (u == 0)
		snprintf(buf, n, "%lluB", (unsigned long long)bytes);
	else
		snprintf(buf, n, v < 10 ? "%.1f%c" : "%.0f%c", v, units[u]);
}
