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
	assert_true(drm_power_from_energy(1000000, 0, 3500000, 1000000000, &w) && w == 2.5L);
	assert_false(drm_power_from_energy(5, 0, 4, 1000, &w)); /* backwards */
	assert_false(drm_power_from_energy(5, 1000, 9, 1000, &w)); /* no time */
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
		cmocka_unit_test(test_runtime_and_energy), cmocka_unit_test(test_release),
		cmocka_unit_test(test_descriptors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
