/* test_fdinfo_drivers: each driver's fdinfo format through the DRM client
 * engine, on procfs fixture trees (fdinfo_tree.h): utilisation from two
 * samples checked to the percent (amdgpu ns, amdgpu 6.13's memory keys,
 * i915 with capacity, xe cycles, msm and panfrost-like maxfreq, v3d with
 * space-before-TAB, amdgpu 5.15's own percentages). The engine's mechanics
 * are test_fdinfo.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "drm/fdinfo.h"
#include "fdinfo_tree.h"
#include "util/ratewin.h"
#include "testutil.h"

static void test_amdgpu_two_samples(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 100, 5000, "/usr/bin/game");
	ft_fd(t, 100, 0, "/dev/null", NULL);
	ft_fd(t, 100, 5, "/dev/dri/renderD128", ft_amd64(38124561233ull, 182330112));
	struct fdinfo *e = fdinfo_acquire(t->proc);

	struct fdinfo_client c = ft_one(e, 10 * SEC);
	assert_int_equal(c.pid, 100);
	assert_int_equal(c.start_ticks, 5000);
	assert_string_equal(c.driver, "amdgpu");
	assert_string_equal(c.pdev, "0000:03:00.0");
	assert_int_equal(c.client_id, 4187);
	assert_int_equal(c.nengines, 3);
	ft_assert_unknown(&c, "gfx"); /* a first sample has no rate */
	ft_assert_unknown(&c, "dma");
	assert_true(ft_region(&c, "vram")->resident_known);
	assert_true(ft_region(&c, "vram")->resident_bytes == 2154500.0L * 1024);
	assert_false(ft_region(&c, "vram")->total_known);
	assert_true(ft_region(&c, "gtt")->resident_bytes == 46356.0L * 1024);

	/* 0.5 s of gfx and 0.1 s of dma in 1 s. */
	ft_set_fdinfo(t, 100, 5, ft_amd64(38124561233ull + 500000000, 182330112 + 100000000));
	c = ft_one(e, 11 * SEC);
	ft_assert_pct(&c, "gfx", 50);
	ft_assert_pct(&c, "dma", 10);
	ft_assert_pct(&c, "compute", 0);
	/* 2 s later, 0.3 s more gfx: 15 %. */
	ft_set_fdinfo(t, 100, 5, ft_amd64(38124561233ull + 800000000, 182330112 + 100000000));
	c = ft_one(e, 13 * SEC);
	ft_assert_pct(&c, "gfx", 15);
	ft_assert_pct(&c, "dma", 0);
	fdinfo_release(e);
	ft_free(t);
}

static void test_amdgpu_613_memory(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 100, 5000, "app");
	ft_fd(t, 100, 7, "/dev/dri/card1",
	       "drm-driver:\tamdgpu\ndrm-client-id:\t4187\ndrm-pdev:\t0000:03:00.0\npasid:\t32791\n"
	       "drm-total-gtt:\t46356 KiB\ndrm-shared-gtt:\t8196 KiB\ndrm-resident-gtt:\t46356 KiB\ndrm-purgeable-gtt:\t0\n"
	       "drm-total-vram:\t2162692 KiB\ndrm-shared-vram:\t33796 KiB\ndrm-resident-vram:\t2154500 KiB\n"
	       "drm-purgeable-vram:\t0\ndrm-memory-vram:\t2154500 KiB\ndrm-engine-gfx:\t38124561233 ns\n");
	struct fdinfo *e = fdinfo_acquire(t->proc);
	struct fdinfo_client c = ft_one(e, SEC);
	const struct fdinfo_region *v = ft_region(&c, "vram");
	assert_true(v->resident_known && v->total_known);
	assert_true(v->resident_bytes == 2154500.0L * 1024);
	assert_true(v->total_bytes == 2162692.0L * 1024);
	fdinfo_release(e);
	ft_free(t);
}

static char *i915(unsigned long long render, unsigned long long video)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf),
		 "drm-driver:\ti915\ndrm-client-id:\t93\ndrm-pdev:\t0000:00:02.0\n"
		 "drm-total-system0:\t152580 KiB\ndrm-resident-system0:\t152580 KiB\n"
		 "drm-engine-render:\t%llu ns\ndrm-engine-copy:\t8123456 ns\ndrm-engine-video:\t%llu ns\n"
		 "drm-engine-capacity-video:\t2\ndrm-engine-video-enhance:\t0 ns\n",
		 render, video);
	return buf;
}

