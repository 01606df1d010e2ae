/* json_write: escaping and number formatting for records. */
#include "util/json_write.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/utf8.h"

void json_put_string(struct buf *b, const char *s, size_t n, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t used = 0, i = 0;

	buf_putc(b, '"');
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			if (used + 1 > max)
				break;
			buf_putc(b, (char)c);
			used++;
			i++;
			continue;
		}
		if (c < 0x80) {
			char esc[7] = {'\\', 0};
			size_t len = 2;
			switch (c) {
			case '"': esc[1] = '"'; break;
			case '\\': esc[1] = '\\'; break;
			case '\n': esc[1] = 'n'; break;
			case '\r': esc[1] = 'r'; break;
			case '\t': esc[1] = 't'; break;
			case '\b': esc[1] = 'b'; break;
			case '\f': esc[1] = 'f'; break;
			default:
				esc[1] = 'u';
				esc[2] = '0';
				esc[3] = '0';
				esc[4] = hex[c >> 4];
				esc[5] = hex[c & 15];
				len = 6;
			}
			if (used + 1 > max)
				break;
			buf_append(b, esc, len);
			used++;
			i++;
			continue;
		}
		uint32_t cp;
		size_t consumed = utf8_decode(s + i, n - i, &cp);
		char enc[4];
		size_t len = utf8_encode(cp, enc);
		if (used + len > max)
			break;
		buf_append(b, enc, len);
		used += len;
		i += consumed;
	}
	buf_putc(b, '"');
}

void json_put_u64(struct buf *b, uint64_t v)
{
	char tmp[24];
	char *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	buf_append(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void json_put_i64(struct buf *b, int64_t v)
{
	if (v < 0) {
		buf_putc(b, '-');
		json_put_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		json_put_u64(b, (uint64_t)v);
	}
}

void json_put_double(struct buf *b, double d)
{
	char tmp[40];
	int n;

	if (!isfinite(d)) {
		buf_puts(b, "null");
		return;
	}
	/* An integral double is exact as an integer, so it is written as one. */
	if (d == trunc(d) && fabs(d) < 9223372036854775808.0) {
		json_put_i64(b, (int64_t)d);
		return;
	}
	/* gpur never sets LC_NUMERIC, so printf writes '.' as the decimal point. */
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (prec == 17 || strtod(tmp, NULL) == d)
			break;
	}
	buf_append(b, tmp, (size_t)n);
}

void json_put_num(struct buf *b, long double v)
{
	if (v == truncl(v) && v >= -0x1p63L && v < 0x1p63L) {
		json_put_i64(b, (int64_t)v);
		return;
	}
	json_put_double(b, (double)v);
}
