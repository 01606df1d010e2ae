/* test_fdinfo: the DRM client engine on procfs fixture trees written here
 * (real fd/N symlinks to /dev/dri/renderD128, /proc/PID/stat with start
 * times): utilisation from two samples checked to the percent (amdgpu ns,
 * i915 with capacity, xe cycles, msm and panfrost-like maxfreq, v3d with
 * space-before-TAB, amdgpu 5.15's own percentages), dedup across fork and
 * dup with one owner, counters going back, bad deltas, vanishing processes,
 * pid reuse, 10,000 fds in one process, the cache proved through the
 * stats, filters, sharing between threads; and the real /proc, where a
 * file this test opens is no client (no /dev/dri here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "drm/fdinfo.h"
#include "testutil.h"

#define SEC 1000000000ull

struct tree {
	char *root, *proc;
	long mtime; /* the next fd directory mtime (see touch_fd_dir) */
};

static struct tree *make_tree(void)
{
	struct tree *t = calloc(1, sizeof(*t));
	t->root = testutil_tmpdir();
	t->proc = testutil_path(t->root, "proc");
	mkdir(t->proc, 0755);
	t->mtime = 1000;
	return t;
}

static void free_tree(struct tree *t)
{
	testutil_rmtree(t->root);
	free(t->root);
	free(t->proc);
	free(t);
}

static void write_rel(struct tree *t, const char *rel, const char *s)
{
	char *p = testutil_path(t->proc, rel);
	testutil_write_str(p, s);
	free(p);
}

/* A process: PID/stat with starttime (field 22), PID/cmdline, empty fd/
 * and fdinfo/. */
static void put_proc(struct tree *t, unsigned pid, unsigned long long start, const char *cmdline)
{
	char rel[64], buf[512];
	snprintf(rel, sizeof(rel), "%u", pid);
	char *dir = testutil_path(t->proc, rel);
	mkdir(dir, 0755);
	free(dir);
	snprintf(rel, sizeof(rel), "%u/fd", pid);
	dir = testutil_path(t->proc, rel);
	mkdir(dir, 0755);
	free(dir);
	snprintf(rel, sizeof(rel), "%u/fdinfo", pid);
	dir = testutil_path(t->proc, rel);
	mkdir(dir, 0755);
	free(dir);
	snprintf(buf, sizeof(buf), "%u (p) S 1 %u %u 0 -1 4194560 100 0 0 0 5 5 0 0 20 0 1 0 %llu 123456 10 184467 0 0 0\n",
		 pid, pid, pid, start);
	snprintf(rel, sizeof(rel), "%u/stat", pid);
	write_rel(t, rel, buf);
	snprintf(rel, sizeof(rel), "%u/cmdline", pid);
	char *p = testutil_path(t->proc, rel);
	testutil_write_file(p, cmdline, strlen(cmdline) + 1);
	free(p);
}

/* On a real procfs a change of a process's fd table shows as another size
 * of /proc/PID/fd (its fd count, Linux >= 6.2); a fixture directory's
 * size need not change, and its mtime moves in clock ticks. Each change
 * here gives the directory an mtime of its own instead. */
static void touch_fd_dir(struct tree *t, unsigned pid)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "%u/fd", pid);
	char *p = testutil_path(t->proc, rel);
	struct timespec ts[2] = {{t->mtime, 0}, {t->mtime, 0}};
	t->mtime++;
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
}

static void set_fdinfo(struct tree *t, unsigned pid, int fd, const char *text)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "%u/fdinfo/%d", pid, fd);
	write_rel(t, rel, text);
}

/* fd N → target (a real symlink), with its fdinfo text (NULL: none). */
static void put_fd(struct tree *t, unsigned pid, int fd, const char *target, const char *fdinfo)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "%u/fd/%d", pid, fd);
	char *p = testutil_path(t->proc, rel);
	unlink(p);
	assert_int_equal(symlink(target, p), 0);
	free(p);
	if (fdinfo)
		set_fdinfo(t, pid, fd, fdinfo);
	touch_fd_dir(t, pid);
}

static void rm_proc(struct tree *t, unsigned pid)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "%u", pid);
	char *p = testutil_path(t->proc, rel);
	testutil_rmtree(p);
	free(p);
}

static const struct fdinfo_engine *eng(const struct fdinfo_client *c, const char *name)
{
	for (size_t i = 0; i < c->nengines; i++)
		if (strcmp(c->engines[i].name, name) == 0)
			return &c->engines[i];
	fail_msg("no engine %s", name);
	return NULL;
}

