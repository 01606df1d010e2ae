/* drm_parse: the value formats of DRM sysfs and hwmon files (amdgpu's
 * pp_dpm_* levels, PCI link speeds, hwmon millidegrees and microwatts,
 * runtime PM status) over (buf, len), without allocation. */
#ifndef GPUR_DRM_PARSE_H
#define GPUR_DRM_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/ratewin.h"

/* The clock levels of a pp_dpm_* file. They are lines "N: 500Mhz", with the
 * current one ending " *", and on APUs an unnumbered "   <cur>Mhz *" line for
 * a clock that matches no level. Lines that are none of these are skipped. */
struct drm_dpm {
	bool cur_known, max_known;
	uint64_t cur_mhz; /* the level marked '*' */
	uint64_t max_mhz; /* the highest numbered level */
};
void drm_parse_dpm(const char *buf, size_t len, struct drm_dpm *out);

/* Reads a PCI link speed file ("16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s PCIe")
 * as a PCIe generation from 1 to 6. Returns 0, or -EINVAL for "Unknown",
 * garbage or a speed that is no generation's. */
int drm_parse_link_gen(const char *buf, size_t len, uint64_t *gen);

/* Reads a signed integer file scaled down by div, which is 1000 for hwmon
 * millidegrees and 1e6 for µW, and keeps the fraction, so "41500" / 1000 is
 * 41.5. Returns 0, -EINVAL or -ERANGE. */
int drm_parse_scaled(const char *buf, size_t len, long double div, long double *out);

enum drm_rpm {
	DRM_RPM_ACTIVE,    /* active, resuming, unsupported, or no file */
	DRM_RPM_SUSPENDED, /* suspended or suspending, so reading would wake it */
};
/* Reads power/runtime_status's text. */
enum drm_rpm drm_parse_runtime_status(const char *buf, size_t len);

/* Watts from two readings of a µJ energy counter, taken at t0_ns and t1_ns
 * on a monotonic clock, over a window of at least min_ns (util/ratewin.h).
 * Returns RATEWIN_RATE with *watts set. Otherwise there is no rate:
 * RATEWIN_SHORT when the window is too short, and the caller keeps the first
 * reading as its baseline, or RATEWIN_AFRESH when the counter went backwards,
 * after a driver reload or a wrap it did not fold, and the second reading is
 * the new baseline. */
enum ratewin_verdict drm_power_from_energy(uint64_t uj0, uint64_t t0_ns, uint64_t uj1, uint64_t t1_ns,
					   uint64_t min_ns, long double *watts);

/* The baseline of a power from an energy counter: a reading in µJ and its
 * monotonic time. A zeroed one is none. */
struct drm_energy {
	bool known;
	uint64_t uj, ns;
};
/* Takes a reading uj of a µJ energy counter at now_ns. Returns true with
 * *watts set when the window since the baseline carries a rate (at least
 * min_ns, util/ratewin.h) and the power is plausible. The reading becomes
 * the baseline, except after a window too short for a rate, when the older
 * baseline stays so that the next reading's window is long enough. */
bool drm_energy_sample(struct drm_energy *base, uint64_t uj, uint64_t now_ns, uint64_t min_ns, long double *watts);

/* Writes the version number at the start of a kernel release string into out,
 * of size n > 0, so "6.8.0-45-generic" gives "6.8.0". Returns false when the
 * string does not start with a digit. */
bool drm_parse_release(const char *buf, size_t len, char *out, size_t n);

#endif
