/* test_drm_parse: the DRM sysfs value parsers on the formats of the kernel
 * and on what a hostile or truncated file holds. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drm/drm_desc.h"
#include "drm/drm_parse.h"
#include "util/ratewin.h"

#define S(s) s, sizeof(s) - 1

static void test_dpm(void **state)
{
	struct drm_dpm d;
	(void)state;
	drm_parse_dpm(S("0: 500Mhz \n1: 1834Mhz *\n2: 2526Mhz \n"), &d);
	assert_true(d.cur_known && d.cur_mhz == 1834 && d.max_known && d.max_mhz == 2526);
	/* An APU's unnumbered current line; it is not a level. */
	drm_parse_dpm(S("0: 200Mhz \n1: 1100Mhz \n2: 1800Mhz \n   800Mhz *\n"), &d);
	assert_true(d.cur_known && d.cur_mhz == 800 && d.max_mhz == 1800);
	/* No '*': current unknown; a cut last line is skipped. */
	drm_parse_dpm(S("0: 96Mhz \n1: 45"), &d);
	assert_false(d.cur_known);
	assert_true(d.max_known && d.max_mhz == 96);
	drm_parse_dpm(S("garbage\n*\n1: Mhz *\n1: 99999999999Mhz *\n"), &d);
	assert_false(d.cur_known || d.max_known);
}

static void test_link(void **state)
{
	uint64_t g = 0;
	(void)state;
	assert_int_equal(drm_parse_link_gen(S("16.0 GT/s PCIe\n"), &g), 0);
	assert_int_equal(g, 4);
	assert_int_equal(drm_parse_link_gen(S("8 GT/s\n"), &g), 0);
	assert_int_equal(g, 3);
	assert_int_equal(drm_parse_link_gen(S("2.5 GT/s PCIe\n"), &g), 0);
	assert_int_equal(g, 1);
	assert_int_equal(drm_parse_link_gen(S("64.0 GT/s PCIe\n"), &g), 0);
	assert_int_equal(g, 6);
	assert_int_equal(drm_parse_link_gen(S("Unknown\n"), &g), -EINVAL);
	assert_int_equal(drm_parse_link_gen(S("12.5 GT/s\n"), &g), -EINVAL);
	assert_int_equal(drm_parse_link_gen(S("16."), &g), -EINVAL);
}

static void test_scaled(void **state)
{
	long double v = 0;
	(void)state;
	assert_int_equal(drm_parse_scaled(S("41500\n"), 1000, &v), 0);
	assert_true(v == 41.5L);
	assert_int_equal(drm_parse_scaled(S("-273150\n"), 1000, &v), 0);
	assert_true(v == -273.15L);
	assert_int_equal(drm_parse_scaled(S("87250000\n"), 1e6L, &v), 0);
	assert_true(v == 87.25L);
	assert_int_not_equal(drm_parse_scaled(S("52 degrees\n"), 1000, &v), 0);
	assert_int_not_equal(drm_parse_scaled(S(""), 1000, &v), 0);
}

static void test_runtime_and_energy(void **state)
{
	long double w;
	(void)state;
	assert_int_equal(drm_parse_runtime_status(S("suspended\n")), DRM_RPM_SUSPENDED);
	assert_int_equal(drm_parse_runtime_status(S("suspending\n")), DRM_RPM_SUSPENDED);
	assert_int_equal(drm_parse_runtime_status(S("active\n")), DRM_RPM_ACTIVE);
	assert_int_equal(drm_parse_runtime_status(S("suspendedx\n")), DRM_RPM_ACTIVE);
	assert_int_equal(drm_power_from_energy(1000000, 0, 3500000, 1000000000, 0, &w), RATEWIN_RATE);
	assert_true(w == 2.5L);
	assert_int_equal(drm_power_from_energy(5, 0, 4, 1000, 0, &w), RATEWIN_AFRESH);    /* backwards */
	assert_int_equal(drm_power_from_energy(5, 1000, 9, 1000, 0, &w), RATEWIN_AFRESH); /* no time */
	assert_int_equal(drm_power_from_energy(5, 1000, 9, 999, 0, &w), RATEWIN_AFRESH);  /* the clock went back */
	/* An xe card read twice 4 ms apart at detection: 0.95 J is 238 W over
	 * the window, where the card draws 95 W. The window is too short for a
	 * rate, and the reading at 1 s, against the first, says 95 W. */
	uint64_t min = ratewin_min_ns(1.0);
	w = -1;
	assert_int_equal(drm_power_from_energy(1000000000, 0, 1000950000, 4000000, min, &w), RATEWIN_SHORT);
	assert_true(w == -1); /* untouched */
	assert_int_equal(drm_power_from_energy(1000000000, 0, 1095000000, 1000000000, min, &w), RATEWIN_RATE);
	assert_true(w == 95.0L);
	/* A counter that went back starts afresh even in a short window. */
	assert_int_equal(drm_power_from_energy(1000, 0, 10, 4000000, min, &w), RATEWIN_AFRESH);
	/* 100 ms at an interval of 1 s, and 50 ms at 0.05 s, carry a rate. */
	assert_int_equal(drm_power_from_energy(0, 0, 1000, 100000000, min, &w), RATEWIN_RATE);
	assert_int_equal(drm_power_from_energy(0, 0, 1000, 50000000, ratewin_min_ns(0.05), &w), RATEWIN_RATE);
}

