/* fmt: numbers formatted without printf, for what the dashboard draws every
 * frame (printf's floating-point path was an eighth of its drawing). Each
 * writes at most n-1 characters and a NUL (nothing when n is 0) and returns
 * the characters written. */
#ifndef GPUR_FMT_H
#define GPUR_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Decimal, at least width characters: padded on the left with pad. */
size_t fmt_u64(char *buf, size_t n, uint64_t v, unsigned width, char pad);
/* v with the given decimals (0 to 6), rounded to nearest, ties to even as
 * printf does for values it holds exactly (v * 10^decimals is rounded
 * first, so 0.45 may give "0.4" where printf says "0.5"); "-" before
 * negatives that do not round to 0. Values whose scaled form reaches 1e15,
 * NaN and infinities go through snprintf. */
size_t fmt_fixed(char *buf, size_t n, double v, unsigned decimals);

#endif
