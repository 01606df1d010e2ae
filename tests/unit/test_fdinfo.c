/* test_fdinfo: the DRM client engine's mechanics on procfs fixture trees
 * written here (fdinfo_tree.h: real fd/N symlinks to /dev/dri/renderD128,
 * /proc/PID/stat with start times): dedup across fork and dup with one
 * owner, counters going back, bad deltas, vanishing processes, pid reuse,
 * 10,000 fds in one process, the cache proved through the stats, filters,
 * sharing between threads; and the real /proc, where a file this test opens
 * is no client (no /dev/dri here). Each driver's format:
 * test_fdinfo_drivers.c. */
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
#include "fdinfo_tree.h"
#include "testutil.h"
#include "util/ratewin.h"

/* One drm_file under several fds (dup) and processes (fork): one client,
 * charged to the first process in pid order. */
static void test_dedup_fork_dup(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 201, 50, "child");
	ft_proc(t, 200, 40, "parent");
	ft_fd(t, 201, 4, "/dev/dri/renderD128", ft_amd64(1000, 0));
	ft_fd(t, 200, 4, "/dev/dri/renderD128", ft_amd64(1000, 0));
	ft_fd(t, 200, 7, "/dev/dri/renderD128", ft_amd64(1000, 0));
	/* Another client of the child's own; and one with the same id on
	 * another GPU, which is another client. */
	char other[1024];
	snprintf(other, sizeof(other), "%s", ft_amd64(5, 0));
	*strstr(other, "4187") = '5';
	ft_fd(t, 201, 8, "/dev/dri/renderD128", other);
	snprintf(other, sizeof(other), "%s", ft_amd64(5, 0));
	memcpy(strstr(other, "0000:03:00.0"), "0000:04", 7);
	ft_fd(t, 201, 9, "/dev/dri/renderD129", other);
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
	ft_set_fdinfo(t, 200, 4, ft_amd64(1000 + 300000000, 0));
	ft_set_fdinfo(t, 200, 7, ft_amd64(1000 + 300000000, 0));
	ft_set_fdinfo(t, 201, 4, ft_amd64(1000 + 300000000, 0));
	assert_int_equal(fdinfo_sweep(e, 2 * SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, "0000:03:00.0", c, 8), 2);
	for (int i = 0; i < 2; i++)
		if (c[i].client_id == 4187)
			ft_assert_pct(&c[i], "gfx", 30);
	fdinfo_release(e);
	ft_free(t);
}

/* pid 1 and systemd's processes are skipped as owners when another exists
 * (gnome-shell shares its context with systemd: docs/drm-fdinfo.md). */
static void test_owner_choice(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 1, 1, "/sbin/init");
	ft_proc(t, 300, 2, "/usr/lib/systemd/systemd");
	ft_proc(t, 301, 2, "/lib/systemd/systemd-logind");
	ft_proc(t, 400, 3, "/usr/bin/gnome-shell");
	ft_fd(t, 1, 20, "/dev/dri/card0", ft_amd64(1, 0));
	ft_fd(t, 300, 20, "/dev/dri/card0", ft_amd64(1, 0));
	ft_fd(t, 301, 20, "/dev/dri/card0", ft_amd64(1, 0));
	ft_fd(t, 400, 20, "/dev/dri/card0", ft_amd64(1, 0));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	assert_int_equal(ft_one(e, SEC).pid, 400);
	/* With no other process, the first in pid order. */
	ft_rm_proc(t, 400);
	assert_int_equal(ft_one(e, 2 * SEC).pid, 1);
	ft_rm_proc(t, 1);
	assert_int_equal(ft_one(e, 3 * SEC).pid, 300);
	fdinfo_release(e);
	ft_free(t);
}

/* A counter that goes back restarts the client's sample: unknown, then
 * rates from the new baseline. */
