/* buf: growable byte buffer. */
#include "util/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/xalloc.h"

void buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void buf_fini(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

void buf_reserve(struct buf *b, size_t n)
{
	if (n > SIZE_MAX - b->len - 1)
		xalloc_die();
	if (b->len + n + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap = cap > SIZE_MAX / 2 ? b->len + n + 1 : cap * 2;
	b->data = xreallocarray(b->data, cap, 1);
	b->cap = cap;
}

void buf_append_slow(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char tmp[256];

	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		buf_append(b, tmp, (size_t)n);
		return;
	}
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *buf_cstr(struct buf *b)
{
	buf_reserve(b, 0);
	b->data[b->len] = '\0';
	return b->data;
}