static const struct fdinfo_region *reg(const struct fdinfo_client *c, const char *name)
{
	for (size_t i = 0; i < c->nregions; i++)
		if (strcmp(c->regions[i].name, name) == 0)
			return &c->regions[i];
	fail_msg("no region %s", name);
	return NULL;
}

static void assert_pct(const struct fdinfo_client *c, const char *name, double want)
{
	const struct fdinfo_engine *e = eng(c, name);
	if (!e->known)
		fail_msg("%s unknown, want %.2f", name, want);
	if ((double)e->pct < want - 0.01 || (double)e->pct > want + 0.01)
		fail_msg("%s is %.4Lf %%, want %.2f", name, e->pct, want);
}

static void assert_unknown(const struct fdinfo_client *c, const char *name)
{
	assert_false(eng(c, name)->known);
}

/* Sweeps at now (never reusing) and returns the one client expected. */
static struct fdinfo_client one(struct fdinfo *e, uint64_t now)
{
	struct fdinfo_client c;
	assert_int_equal(fdinfo_sweep(e, now, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, &c, 1), 1);
	return c;
}

static char *amd64(unsigned long long gfx, unsigned long long dma)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf),
		 "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t77\n"
		 "pasid:\t32791\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t4187\n"
		 "drm-memory-vram:\t2154500 KiB\ndrm-memory-gtt: \t46356 KiB\ndrm-memory-cpu: \t0 KiB\n"
		 "amd-requested-vram:\t2162692 KiB\n"
		 "drm-engine-gfx:\t%llu ns\ndrm-engine-compute:\t4021771 ns\ndrm-engine-dma:\t%llu ns\n",
		 gfx, dma);
	return buf;
}

static void test_amdgpu_two_samples(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 100, 5000, "/usr/bin/game");
	put_fd(t, 100, 0, "/dev/null", NULL);
	put_fd(t, 100, 5, "/dev/dri/renderD128", amd64(38124561233ull, 182330112));
	struct fdinfo *e = fdinfo_acquire(t->proc);

	struct fdinfo_client c = one(e, 10 * SEC);
	assert_int_equal(c.pid, 100);
	assert_int_equal(c.start_ticks, 5000);
	assert_string_equal(c.driver, "amdgpu");
	assert_string_equal(c.pdev, "0000:03:00.0");
	assert_int_equal(c.client_id, 4187);
	assert_int_equal(c.nengines, 3);
	assert_unknown(&c, "gfx"); /* a first sample has no rate */
	assert_unknown(&c, "dma");
	assert_true(reg(&c, "vram")->resident_known);
	assert_true(reg(&c, "vram")->resident_bytes == 2154500.0L * 1024);
	assert_false(reg(&c, "vram")->total_known);
	assert_true(reg(&c, "gtt")->resident_bytes == 46356.0L * 1024);

	/* 0.5 s of gfx and 0.1 s of dma in 1 s. */
	set_fdinfo(t, 100, 5, amd64(38124561233ull + 500000000, 182330112 + 100000000));
	c = one(e, 11 * SEC);
	assert_pct(&c, "gfx", 50);
	assert_pct(&c, "dma", 10);
	assert_pct(&c, "compute", 0);
	/* 2 s later, 0.3 s more gfx: 15 %. */
	set_fdinfo(t, 100, 5, amd64(38124561233ull + 800000000, 182330112 + 100000000));
	c = one(e, 13 * SEC);
	assert_pct(&c, "gfx", 15);
	assert_pct(&c, "dma", 0);
	fdinfo_release(e);
	free_tree(t);
}

