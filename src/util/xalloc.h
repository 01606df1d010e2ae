/* xalloc: allocation that ends the process on failure (the only place besides
 * main allowed to), so callers never handle out-of-memory half-way. */
#ifndef GPUR_XALLOC_H
#define GPUR_XALLOC_H

#include <stddef.h>
#include <stdlib.h>

_Noreturn void xalloc_die(void);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
/* Resizes to n * size bytes, checking the multiplication for overflow. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
/* n zeroed bytes in a mapping of their own, for large buffers that fill
 * slowly: a page is resident only once written, where calloc may clear, and
 * so touch, every page at once. xunmap() takes the same n. */
void *xmap_zeroed(size_t n);
void xunmap(void *p, size_t n);

#endif
