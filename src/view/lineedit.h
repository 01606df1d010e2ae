/* lineedit: one line of text being typed, such as a filter or a time to jump
 * to. It takes the bytes a terminal sends one at a time and inserts a UTF-8
 * character at the cursor once it is whole, and backspace removes a whole
 * character. The text is bounded and always valid UTF-8 with no control
 * characters. It uses no curses; the dashboard maps its keys onto these
 * calls. */
#ifndef GPUR_LINEEDIT_H
#define GPUR_LINEEDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest text, in bytes. */
#define LINEEDIT_MAX 127

struct lineedit {
	char text[LINEEDIT_MAX + 1]; /* NUL-terminated */
	size_t len, max;             /* bytes of text, and at most */
	size_t cur;                  /* the cursor, a byte offset at a character's start */
	char pend[4];                /* the bytes of a character typed so far */
	uint8_t npend, need;         /* how many, and how many it has in all */
};

/* Makes an empty line of at most max bytes, or LINEEDIT_MAX when max is
 * larger. */
void lineedit_init(struct lineedit *e, size_t max);
/* Empties the line, and the bound stays. */
void lineedit_clear(struct lineedit *e);
/* Takes one byte as typed: printable ASCII, or a byte of a UTF-8 character,
 * which is inserted at the cursor when its last byte comes. A control
 * character, an invalid sequence with its bytes so far, and a character that
 * would take the text past its bound are dropped whole. Returns whether the
 * text changed. */
bool lineedit_byte(struct lineedit *e, unsigned char b);
/* Takes each byte of s[0..n) in turn, as lineedit_byte does, and returns
 * whether the text changed. */
bool lineedit_insert(struct lineedit *e, const char *s, size_t n);
/* Removes the character before the cursor, or the part of one being typed,
 * and returns whether the text changed. */
bool lineedit_backspace(struct lineedit *e);
/* Removes the character at the cursor, and returns whether the text changed. */
bool lineedit_delete(struct lineedit *e);
/* Moves the cursor one character left or right, and returns whether it moved. */
bool lineedit_left(struct lineedit *e);
bool lineedit_right(struct lineedit *e);
/* Moves the cursor to the start or the end of the line. */
void lineedit_home(struct lineedit *e);
void lineedit_end(struct lineedit *e);

static inline const char *lineedit_text(const struct lineedit *e)
{
	return e->text;
}
static inline bool lineedit_empty(const struct lineedit *e)
{
	return e->len == 0;
}

#endif