static void test_amdgpu_613_memory(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 100, 5000, "app");
	put_fd(t, 100, 7, "/dev/dri/card1",
	       "drm-driver:\tamdgpu\ndrm-client-id:\t4187\ndrm-pdev:\t0000:03:00.0\npasid:\t32791\n"
	       "drm-total-gtt:\t46356 KiB\ndrm-shared-gtt:\t8196 KiB\ndrm-resident-gtt:\t46356 KiB\ndrm-purgeable-gtt:\t0\n"
	       "drm-total-vram:\t2162692 KiB\ndrm-shared-vram:\t33796 KiB\ndrm-resident-vram:\t2154500 KiB\n"
	       "drm-purgeable-vram:\t0\ndrm-memory-vram:\t2154500 KiB\ndrm-engine-gfx:\t38124561233 ns\n");
	struct fdinfo *e = fdinfo_acquire(t->proc);
	struct fdinfo_client c = one(e, SEC);
	const struct fdinfo_region *v = reg(&c, "vram");
	assert_true(v->resident_known && v->total_known);
	assert_true(v->resident_bytes == 2154500.0L * 1024);
	assert_true(v->total_bytes == 2162692.0L * 1024);
	fdinfo_release(e);
	free_tree(t);
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
	struct tree *t = make_tree();
	put_proc(t, 300, 77, "ffmpeg");
	put_fd(t, 300, 3, "/dev/dri/renderD128", i915(61234567890ull, 12004556));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	one(e, SEC);
	/* 1.5 s of video over 1 s on 2 engines: 75 % of the class. */
	set_fdinfo(t, 300, 3, i915(61234567890ull + 250000000, 12004556 + 1500000000));
	struct fdinfo_client c = one(e, 2 * SEC);
	assert_pct(&c, "video", 75);
	assert_pct(&c, "render", 25);
	assert_pct(&c, "video-enhance", 0);
	assert_true(reg(&c, "system0")->total_bytes == 152580.0L * 1024);
	fdinfo_release(e);
	free_tree(t);
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
	struct tree *t = make_tree();
	put_proc(t, 400, 1, "blender");
	put_fd(t, 400, 9, "/dev/dri/renderD129", xe(914522871, 0, 88213900117ull));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	one(e, SEC);
	/* The GPU clock, not wall time: 30 % of rcs, 1000 of 2 × 1000 vcs
	 * cycles (50 %), whatever the wall clock did (here 7 s). */
	set_fdinfo(t, 400, 9, xe(914522871 + 300, 1000, 88213900117ull + 1000));
	struct fdinfo_client c = one(e, 8 * SEC);
	assert_pct(&c, "rcs", 30);
	assert_pct(&c, "vcs", 50);
	assert_pct(&c, "bcs", 0);
	/* No total-cycles progress: unknown, not a division by zero. */
	set_fdinfo(t, 400, 9, xe(914522871 + 300, 1000, 88213900117ull + 1000));
	c = one(e, 9 * SEC);
	assert_unknown(&c, "rcs");
	fdinfo_release(e);
	free_tree(t);
}

static void test_msm_and_maxfreq(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	char buf[512];
	put_proc(t, 500, 1, "weston");
	put_proc(t, 501, 1, "glmark2");
	put_fd(t, 500, 4, "/dev/dri/renderD128",
	       "drm-driver:\tmsm\ndrm-client-id:\t11\ndrm-engine-gpu:\t7213445001 ns\ndrm-cycles-gpu:\t4512983310\n"
	       "drm-maxfreq-gpu:\t680000000 Hz\ndrm-total-memory:\t98 MiB\ndrm-resident-memory:\t98 MiB\n");
	/* panfrost-like: cycles and maxfreq, no ns. */
	snprintf(buf, sizeof(buf), "drm-driver:\tpanfrost\ndrm-client-id:\t2\ndrm-cycles-fragment:\t%llu\n"
		 "drm-maxfreq-fragment:\t680 MHz\ndrm-curfreq-fragment:\t400 MHz\n", 1000ull);
	put_fd(t, 501, 4, "/dev/dri/renderD129", buf);
	struct fdinfo *e = fdinfo_acquire(t->proc);
	assert_int_equal(fdinfo_sweep(e, SEC, 0), 0);
	/* ns win over cycles when both are there (msm): 0.2 s of 2 s = 10 %. */
	set_fdinfo(t, 500, 4,
		   "drm-driver:\tmsm\ndrm-client-id:\t11\ndrm-engine-gpu:\t7413445001 ns\ndrm-cycles-gpu:\t9999999999\n"
		   "drm-maxfreq-gpu:\t680000000 Hz\ndrm-total-memory:\t98 MiB\ndrm-resident-memory:\t98 MiB\n");
	/* 680 M cycles in 2 s at 680 MHz: 50 % at the maximum clock. */
	snprintf(buf, sizeof(buf), "drm-driver:\tpanfrost\ndrm-client-id:\t2\ndrm-cycles-fragment:\t%llu\n"
		 "drm-maxfreq-fragment:\t680 MHz\ndrm-curfreq-fragment:\t400 MHz\n", 1000ull + 680000000);
	set_fdinfo(t, 501, 4, buf);
	assert_int_equal(fdinfo_sweep(e, 3 * SEC, 0), 0);
	struct fdinfo_client c[4];
	/* Platform GPUs have no pdev: the "" filter. */
	assert_int_equal(fdinfo_clients(e, "msm", "", c, 4), 1);
	assert_string_equal(c[0].pdev, "");
	assert_pct(&c[0], "gpu", 10);
	assert_true(reg(&c[0], "memory")->resident_bytes == 98.0L * 1048576);
	assert_int_equal(fdinfo_clients(e, "panfrost", NULL, c, 4), 1);
	assert_pct(&c[0], "fragment", 50);
	assert_int_equal(fdinfo_clients(e, NULL, "0000:03:00.0", c, 4), 0);
	fdinfo_release(e);
	free_tree(t);
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
	struct tree *t = make_tree();
	put_proc(t, 600, 1, "kodi");
	put_fd(t, 600, 12, "/dev/dri/card0", v3d(412003221, 1203311954));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	one(e, 4 * SEC);
	set_fdinfo(t, 600, 12, v3d(412003221 + 100000000, 1203311954 + 400000000));
	struct fdinfo_client c = one(e, 6 * SEC);
	assert_pct(&c, "render", 20);
	assert_pct(&c, "bin", 5);
	assert_pct(&c, "tfu", 0);
	fdinfo_release(e);
	free_tree(t);
}