static void test_i915_capacity(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 300, 77, "ffmpeg");
	ft_fd(t, 300, 3, "/dev/dri/renderD128", i915(61234567890ull, 12004556));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	ft_one(e, SEC);
	/* 1.5 s of video over 1 s on 2 engines: 75 % of the class. */
	ft_set_fdinfo(t, 300, 3, i915(61234567890ull + 250000000, 12004556 + 1500000000));
	struct fdinfo_client c = ft_one(e, 2 * SEC);
	ft_assert_pct(&c, "video", 75);
	ft_assert_pct(&c, "render", 25);
	ft_assert_pct(&c, "video-enhance", 0);
	assert_true(ft_region(&c, "system0")->total_bytes == 152580.0L * 1024);
	fdinfo_release(e);
	ft_free(t);
}

static char *xe(unsigned long long rcs, unsigned long long vcs, unsigned long long tot)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf),
		 "drm-driver:\txe\ndrm-client-id:\t57\ndrm-pdev:\t0000:03:00.0\n"
		 "drm-total-vram0:\t1043300 KiB\ndrm-resident-vram0:\t1043300 KiB\n"
		 "drm-cycles-rcs:\t%llu\ndrm-total-cycles-rcs:\t%llu\n"
		 "drm-cycles-bcs:\t120331\ndrm-total-cycles-bcs:\t%llu\n"
		 "drm-cycles-vcs:\t%llu\ndrm-total-cycles-vcs:\t%llu\ndrm-engine-capacity-vcs:\t2\n",
		 rcs, tot, tot, vcs, tot);
	return buf;
}

static void test_xe_cycles(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 400, 1, "blender");
	ft_fd(t, 400, 9, "/dev/dri/renderD129", xe(914522871, 0, 88213900117ull));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	ft_one(e, SEC);
	/* The GPU clock, not wall time: 30 % of rcs, 1000 of 2 × 1000 vcs
	 * cycles (50 %), whatever the wall clock did (here 7 s). */
	ft_set_fdinfo(t, 400, 9, xe(914522871 + 300, 1000, 88213900117ull + 1000));
	struct fdinfo_client c = ft_one(e, 8 * SEC);
	ft_assert_pct(&c, "rcs", 30);
	ft_assert_pct(&c, "vcs", 50);
	ft_assert_pct(&c, "bcs", 0);
	/* No total-cycles progress: unknown, not a division by zero. */
	ft_set_fdinfo(t, 400, 9, xe(914522871 + 300, 1000, 88213900117ull + 1000));
	c = ft_one(e, 9 * SEC);
	ft_assert_unknown(&c, "rcs");
	fdinfo_release(e);
	ft_free(t);
}

/* xe's cycles need a window of wall time too: at detection the counters are
 * read twice milliseconds apart, and the GPU's few cycles in between say
 * nothing. With the window of a 1 s interval a sweep 3 ms after the first
 * has no rate and keeps the first as the baseline, so the sweep at 1 s
 * measures all its cycles against it. */
static void test_xe_cycles_window(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 400, 1, "blender");
	ft_fd(t, 400, 9, "/dev/dri/renderD129", xe(1000, 0, 5000));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	fdinfo_set_rate_window(e, ratewin_min_ns(1.0));
	ft_one(e, SEC);
	ft_set_fdinfo(t, 400, 9, xe(1010, 10, 5010)); /* 100 % over 3 ms */
	struct fdinfo_client c = ft_one(e, SEC + 3000000);
	ft_assert_unknown(&c, "rcs");
	ft_assert_unknown(&c, "vcs");
	ft_set_fdinfo(t, 400, 9, xe(1250, 500, 6000)); /* 250 of 1000 rcs cycles, 500 of 2 × 1000 vcs */
	c = ft_one(e, 2 * SEC);
	ft_assert_pct(&c, "rcs", 25);
	ft_assert_pct(&c, "vcs", 25);
	fdinfo_release(e);
	ft_free(t);
}