static void test_backwards_and_bad_deltas(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 100, 5000, "app");
	ft_fd(t, 100, 5, "/dev/dri/renderD128", ft_amd64(10 * SEC, SEC));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	ft_one(e, 100 * SEC);
	ft_set_fdinfo(t, 100, 5, ft_amd64(10 * SEC + 200000000, SEC));
	struct fdinfo_client c = ft_one(e, 101 * SEC);
	ft_assert_pct(&c, "gfx", 20);
	ft_set_fdinfo(t, 100, 5, ft_amd64(9 * SEC, SEC)); /* gfx went back */
	c = ft_one(e, 102 * SEC);
	ft_assert_unknown(&c, "gfx");
	ft_assert_unknown(&c, "dma"); /* the whole client restarts */
	ft_set_fdinfo(t, 100, 5, ft_amd64(9 * SEC + 400000000, SEC));
	c = ft_one(e, 103 * SEC);
	ft_assert_pct(&c, "gfx", 40);
	/* 1.5 s of busy time in 1 s on one engine: a bad sample, unknown. */
	ft_set_fdinfo(t, 100, 5, ft_amd64(10 * SEC + 900000000, SEC));
	c = ft_one(e, 104 * SEC);
	ft_assert_unknown(&c, "gfx");
	ft_assert_pct(&c, "dma", 0);
	/* 1.03 s in 1 s: read jitter, clamped to 100 %. */
	ft_set_fdinfo(t, 100, 5, ft_amd64(11 * SEC + 930000000, SEC));
	c = ft_one(e, 105 * SEC);
	ft_assert_pct(&c, "gfx", 100);
	fdinfo_release(e);
	ft_free(t);
}

/* With the rate window of a 1 s interval, a sweep 4 ms after a client's
 * first has no rate (4 ms busy in 4 ms would read 100 %) and keeps the
 * first sample as the baseline, so that the sweep at 1 s measures from it:
 * 0.5 s busy is 50 %, where the 4 ms sample as baseline would give 49.8 %.
 * After a rate the baseline moves on; a counter that goes back in a short
 * window restarts the client there. A client that appears later has a
 * window of its own. */
static void test_rate_window(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 100, 5000, "app");
	ft_fd(t, 100, 5, "/dev/dri/renderD128", ft_amd64(10 * SEC, SEC));
	struct fdinfo *e = fdinfo_acquire(t->proc);
	fdinfo_set_rate_window(e, ratewin_min_ns(1.0));
	struct fdinfo_client c = ft_one(e, 100 * SEC);
	ft_assert_unknown(&c, "gfx");
	ft_set_fdinfo(t, 100, 5, ft_amd64(10 * SEC + 4000000, SEC));
	c = ft_one(e, 100 * SEC + 4000000);
	ft_assert_unknown(&c, "gfx");
	ft_assert_unknown(&c, "dma");
	ft_set_fdinfo(t, 100, 5, ft_amd64(10 * SEC + 500000000, SEC));
	c = ft_one(e, 101 * SEC);
	ft_assert_pct(&c, "gfx", 50);
	ft_assert_pct(&c, "dma", 0);
	/* 50 ms later: short, so the sample at 101 s stays the baseline. */
	ft_set_fdinfo(t, 100, 5, ft_amd64(10 * SEC + 550000000, SEC));
	c = ft_one(e, 101 * SEC + 50000000);
	ft_assert_unknown(&c, "gfx");
	ft_set_fdinfo(t, 100, 5, ft_amd64(10 * SEC + 600000000, SEC));
	c = ft_one(e, 102 * SEC);
	ft_assert_pct(&c, "gfx", 10);
	/* gfx went back 10 ms after: a new baseline there, not the old one. */
	ft_set_fdinfo(t, 100, 5, ft_amd64(SEC, SEC));
	c = ft_one(e, 102 * SEC + 10000000);
	ft_assert_unknown(&c, "gfx");
	ft_set_fdinfo(t, 100, 5, ft_amd64(SEC + 200000000, SEC));
	c = ft_one(e, 103 * SEC + 10000000);
	ft_assert_pct(&c, "gfx", 20);
	/* A second client appears 50 ms after that sample, while the first
	 * client's window is short. 60 ms later the first client's window,
	 * 110 ms from its baseline, is long enough, and the second's, 60 ms
	 * from its first sample, is not. */
	char other[1024];
	snprintf(other, sizeof(other), "%s", ft_amd64(SEC, 0));
	*strstr(other, "4187") = '5';
	ft_proc(t, 200, 6000, "late");
	ft_fd(t, 200, 4, "/dev/dri/renderD128", other);
	ft_set_fdinfo(t, 100, 5, ft_amd64(SEC + 250000000, SEC));
	struct fdinfo_client two[2];
	assert_int_equal(fdinfo_sweep(e, 103 * SEC + 60000000, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, two, 2), 2);
	ft_assert_unknown(&two[0], "gfx");
	ft_assert_unknown(&two[1], "gfx");
	ft_set_fdinfo(t, 100, 5, ft_amd64(SEC + 255000000, SEC));
	snprintf(other, sizeof(other), "%s", ft_amd64(SEC + 50000000, 0));
	*strstr(other, "4187") = '5';
	ft_set_fdinfo(t, 200, 4, other);
	assert_int_equal(fdinfo_sweep(e, 103 * SEC + 120000000, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, two, 2), 2);
	const struct fdinfo_client *first = two[0].pid == 100 ? &two[0] : &two[1];
	const struct fdinfo_client *late = two[0].pid == 100 ? &two[1] : &two[0];
	assert_int_equal(late->pid, 200);
	ft_assert_pct(first, "gfx", 50); /* 55 ms busy in the 110 ms since 103.01 s */
	ft_assert_unknown(late, "gfx");
	fdinfo_release(e);
	ft_free(t);
}