static void test_legacy_515(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 700, 1, "old");
	put_fd(t, 700, 6, "/dev/dri/renderD128",
	       "pos:\t0\nflags:\t02100002\nmnt_id:\t23\npdev:\t0000:0b:00.0\npasid:\t32772\nvram mem:\t1254388 kB\n"
	       "gtt mem:\t30148 kB\ncpu mem:\t0 kB\ngfx0:\t42.17%\ndec0:\t3.8%\n");
	struct fdinfo *e = fdinfo_acquire(t->proc);
	/* The kernel computed these itself: known on the first sample. */
	struct fdinfo_client c = one(e, SEC);
	assert_string_equal(c.driver, "amdgpu");
	assert_int_equal(c.client_id, 32772);
	assert_pct(&c, "gfx", 42.17);
	assert_pct(&c, "dec", 3.08);
	assert_true(reg(&c, "vram")->resident_bytes == 1254388.0L * 1024);
	fdinfo_release(e);
	free_tree(t);
}

/* One drm_file under several fds (dup) and processes (fork): one client,
 * charged to the first process in pid order. */
static void test_dedup_fork_dup(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 201, 50, "child");
	put_proc(t, 200, 40, "parent");
	put_fd(t, 201, 4, "/dev/dri/renderD128", amd64(1000, 0));
	put_fd(t, 200, 4, "/dev/dri/renderD128", amd64(1000, 0));
	put_fd(t, 200, 7, "/dev/dri/renderD128", amd64(1000, 0));
	/* Another client of the child's own; and one with the same id on
	 * another GPU, which is another client. */
	char other[1024];
	snprintf(other, sizeof(other), "%s", amd64(5, 0));
	*strstr(other, "4187") = '5';
	put_fd(t, 201, 8, "/dev/dri/renderD128", other);
	snprintf(other, sizeof(other), "%s", amd64(5, 0));
	memcpy(strstr(other, "0000:03:00.0"), "0000:04", 7);
	put_fd(t, 201, 9, "/dev/dri/renderD129", other);
	struct fdinfo *e = fdinfo_acquire(t->proc);
	struct fdinfo_client c[8];
	struct fdinfo_stats st;

	assert_int_equal(fdinfo_sweep(e, SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, "amdgpu", NULL, c, 8), 3);
	fdinfo_last_stats(e, &st);
	assert_int_equal(st.clients, 3);
	assert_int_equal(st.fdinfo_read, 5);
	unsigned seen4187 = 0;
	for (int i = 0; i < 3; i++) {
		if (c[i].client_id == 4187 && strcmp(c[i].pdev, "0000:03:00.0") == 0) {
			seen4187++;
			assert_int_equal(c[i].pid, 200);
			assert_int_equal(c[i].start_ticks, 40);
		} else {
			assert_int_equal(c[i].pid, 201);
		}
	}
	assert_int_equal(seen4187, 1);
	assert_int_equal(fdinfo_clients(e, NULL, "0000:04:00.0", c, 8), 1);
	assert_int_equal(c[0].client_id, 4187);
	/* The count is all that matched, beyond max. */
	assert_int_equal(fdinfo_clients(e, NULL, NULL, c, 1), 3);
	/* The gfx time is counted once, not once per fd. */
	set_fdinfo(t, 200, 4, amd64(1000 + 300000000, 0));
	set_fdinfo(t, 200, 7, amd64(1000 + 300000000, 0));
	set_fdinfo(t, 201, 4, amd64(1000 + 300000000, 0));
	assert_int_equal(fdinfo_sweep(e, 2 * SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, "0000:03:00.0", c, 8), 2);
	for (int i = 0; i < 2; i++)
		if (c[i].client_id == 4187)
			assert_pct(&c[i], "gfx", 30);
	fdinfo_release(e);
	free_tree(t);
}

