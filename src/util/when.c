/* when: parsing and resolving --from/--to times. */
#include "util/when.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Reads the n digits at s into *v, and returns false unless all of them are
 * digits. */
static bool digits(const char *s, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (s[i] - '0');
	}
	return true;
}

bool when_parse_clock(const char *s, unsigned *secs)
{
	int h, m, sec = 0;
	size_t n = strlen(s);

	if (!(n == 5 || n == 8) || !digits(s, 2, &h) || s[2] != ':' || !digits(s + 3, 2, &m))
		return false;
	if (n == 8 && (s[5] != ':' || !digits(s + 6, 2, &sec)))
		return false;
	if (h > 23 || m > 59 || sec > 59)
		return false;
	*secs = (unsigned)(h * 3600 + m * 60 + sec);
	return true;
}

/* YYYY-MM-DD[T ]HH:MM:SS[.frac](Z|+HH:MM|-HH:MM) */
static bool parse_rfc3339(const char *s, uint64_t *ms)
{
	int y, mo, d, h, mi, se, frac = 0, scale = 1000;
	struct tm tm;

	if (strlen(s) < 20 || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
	    !digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s + 11, 2, &h) ||
	    s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' || !digits(s + 17, 2, &se))
		return false;
	const char *p = s + 19;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		for (; *p >= '0' && *p <= '9'; p++)
			if (scale > 1) {
				scale /= 10;
				frac += (*p - '0') * scale;
			}
	}
	int off = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om;
		if (!digits(p + 1, 2, &oh) || p[3] != ':' || !digits(p + 4, 2, &om) || oh > 23 || om > 59)
			return false;
		off = (oh * 60 + om) * 60 * (*p == '-' ? -1 : 1);
		p += 6;
	} else {
		return false;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60 || y < 1970)
		return false;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	int64_t t = (int64_t)timegm(&tm) - off;
	if (t < 0)
		return false;
	*ms = (uint64_t)t * 1000 + (uint64_t)frac;
	return true;
}

bool when_parse(const char *s, struct when *w)
{
	w->set = false;
	w->clock = false;
	if (*s && strspn(s, "0123456789") == strlen(s)) {
		if (strlen(s) > 16)
			return false;
		w->ms = strtoull(s, NULL, 10);
		return w->set = true;
	}
	if (when_parse_clock(s, &w->secs))
		return w->set = w->clock = true;
	if (parse_rfc3339(s, &w->ms))
		return w->set = true;
	return false;
}

uint64_t when_resolve(const struct when *w, uint64_t day_ms)
{
	if (!w->clock)
		return w->ms;
	time_t t = (time_t)(day_ms / 1000);
	struct tm tm;
	localtime_r(&t, &tm);
	tm.tm_hour = (int)(w->secs / 3600);
	tm.tm_min = (int)(w->secs / 60 % 60);
	tm.tm_sec = (int)(w->secs % 60);
	tm.tm_isdst = -1;
	time_t r = mktime(&tm);
	return r < 0 ? 0 : (uint64_t)r * 1000;
}