/* Gone between listing and reading: no fdinfo for the fd, no stat; a
 * process that went; a new process with the old pid and client id. */
static void test_vanishing_and_pid_reuse(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 100, 5000, "app");
	ft_fd(t, 100, 5, "/dev/dri/renderD128", ft_amd64(SEC, 0));
	ft_proc(t, 101, 5001, "dying");
	ft_fd(t, 101, 5, "/dev/dri/renderD128", NULL); /* its fdinfo went with it */
	ft_proc(t, 102, 5002, "gone");
	char *st = testutil_path(t->proc, "102/stat");
	unlink(st);
	free(st);
	ft_fd(t, 102, 5, "/dev/dri/renderD128", ft_amd64(SEC, 0));
	char *nofd = testutil_path(t->proc, "103"); /* no fd dir at all */
	mkdir(nofd, 0755);
	free(nofd);
	struct fdinfo *e = fdinfo_acquire(t->proc);
	struct fdinfo_client c[4];
	assert_int_equal(fdinfo_sweep(e, SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, c, 4), 1);
	assert_int_equal(c[0].pid, 100);
	ft_set_fdinfo(t, 100, 5, ft_amd64(SEC + 100000000, 0));
	assert_int_equal(fdinfo_sweep(e, 2 * SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, c, 4), 1);
	ft_assert_pct(&c[0], "gfx", 10);
	/* pid 100 ends; another process gets pid 100 and (another device's
	 * drm_file with) the same client id: a first sample again. */
	ft_rm_proc(t, 100);
	ft_proc(t, 100, 9000, "new");
	ft_fd(t, 100, 5, "/dev/dri/renderD128", ft_amd64(SEC + 200000000, 0));
	assert_int_equal(fdinfo_sweep(e, 3 * SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, c, 4), 1);
	assert_int_equal(c[0].start_ticks, 9000);
	ft_assert_unknown(&c[0], "gfx");
	ft_rm_proc(t, 100);
	assert_int_equal(fdinfo_sweep(e, 4 * SEC, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, c, 4), 0);
	fdinfo_release(e);
	ft_free(t);
}

/* Not DRM clients: a regular file whose fdinfo says drm-driver, a DRM node
 * whose fdinfo has no drm-driver (read once, then not again). */
static void test_not_clients(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 100, 1, "x");
	ft_fd(t, 100, 3, "/tmp/notdrm", ft_amd64(1, 1));
	ft_fd(t, 100, 4, "/dev/dri/renderD128", "pos:\t0\nflags:\t02\nmnt_id:\t23\n");
	ft_fd(t, 100, 5, "/dev/dri-fake/renderD128", ft_amd64(1, 1));
	ft_fd(t, 100, 6, "/dev/dri/renderDx", ft_amd64(1, 1));
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
	ft_free(t);
}