/* pid 1 and systemd's processes are skipped as owners when another exists
 * (gnome-shell shares its context with systemd: facts §1.4). */
static void test_owner_choice(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 1, 1, "/sbin/init");
	put_proc(t, 300, 2, "/usr/lib/systemd/systemd");
	put_proc(t, 301, 2, "/lib/systemd/systemd-logind");
	put_proc(t, 400, 3, "/usr/bin/gnome-shell");
	put_fd(t, 1, 20, "/dev/dri/card0", amd64(1, 0));
	put_fd(t, 300, 20, "/dev/dri/card0", amd64(1, 0));
	put_fd(t, 301, 20, "/dev/dri/card0", amd64(1, 0));
	put_fd(t, 400, 20, "/dev/dri/card0", amd64(1, 0));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	assert_int_equal(one(e, SEC).pid, 400);
	/* With no other process, the first in pid order. */
	rm_proc(t, 400);
	assert_int_equal(one(e, 2 * SEC).pid, 1);
	rm_proc(t, 1);
	assert_int_equal(one(e, 3 * SEC).pid, 300);
	fdinfo_release(e);
	free_tree(t);
}

/* A counter that goes back restarts the client's sample: unknown, then
 * rates from the new baseline. */
static void test_backwards_and_bad_deltas(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 100, 5000, "app");
	put_fd(t, 100, 5, "/dev/dri/renderD128", amd64(10 * SEC, SEC));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	one(e, 100 * SEC);
	set_fdinfo(t, 100, 5, amd64(10 * SEC + 200000000, SEC));
	struct fdinfo_client c = one(e, 101 * SEC);
	assert_pct(&c, "gfx", 20);
	set_fdinfo(t, 100, 5, amd64(9 * SEC, SEC)); /* gfx went back */
	c = one(e, 102 * SEC);
	assert_unknown(&c, "gfx");
	assert_unknown(&c, "dma"); /* the whole client restarts */
	set_fdinfo(t, 100, 5, amd64(9 * SEC + 400000000, SEC));
	c = one(e, 103 * SEC);
	assert_pct(&c, "gfx", 40);
	/* 1.5 s of busy time in 1 s on one engine: a bad sample, unknown. */
	set_fdinfo(t, 100, 5, amd64(10 * SEC + 900000000, SEC));
	c = one(e, 104 * SEC);
	assert_unknown(&c, "gfx");
	assert_pct(&c, "dma", 0);
	/* 1.03 s in 1 s: read jitter, clamped to 100 %. */
	set_fdinfo(t, 100, 5, amd64(11 * SEC + 930000000, SEC));
	c = one(e, 105 * SEC);
	assert_pct(&c, "gfx", 100);
	fdinfo_release(e);
	free_tree(t);
}

/* Gone between listing and reading: no fdinfo for the fd, no stat; a
 * process that went; a new process with the old pid and client id. */
static void test_vanishing_and_pid_reuse(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 100, 5000, "app");
	put_fd(t, 100, 5, "/dev/dri/renderD128", amd64(SEC, 0));
	put_proc(t, 101, 5001, "dying");
	put_fd(t, 101, 5, "/dev/dri/renderD128", NULL); /* its fdinfo went with it */
	put_proc(t, 102, 5002, "gone");
	char *st = testutil_path(t->proc, "102/stat");
	unlink(st);
	free(st);
	put_fd(t, 102, 5, "/dev/dri/renderD128", amd64(SEC, 0));
	char *nofd = testutil_path(t->proc, "103"); /* no fd dir at all */
	mkdir(nofd, 0755);
	free(nofd);
	struct fdinfo *e = fdinfo_acquire(t->proc);
	struct fdinfo_client c[4];
	assert_int_equal(fdinfo_sweep(e, SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, c, 4), 1);
	assert_int_equal(c[0].pid, 100);
	set_fdinfo(t, 100, 5, amd64(SEC + 100000000, 0));
	assert_int_equal(fdinfo_sweep(e, 2 * SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, c, 4), 1);
	assert_pct(&c[0], "gfx", 10);
	/* pid 100 ends; another process gets pid 100 and (another device's
	 * drm_file with) the same client id: a first sample again. */
	rm_proc(t, 100);
	put_proc(t, 100, 9000, "new");
	put_fd(t, 100, 5, "/dev/dri/renderD128", amd64(SEC + 200000000, 0));
	assert_int_equal(fdinfo_sweep(e, 3 * SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, c, 4), 1);
	assert_int_equal(c[0].start_ticks, 9000);
	assert_unknown(&c[0], "gfx");
	rm_proc(t, 100);
	assert_int_equal(fdinfo_sweep(e, 4 * SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, c, 4), 0);
	fdinfo_release(e);
	free_tree(t);
}

