/* fuzz_drmsysfs: libFuzzer harness for the DRM sysfs value parsers
 * (drm/drm_parse.h): pp_dpm_* levels, PCI link speeds, hwmon scaled
 * integers, runtime PM status, kernel release strings. Results are checked
 * against their contracts; any difference abort()s.
 *
 * Input: byte 0 picks the parser, the rest is the file's content. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drm/drm_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                         \
	do {                                                                             \
		if (!(c)) {                                                              \
			fprintf(stderr, "fuzz_drmsysfs: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                         \
		}                                                                        \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	/* A copy of exactly the input, so ASan sees any read past it. */
	size_t n = size - 1;
	char *buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, n);
	switch (data[0] % 5) {
	case 0: {
		struct drm_dpm d;
		drm_parse_dpm(buf, n, &d);
		CHECK(!d.cur_known || d.cur_mhz <= 1000000);
		CHECK(!d.max_known || d.max_mhz <= 1000000);
		CHECK(d.cur_known || d.cur_mhz == 0);
		break;
	}
	case 1: {
		uint64_t gen = 99;
		int rc = drm_parse_link_gen(buf, n, &gen);
		CHECK(rc == 0 || gen == 99);
		CHECK(rc != 0 || (gen >= 1 && gen <= 6));
		break;
	}
	case 2: {
		long double v = 0;
		if (drm_parse_scaled(buf, n, 1000, &v) == 0)
			CHECK(isfinite(v) && fabsl(v) <= 9.3e15L);
		break;
	}
	case 3: {
		enum drm_rpm r = drm_parse_runtime_status(buf, n);
		CHECK(r == DRM_RPM_ACTIVE || r == DRM_RPM_SUSPENDED);
		break;
	}
	default: {
		char out[16];
		if (drm_parse_release(buf, n, out, sizeof(out))) {
			size_t len = strlen(out);
			CHECK(len > 0 && len < sizeof(out) && out[0] >= '0' && out[0] <= '9');
			CHECK(memcmp(out, buf, len) == 0 && out[len - 1] != '.');
		}
		break;
	}
	}
	free(buf);
	return 0;
}
