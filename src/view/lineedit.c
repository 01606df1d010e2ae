/* lineedit: a bounded line of UTF-8 text with a cursor, typed byte by byte. */
#include "view/lineedit.h"

#include <string.h>

#include "util/utf8.h"

void lineedit_init(struct lineedit *e, size_t max)
{
	memset(e, 0, sizeof(*e));
	e->max = max < LINEEDIT_MAX ? max : LINEEDIT_MAX;
}

void lineedit_clear(struct lineedit *e)
{
	e->text[0] = '\0';
	e->len = e->cur = 0;
	e->npend = e->need = 0;
}

/* The number of bytes in a character that starts with b, or 0 when b starts
 * none, as a continuation byte, an overlong lead or a lead past U+10FFFF
 * does. */
static uint8_t seq_len(unsigned char b)
{
	if (b < 0x80)
		return 1;
	if (b >= 0xC2 && b <= 0xDF)
		return 2;
	if (b >= 0xE0 && b <= 0xEF)
		return 3;
	if (b >= 0xF0 && b <= 0xF4)
		return 4;
	return 0;
}

/* Inserts the character s[0..n) at the cursor when it is valid, is shown as
 * itself and fits. */
static bool insert_char(struct lineedit *e, const char *s, size_t n)
{
	uint32_t cp;

	if (utf8_decode(s, n, &cp) != n)
		return false;
	if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) /* C0, DEL, C1 */
		return false;
	if (e->len + n > e->max)
		return false;
	memmove(e->text + e->cur + n, e->text + e->cur, e->len - e->cur + 1);
	memcpy(e->text + e->cur, s, n);
	e->len += n;
	e->cur += n;
	return true;
}

bool lineedit_byte(struct lineedit *e, unsigned char b)
{
	char one = (char)b;

	if (e->npend) {
		if ((b & 0xC0) == 0x80) {
			e->pend[e->npend++] = (char)b;
			if (e->npend < e->need)
				return false;
			uint8_t n = e->npend;
			e->npend = e->need = 0;
			return insert_char(e, e->pend, n);
		}
		e->npend = e->need = 0; /* cut short, so what came so far goes */
	}
	uint8_t need = seq_len(b);
	if (need == 1)
		return insert_char(e, &one, 1);
	if (need) {
		e->pend[0] = (char)b;
		e->npend = 1;
		e->need = need;
	}
	return false;
}

bool lineedit_insert(struct lineedit *e, const char *s, size_t n)
{
	bool changed = false;

	for (size_t i = 0; i < n; i++)
		changed |= lineedit_byte(e, (unsigned char)s[i]);
	return changed;
}

/* The start of the character before byte offset at. */
static size_t char_before(const struct lineedit *e, size_t at)
{
	while (at > 0 && ((unsigned char)e->text[--at] & 0xC0) == 0x80)
		;
	return at;
}

/* The end of the character at byte offset at. */
static size_t char_after(const struct lineedit *e, size_t at)
{
	if (at >= e->len)
		return e->len;
	while (++at < e->len && ((unsigned char)e->text[at] & 0xC0) == 0x80)
		;
	return at;
}

/* Removes the bytes [a, b). */
static void cut(struct lineedit *e, size_t a, size_t b)
{
	memmove(e->text + a, e->text + b, e->len - b + 1);
	e->len -= b - a;
	e->cur = a;
}

bool lineedit_backspace(struct lineedit *e)
{
	if (e->npend) {
		e->npend = e->need = 0;
		return false;
	}
	if (!e->cur)
		return false;
	cut(e, char_before(e, e->cur), e->cur);
	return true;
}

bool lineedit_delete(struct lineedit *e)
{
	e->npend = e->need = 0;
	if (e->cur >= e->len)
		return false;
	size_t at = e->cur;
	cut(e, at, char_after(e, at));
	return true;
}

bool lineedit_left(struct lineedit *e)
{
	e->npend = e->need = 0;
	if (!e->cur)
		return false;
	e->cur = char_before(e, e->cur);
	return true;
}

bool lineedit_right(struct lineedit *e)
{
	e->npend = e->need = 0;
	if (e->cur >= e->len)
		return false;
	e->cur = char_after(e, e->cur);
	return true;
}

void lineedit_home(struct lineedit *e)
{
	e->npend = e->need = 0;
	e->cur = 0;
}

void lineedit_end(struct lineedit *e)
{
	e->npend = e->need = 0;
	e->cur = e->len;
}
