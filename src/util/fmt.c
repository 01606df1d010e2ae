/* fmt: see fmt.h. */
#include "util/fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Appends s (len bytes) to buf at *at, within n. */
static void put(char *buf, size_t n, size_t *at, const char *s, size_t len)
{
	if (n == 0)
		return;
	size_t room = n - 1 - *at;
	if (len > room)
		len = room;
	memcpy(buf + *at, s, len);
	*at += len;
	buf[*at] = '\0';
}

size_t fmt_u64(char *buf, size_t n, uint64_t v, unsigned width, char pad)
{
	char d[24];
	size_t k = 0, at = 0;

	if (n == 0)
		return 0;
	do {
		d[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	/* One terminating NUL at the end, not one per character: the
	 * dashboard formats a few hundred numbers a frame. */
	for (size_t fill = width > k ? width - k : 0; fill && at + 1 < n; fill--)
		buf[at++] = pad;
	while (k && at + 1 < n)
		buf[at++] = d[--k];
	buf[at] = '\0';
	return at;
}

size_t fmt_cat(char *buf, size_t n, size_t at, const char *s)
{
	if (n == 0)
		return 0;
	if (at > n - 1)
		at = n - 1;
	put(buf, n, &at, s, strlen(s));
	return at;
}

size_t fmt_fixed(char *buf, size_t n, double v, unsigned decimals)
{
	static const double scale[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
	size_t at = 0;

	if (n == 0)
		return 0;
	if (decimals > 6)
		decimals = 6;
	if (!isfinite(v) || fabs(v) * scale[decimals] >= 1e15) {
		int r = snprintf(buf, n, "%.*f", (int)decimals, v);
		return r < 0 ? 0 : (size_t)r < n ? (size_t)r : n - 1;
	}
	double s = nearbyint(fabs(v) * scale[decimals]); /* ties to even */
	uint64_t whole = (uint64_t)s, unit = (uint64_t)scale[decimals];
	buf[0] = '\0';
	if (v < 0 && whole > 0)
		put(buf, n, &at, "-", 1);
	at += fmt_u64(buf + at, n - at, whole / unit, 0, '0');
	if (decimals) {
		put(buf, n, &at, ".", 1);
		at += fmt_u64(buf + at, n - at, whole % unit, decimals, '0');
	}
	return at;
}