/* Not DRM clients: a regular file whose fdinfo says drm-driver, a DRM node
 * whose fdinfo has no drm-driver (read once, then not again). */
static void test_not_clients(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 100, 1, "x");
	put_fd(t, 100, 3, "/tmp/notdrm", amd64(1, 1));
	put_fd(t, 100, 4, "/dev/dri/renderD128", "pos:\t0\nflags:\t02\nmnt_id:\t23\n");
	put_fd(t, 100, 5, "/dev/dri-fake/renderD128", amd64(1, 1));
	put_fd(t, 100, 6, "/dev/dri/renderDx", amd64(1, 1));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	fdinfo_set_rescan(e, 0);
	struct fdinfo_stats st;
	assert_int_equal(fdinfo_sweep(e, SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, NULL, 0), 0);
	fdinfo_last_stats(e, &st);
	assert_int_equal(st.fdinfo_read, 1);
	assert_int_equal(fdinfo_sweep(e, 2 * SEC, 0), 0);
	fdinfo_last_stats(e, &st);
	assert_int_equal(st.fdinfo_read, 0);
	assert_int_equal(st.links_read, 0);
	fdinfo_release(e);
	free_tree(t);
}

static void test_ten_thousand_fds(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	char rel[64];
	put_proc(t, 800, 1, "many");
	for (int fd = 0; fd < 10000; fd++) {
		snprintf(rel, sizeof(rel), "800/fd/%d", fd);
		char *p = testutil_path(t->proc, rel);
		assert_int_equal(symlink(fd == 5000 || fd == 9999 ? "/dev/dri/renderD128" : "/dev/null", p), 0);
		free(p);
	}
	char text[1024];
	snprintf(text, sizeof(text), "%s", amd64(1, 1));
	set_fdinfo(t, 800, 5000, text);
	*strstr(text, "4187") = '9';
	set_fdinfo(t, 800, 9999, text);
	touch_fd_dir(t, 800);
	struct fdinfo *e = fdinfo_acquire(t->proc);
	fdinfo_set_rescan(e, 0);
	struct fdinfo_stats st;
	assert_int_equal(fdinfo_sweep(e, SEC, 0), 0);
	fdinfo_last_stats(e, &st);
	assert_int_equal(st.clients, 2);
	assert_int_equal(st.links_read, 10000);
	assert_int_equal(st.fd_dirs_read, 1);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(fdinfo_sweep(e, 2 * SEC, 0), 0);
	fdinfo_last_stats(e, &st);
	assert_int_equal(st.clients, 2);
	assert_int_equal(st.links_read, 0);
	assert_int_equal(st.fdinfo_read, 2);
	fdinfo_release(e);
	free_tree(t);
}

/* Later sweeps list no fd directory and read no link of an unchanged
 * known process; a process that opens a DRM device is found. */
