/* fmt: numbers formatted without printf, for what the dashboard draws every
 * frame (printf's floating-point path was an eighth of its drawing). Each
 * writes at most n-1 characters and a NUL (nothing when n is 0) and returns
 * the characters written. */
#ifndef GPUR_FMT_H
#define GPUR_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Writes v in decimal, padded on the left with pad to at least width
 * characters. */
size_t fmt_u64(char *buf, size_t n, uint64_t v, unsigned width, char pad);
/* Appends s to the text of at characters in buf, cut to fit within n, and
 * returns the new length. */
size_t fmt_cat(char *buf, size_t n, size_t at, const char *s);
/* Writes v with the given number of decimals (0 to 6), rounded to nearest
 * with ties to even, as printf does for values it holds exactly. Because
 * v * 10^decimals is rounded first, 0.45 may give "0.4" where printf says
 * "0.5". A negative value that does not round to 0 gets a "-". Values whose
 * scaled form reaches 1e15, NaN and infinities go through snprintf. */
size_t fmt_fixed(char *buf, size_t n, double v, unsigned decimals);

#endif
