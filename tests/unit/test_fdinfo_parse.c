/* test_fdinfo_parse: the DRM fdinfo parser on every format of docs/drm-fdinfo.md
 * and §1.6 — amdgpu 5.15 (legacy), 6.4–6.11 and 6.13+, i915, xe, msm, v3d
 * (the fixture texts as the facts give them, the "(the same ...)" lines
 * written out) — per-ring amdgpu names summed into their class, units,
 * longest-prefix-first matching, and hostile input: truncated lines,
 * garbage and overflowing numbers, 1 MiB, NUL bytes, no drm-driver, more
 * names than slots, repeated keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drm/fdinfo_parse.h"

#define KIB(n) ((uint64_t)(n) * 1024u)
#define MIB(n) ((uint64_t)(n) * 1048576u)

/* docs/drm-fdinfo.md */
static const char AMD_515[] =
	"pos:\t0\n"
	"flags:\t02100002\n"
	"mnt_id:\t23\n"
	"pdev:\t0000:0b:00.0\n"
	"pasid:\t32772\n"
	"vram mem:\t1254388 kB\n"
	"gtt mem:\t30148 kB\n"
	"cpu mem:\t0 kB\n"
	"gfx0:\t42.17%\n"
	"dec0:\t3.8%\n";

/* docs/drm-fdinfo.md */
static const char AMD_64[] =
	"pasid:\t32791\n"
	"drm-driver:\tamdgpu\n"
	"drm-pdev:\t0000:03:00.0\n"
	"drm-client-id:\t4187\n"
	"drm-memory-vram:\t2154500 KiB\n"
	"drm-memory-gtt: \t46356 KiB\n"
	"drm-memory-cpu: \t0 KiB\n"
	"amd-memory-visible-vram:\t187340 KiB\n"
	"amd-evicted-vram:\t0 KiB\n"
	"amd-evicted-visible-vram:\t0 KiB\n"
	"amd-requested-vram:\t2162692 KiB\n"
	"amd-requested-visible-vram:\t195532 KiB\n"
	"amd-requested-gtt:\t46356 KiB\n"
	"drm-engine-gfx:\t38124561233 ns\n"
	"drm-engine-compute:\t4021771 ns\n"
	"drm-engine-dma:\t182330112 ns\n";

/* docs/drm-fdinfo.md */
static const char AMD_613[] =
	"drm-driver:\tamdgpu\n"
	"drm-client-id:\t4187\n"
	"drm-pdev:\t0000:03:00.0\n"
	"pasid:\t32791\n"
	"drm-total-cpu:\t0\n"
	"drm-shared-cpu:\t0\n"
	"drm-resident-cpu:\t0\n"
	"drm-purgeable-cpu:\t0\n"
	"drm-total-gtt:\t46356 KiB\n"
	"drm-shared-gtt:\t8196 KiB\n"
	"drm-resident-gtt:\t46356 KiB\n"
	"drm-purgeable-gtt:\t0\n"
	"drm-total-vram:\t2162692 KiB\n"
	"drm-shared-vram:\t33796 KiB\n"
	"drm-resident-vram:\t2154500 KiB\n"
	"drm-purgeable-vram:\t0\n"
	"drm-total-gds:\t0\n"
	"drm-shared-gds:\t0\n"
	"drm-resident-gds:\t0\n"
	"drm-purgeable-gds:\t0\n"
	"drm-total-gws:\t0\n"
	"drm-shared-gws:\t0\n"
	"drm-resident-gws:\t0\n"
	"drm-purgeable-gws:\t0\n"
	"drm-total-oa:\t0\n"
	"drm-shared-oa:\t0\n"
	"drm-resident-oa:\t0\n"
	"drm-purgeable-oa:\t0\n"
	"drm-total-doorbell:\t0\n"
	"drm-shared-doorbell:\t0\n"
	"drm-resident-doorbell:\t0\n"
	"drm-purgeable-doorbell:\t0\n"
	"drm-memory-vram:\t2154500 KiB\n"
	"drm-memory-gtt: \t46356 KiB\n"
	"drm-memory-cpu: \t0 KiB\n"
	"amd-evicted-vram:\t0 KiB\n"
	"amd-requested-vram:\t2162692 KiB\n"
	"amd-requested-gtt:\t46356 KiB\n"
	"drm-engine-gfx:\t38124561233 ns\n"
	"drm-engine-dma:\t182330112 ns\n";