/* The baseline of a card's power: detection's reading, a first poll 4 ms
 * later that keeps it, a rate a second on, measured from detection's
 * reading, and the next rate from that one's. */
static void test_energy_baseline(void **state)
{
	struct drm_energy b = {0};
	uint64_t min = ratewin_min_ns(1.0);
	long double w = -1;
	(void)state;
	assert_false(drm_energy_sample(&b, 1000000000, 5000000000, min, &w)); /* detection */
	assert_false(drm_energy_sample(&b, 1000950000, 5004000000, min, &w)); /* 238 W over 4 ms */
	assert_true(w == -1);
	assert_true(b.known && b.uj == 1000000000 && b.ns == 5000000000);
	assert_true(drm_energy_sample(&b, 1095000000, 6000000000, min, &w));
	assert_true(w == 95.0L); /* 95 J in 1 s, where the 4 ms reading would give 94.05 W over 0.996 s */
	assert_true(b.uj == 1095000000 && b.ns == 6000000000);
	assert_true(drm_energy_sample(&b, 1195000000, 7000000000, min, &w));
	assert_true(w == 100.0L);
	/* A counter that went back, after a driver reload: no power, and the
	 * new reading is the baseline even 4 ms on. */
	assert_false(drm_energy_sample(&b, 1000, 7004000000, min, &w));
	assert_true(b.uj == 1000 && b.ns == 7004000000);
	/* A jump of a megawatt or more is no power, and is passed over. */
	assert_false(drm_energy_sample(&b, 1000 + 1000000000000ull, 8004000000, min, &w));
	assert_true(b.uj == 1000 + 1000000000000ull);
	/* Two readings of one instant: the newer one is the baseline. */
	assert_false(drm_energy_sample(&b, 1000 + 1000000005000ull, 8004000000, min, &w));
	assert_true(b.uj == 1000 + 1000000005000ull);
}

static void test_release(void **state)
{
	char out[16];
	(void)state;
	assert_true(drm_parse_release(S("6.8.0-45-generic\n"), out, sizeof(out)));
	assert_string_equal(out, "6.8.0");
	assert_true(drm_parse_release(S("6.12.1+deb13-amd64"), out, sizeof(out)));
	assert_string_equal(out, "6.12.1");
	assert_false(drm_parse_release(S("garbage"), out, sizeof(out)));
}

static void test_descriptors(void **state)
{
	(void)state;
	assert_true(drm_desc_covers(&DRM_DESC_AMDGPU, "amdgpu"));
	assert_true(drm_desc_covers(&DRM_DESC_GENERIC, "v3d"));
	assert_false(drm_desc_covers(&DRM_DESC_GENERIC, "simpledrm"));
	assert_int_equal(drm_desc_engine_roles(&DRM_DESC_AMDGPU, "gfx"), DRM_ROLE_GRAPHICS);
	assert_int_equal(drm_desc_engine_roles(&DRM_DESC_AMDGPU, "dma"), 0);
	assert_int_equal(drm_desc_engine_roles(&DRM_DESC_XE, "vcs"), DRM_ROLE_DEC);
	assert_int_equal(drm_desc_engine_roles(&DRM_DESC_GENERIC, "fragment"), DRM_ROLE_BUSY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dpm), cmocka_unit_test(test_link), cmocka_unit_test(test_scaled),
		cmocka_unit_test(test_runtime_and_energy), cmocka_unit_test(test_energy_baseline),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_descriptors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
