/* canvas: the dashboard's screen as a grid of cells. Each frame is drawn into
 * it whole, and a flush writes only what changed since the last one, with
 * the terminal's own strings, in one write(2). It uses curses' attribute
 * values (attr_t, colour pairs) but none of its drawing, so it runs, and is
 * tested, without a terminal. */
#ifndef GPUR_CANVAS_H
#define GPUR_CANVAS_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"

/* The colour pairs a canvas knows, pair 0 (the default) included. */
#define CANVAS_PAIRS 16

/* One cell: a code point, or the right half of a wide one, and its curses
 * attributes, colour pair included. */
struct canvas_cell {
	uint32_t ch;
	attr_t attr;
};

/* An escape sequence that sets some attributes, made once. */
struct canvas_sgr {
	attr_t attr;
	uint8_t len;
	char seq[119];
};

/* What the canvas writes with: the terminal's strings under terminfo's
 * names, NULL when it has none, and the colours of each pair, -1 for the
 * default. */
struct canvas_caps {
	const char *cup, *clear, *sgr0, *op, *bold, *dim, *rev, *setaf, *setab;
	bool corner_ok; /* the bottom-right cell may be written: no automatic margin, or a deferred wrap */
	short fg[CANVAS_PAIRS], bg[CANVAS_PAIRS];
};

struct canvas {
	struct canvas_caps caps;
	bool ansi_cup; /* cup is the ANSI form, written without tiparm() */
	bool utf8;     /* the terminal takes UTF-8; otherwise every cell is ASCII */
	int fd;        /* where a flush writes */
	/* This frame's cells, and those the terminal was last sent. */
	struct canvas_cell *cells, *sent;
	struct canvas_cell *blanks; /* one row of blank cells, copied to blank a row */
	int rows, cols;
	attr_t cur;   /* the attributes of what is drawn next */
	bool repaint; /* the next flush clears the terminal and sends every cell */
	bool blank;   /* the cells are blank: a render blanks each row once it is sent */
	/* The terminal as the last flush left it. */
	struct canvas_sgr sgr[16];
	int nsgr;
	attr_t attr;
	bool attr_known;
	int cy, cx; /* the cursor, -1 when not known */
	struct buf out; /* the bytes of the last flush */
};

/* Reads the terminal's strings from terminfo, once curses has set the
 * terminal up, and the colours of the first npairs pairs from fg and bg,
 * which may be NULL. */
void canvas_caps_terminfo(struct canvas_caps *caps, const short *fg, const short *bg, int npairs);
/* Sets up a canvas that writes to fd with caps, which are copied; utf8 says
 * the terminal's encoding. It starts empty and repaints at its first
 * flush. */
void canvas_init(struct canvas *c, const struct canvas_caps *caps, bool utf8, int fd);
void canvas_fini(struct canvas *c);
/* Starts a frame on a blank canvas of rows x cols. A new size repaints. */
void canvas_begin(struct canvas *c, int rows, int cols);
/* Returns the bytes that bring the terminal from what it was last sent to
 * this frame, in c->out, which the canvas owns; they are empty when nothing
 * changed. The frame then counts as sent: it is in c->sent, and the cells
 * are blank for the next canvas_begin(). */
const struct buf *canvas_render(struct canvas *c);
/* Writes what canvas_render makes to the canvas's fd. When the terminal does
 * not take it all, the next flush repaints. */
void canvas_flush(struct canvas *c);
/* Called before endwin(), it sets the default attributes and puts the cursor
 * at the start of row last, the terminal's last line, where curses expects
 * to leave it. */
void canvas_end(struct canvas *c, int last);
/* Makes the next flush send everything and redraw the terminal, after a
 * resize or when the screen was scribbled on. */
void canvas_invalidate(struct canvas *c);
/* Turns curses attributes on or off for what is drawn next; a colour pair
 * replaces the one in force, as wattr_on() does. */
void canvas_attr(struct canvas *c, attr_t a, bool on);
/* Puts code point ch, w (1 or 2) columns wide, at (y, x), or nothing when it
 * does not fit. ch must be safe to show. */
void canvas_put(struct canvas *c, int y, int x, uint32_t ch, int w);
void canvas_hline(struct canvas *c, int y, int x, uint32_t ch, int n);
/* Writes the n bytes of s, printable ASCII, from (y, x) in the current
 * attributes, as n calls of canvas_put() would; what falls outside the
 * canvas is dropped. */
void canvas_put_ascii(struct canvas *c, int y, int x, const char *s, int n);
/* Writes the run of printable ASCII that s starts with, at most max bytes,
 * as canvas_put_ascii() would, and returns its length: 0 when s does not
 * start with printable ASCII. */
int canvas_put_printable(struct canvas *c, int y, int x, const char *s, int max);
void canvas_vline(struct canvas *c, int y, int x, uint32_t ch, int n);

#endif