/* docs/drm-fdinfo.md */
static const char I915[] =
	"drm-driver:\ti915\n"
	"drm-client-id:\t93\n"
	"drm-pdev:\t0000:00:02.0\n"
	"drm-total-system0:\t152580 KiB\n"
	"drm-shared-system0:\t8 MiB\n"
	"drm-active-system0:\t0\n"
	"drm-resident-system0:\t152580 KiB\n"
	"drm-purgeable-system0:\t1232 KiB\n"
	"drm-total-stolen-system0:\t0\n"
	"drm-shared-stolen-system0:\t0\n"
	"drm-active-stolen-system0:\t0\n"
	"drm-resident-stolen-system0:\t0\n"
	"drm-purgeable-stolen-system0:\t0\n"
	"drm-engine-render:\t61234567890 ns\n"
	"drm-engine-copy:\t8123456 ns\n"
	"drm-engine-video:\t12004556 ns\n"
	"drm-engine-capacity-video:\t2\n"
	"drm-engine-video-enhance:\t0 ns\n";

/* docs/drm-fdinfo.md */
static const char XE[] =
	"drm-driver:\txe\n"
	"drm-client-id:\t57\n"
	"drm-pdev:\t0000:03:00.0\n"
	"drm-total-system:\t0\n"
	"drm-shared-system:\t0\n"
	"drm-active-system:\t0\n"
	"drm-resident-system:\t0\n"
	"drm-purgeable-system:\t0\n"
	"drm-total-gtt:\t384 KiB\n"
	"drm-shared-gtt:\t0\n"
	"drm-active-gtt:\t0\n"
	"drm-resident-gtt:\t384 KiB\n"
	"drm-total-vram0:\t1043300 KiB\n"
	"drm-shared-vram0:\t16 MiB\n"
	"drm-active-vram0:\t4 MiB\n"
	"drm-resident-vram0:\t1043300 KiB\n"
	"drm-total-stolen:\t0\n"
	"drm-shared-stolen:\t0\n"
	"drm-active-stolen:\t0\n"
	"drm-resident-stolen:\t0\n"
	"drm-cycles-rcs:\t914522871\n"
	"drm-total-cycles-rcs:\t88213900117\n"
	"drm-cycles-bcs:\t120331\n"
	"drm-total-cycles-bcs:\t88213900117\n"
	"drm-cycles-vcs:\t0\n"
	"drm-total-cycles-vcs:\t88213900117\n"
	"drm-engine-capacity-vcs:\t2\n"
	"drm-cycles-vecs:\t0\n"
	"drm-total-cycles-vecs:\t88213900117\n"
	"drm-cycles-ccs:\t0\n"
	"drm-total-cycles-ccs:\t88213900117\n";

/* docs/drm-fdinfo.md */
static const char MSM[] =
	"drm-driver:\tmsm\n"
	"drm-client-id:\t11\n"
	"drm-engine-gpu:\t7213445001 ns\n"
	"drm-cycles-gpu:\t4512983310\n"
	"drm-maxfreq-gpu:\t680000000 Hz\n"
	"drm-total-memory:\t98 MiB\n"
	"drm-shared-memory:\t12 MiB\n"
	"drm-resident-memory:\t98 MiB\n"
	"drm-purgeable-memory:\t0\n";

/* docs/drm-fdinfo.md */
static const char V3D[] =
	"drm-driver:\tv3d\n"
	"drm-client-id:\t38\n"
	"drm-engine-bin: \t412003221 ns\n"
	"v3d-jobs-bin: \t10321 jobs\n"
	"drm-engine-render: \t1203311954 ns\n"
	"v3d-jobs-render: \t10321 jobs\n"
	"drm-engine-tfu: \t0 ns\n"
	"v3d-jobs-tfu: \t0 jobs\n"
	"drm-engine-csd: \t0 ns\n"
	"v3d-jobs-csd: \t0 jobs\n"
	"drm-engine-cache_clean: \t0 ns\n"
	"v3d-jobs-cache_clean: \t0 jobs\n"
	"drm-engine-cpu: \t0 ns\n"
	"v3d-jobs-cpu: \t0 jobs\n"
	"drm-total-memory:\t40 MiB\n"
	"drm-shared-memory:\t0\n"
	"drm-resident-memory:\t40 MiB\n";


