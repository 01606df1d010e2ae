/* pick: the defaults of --select and --wait, and the parsers and texts of
 * their sizes, percentages and durations. */
#include "pick/pick.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double pick_max_util(const struct pick_opts *o)
{
	return o->max_util.set ? o->max_util.value : PICK_DEFAULT_MAX_UTIL;
}

uint64_t pick_stable_ms(const struct pick_opts *o)
{
	return o->stable.set ? o->stable.ms : PICK_DEFAULT_STABLE_MS;
}

double pick_min_free_bytes(const struct pick_opts *o, double total)
{
	if (!o->min_free.set)
		return total * (PICK_DEFAULT_MIN_FREE_PCT / 100.0);
	return o->min_free.pct ? total * (o->min_free.value / 100.0) : o->min_free.value;
}

bool pick_mem_filter(const struct pick_opts *o)
{
	return !o->min_free.set || o->min_free.value > 0;
}

bool pick_util_filter(const struct pick_opts *o)
{
	return pick_max_util(o) < 100.0;
}

/* Reads the plain decimal number at the start of s ("1", "0.5", ".25"),
 * with no sign, exponent, hex, inf or nan, into *out, and returns the bytes
 * it took, or 0 when there is none. */
static size_t decimal_prefix(const char *s, double *out)
{
	size_t n = strspn(s, "0123456789");

	if (s[n] == '.')
		n += 1 + strspn(s + n + 1, "0123456789");
	if (n == 0 || (n == 1 && s[0] == '.') || n > 40)
		return 0;
	char tmp[48];
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	char *end;
	double v = strtod(tmp, &end);
	if (errno || *end || !isfinite(v))
		return 0;
	*out = v;
	return n;
}

/* The factor of a size's unit, or 0 when unit is not one. */
static double size_unit(const char *unit)
{
	static const struct {
		const char *name;
		double factor;
	} units[] = {
		{"", 1.0},
		{"B", 1.0},
		{"K", 1024.0},
		{"KiB", 1024.0},
		{"M", 1048576.0},
		{"MiB", 1048576.0},
		{"G", 1073741824.0},
		{"GiB", 1073741824.0},
		{"T", 1099511627776.0},
		{"TiB", 1099511627776.0},
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(unit, units[i].name) == 0)
			return units[i].factor;
	return 0;
}

bool pick_parse_size(const char *s, struct pick_size *out)
{
	double v;
	size_t n = decimal_prefix(s, &v);

	if (n == 0)
		return false;
	if (strcmp(s + n, "%") == 0) {
		if (v > 100)
			return false;
		*out = (struct pick_size){.set = true, .pct = true, .value = v};
		return true;
	}
	double f = size_unit(s + n);
	if (f == 0 || v * f > 1e18)
		return false;
	*out = (struct pick_size){.set = true, .pct = false, .value = floor(v * f)};
	return true;
}

bool pick_parse_pct(const char *s, struct pick_pct *out)
{
	double v;
	size_t n = decimal_prefix(s, &v);

	if (n == 0 || (s[n] && strcmp(s + n, "%") != 0) || v > 100)
		return false;
	*out = (struct pick_pct){.set = true, .value = v};
	return true;
}

bool pick_parse_duration(const char *s, uint64_t max_ms, bool zero_ok, struct pick_duration *out)
{
	static const struct {
		const char *name;
		double ms;
	} units[] = {{"", 1000.0}, {"ms", 1.0}, {"s", 1000.0}, {"m", 60000.0}, {"h", 3600000.0}, {"d", 86400000.0}};
	double v;
	size_t n = decimal_prefix(s, &v);

	if (n == 0)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s + n, units[i].name) != 0)
			continue;
		double ms = v * units[i].ms;
		if (ms > (double)max_ms)
			return false;
		uint64_t whole = (uint64_t)llround(ms);
		if (whole == 0 && !(zero_ok && v == 0))
			return false;
		*out = (struct pick_duration){.set = true, .ms = whole};
		return true;
	}
	return false;
}

bool pick_parse_format(const char *s, enum pick_format *out)
{
	if (strcmp(s, "uuid") == 0)
		*out = PICK_FORMAT_UUID;
	else if (strcmp(s, "index") == 0)
		*out = PICK_FORMAT_INDEX;
	else
		return false;
	return true;
}

const char *pick_duration_text(uint64_t ms, char *buf, size_t n)
{
	static const struct {
		const char *name;
		uint64_t ms;
	} units[] = {{"d", 86400000u}, {"h", 3600000u}, {"m", 60000u}, {"s", 1000u}};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ms < units[i].ms)
			continue;
		if (ms % units[i].ms == 0)
			snprintf(buf, n, "%llu%s", (unsigned long long)(ms / units[i].ms), units[i].name);
		else
			snprintf(buf, n, "%.15g%s", (double)ms / (double)units[i].ms, units[i].name);
		return buf;
	}
	if (ms == 0)
		snprintf(buf, n, "0s");
	else if (ms % 100 == 0)
		snprintf(buf, n, "%.1fs", (double)ms / 1000.0);
	else
		snprintf(buf, n, "%llums", (unsigned long long)ms);
	return buf;
}

const char *pick_bytes_text(double bytes, char *buf, size_t n)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	double v = bytes;
	int u = -1;

	while (v >= 1024.0 && u < 3) {
		v /= 1024.0;
		u++;
	}
	if (u < 0)
		snprintf(buf, n, "%.0f B", bytes);
	else
		snprintf(buf, n, "%.1f %s", v, units[u]);
	return buf;
}
