/* utf8: strict decoding and sanitising of untrusted text. */
#include "util/utf8.h"

size_t utf8_decode(const char *str, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0];
	size_t need;
	uint32_t v;
	unsigned char lo = 0x80, hi = 0xBF;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
		v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		v = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0; /* overlong */
		else if (c == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		v = c & 0x07;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		*cp = UTF8_REPLACEMENT;
		return 1;
	}
	for (size_t i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*cp = UTF8_REPLACEMENT;
			return i;
		}
		v = (v << 6) | (s[i] & 0x3F);
		lo = 0x80;
		hi = 0xBF;
	}
	*cp = v;
	return need + 1;
}

size_t utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

void utf8_append_valid(struct buf *b, const char *s, size_t n, size_t max)
{
	size_t start = b->len;
	size_t i = 0;

	while (i < n) {
		/* Fast path: a run of ASCII. */
		size_t j = i;
		while (j < n && (unsigned char)s[j] < 0x80)
			j++;
		if (j > i) {
			size_t room = max - (b->len - start);
			size_t take = j - i < room ? j - i : room;
			buf_append(b, s + i, take);
			if (take < j - i)
				return;
			i = j;
			continue;
		}
		uint32_t cp;
		size_t used = utf8_decode(s + i, n - i, &cp);
		char enc[4];
		size_t len = utf8_encode(cp, enc);
		if (b->len - start + len > max)
			return;
		buf_append(b, enc, len);
		i += used;
	}
}

/* Bytes in the sequence that lead starts; 0 for a byte that starts none. */
static size_t seq_len(unsigned char lead)
{
	return lead < 0x80 ? 1 : lead < 0xC2 ? 0 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead <= 0xF4 ? 4 : 0;
}

size_t utf8_trim(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	/* The sequence that the cut splits starts at most 3 bytes back. Only a
	 * valid sequence, whole or cut short by the end of s, moves the cut
	 * before it. Invalid bytes are cut where they fall, so a run of stray
	 * continuation bytes does not pull the cut back. */
	size_t i = max;
	while (i > 0 && max - i < 3 && ((unsigned char)s[i] & 0xC0) == 0x80)
		i--;
	if (i == max)
		return max;
	size_t want = seq_len((unsigned char)s[i]);
	if (want < 2 || i + want <= max)
		return max;
	uint32_t cp;
	size_t used = utf8_decode(s + i, n - i, &cp);
	return used == want || i + used == n ? i : max;
}

bool utf8_is_unsafe(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || cp == 0x00AD || cp == 0x034F ||
	       cp == 0x061C || cp == 0x115F || cp == 0x1160 || cp == 0x17B4 || cp == 0x17B5 || cp == 0x180E ||
	       (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) ||
	       cp == 0x3164 || cp == 0xFEFF || cp == 0xFFA0 || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
	       (cp >= 0x1D173 && cp <= 0x1D17A) || (cp >= 0xE0000 && cp <= 0xE007F);
}

void utf8_append_safe(struct buf *b, const char *s, size_t n, bool utf8)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7F) {
			buf_putc(b, (char)c);
			i++;
			continue;
		}
		uint32_t cp;
		i += utf8_decode(s + i, n - i, &cp);
		bool bad = utf8_is_unsafe(cp) || cp == UTF8_REPLACEMENT;
		if (!utf8) {
			buf_putc(b, '?');
			continue;
		}
		char enc[4];
		if (bad)
			cp = UTF8_REPLACEMENT;
		buf_append(b, enc, utf8_encode(cp, enc));
	}
}