static int parse(const char *text, struct fdinfo_parsed *p)
{
	return fdinfo_parse(text, strlen(text), p);
}

static const struct fdinfo_parsed_engine *engine(const struct fdinfo_parsed *p, const char *name)
{
	for (size_t i = 0; i < p->nengines; i++)
		if (strcmp(p->engines[i].name, name) == 0)
			return &p->engines[i];
	return NULL;
}

static const struct fdinfo_parsed_region *region(const struct fdinfo_parsed *p, const char *name)
{
	for (size_t i = 0; i < p->nregions; i++)
		if (strcmp(p->regions[i].name, name) == 0)
			return &p->regions[i];
	return NULL;
}

static uint64_t resident(const struct fdinfo_parsed *p, const char *name)
{
	uint64_t b = UINT64_MAX;
	const struct fdinfo_parsed_region *r = region(p, name);
	assert_non_null(r);
	assert_true(fdinfo_parse_resident(r, &b));
	return b;
}

static uint64_t total(const struct fdinfo_parsed *p, const char *name)
{
	uint64_t b = UINT64_MAX;
	const struct fdinfo_parsed_region *r = region(p, name);
	assert_non_null(r);
	assert_true(fdinfo_parse_total(r, &b));
	return b;
}

static void test_amdgpu_515_legacy(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	assert_int_equal(parse(AMD_515, &p), 0);
	assert_true(p.legacy);
	assert_string_equal(p.driver, "amdgpu");
	assert_string_equal(p.pdev, "0000:0b:00.0");
	assert_int_equal(p.client_id, 32772); /* the pasid: no drm-client-id then */
	assert_int_equal(resident(&p, "vram"), KIB(1254388));
	assert_int_equal(resident(&p, "gtt"), KIB(30148));
	assert_int_equal(resident(&p, "cpu"), 0);
	assert_false(fdinfo_parse_total(region(&p, "vram"), &(uint64_t){0}));
	assert_int_equal(p.nengines, 2);
	const struct fdinfo_parsed_engine *gfx = engine(&p, "gfx"), *dec = engine(&p, "dec");
	assert_non_null(gfx);
	assert_non_null(dec);
	assert_int_equal(gfx->have, FDINFO_HAVE_PCT);
	assert_int_equal(gfx->pct_centi, 4217);
	/* "3.8%" is 3.08 %: the kernel printed the hundredths without padding. */
	assert_int_equal(dec->pct_centi, 308);
	assert_int_equal(fdinfo_parse_capacity(gfx), 1);
	assert_int_equal(p.ignored, 0);
}

static void test_amdgpu_64(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	assert_int_equal(parse(AMD_64, &p), 0);
	assert_false(p.legacy);
	assert_string_equal(p.driver, "amdgpu");
	assert_string_equal(p.pdev, "0000:03:00.0");
	assert_int_equal(p.client_id, 4187);
	assert_int_equal(p.pasid, 32791);
	/* drm-memory-* means resident; "drm-memory-gtt: \t" has a space before the TAB. */
	assert_int_equal(resident(&p, "vram"), KIB(2154500));
	assert_int_equal(resident(&p, "gtt"), KIB(46356));
	assert_int_equal(resident(&p, "cpu"), 0);
	assert_int_equal(p.nregions, 3); /* amd-* keys are the driver's own */
	assert_int_equal(p.nengines, 3);
	assert_int_equal(engine(&p, "gfx")->ns, 38124561233ull);
	assert_int_equal(engine(&p, "compute")->ns, 4021771);
	assert_int_equal(engine(&p, "dma")->ns, 182330112);
	assert_int_equal(engine(&p, "gfx")->have, FDINFO_HAVE_NS);
	assert_int_equal(p.ignored, 0);
}