static void test_ten_thousand_fds(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	char rel[64];
	ft_proc(t, 800, 1, "many");
	for (int fd = 0; fd < 10000; fd++) {
		snprintf(rel, sizeof(rel), "800/fd/%d", fd);
		char *p = testutil_path(t->proc, rel);
		assert_int_equal(symlink(fd == 5000 || fd == 9999 ? "/dev/dri/renderD128" : "/dev/null", p), 0);
		free(p);
	}
	char text[1024];
	snprintf(text, sizeof(text), "%s", ft_amd64(1, 1));
	ft_set_fdinfo(t, 800, 5000, text);
	*strstr(text, "4187") = '9';
	ft_set_fdinfo(t, 800, 9999, text);
	ft_touch_fd_dir(t, 800);
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
	ft_free(t);
}

/* Later sweeps list no fd directory and read no link of an unchanged
 * known process; a process that opens a DRM device is found. */
static void test_cache_proof(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	for (unsigned pid = 1000; pid < 1050; pid++) {
		ft_proc(t, pid, pid, "proc");
		for (int fd = 0; fd < 8; fd++)
			ft_fd(t, pid, fd, "/dev/null", NULL);
		if (pid % 10 == 0) {
			char text[1024];
			snprintf(text, sizeof(text), "%s", ft_amd64(pid, 0));
			memcpy(strstr(text, "4187"), &(char[4]){(char)('0' + pid / 10 % 10), '0', '0', '0'}, 4);
			ft_fd(t, pid, 8, "/dev/dri/renderD128", text);
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
	ft_fd(t, 1001, 9, "/dev/dri/renderD128", ft_amd64(1, 0));
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
	ft_free(t);
}

/* A sweep asked for within reuse_ns of the last is that one; the engine is
 * one per procfs. */
static void test_reuse_and_sharing(void **state)
{
	(void)state;
	struct ft_tree *t = ft_make();
	ft_proc(t, 100, 5000, "app");
	ft_fd(t, 100, 5, "/dev/dri/renderD128", ft_amd64(SEC, 0));
	struct fdinfo *a = fdinfo_acquire(t->proc), *b = fdinfo_acquire(t->proc);
	assert_ptr_equal(a, b);
	struct fdinfo_stats st;
	assert_int_equal(fdinfo_sweep(a, 10 * SEC, 0), 0);
	ft_set_fdinfo(t, 100, 5, ft_amd64(SEC + 500000000, 0));
	assert_int_equal(fdinfo_sweep(b, 10 * SEC + 1000000, 50000000), 0);
	fdinfo_last_stats(b, &st);
	struct fdinfo_client c;
	assert_int_equal(fdinfo_clients(b, NULL, NULL, &c, 1), 1);
	ft_assert_unknown(&c, "gfx"); /* still the first sweep */
	/* An older time than the last sweep's (a thread that waited): reused. */
	assert_int_equal(fdinfo_sweep(b, 9 * SEC, 0), 0);
	assert_int_equal(fdinfo_clients(b, NULL, NULL, &c, 1), 1);
	ft_assert_unknown(&c, "gfx");
	c = ft_one(b, 11 * SEC);
	ft_assert_pct(&c, "gfx", 50);
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
	ft_free(t);
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
	struct ft_tree *t = ft_make();
	ft_proc(t, 100, 1, "a");
	ft_proc(t, 101, 1, "b");
	ft_fd(t, 100, 5, "/dev/dri/renderD128", ft_amd64(SEC, 0));
	char text[1024];
	snprintf(text, sizeof(text), "%s", ft_amd64(SEC, 0));
	*strstr(text, "4187") = '5';
	ft_fd(t, 101, 5, "/dev/dri/renderD128", text);
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
	ft_free(t);
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
		cmocka_unit_test(test_dedup_fork_dup),
		cmocka_unit_test(test_owner_choice),
		cmocka_unit_test(test_backwards_and_bad_deltas),
		cmocka_unit_test(test_rate_window),
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