static void test_msm_and_maxfreq(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	char buf[512];
	ft_proc(t, 500, 1, "weston");
	ft_proc(t, 501, 1, "glmark2");
	ft_fd(t, 500, 4, "/dev/dri/renderD128",
	       "drm-driver:\tmsm\ndrm-client-id:\t11\ndrm-engine-gpu:\t7213445001 ns\ndrm-cycles-gpu:\t4512983310\n"
	       "drm-maxfreq-gpu:\t680000000 Hz\ndrm-total-memory:\t98 MiB\ndrm-resident-memory:\t98 MiB\n");
	/* panfrost-like: cycles and maxfreq, no ns. */
	snprintf(buf, sizeof(buf), "drm-driver:\tpanfrost\ndrm-client-id:\t2\ndrm-cycles-fragment:\t%llu\n"
		 "drm-maxfreq-fragment:\t680 MHz\ndrm-curfreq-fragment:\t400 MHz\n", 1000ull);
	ft_fd(t, 501, 4, "/dev/dri/renderD129", buf);
	struct fdinfo *e = fdinfo_acquire(t->proc);
	assert_int_equal(fdinfo_sweep(e, SEC, 0), 0);
	/* ns win over cycles when both are there (msm): 0.2 s of 2 s = 10 %. */
	ft_set_fdinfo(t, 500, 4,
		   "drm-driver:\tmsm\ndrm-client-id:\t11\ndrm-engine-gpu:\t7413445001 ns\ndrm-cycles-gpu:\t9999999999\n"
		   "drm-maxfreq-gpu:\t680000000 Hz\ndrm-total-memory:\t98 MiB\ndrm-resident-memory:\t98 MiB\n");
	/* 680 M cycles in 2 s at 680 MHz: 50 % at the maximum clock. */
	snprintf(buf, sizeof(buf), "drm-driver:\tpanfrost\ndrm-client-id:\t2\ndrm-cycles-fragment:\t%llu\n"
		 "drm-maxfreq-fragment:\t680 MHz\ndrm-curfreq-fragment:\t400 MHz\n", 1000ull + 680000000);
	ft_set_fdinfo(t, 501, 4, buf);
	assert_int_equal(fdinfo_sweep(e, 3 * SEC, 0), 0);
	struct fdinfo_client c[4];
	/* Platform GPUs have no pdev: the "" filter. */
	assert_int_equal(fdinfo_clients(e, "msm", "", c, 4), 1);
	assert_string_equal(c[0].pdev, "");
	ft_assert_pct(&c[0], "gpu", 10);
	assert_true(ft_region(&c[0], "memory")->resident_bytes == 98.0L * 1048576);
	assert_int_equal(fdinfo_clients(e, "panfrost", NULL, c, 4), 1);
	ft_assert_pct(&c[0], "fragment", 50);
	assert_int_equal(fdinfo_clients(e, NULL, "0000:03:00.0", c, 4), 0);
	fdinfo_release(e);
	ft_free(t);
}

static char *v3d(unsigned long long bin, unsigned long long render)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf),
		 "drm-driver:\tv3d\ndrm-client-id:\t38\ndrm-engine-bin: \t%llu ns\nv3d-jobs-bin: \t10321 jobs\n"
		 "drm-engine-render: \t%llu ns\nv3d-jobs-render: \t10321 jobs\ndrm-engine-tfu: \t0 ns\n"
		 "v3d-jobs-tfu: \t0 jobs\ndrm-total-memory:\t40 MiB\ndrm-shared-memory:\t0\ndrm-resident-memory:\t40 MiB\n",
		 bin, render);
	return buf;
}

static void test_v3d(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 600, 1, "kodi");
	ft_fd(t, 600, 12, "/dev/dri/card0", v3d(412003221, 1203311954));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	ft_one(e, 4 * SEC);
	ft_set_fdinfo(t, 600, 12, v3d(412003221 + 100000000, 1203311954 + 400000000));
	struct fdinfo_client c = ft_one(e, 6 * SEC);
	ft_assert_pct(&c, "render", 20);
	ft_assert_pct(&c, "bin", 5);
	ft_assert_pct(&c, "tfu", 0);
	fdinfo_release(e);
	ft_free(t);
}

static void test_legacy_515(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 700, 1, "old");
	ft_fd(t, 700, 6, "/dev/dri/renderD128",
	       "pos:\t0\nflags:\t02100002\nmnt_id:\t23\npdev:\t0000:0b:00.0\npasid:\t32772\nvram mem:\t1254388 kB\n"
	       "gtt mem:\t30148 kB\ncpu mem:\t0 kB\ngfx0:\t42.17%\ndec0:\t3.8%\n");
	struct fdinfo *e = fdinfo_acquire(t->proc);
	/* The kernel computed these itself: known on the first sample. */
	struct fdinfo_client c = ft_one(e, SEC);
	assert_string_equal(c.driver, "amdgpu");
	assert_int_equal(c.client_id, 32772);
	ft_assert_pct(&c, "gfx", 42.17);
	ft_assert_pct(&c, "dec", 3.08);
	assert_true(ft_region(&c, "vram")->resident_bytes == 1254388.0L * 1024);
	fdinfo_release(e);
	ft_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amdgpu_two_samples),
		cmocka_unit_test(test_amdgpu_613_memory),
		cmocka_unit_test(test_i915_capacity),
		cmocka_unit_test(test_xe_cycles),
		cmocka_unit_test(test_xe_cycles_window),
		cmocka_unit_test(test_msm_and_maxfreq),
		cmocka_unit_test(test_v3d),
		cmocka_unit_test(test_legacy_515),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