static void test_amdgpu_613(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	assert_int_equal(parse(AMD_613, &p), 0);
	assert_string_equal(p.pdev, "0000:03:00.0");
	assert_int_equal(p.client_id, 4187);
	assert_int_equal(p.nregions, 7);
	/* drm-resident- wins over the deprecated drm-memory- of the same region. */
	assert_int_equal(resident(&p, "vram"), KIB(2154500));
	assert_int_equal(total(&p, "vram"), KIB(2162692));
	assert_int_equal(total(&p, "gtt"), KIB(46356));
	assert_int_equal(region(&p, "gtt")->bytes[FDINFO_MEM_SHARED], KIB(8196));
	assert_int_equal(region(&p, "vram")->bytes[FDINFO_MEM_SHARED], KIB(33796));
	assert_int_equal(total(&p, "doorbell"), 0);
	assert_false(region(&p, "vram")->have & (1u << FDINFO_MEM_ACTIVE));
	assert_int_equal(p.nengines, 2);
	assert_int_equal(engine(&p, "dma")->ns, 182330112);
	assert_int_equal(p.ignored, 0);
}

static void test_i915(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	assert_int_equal(parse(I915, &p), 0);
	assert_string_equal(p.driver, "i915");
	assert_string_equal(p.pdev, "0000:00:02.0");
	assert_int_equal(p.client_id, 93);
	assert_int_equal(total(&p, "system0"), KIB(152580));
	assert_int_equal(region(&p, "system0")->bytes[FDINFO_MEM_SHARED], MIB(8));
	assert_int_equal(region(&p, "system0")->bytes[FDINFO_MEM_PURGEABLE], KIB(1232));
	assert_int_equal(resident(&p, "stolen-system0"), 0);
	assert_int_equal(p.nregions, 2);
	assert_int_equal(p.nengines, 4);
	/* drm-engine-capacity-video is video's capacity, not an engine "capacity-video". */
	assert_null(engine(&p, "capacity-video"));
	assert_int_equal(fdinfo_parse_capacity(engine(&p, "video")), 2);
	assert_int_equal(fdinfo_parse_capacity(engine(&p, "render")), 1);
	assert_int_equal(engine(&p, "render")->ns, 61234567890ull);
	assert_int_equal(engine(&p, "video-enhance")->ns, 0);
	assert_true(engine(&p, "video-enhance")->have & FDINFO_HAVE_NS);
}

static void test_xe(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	assert_int_equal(parse(XE, &p), 0);
	assert_string_equal(p.driver, "xe");
	assert_int_equal(p.client_id, 57);
	assert_int_equal(p.nregions, 4);
	assert_int_equal(total(&p, "vram0"), KIB(1043300));
	assert_int_equal(region(&p, "vram0")->bytes[FDINFO_MEM_ACTIVE], MIB(4));
	assert_int_equal(resident(&p, "gtt"), KIB(384));
	/* drm-total-cycles- is an engine key, not a region "cycles-rcs". */
	assert_null(region(&p, "cycles-rcs"));
	assert_int_equal(p.nengines, 5);
	const struct fdinfo_parsed_engine *rcs = engine(&p, "rcs");
	assert_int_equal(rcs->have, FDINFO_HAVE_CYCLES | FDINFO_HAVE_TOTAL);
	assert_int_equal(rcs->cycles, 914522871);
	assert_int_equal(rcs->total_cycles, 88213900117ull);
	assert_int_equal(fdinfo_parse_capacity(engine(&p, "vcs")), 2);
	assert_int_equal(p.ignored, 0);
}

static void test_msm_platform(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	assert_int_equal(parse(MSM, &p), 0);
	assert_string_equal(p.driver, "msm");
	assert_string_equal(p.pdev, ""); /* a platform GPU */
	assert_int_equal(p.client_id, 11);
	const struct fdinfo_parsed_engine *gpu = engine(&p, "gpu");
	assert_int_equal(gpu->have, FDINFO_HAVE_NS | FDINFO_HAVE_CYCLES | FDINFO_HAVE_MAXFREQ);
	assert_int_equal(gpu->ns, 7213445001ull);
	assert_int_equal(gpu->cycles, 4512983310ull);
	assert_int_equal(gpu->maxfreq_hz, 680000000);
	assert_int_equal(total(&p, "memory"), MIB(98));
	assert_int_equal(resident(&p, "memory"), MIB(98));
}

