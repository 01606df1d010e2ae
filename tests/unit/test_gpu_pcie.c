/* test_gpu_pcie: the PCIe link as text: the maxima only when the link runs
 * below them, and of a maximum not known nothing, never a made-up value. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/gpu.h"

/* A GPU whose link is gen x width, with the maxima that are >= 0. */
static struct gpu link_of(long gen, long width, long gen_max, long width_max)
{
	struct gpu g;

	memset(&g, 0, sizeof(g));
	if (gen >= 0) {
		g.link.gen = (uint64_t)gen;
		gpu_set(&g, GPU_F_PCIE_GEN);
	}
	if (width >= 0) {
		g.link.width = (uint64_t)width;
		gpu_set(&g, GPU_F_PCIE_WIDTH);
	}
	if (gen_max >= 0) {
		g.link.gen_max = (uint64_t)gen_max;
		gpu_set(&g, GPU_F_PCIE_GEN_MAX);
	}
	if (width_max >= 0) {
		g.link.width_max = (uint64_t)width_max;
		gpu_set(&g, GPU_F_PCIE_WIDTH_MAX);
	}
	return g;
}

static void expect(long gen, long width, long gen_max, long width_max, const char *text, bool below)
{
	struct gpu g = link_of(gen, width, gen_max, width_max);
	char buf[64];

	assert_int_equal(gpu_pcie_link(&g, buf, sizeof(buf)), below);
	assert_string_equal(buf, text);
}

/* The text snprintf would make of the link, and whether the link runs
 * below a maximum that is known: what gpu_pcie_link() gives, written out
 * independently. */
static bool oracle(const struct gpu *g, char *buf, size_t n)
{
	bool gm = gpu_has(g, GPU_F_PCIE_GEN_MAX), wm = gpu_has(g, GPU_F_PCIE_WIDTH_MAX);
	bool gb = gm && g->link.gen < g->link.gen_max, wb = wm && g->link.width < g->link.width_max;
	char t[160];
	int len;

	buf[0] = '\0';
	if (!gpu_has(g, GPU_F_PCIE_GEN) || !gpu_has(g, GPU_F_PCIE_WIDTH))
		return false;
	len = snprintf(t, sizeof(t), "%llux%llu", (unsigned long long)g->link.gen,
		       (unsigned long long)g->link.width);
	bool below = true;
	if (gm && wm && (gb || wb))
		snprintf(t + len, sizeof(t) - (size_t)len, " (max %llux%llu)", (unsigned long long)g->link.gen_max,
			 (unsigned long long)g->link.width_max);
	else if (gb && !wm)
		snprintf(t + len, sizeof(t) - (size_t)len, " (max gen %llu)", (unsigned long long)g->link.gen_max);
	else if (wb && !gm)
		snprintf(t + len, sizeof(t) - (size_t)len, " (max x%llu)", (unsigned long long)g->link.width_max);
	else
		below = false;
	/* Cut as snprintf cuts: the first n - 1 bytes and a NUL. */
	size_t l = strlen(t) < n ? strlen(t) : n - 1;
	memcpy(buf, t, l);
	buf[l] = '\0';
	return (size_t)len < n && below;
}

/* Every mix of known and unknown values, small and huge, in every buffer
 * size from 1 to 48: the same text, cut the same way, and the same answer. */
static void test_every_size(void **state)
{
	static const long vals[] = {-1, 0, 1, 4, 16, 99999};
	static const uint64_t huge = UINT64_MAX;
	char got[64], want[64];

	(void)state;
	for (size_t a = 0; a < 6; a++)
		for (size_t b = 0; b < 6; b++)
			for (size_t c = 0; c < 6; c++)
				for (size_t d = 0; d < 7; d++) {
					struct gpu g = link_of(vals[a], vals[b], vals[c], d < 6 ? vals[d] : 0);
					if (d == 6) { /* a width maximum no number fits in */
						g.link.width_max = huge;
						gpu_set(&g, GPU_F_PCIE_WIDTH_MAX);
					}
					for (size_t n = 1; n <= 48; n++) {
						bool w = oracle(&g, want, n);
						assert_int_equal(gpu_pcie_link(&g, got, n), w);
						assert_string_equal(got, want);
					}
				}
}

static void test_at_maximum(void **state)
{
	(void)state;
	expect(4, 16, 4, 16, "4x16", false);
	expect(4, 16, -1, -1, "4x16", false);
	/* A link above what is said to be its maximum is no warning. */
	expect(5, 16, 4, 8, "5x16", false);
}

static void test_below_maximum(void **state)
{
	(void)state;
	expect(3, 8, 5, 16, "3x8 (max 5x16)", true);
	expect(3, 16, 5, 16, "3x16 (max 5x16)", true);
	expect(5, 8, 5, 16, "5x8 (max 5x16)", true);
}

static void test_one_maximum_known(void **state)
{
	(void)state;
	expect(3, 8, 5, -1, "3x8 (max gen 5)", true);
	expect(3, 8, -1, 16, "3x8 (max x16)", true);
	/* The known maximum is reached and the other is unknown: nothing to say. */
	expect(5, 8, 5, -1, "5x8", false);
	expect(3, 16, -1, 16, "3x16", false);
}

static void test_link_unknown(void **state)
{
	char buf[8] = "junk";
	struct gpu g = link_of(-1, 16, 5, 16);

	(void)state;
	expect(-1, 16, 5, 16, "", false);
	expect(4, -1, 5, 16, "", false);
	assert_false(gpu_pcie_link(&g, buf, 0)); /* n = 0 writes nothing */
	assert_string_equal(buf, "junk");
}

static void test_small_buffer(void **state)
{
	struct gpu g = link_of(3, 8, 5, 16);
	char buf[6];

	(void)state;
	gpu_pcie_link(&g, buf, sizeof(buf));
	assert_true(strlen(buf) < sizeof(buf));
	assert_memory_equal(buf, "3x8", 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_size),
		cmocka_unit_test(test_at_maximum),
		cmocka_unit_test(test_below_maximum),
		cmocka_unit_test(test_one_maximum_known),
		cmocka_unit_test(test_link_unknown),
		cmocka_unit_test(test_small_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