static void test_cache_proof(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	for (unsigned pid = 1000; pid < 1050; pid++) {
		put_proc(t, pid, pid, "proc");
		for (int fd = 0; fd < 8; fd++)
			put_fd(t, pid, fd, "/dev/null", NULL);
		if (pid % 10 == 0) {
			char text[1024];
			snprintf(text, sizeof(text), "%s", amd64(pid, 0));
			memcpy(strstr(text, "4187"), &(char[4]){(char)('0' + pid / 10 % 10), '0', '0', '0'}, 4);
			put_fd(t, pid, 8, "/dev/dri/renderD128", text);
		}
	}
	struct fdinfo *e = fdinfo_acquire(t->proc);
	fdinfo_set_rescan(e, 0);
	struct fdinfo_stats st;
	assert_int_equal(fdinfo_sweep(e, SEC, 0), 0);
	fdinfo_last_stats(e, &st);
	assert_int_equal(st.pids_listed, 50);
	assert_int_equal(st.fd_dirs_read, 50);
	assert_int_equal(st.links_read, 50 * 8 + 5);
	assert_int_equal(st.fdinfo_read, 5);
	assert_int_equal(st.clients, 5);
	assert_int_equal(st.cmdline_read, 5);
	for (int i = 2; i <= 4; i++) {
		assert_int_equal(fdinfo_sweep(e, (uint64_t)i * SEC, 0), 0);
		fdinfo_last_stats(e, &st);
		assert_int_equal(st.pids_listed, 50);
		assert_int_equal(st.fd_dir_stats, 50);
		assert_int_equal(st.fd_dirs_read, 0);
		assert_int_equal(st.links_read, 0);
		assert_int_equal(st.fdinfo_read, 5);
		assert_int_equal(st.stat_read, 5); /* the DRM processes' start times */
		assert_int_equal(st.cmdline_read, 0);
		assert_int_equal(st.clients, 5);
	}
	/* pid 1001 opens a DRM device: its fd directory changed, it alone is
	 * listed. */
	put_fd(t, 1001, 9, "/dev/dri/renderD128", amd64(1, 0));
	assert_int_equal(fdinfo_sweep(e, 5 * SEC, 0), 0);
	fdinfo_last_stats(e, &st);
	assert_int_equal(st.fd_dirs_read, 1);
	assert_int_equal(st.links_read, 9);
	assert_int_equal(st.clients, 6);
	/* A DRM fd closed (and another file opened: the same fd count, so the
	 * directory looks the same): the stale fd is noticed at its read
	 * (ENOENT), the process listed again. */
	struct stat before, after;
	char *dir = testutil_path(t->proc, "1010/fd");
	assert_int_equal(stat(dir, &before), 0);
	char *p = testutil_path(t->proc, "1010/fd/8");
	unlink(p);
	free(p);
	p = testutil_path(t->proc, "1010/fdinfo/8");
	unlink(p);
	free(p);
	struct timespec keep[2] = {before.st_atim, before.st_mtim};
	assert_int_equal(utimensat(AT_FDCWD, dir, keep, 0), 0);
	assert_int_equal(stat(dir, &after), 0);
	assert_int_equal(after.st_size, before.st_size);
	free(dir);
	assert_int_equal(fdinfo_sweep(e, 6 * SEC, 0), 0);
	fdinfo_last_stats(e, &st);
	assert_int_equal(st.clients, 5);
	assert_int_equal(st.fd_dirs_read, 1);
	assert_int_equal(st.fdinfo_read, 6); /* 5 known, 1 of them gone */
	/* The round-robin: with a turn every 4 sweeps, 4 sweeps list each
	 * process once. */
	fdinfo_set_rescan(e, 4);
	uint64_t listed = 0;
	for (int i = 7; i < 11; i++) {
		assert_int_equal(fdinfo_sweep(e, (uint64_t)i * SEC, 0), 0);
		fdinfo_last_stats(e, &st);
		assert_true(st.fd_dirs_read >= 12 && st.fd_dirs_read <= 13);
		listed += st.fd_dirs_read;
	}
	assert_int_equal(listed, 50);
	fdinfo_release(e);
	free_tree(t);
}

/* A sweep asked for within reuse_ns of the last is that one; the engine is
 * one per procfs. */
static void test_reuse_and_sharing(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 100, 5000, "app");
	put_fd(t, 100, 5, "/dev/dri/renderD128", amd64(SEC, 0));
	struct fdinfo *a = fdinfo_acquire(t->proc), *b = fdinfo_acquire(t->proc);
	assert_ptr_equal(a, b);
	struct fdinfo_stats st;
	assert_int_equal(fdinfo_sweep(a, 10 * SEC, 0), 0);
	set_fdinfo(t, 100, 5, amd64(SEC + 500000000, 0));
	assert_int_equal(fdinfo_sweep(b, 10 * SEC + 1000000, 50000000), 0);
	fdinfo_last_stats(b, &st);
	struct fdinfo_client c;
	assert_int_equal(fdinfo_clients(b, NULL, NULL, &c, 1), 1);
	assert_unknown(&c, "gfx"); /* still the first sweep */
	/* An older time than the last sweep's (a thread that waited): reused. */
	assert_int_equal(fdinfo_sweep(b, 9 * SEC, 0), 0);
	assert_int_equal(fdinfo_clients(b, NULL, NULL, &c, 1), 1);
	assert_unknown(&c, "gfx");
	c = one(b, 11 * SEC);
	assert_pct(&c, "gfx", 50);
	fdinfo_release(a);
	fdinfo_release(b);
	/* procfs unreadable. */
	char *missing = testutil_path(t->root, "nope");
	struct fdinfo *m = fdinfo_acquire(missing);
	assert_int_equal(fdinfo_sweep(m, SEC, 0), -ENOENT);
	assert_int_equal(fdinfo_clients(m, NULL, NULL, NULL, 0), 0);
	fdinfo_release(m);
	free(missing);
	fdinfo_release(NULL);
	free_tree(t);
}