static void test_v3d_space_before_tab(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	assert_int_equal(parse(V3D, &p), 0);
	assert_string_equal(p.driver, "v3d");
	assert_int_equal(p.client_id, 38);
	assert_int_equal(p.nengines, 6);
	assert_int_equal(engine(&p, "bin")->ns, 412003221);
	assert_int_equal(engine(&p, "render")->ns, 1203311954);
	assert_non_null(engine(&p, "cache_clean")); /* not an amdgpu ring: no folding */
	assert_int_equal(engine(&p, "cpu")->ns, 0);
	assert_int_equal(total(&p, "memory"), MIB(40));
	assert_int_equal(p.ignored, 0);
}

/* The 2022 amdgpu patches printed per-ring names: summed into the class,
 * whose capacity is then the ring count (other drivers are not folded). */
static void test_amdgpu_rings_summed(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	assert_int_equal(parse("drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t9\n"
			       "drm-engine-gfx0:\t100 ns\ndrm-engine-gfx1:\t50 ns\n"
			       "drm-engine-comp_1.0.0:\t7 ns\ndrm-engine-comp_1.1.0:\t3 ns\n"
			       "drm-engine-dma:\t5 ns\ndrm-engine-sdma0:\t1 ns\n",
			       &p),
			 0);
	assert_int_equal(p.nengines, 4);
	assert_int_equal(engine(&p, "gfx")->ns, 150);
	assert_int_equal(fdinfo_parse_capacity(engine(&p, "gfx")), 2);
	assert_int_equal(engine(&p, "comp")->ns, 10);
	assert_int_equal(engine(&p, "dma")->ns, 5);
	assert_int_equal(fdinfo_parse_capacity(engine(&p, "dma")), 1);
	assert_int_equal(engine(&p, "sdma")->ns, 1);

	assert_int_equal(parse("drm-driver:\ti915\ndrm-client-id:\t1\ndrm-engine-vcs0:\t1 ns\ndrm-engine-vcs1:\t2 ns\n", &p), 0);
	assert_int_equal(p.nengines, 2);
	assert_int_equal(engine(&p, "vcs1")->ns, 2);
	/* A repeated class key is taken once. */
	assert_int_equal(parse("drm-driver:\tamdgpu\ndrm-client-id:\t1\ndrm-engine-gfx:\t5 ns\ndrm-engine-gfx:\t5 ns\n", &p), 0);
	assert_int_equal(engine(&p, "gfx")->ns, 5);
	assert_int_equal(p.ignored, 1);
}

static void test_units(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	assert_int_equal(parse("drm-driver:\tx\ndrm-client-id:\t1\n"
			       "drm-total-a:\t4096\ndrm-total-b:\t8 KiB\ndrm-total-c:\t8 MiB\ndrm-total-d:\t2 GiB\n"
			       "drm-total-e:\t8196 KiB\ndrm-total-f:\t3 TiB\n"
			       "drm-engine-g:\t12\ndrm-engine-h:\t12 ns\ndrm-engine-i:\t12 us\n"
			       "drm-cycles-j:\t5\ndrm-maxfreq-j:\t800 MHz\n"
			       "drm-cycles-k:\t5\ndrm-maxfreq-k:\t900 KHz\n"
			       "drm-cycles-l:\t5\ndrm-maxfreq-l:\t1000\n",
			       &p),
			 0);
	assert_int_equal(total(&p, "a"), 4096);
	assert_int_equal(total(&p, "b"), KIB(8));
	assert_int_equal(total(&p, "c"), MIB(8));
	assert_int_equal(total(&p, "d"), MIB(2048));
	assert_int_equal(total(&p, "e"), 8392704);
	assert_null(region(&p, "f")); /* no such unit: left out */
	assert_int_equal(engine(&p, "g")->ns, 12);
	assert_int_equal(engine(&p, "h")->ns, 12);
	assert_null(engine(&p, "i"));
	assert_int_equal(engine(&p, "j")->maxfreq_hz, 800000000);
	assert_int_equal(engine(&p, "k")->maxfreq_hz, 900000);
	assert_int_equal(engine(&p, "l")->maxfreq_hz, 1000);
	assert_int_equal(p.ignored, 2);
}

