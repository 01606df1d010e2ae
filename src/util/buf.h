/* buf: a growable byte buffer used to build JSON lines and text output. */
#ifndef GPUR_BUF_H
#define GPUR_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct buf {
	char *data;
	size_t len, cap;
};

void buf_init(struct buf *b);
void buf_fini(struct buf *b);
static inline void buf_reset(struct buf *b) { b->len = 0; }
/* Makes room for n more bytes. */
void buf_reserve(struct buf *b, size_t n);
void buf_append_slow(struct buf *b, const void *p, size_t n);
/* The common case, where there is room left, is inline because encoding a
 * record appends many small pieces. */
static inline void buf_append(struct buf *b, const void *p, size_t n)
{
	if (b->cap - b->len > n) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
		return;
	}
	buf_append_slow(b, p, n);
}
static inline void buf_puts(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}
static inline void buf_putc(struct buf *b, char c)
{
	if (b->cap - b->len > 1) {
		b->data[b->len++] = c;
		return;
	}
	buf_append_slow(b, &c, 1);
}
__attribute__((format(printf, 2, 3))) void buf_printf(struct buf *b, const char *fmt, ...);
/* Adds a NUL terminator that len does not count, and returns data. */
const char *buf_cstr(struct buf *b);

#endif
