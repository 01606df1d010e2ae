/* drm_parse: DRM sysfs and hwmon value formats; nothing here reads past len. */
#include "drm/drm_parse.h"

#include <errno.h>
#include <string.h>

#include "util/kvparse.h"

#define DPM_MAX_MHZ 1000000u

static size_t skip_blanks(const char *s, size_t i, size_t len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static bool lower_is(char c, char want)
{
	return c == want || (c >= 'A' && c <= 'Z' && c - 'A' + 'a' == want);
}

/* Parses one level line, [N:] <mhz>Mhz [*], and returns false when the line
 * is not one. */
static bool dpm_line(const char *s, size_t len, bool *numbered, uint64_t *mhz, bool *star)
{
	uint64_t v;
	size_t i = skip_blanks(s, 0, len);
	ssize_t n = kvparse_u64(s + i, len - i, DPM_MAX_MHZ, &v);

	if (n <= 0)
		return false;
	i += (size_t)n;
	*numbered = i < len && s[i] == ':';
	if (*numbered) {
		i = skip_blanks(s, i + 1, len);
		n = kvparse_u64(s + i, len - i, DPM_MAX_MHZ, &v);
		if (n <= 0)
			return false;
		i += (size_t)n;
	}
	i = skip_blanks(s, i, len);
	if (len - i < 3 || !lower_is(s[i], 'm') || !lower_is(s[i + 1], 'h') || !lower_is(s[i + 2], 'z'))
		return false;
	i = skip_blanks(s, i + 3, len);
	*star = i < len && s[i] == '*';
	if (*star)
		i = skip_blanks(s, i + 1, len);
	if (i != len)
		return false;
	*mhz = v;
	return true;
}

void drm_parse_dpm(const char *buf, size_t len, struct drm_dpm *out)
{
	struct kvparse_iter it;
	const char *line;
	size_t n;

	memset(out, 0, sizeof(*out));
	kvparse_iter_init(&it, buf, len);
	while (kvparse_line(&it, &line, &n)) {
		bool numbered, star;
		uint64_t mhz;
		if (!dpm_line(line, n, &numbered, &mhz, &star))
			continue;
		if (numbered && (!out->max_known || mhz > out->max_mhz)) {
			out->max_mhz = mhz;
			out->max_known = true;
		}
		/* The first marked line wins, since a file is never meant to mark
		 * two. */
		if (star && !out->cur_known) {
			out->cur_mhz = mhz;
			out->cur_known = true;
		}
	}
}

int drm_parse_link_gen(const char *buf, size_t len, uint64_t *gen)
{
	/* GT/s per lane, in tenths, of PCIe generations 1 to 6. */
	static const uint64_t tenths[] = {25, 50, 80, 160, 320, 640};
	uint64_t whole, frac = 0;
	ssize_t n = kvparse_u64(buf, len, 1000, &whole);
	size_t i;

	if (n <= 0)
		return -EINVAL;
	i = (size_t)n;
	if (i < len && buf[i] == '.') {
		i++;
		if (i >= len || buf[i] < '0' || buf[i] > '9')
			return -EINVAL;
		frac = (uint64_t)(buf[i++] - '0');
		while (i < len && buf[i] == '0')
			i++; /* "16.00" */
	}
	i = skip_blanks(buf, i, len);
	if (len - i < 4 || memcmp(buf + i, "GT/s", 4) != 0)
		return -EINVAL;
	for (size_t g = 0; g < sizeof(tenths) / sizeof(tenths[0]); g++) {
		if (tenths[g] == whole * 10 + frac) {
			*gen = g + 1;
			return 0;
		}
	}
	return -EINVAL;
}

int drm_parse_scaled(const char *buf, size_t len, long double div, long double *out)
{
	int64_t v;
	int rc = kvparse_single_i64(buf, len, &v);

	if (rc < 0)
		return rc;
	if (!(div > 0))
		return -EINVAL;
	*out = (long double)v / div;
	return 0;
}

enum drm_rpm drm_parse_runtime_status(const char *buf, size_t len)
{
	len = kvparse_trim_end(buf, len);
	if ((len == 9 && memcmp(buf, "suspended", 9) == 0) || (len == 10 && memcmp(buf, "suspending", 10) == 0))
		return DRM_RPM_SUSPENDED;
	return DRM_RPM_ACTIVE;
}

enum ratewin_verdict drm_power_from_energy(uint64_t uj0, uint64_t t0_ns, uint64_t uj1, uint64_t t1_ns,
					   uint64_t min_ns, long double *watts)
{
	if (uj1 < uj0)
		return RATEWIN_AFRESH;
	enum ratewin_verdict v = ratewin_judge(t0_ns, t1_ns, min_ns);
	if (v != RATEWIN_RATE)
		return v;
	/* µJ per ns is kW, because it is (ΔµJ / 1e6) J over (Δns / 1e9) s. */
	*watts = (long double)(uj1 - uj0) * 1000.0L / (long double)(t1_ns - t0_ns);
	return RATEWIN_RATE;
}

bool drm_energy_sample(struct drm_energy *base, uint64_t uj, uint64_t now_ns, uint64_t min_ns, long double *watts)
{
	enum ratewin_verdict v = RATEWIN_AFRESH;
	long double w = 0;

	if (base->known)
		v = drm_power_from_energy(base->uj, base->ns, uj, now_ns, min_ns, &w);
	if (v == RATEWIN_SHORT)
		return false;
	base->known = true;
	base->uj = uj;
	base->ns = now_ns;
	/* A megawatt is a counter that jumped, not a GPU. */
	if (v != RATEWIN_RATE || !(w < 1e6L))
		return false;
	*watts = w;
	return true;
}

bool drm_parse_release(const char *buf, size_t len, char *out, size_t n)
{
	size_t i = 0;

	while (i < len && i + 1 < n && ((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '.'))
		i++;
	while (i > 0 && buf[i - 1] == '.')
		i--;
	if (i == 0 || buf[0] < '0' || buf[0] > '9')
		return false;
	memcpy(out, buf, i);
	out[i] = '\0';
	return true;
}