static void test_hostile_numbers(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	/* Garbage, a sign, overflow (before and after the unit), capacity 0:
	 * each key left out, the client kept. */
	assert_int_equal(parse("drm-driver:\tamdgpu\ndrm-client-id:\t7\n"
			       "drm-engine-gfx:\t12x ns\n"
			       "drm-engine-dma:\t-5 ns\n"
			       "drm-engine-compute:\t99999999999999999999 ns\n"
			       "drm-total-vram:\t18446744073709551615 KiB\n"
			       "drm-total-gtt:\t18446744073709551615\n"
			       "drm-engine-enc:\t1 ns\ndrm-engine-capacity-enc:\t0\n"
			       "drm-engine-dec:\t\n"
			       "drm-engine-:\t5 ns\n"
			       "drm-pdev:\t0000:3:00.0\n",
			       &p),
			 0);
	assert_int_equal(p.nengines, 1);
	assert_int_equal(engine(&p, "enc")->ns, 1);
	assert_int_equal(fdinfo_parse_capacity(engine(&p, "enc")), 1);
	assert_int_equal(p.nregions, 1);
	assert_true(total(&p, "gtt") == UINT64_MAX);
	assert_string_equal(p.pdev, "");
	assert_int_equal(p.ignored, 7); /* drm-engine-: has no name after the prefix: no key of ours */
	/* A client id that does not parse: no client. */
	assert_int_equal(parse("drm-driver:\tamdgpu\ndrm-client-id:\t-1\n", &p), -ENODATA);
	assert_int_equal(parse("drm-driver:\tamdgpu\ndrm-client-id:\t18446744073709551616\n", &p), -ENODATA);
	/* Legacy percentages: more than two decimals, no '%' digits. */
	assert_int_equal(parse("pdev:\t0000:0b:00.0\npasid:\t1\ngfx0:\t1.234%\ndec0:\t.5%\nenc0:\t7%\n", &p), 0);
	assert_int_equal(p.nengines, 1);
	assert_int_equal(engine(&p, "enc")->pct_centi, 700);
	/* Upper-case pdev is written in lower case. */
	assert_int_equal(parse("drm-driver:\txe\ndrm-client-id:\t1\ndrm-pdev:\t0000:0A:00.0\n", &p), 0);
	assert_string_equal(p.pdev, "0000:0a:00.0");
}

static void test_not_a_client(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	/* A plain file's fdinfo, no drm-driver, no client id. */
	assert_int_equal(parse("pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t1234\n", &p), -ENODATA);
	assert_int_equal(parse("drm-client-id:\t4\ndrm-engine-gfx:\t5 ns\n", &p), -ENODATA);
	assert_int_equal(parse("drm-driver:\tamdgpu\n", &p), -ENODATA);
	assert_int_equal(parse("", &p), -ENODATA);
	assert_int_equal(fdinfo_parse(NULL, 0, &p), -ENODATA);
	/* A pasid alone is no legacy amdgpu client. */
	assert_int_equal(parse("pasid:\t5\n", &p), -ENODATA);
	/* A driver name that is no name. */
	assert_int_equal(parse("drm-driver:\tam dgpu\ndrm-client-id:\t4\n", &p), -ENODATA);
	assert_int_equal(parse("drm-driver:\tan-overly-long-driver-name-x\ndrm-client-id:\t4\n", &p), -ENODATA);
}