struct sweeper {
	const char *proc;
	uint64_t base;
	int rc;
	size_t bad;
};

static void *sweep_thread(void *arg)
{
	struct sweeper *s = arg;
	struct fdinfo *e = fdinfo_acquire(s->proc);
	struct fdinfo_client c[4];
	for (uint64_t i = 0; i < 300; i++) {
		int rc = fdinfo_sweep(e, s->base + i * 1000, i % 3 ? 0 : 500);
		if (rc)
			s->rc = rc;
		size_t n = fdinfo_clients(e, "amdgpu", NULL, c, 4);
		if (n != 2)
			s->bad++;
		struct fdinfo_stats st;
		fdinfo_last_stats(e, &st);
	}
	fdinfo_release(e);
	return NULL;
}

/* The three DRM backends sweep from their own threads (run under TSan by
 * make test-tsan). */
static void test_threads(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 100, 1, "a");
	put_proc(t, 101, 1, "b");
	put_fd(t, 100, 5, "/dev/dri/renderD128", amd64(SEC, 0));
	char text[1024];
	snprintf(text, sizeof(text), "%s", amd64(SEC, 0));
	*strstr(text, "4187") = '5';
	put_fd(t, 101, 5, "/dev/dri/renderD128", text);
	struct fdinfo *keep = fdinfo_acquire(t->proc);
	struct sweeper s[2] = {{t->proc, SEC, 0, 0}, {t->proc, SEC + 500, 0, 0}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, sweep_thread, &s[i]), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(s[i].rc, 0);
		assert_int_equal(s[i].bad, 0);
	}
	fdinfo_release(keep);
	free_tree(t);
}

/* The real /proc: this process opens a file; it is no DRM client. */
static void test_real_proc(void **state)
{
	(void)state;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	struct fdinfo *e = fdinfo_acquire("/proc");
	struct fdinfo_stats st;
	assert_int_equal(fdinfo_sweep(e, SEC, 0), 0);
	fdinfo_last_stats(e, &st);
	assert_true(st.pids_listed >= 1);
	assert_true(st.fd_dirs_read >= 1); /* ours, at least */
	assert_true(st.links_read >= 1);
	size_t n = fdinfo_clients(e, NULL, NULL, NULL, 0);
	struct fdinfo_client *c = calloc(n + 1, sizeof(*c));
	assert_int_equal(fdinfo_clients(e, NULL, NULL, c, n), n);
	for (size_t i = 0; i < n; i++)
		assert_int_not_equal(c[i].pid, (unsigned)getpid());
	free(c);
	/* A second sweep of the real /proc works from the cache: its fd
	 * directories are checked, and only changed or new processes listed
	 * (ours among them: the sweep opens descriptors of its own). */
	fdinfo_set_rescan(e, 0);
	assert_int_equal(fdinfo_sweep(e, 2 * SEC, 0), 0);
	fdinfo_last_stats(e, &st);
	assert_true(st.fd_dir_stats >= 1);
	assert_true(st.fd_dirs_read <= st.fd_dir_stats);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, NULL, 0), st.clients);
	fdinfo_release(e);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amdgpu_two_samples),
		cmocka_unit_test(test_amdgpu_613_memory),
		cmocka_unit_test(test_i915_capacity),
		cmocka_unit_test(test_xe_cycles),
		cmocka_unit_test(test_msm_and_maxfreq),
		cmocka_unit_test(test_v3d),
		cmocka_unit_test(test_legacy_515),
		cmocka_unit_test(test_dedup_fork_dup),
		cmocka_unit_test(test_owner_choice),
		cmocka_unit_test(test_backwards_and_bad_deltas),
		cmocka_unit_test(test_vanishing_and_pid_reuse),
		cmocka_unit_test(test_not_clients),
		cmocka_unit_test(test_ten_thousand_fds),
		cmocka_unit_test(test_cache_proof),
		cmocka_unit_test(test_reuse_and_sharing),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_real_proc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