static void test_truncated(void **state)
{
	(void)state;
	struct fdinfo_parsed p;

	/* Cut at every byte: never a crash, and a cut last line reads as what
	 * is left of it (the scan drops a last line cut by its buffer,
	 * kvparse_complete; a file that ends there says what it says). */
	size_t n = strlen(AMD_613);
	for (size_t cut = 0; cut <= n; cut++) {
		int rc = fdinfo_parse(AMD_613, cut, &p);
		assert_true(rc == 0 || rc == -ENODATA);
		if (p.have_driver)
			assert_memory_equal(p.driver, "amdgpu", strlen(p.driver));
		const struct fdinfo_parsed_engine *gfx = engine(&p, "gfx");
		if (gfx)
			assert_true(gfx->ns <= 38124561233ull);
	}
	assert_int_equal(fdinfo_parse(AMD_613, n, &p), 0);
}

static void test_nul_bytes(void **state)
{
	(void)state;
	struct fdinfo_parsed p;
	static const char t1[] = "drm-driver:\tamd\0gpu\ndrm-client-id:\t4\n";
	static const char t2[] = "drm-dri\0ver:\tamdgpu\ndrm-client-id:\t4\n";
	static const char t3[] = "drm-driver:\tamdgpu\ndrm-client-id:\t4\ndrm-engine-g\0fx:\t5 ns\ndrm-total-vram:\t5\0 KiB\n"
				 "drm-engine-dma:\t9 ns\n";

	assert_int_equal(fdinfo_parse(t1, sizeof(t1) - 1, &p), -ENODATA);
	assert_int_equal(fdinfo_parse(t2, sizeof(t2) - 1, &p), -ENODATA);
	assert_int_equal(fdinfo_parse(t3, sizeof(t3) - 1, &p), 0);
	assert_int_equal(p.nengines, 1);
	assert_int_equal(engine(&p, "dma")->ns, 9);
	assert_int_equal(p.nregions, 0);
	assert_int_equal(p.ignored, 2);
}

static void test_one_mib(void **state)
{
	(void)state;
	struct fdinfo_parsed p;
	size_t n = 1u << 20;
	char *buf = malloc(n);

	/* 1 MiB of lines after the DRM keys: parsed, bounded, the slots full. */
	size_t off = (size_t)snprintf(buf, n, "%s", I915);
	unsigned i = 0;
	while (off + 64 < n)
		off += (size_t)snprintf(buf + off, n - off, "drm-engine-e%u:\t%u ns\n", i, i), i++;
	memset(buf + off, 'x', n - off);
	assert_int_equal(fdinfo_parse(buf, n, &p), 0);
	assert_int_equal(p.client_id, 93);
	assert_int_equal(p.nengines, FDINFO_MAX_ENGINES);
	assert_true(p.ignored > 1000);
	/* One line of 1 MiB: skipped whole. */
	memset(buf, 'a', n);
	memcpy(buf, "drm-driver:\t", 12);
	assert_int_equal(fdinfo_parse(buf, n, &p), -ENODATA);
	assert_false(p.have_driver);
	free(buf);
}

static void test_slots_bounded(void **state)
{
	(void)state;
	struct fdinfo_parsed p;
	char buf[4096];
	size_t off = (size_t)snprintf(buf, sizeof(buf), "drm-driver:\tpanthor\ndrm-client-id:\t3\n");

	for (unsigned i = 0; i < 20; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "drm-resident-r%u:\t%u\n", i, i);
	assert_int_equal(fdinfo_parse(buf, off, &p), 0);
	assert_int_equal(p.nregions, FDINFO_MAX_REGIONS);
	assert_int_equal(p.ignored, 20 - FDINFO_MAX_REGIONS);
	/* A name that does not fit the name buffer is left out, not cut. */
	assert_int_equal(parse("drm-driver:\tx\ndrm-client-id:\t3\ndrm-engine-abcdefghijklmnopqrstuvwxyz:\t1 ns\n", &p), 0);
	assert_int_equal(p.nengines, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amdgpu_515_legacy),
		cmocka_unit_test(test_amdgpu_64),
		cmocka_unit_test(test_amdgpu_613),
		cmocka_unit_test(test_i915),
		cmocka_unit_test(test_xe),
		cmocka_unit_test(test_msm_platform),
		cmocka_unit_test(test_v3d_space_before_tab),
		cmocka_unit_test(test_amdgpu_rings_summed),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_hostile_numbers),
		cmocka_unit_test(test_not_a_client),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_one_mib),
		cmocka_unit_test(test_slots_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
