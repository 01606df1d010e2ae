/* test_procinfo: /proc details of GPU processes from a procfs fixture tree:
 * parsing stat (a comm with spaces and ')'), the cache per (pid, start
 * time) that reads cmdline and status once, pid reuse, CPU % from two
 * samples, users from the tree's etc/passwd; and the host's system figures.
 * Attribution (container, pod, unit from /proc/PID/cgroup; container_pid
 * from NSpid) read once per (pid, start time), whatever the files say later.
 * On the real /proc, with processes started here: /proc/PID/stat held open
 * within its bound, and let go when its process ends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc/pidwant.h"
#include "proc/procinfo.h"
#include "proc/sysstat.h"
#include "util/ratewin.h"
#include "util/readfile.h"
#include "util/utf8.h"
#include "testutil.h"

struct tree {
	char *root, *proc;
};

static void write_at(const char *dir, const char *rel, const char *s)
{
	char *p = testutil_path(dir, rel);
	testutil_write_str(p, s);
	free(p);
}

/* stat with comm, utime+stime split, starttime and rss in pages. */
static void put_proc(struct tree *t, unsigned pid, const char *comm, unsigned long long ticks,
		     unsigned long long start, unsigned long long rss, const char *cmdline, size_t cmdlen,
		     unsigned uid)
{
	char rel[64], buf[1024];
	snprintf(rel, sizeof(rel), "%u", pid);
	char *dir = testutil_path(t->proc, rel);
	mkdir(dir, 0755);
	snprintf(buf, sizeof(buf),
		 "%u (%s) S 1 %u %u 0 -1 4194560 100 0 0 0 %llu %llu 0 0 20 0 1 0 %llu 123456 %llu 184467 0 0 0\n",
		 pid, comm, pid, pid, ticks / 2, ticks - ticks / 2, start, rss);
	write_at(dir, "stat", buf);
	char *cp = testutil_path(dir, "cmdline");
	testutil_write_file(cp, cmdline, cmdlen);
	free(cp);
	snprintf(buf, sizeof(buf), "Name:\t%s\nUid:\t%u\t%u\t%u\t%u\n", comm, uid, uid, uid, uid);
	write_at(dir, "status", buf);
	free(dir);
}

static struct tree *make_tree(void)
{
	struct tree *t = calloc(1, sizeof(*t));
	t->root = testutil_tmpdir();
	t->proc = testutil_path(t->root, "proc");
	mkdir(t->proc, 0755);
	char *etc = testutil_path(t->root, "etc");
	mkdir(etc, 0755);
	write_at(etc, "passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n");
	free(etc);
	write_at(t->proc, "stat", "cpu  100 0 100 800 0 0 0 0 0 0\nbtime 1700000000\n");
	return t;
}

static void free_tree(struct tree *t)
{
	testutil_rmtree(t->root);
	free(t->root);
	free(t->proc);
	free(t);
}

static void test_stat_cmdline_user_start(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	long tck = sysconf(_SC_CLK_TCK);
	put_proc(t, 4242, "we) ird (name", 0, 250 * (unsigned long long)tck, 1000, "python3\0train.py\0--lr\0", 22, 1001);
	struct procinfo *pi = procinfo_new(t->proc);
	struct frame *f = frame_new();
	struct gpu_process *p = frame_add_process(f);

	procinfo_begin(pi, 1000000000ull);
	procinfo_fill(pi, 4242, f, p);
	procinfo_end(pi);
	assert_true(process_has(p, PROC_F_NAME));
	assert_string_equal(p->name, "we) ird (name");
	assert_string_equal(p->cmdline, "python3 train.py --lr");
	assert_string_equal(p->user, "alice");
	assert_int_equal(p->start_ms, 1700000000000ull + 250000);
	assert_int_equal(p->host_mem_bytes, 1000ull * (unsigned long long)sysconf(_SC_PAGESIZE));
	assert_false(process_has(p, PROC_F_CPU)); /* one sample: no rate yet */
	frame_unref(f);
	procinfo_free(pi);
	free_tree(t);
}

static void test_cache_and_cpu_rate(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	long tck = sysconf(_SC_CLK_TCK);
	put_proc(t, 77, "worker", 0, 500, 10, "worker\0", 7, 0);
	struct procinfo *pi = procinfo_new(t->proc);
	struct frame *f = frame_new();

	procinfo_begin(pi, 1000000000ull);
	procinfo_fill(pi, 77, f, frame_add_process(f));
	procinfo_end(pi);
	/* Half a second of CPU in one second of wall time; cmdline and user
	 * changed on disk but belong to the same (pid, start): not re-read. */
	put_proc(t, 77, "worker", (unsigned long long)tck / 2, 500, 20, "changed\0", 8, 1001);
	procinfo_begin(pi, 2000000000ull);
	struct gpu_process *p = frame_add_process(f);
	procinfo_fill(pi, 77, f, p);
	procinfo_end(pi);
	assert_true(process_has(p, PROC_F_CPU));
	assert_true(p->cpu_pct > 49.9 && p->cpu_pct < 50.1);
	assert_string_equal(p->cmdline, "worker");
	assert_string_equal(p->user, "root");
	assert_int_equal(p->host_mem_bytes, 20ull * (unsigned long long)sysconf(_SC_PAGESIZE)); /* stat is re-read */

	/* The pid is reused by another process (new start time): all re-read. */
	put_proc(t, 77, "other", 0, 900, 5, "other\0--x\0", 10, 1001);
	procinfo_begin(pi, 3000000000ull);
	p = frame_add_process(f);
	procinfo_fill(pi, 77, f, p);
	procinfo_end(pi);
	assert_string_equal(p->cmdline, "other --x");
	assert_string_equal(p->user, "alice");
	assert_false(process_has(p, PROC_F_CPU));
	frame_unref(f);
	procinfo_free(pi);
	free_tree(t);
}

static void test_gone_and_swept(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 5, "a", 0, 1, 1, "a\0", 2, 0);
	put_proc(t, 6, "b", 0, 1, 1, "b\0", 2, 0);
	struct procinfo *pi = procinfo_new(t->proc);
	struct frame *f = frame_new();

	procinfo_begin(pi, 1);
	procinfo_fill(pi, 5, f, frame_add_process(f));
	procinfo_fill(pi, 6, f, frame_add_process(f));
	struct gpu_process *missing = frame_add_process(f);
	procinfo_fill(pi, 999, f, missing); /* no such pid: fields stay unknown */
	procinfo_end(pi);
	assert_int_equal(missing->valid, 0);
	assert_int_equal(procinfo_cached(pi), 3);
	procinfo_begin(pi, 2);
	procinfo_fill(pi, 5, f, frame_add_process(f));
	procinfo_end(pi);
	assert_int_equal(procinfo_cached(pi), 1); /* 6 and 999 not seen: forgotten */
	frame_unref(f);
	procinfo_free(pi);
	free_tree(t);
}

/* The status file with an NSpid line (nspid: its values, tab-separated)
 * and the cgroup file (NULL: none) of pid. */
static void put_attrib(struct tree *t, unsigned pid, const char *cgroup, const char *nspid)
{
	char rel[64], buf[512];
	snprintf(rel, sizeof(rel), "%u", pid);
	char *dir = testutil_path(t->proc, rel);
	snprintf(buf, sizeof(buf), "Name:\tx\nUmask:\t0022\nUid:\t1001\t1001\t1001\t1001\nNSpid:\t%s\nNStgid:\t9\t9\n", nspid);
	write_at(dir, "status", buf);
	char *cg = testutil_path(dir, "cgroup");
	testutil_rmtree(cg);
	if (cgroup)
		testutil_write_str(cg, cgroup);
	free(cg);
	free(dir);
}

#define KID "184c8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63ba"
#define KCG "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podccd0a30e_12e9_4cab_a4ff_9124262dfbee.slice/cri-containerd-" KID ".scope\n"

static struct gpu_process *poll_one(struct procinfo *pi, struct frame *f, unsigned pid, uint64_t now_ns)
{
	procinfo_begin(pi, now_ns);
	struct gpu_process *p = frame_add_process(f);
	procinfo_fill(pi, pid, f, p);
	procinfo_end(pi);
	return p;
}

static void test_attribution_once(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	put_proc(t, 300, "trainer", 0, 100, 1, "trainer\0", 8, 1001);
	put_attrib(t, 300, KCG, "300\t41\t7");
	struct procinfo *pi = procinfo_new(t->proc);
	struct frame *f = frame_new();

	struct gpu_process *p = poll_one(pi, f, 300, 1000000000ull);
	assert_true(process_has(p, PROC_F_CONTAINER));
	assert_string_equal(p->container, "containerd:184c8653db58");
	assert_string_equal(p->pod, "ccd0a30e-12e9-4cab-a4ff-9124262dfbee");
	assert_string_equal(p->unit, "cri-containerd-" KID ".scope");
	assert_non_null(p->cgroup_path); /* for the details screen, not recorded */
	assert_non_null(strstr(p->cgroup_path, "cri-containerd-" KID ".scope"));
	/* A copy into another frame (the composite's) owns its own string. */
	struct frame *g = frame_new();
	struct gpu_process *q = frame_add_process(g);
	frame_copy_process(g, q, p);
	assert_true(q->cgroup_path != p->cgroup_path);
	assert_string_equal(q->cgroup_path, p->cgroup_path);
	frame_unref(g);
	assert_true(process_has(p, PROC_F_CONTAINER_PID));
	assert_int_equal(p->container_pid, 7);
	assert_int_equal(procinfo_cgroup_reads(pi), 1);

	/* The files change, then the cgroup file goes: the same process keeps
	 * what it had, and no cgroup file is read again. */
	put_attrib(t, 300, "0::/system.slice/other.service\n", "300");
	for (int i = 2; i <= 4; i++) {
		if (i == 3)
			put_attrib(t, 300, NULL, "300");
		p = poll_one(pi, f, 300, (uint64_t)i * 1000000000ull);
		assert_string_equal(p->container, "containerd:184c8653db58");
		assert_string_equal(p->unit, "cri-containerd-" KID ".scope");
		assert_int_equal(p->container_pid, 7);
		assert_true(process_has(p, PROC_F_CPU)); /* stat was re-read meanwhile */
	}
	assert_int_equal(procinfo_cgroup_reads(pi), 1);

	/* The pid is reused (a new start time): read afresh, and nothing of
	 * the old process stays — no cgroup file, one NSpid: unknown. */
	put_proc(t, 300, "shell", 0, 999, 1, "sh\0", 3, 1001);
	put_attrib(t, 300, NULL, "300");
	p = poll_one(pi, f, 300, 5000000000ull);
	assert_string_equal(p->name, "shell");
	assert_false(process_has(p, PROC_F_CONTAINER));
	assert_false(process_has(p, PROC_F_POD));
	assert_false(process_has(p, PROC_F_UNIT));
	assert_false(process_has(p, PROC_F_CONTAINER_PID));
	assert_int_equal(procinfo_cgroup_reads(pi), 2);

	/* Reused again, by a session process: a unit, no container. */
	put_proc(t, 300, "bash", 0, 1500, 1, "bash\0", 5, 1001);
	put_attrib(t, 300, "0::/user.slice/user-1001.slice/session-4.scope\n", "300");
	p = poll_one(pi, f, 300, 6000000000ull);
	assert_false(process_has(p, PROC_F_CONTAINER));
	assert_string_equal(p->unit, "session-4.scope");
	assert_int_equal(procinfo_cgroup_reads(pi), 3);
	frame_unref(f);
	procinfo_free(pi);
	free_tree(t);
}

/* A cgroup file that cannot be read (a directory in its place), hostile or
 * empty: no attribution, and the rest of the row is there. */
static void test_attribution_unreadable(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	static const char *const bad[] = {"", "garbage\n", "0::/\n", "0::/docker/notanid\n"};
	struct procinfo *pi = procinfo_new(t->proc);
	struct frame *f = frame_new();

	put_proc(t, 400, "a", 0, 1, 1, "a\0", 2, 0);
	put_attrib(t, 400, NULL, "400\tx");
	char *cg = testutil_path(t->proc, "400/cgroup");
	assert_int_equal(mkdir(cg, 0755), 0);
	free(cg);
	for (unsigned i = 0; i < 4; i++) {
		put_proc(t, 401 + i, "b", 0, 1, 1, "b\0", 2, 0);
		put_attrib(t, 401 + i, bad[i], "1\t2\t3\tnot");
	}
	for (unsigned pid = 400; pid <= 404; pid++) {
		struct gpu_process *p = poll_one(pi, f, pid, 1000000000ull);
		assert_true(process_has(p, PROC_F_NAME));
		assert_true(process_has(p, PROC_F_USER));
		assert_false(process_has(p, PROC_F_CONTAINER));
		assert_false(process_has(p, PROC_F_POD));
		assert_false(process_has(p, PROC_F_UNIT));
		assert_false(process_has(p, PROC_F_CONTAINER_PID));
	}
	frame_unref(f);
	procinfo_free(pi);
	free_tree(t);
}

static void test_nspid(void **state)
{
	(void)state;
	uint64_t v = 99;
	char many[512] = "NSpid:";
	const char *s;

#define NSPID(text) procinfo_nspid(text, strlen(text), &v)
	assert_int_equal(NSPID("Name:\tx\nNSpid:\t48211\t7\nNStgid:\t1\t2\n"), 1);
	assert_int_equal(v, 7);
	assert_int_equal(NSPID("NSpid:\t48211\t300\t1"), 1); /* no newline; nested twice */
	assert_int_equal(v, 1);
	v = 99;
	assert_int_equal(NSPID("NSpid:\t48211\n"), 0);
	assert_int_equal(NSPID("Name:\tx\nNStgid:\t1\t2\n"), -ENOENT);
	assert_int_equal(NSPID(""), -ENOENT);
	assert_int_equal(NSPID("NSpid:\n"), -EINVAL);
	assert_int_equal(NSPID("NSpid:\t1\tx\n"), -EINVAL);
	assert_int_equal(NSPID("NSpid:\t1\t-2\n"), -EINVAL);
	assert_int_equal(NSPID("NSpid:\t1\t4194305\n"), -EINVAL);
	assert_int_equal(v, 99); /* untouched on failure */
	assert_int_equal(NSPID("NSpid:\t1\t4194304\n"), 1);
	for (int i = 0; i < 33; i++)
		strcat(many, "\t5");
	assert_int_equal(NSPID(many), 1);
	strcat(many, "\t5");
	assert_int_equal(NSPID(many), -EINVAL);
	/* The real /proc: whatever namespace the tests run in, it parses. */
	char buf[4096];
	ssize_t r = readfile_at("/proc", "self/status", buf, sizeof(buf));
	assert_true(r > 0);
	s = strstr(buf, "NSpid:");
	assert_non_null(s);
	int rc = procinfo_nspid(buf, (size_t)r, &v);
	assert_true(rc == 0 || rc == 1);
#undef NSPID
}

static void test_sysstat(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	write_at(t->proc, "meminfo", "MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    400 kB\n");
	write_at(t->proc, "loadavg", "1.25 0.5 0.25 1/100 4242\n");
	struct sysstat *s = sysstat_new(t->proc);
	struct system_stats st;

	assert_int_equal(sysstat_read(s, 1000000000, &st), 0);
	assert_false(st.valid >> SYS_F_CPU & 1); /* one sample: no rate */
	assert_int_equal(st.mem_total_bytes, 1024000);
	assert_int_equal(st.mem_used_bytes, 600 * 1024);
	assert_true(st.load_1m == 1.25);
	/* 100 more ticks, 25 of them idle: 75 % busy. */
	write_at(t->proc, "stat", "cpu  150 0 125 825 0 0 0 0 0 0\nbtime 1700000000\n");
	assert_int_equal(sysstat_read(s, 2000000000, &st), 0);
	assert_true(st.valid >> SYS_F_CPU & 1);
	assert_true(st.cpu_pct > 74.9 && st.cpu_pct < 75.1);
	sysstat_free(s);

	/* With the rate window of a 1 s interval, a reading 5 ms after the
	 * first has no CPU % however the ticks moved, and keeps the first as
	 * the baseline: the reading at 1 s measures from it, 200 ticks of
	 * which 50 idle. */
	write_at(t->proc, "stat", "cpu  100 0 100 1000 0 0 0 0 0 0\nbtime 1700000000\n");
	s = sysstat_new(t->proc);
	sysstat_set_rate_window(s, ratewin_min_ns(1.0));
	assert_int_equal(sysstat_read(s, 1000000000, &st), 0);
	assert_false(st.valid >> SYS_F_CPU & 1);
	write_at(t->proc, "stat", "cpu  102 0 100 1000 0 0 0 0 0 0\nbtime 1700000000\n");
	assert_int_equal(sysstat_read(s, 1005000000, &st), 0);
	assert_false(st.valid >> SYS_F_CPU & 1); /* 2 ticks in 5 ms: 100 %, a made-up number */
	assert_int_equal(st.mem_total_bytes, 1024000); /* the rest is read */
	write_at(t->proc, "stat", "cpu  200 0 150 1050 0 0 0 0 0 0\nbtime 1700000000\n");
	assert_int_equal(sysstat_read(s, 2000000000, &st), 0);
	assert_true(st.valid >> SYS_F_CPU & 1);
	assert_true(st.cpu_pct > 74.9 && st.cpu_pct < 75.1);
	/* The next window starts at that reading. */
	write_at(t->proc, "stat", "cpu  210 0 150 1060 0 0 0 0 0 0\nbtime 1700000000\n");
	assert_int_equal(sysstat_read(s, 2050000000, &st), 0);
	assert_false(st.valid >> SYS_F_CPU & 1);
	assert_int_equal(sysstat_read(s, 3000000000, &st), 0);
	assert_true(st.valid >> SYS_F_CPU & 1);
	assert_true(st.cpu_pct > 49.9 && st.cpu_pct < 50.1);
	sysstat_free(s);
	free_tree(t);

	s = sysstat_new("/nonexistent-procfs");
	assert_int_not_equal(sysstat_read(s, 0, &st), 0);
	assert_int_equal(st.valid, 0);
	sysstat_free(s);
}

/* One poll at now_ns of pid alone; its row's CPU % into *pct, or -1 when
 * it is unknown. */
static void poll_cpu(struct procinfo *pi, uint64_t now_ns, unsigned pid, double *pct)
{
	struct frame *f = frame_new();
	struct gpu_process *p = frame_add_process(f);

	procinfo_begin(pi, now_ns);
	assert_true(procinfo_fill(pi, pid, f, p));
	procinfo_end(pi);
	*pct = process_has(p, PROC_F_CPU) ? p->cpu_pct : -1;
	frame_unref(f);
}

/* With the rate window of a 1 s interval, a second sample 5 ms after the
 * first has no CPU % (one tick there would read 200 %), and the first stays
 * the baseline: the sample at 1 s measures a whole second of CPU against it,
 * 100 %, where the 5 ms sample as baseline would give 99.5 %. After a rate
 * the baseline moves on. */
static void test_cpu_rate_window(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	unsigned long long tck = (unsigned long long)sysconf(_SC_CLK_TCK);
	struct procinfo *pi = procinfo_new(t->proc);
	double pct;

	procinfo_set_rate_window(pi, ratewin_min_ns(1.0));
	put_proc(t, 88, "spin", 0, 500, 10, "spin\0", 5, 0);
	poll_cpu(pi, 1000000000ull, 88, &pct);
	assert_true(pct == -1); /* one sample */
	put_proc(t, 88, "spin", 1, 500, 10, "spin\0", 5, 0);
	poll_cpu(pi, 1005000000ull, 88, &pct);
	assert_true(pct == -1); /* a window of 5 ms */
	put_proc(t, 88, "spin", tck, 500, 10, "spin\0", 5, 0);
	poll_cpu(pi, 2000000000ull, 88, &pct);
	assert_true(pct > 99.99 && pct < 100.01);
	/* Known processes with a rate are sampled about once a second, so the
	 * next rate is at 3 s, from the sample at 2 s: half a second of CPU. */
	put_proc(t, 88, "spin", tck * 3 / 2, 500, 10, "spin\0", 5, 0);
	poll_cpu(pi, 3000000000ull, 88, &pct);
	assert_true(pct > 49.99 && pct < 50.01);
	procinfo_free(pi);
	free_tree(t);
}

/* poll_two: a poll at second sec of pids 5 and 6; their rows in a, b
 * (taken once both are added: adding a row may move the others). */
static void poll_two(struct procinfo *pi, struct frame *f, unsigned sec, struct gpu_process **a,
		     struct gpu_process **b)
{
	procinfo_begin(pi, sec * 1000000000ull);
	frame_add_process(f);
	procinfo_fill(pi, 5, f, &f->procs[f->nprocs - 1]);
	frame_add_process(f);
	procinfo_fill(pi, 6, f, &f->procs[f->nprocs - 1]);
	procinfo_end(pi);
	*a = &f->procs[f->nprocs - 2];
	*b = &f->procs[f->nprocs - 1];
}

/* The dashboard wants only the rows on its screen: a process off it keeps
 * its last CPU % and RSS; wanted again, it is read again. */
static void test_want_only_some(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	unsigned long long tck = (unsigned long long)sysconf(_SC_CLK_TCK), page = (unsigned long long)sysconf(_SC_PAGESIZE);
	struct pidwant *w = pidwant_get();
	struct procinfo *pi = procinfo_new(t->proc);
	struct frame *f = frame_new();
	struct gpu_process *a, *b;
	const unsigned five = 5;

	procinfo_set_want(pi, w);
	put_proc(t, 5, "a", 0, 1, 1, "a\0", 2, 0);
	put_proc(t, 6, "b", 0, 1, 1, "b\0", 2, 0);
	poll_two(pi, f, 1, &a, &b);
	put_proc(t, 5, "a", tck, 1, 2, "a\0", 2, 0);
	put_proc(t, 6, "b", tck, 1, 2, "b\0", 2, 0);
	poll_two(pi, f, 2, &a, &b); /* the second sample: both rates */
	assert_true(b->cpu_pct > 99.9 && b->cpu_pct < 100.1);

	pidwant_set(w, &five, 1);
	put_proc(t, 5, "a", tck * 3 / 2, 1, 3, "a\0", 2, 0);
	put_proc(t, 6, "b", tck * 3 / 2, 1, 3, "b\0", 2, 0);
	poll_two(pi, f, 3, &a, &b);
	assert_true(a->cpu_pct > 49.9 && a->cpu_pct < 50.1); /* wanted: read */
	assert_int_equal(a->host_mem_bytes, 3 * page);
	assert_true(b->cpu_pct > 99.9 && b->cpu_pct < 100.1); /* not: as it was */
	assert_int_equal(b->host_mem_bytes, 2 * page);
	assert_string_equal(b->name, "b");

	/* A new process is read whatever the set says. */
	put_proc(t, 7, "new", 0, 1, 9, "new\0", 4, 0);
	procinfo_begin(pi, 3500000000ull);
	for (unsigned pid = 5; pid <= 7; pid++) {
		frame_add_process(f);
		procinfo_fill(pi, pid, f, &f->procs[f->nprocs - 1]);
	}
	procinfo_end(pi);
	struct gpu_process *c = &f->procs[f->nprocs - 1];
	assert_string_equal(c->name, "new");
	assert_int_equal(c->host_mem_bytes, 9 * page);

	put_proc(t, 6, "b", tck * 2, 1, 4, "b\0", 2, 0);
	pidwant_all(w);
	poll_two(pi, f, 4, &a, &b); /* wanted again: a rate over the 2 s since its last sample */
	assert_true(b->cpu_pct > 49.9 && b->cpu_pct < 50.1);
	assert_int_equal(b->host_mem_bytes, 4 * page);
	frame_unref(f);
	procinfo_free(pi);
	free_tree(t);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 1; /* ., .. and the directory's own descriptor */
}

static pid_t spawn_sleeper(void)
{
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		for (;;)
			pause();
	}
	return p;
}

static void test_real_proc_held(void **state)
{
	(void)state;
	struct rlimit old, rl;
	pid_t pids[4];
	char comm[64];

	/* A descriptor limit of 11 bounds the held files at 11 / 4 = 2. */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	rl = old;
	rl.rlim_cur = 11;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	for (int i = 0; i < 4; i++)
		pids[i] = spawn_sleeper();
	int before = count_fds();
	struct procinfo *pi = procinfo_new("/proc");
	int base = count_fds(); /* procinfo's /proc directory */
	assert_int_equal(base, before + 1);
	struct frame *f = frame_new();
	struct gpu_process *p[4];
	FILE *cf = fopen("/proc/self/comm", "r");
	assert_non_null(cf);
	assert_non_null(fgets(comm, sizeof(comm), cf));
	fclose(cf);
	comm[strcspn(comm, "\n")] = '\0';

	for (int round = 1; round <= 3; round++) {
		if (round == 3) {
			kill(pids[0], SIGKILL);
			waitpid(pids[0], NULL, 0);
		}
		procinfo_begin(pi, (uint64_t)round * 2000000000ull);
		for (int i = 0; i < 4; i++) {
			frame_add_process(f);
			procinfo_fill(pi, (unsigned)pids[i], f, &f->procs[f->nprocs - 1]);
		}
		procinfo_end(pi);
		/* (The rows once all are added: adding one may move the others.) */
		for (int i = 0; i < 4; i++)
			p[i] = &f->procs[f->nprocs - 4 + (size_t)i];
		for (int i = round == 3 ? 1 : 0; i < 4; i++) {
			assert_true(process_has(p[i], PROC_F_NAME));
			assert_string_equal(p[i]->name, comm);
			assert_true(process_has(p[i], PROC_F_HOST_MEM));
			assert_true(p[i]->host_mem_bytes > 0);
			/* From the second sample on, a CPU rate. */
			assert_int_equal(process_has(p[i], PROC_F_CPU), round > 1);
		}
		/* Two descriptors held, never more; the rest opened each time. */
		assert_int_equal(count_fds(), base + 2);
	}
	/* The killed one's descriptor let go: it answers as gone. */
	assert_int_equal(p[0]->valid, 0);
	frame_unref(f);
	procinfo_free(pi);
	assert_int_equal(count_fds(), before);
	for (int i = 1; i < 4; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
}

/* Only a real procfs is held: a fixture tree's files are replaced, not
 * rewritten, and a held descriptor would keep reading the old one. */
static void test_held_only_on_procfs(void **state)
{
	(void)state;
	struct tree *t = make_tree();
	int fd = open("/proc", O_PATH | O_DIRECTORY);
	assert_true(readfile_is_procfs(fd));
	close(fd);
	fd = open(t->proc, O_PATH | O_DIRECTORY);
	assert_false(readfile_is_procfs(fd));

	char buf[64];
	int held = -1;
	write_at(t->proc, "loadavg", "1.00 0 0 1/1 1\n");
	assert_int_equal(readfile_held(fd, "loadavg", &held, false, buf, sizeof(buf)), 15);
	assert_int_equal(held, -1); /* not kept */
	assert_int_equal(readfile_held(fd, "loadavg", &held, true, buf, sizeof(buf)), 15);
	assert_true(held >= 0);
	/* Kept: read again from the start, without opening it again. */
	assert_int_equal(readfile_held(fd, "loadavg", &held, true, buf, sizeof(buf)), 15);
	assert_string_equal(buf, "1.00 0 0 1/1 1\n");
	/* And a short buffer takes what fits. */
	assert_int_equal(readfile_held(fd, "loadavg", &held, true, buf, 5), 4);
	assert_string_equal(buf, "1.00");
	close(held);
	held = -1;
	assert_true(readfile_held(fd, "nothing-here", &held, true, buf, sizeof(buf)) < 0);
	assert_int_equal(held, -1);
	close(fd);
	free_tree(t);
}

/* A real /bin/sh whose last argument is arg, running until end_sh(): by
 * the time spawn_sh returns it has written a line, so it has exec'd and
 * its /proc/PID/cmdline is final. */
struct sh {
	pid_t pid;
	int in; /* its stdin: closing it ends it */
};

#define SH_ARGV0 "/bin/sh\0-c\0echo; read x\0sh\0" /* its cmdline before arg */

static struct sh spawn_sh(const char *arg)
{
	int in[2], out[2];
	char c;

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execl("/bin/sh", "/bin/sh", "-c", "echo; read x", "sh", arg, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	assert_int_equal(read(out[0], &c, 1), 1);
	close(out[0]);
	return (struct sh){p, in[1]};
}

static void end_sh(struct sh c)
{
	int st;
	close(c.in);
	assert_int_equal(waitpid(c.pid, &st, 0), c.pid);
}

/* The cmdline procinfo reads for pid on the real /proc; the caller frees. */
static char *real_cmdline(pid_t pid)
{
	struct procinfo *pi = procinfo_new("/proc");
	struct frame *f = frame_new();
	struct gpu_process *p = frame_add_process(f);

	procinfo_begin(pi, 1);
	procinfo_fill(pi, (unsigned)pid, f, p);
	procinfo_end(pi);
	assert_true(process_has(p, PROC_F_CMDLINE));
	char *s = strdup(p->cmdline);
	frame_unref(f);
	procinfo_free(pi);
	return s;
}

/* What a cut at len of the full command line (SH_ARGV0 + arg) reads as. */
static char *expected_cut(const char *arg, size_t len)
{
	size_t pre = sizeof(SH_ARGV0) - 1;
	char *s = malloc(len + 1);
	memcpy(s, SH_ARGV0, len < pre ? len : pre);
	memcpy(s + pre, arg, len - pre);
	for (size_t i = 0; i < len; i++)
		if (!s[i])
			s[i] = ' ';
	s[len] = '\0';
	return s;
}

/* The 4 KiB cap on a command line falls inside a 2-, 3- and 4-byte
 * character (each split point), just before and just after one: the cut
 * goes before the character that does not fit, and stays valid UTF-8. */
static void test_real_cmdline_cut_utf8(void **state)
{
	(void)state;
	static const char *const chars[] = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"};
	const size_t pre = sizeof(SH_ARGV0) - 1, cap = PROCESS_CMDLINE_MAX;
	char arg[PROCESS_CMDLINE_MAX + 64];

	for (size_t c = 0; c < 3; c++) {
		size_t clen = strlen(chars[c]);
		/* k: bytes of the character before the cap (0: it starts right at
		 * the cap; clen: it ends there). */
		for (size_t k = 0; k <= clen; k++) {
			size_t start = cap - k; /* the character's offset in the cmdline */
			memset(arg, 'a', start - pre);
			memcpy(arg + start - pre, chars[c], clen);
			strcpy(arg + start - pre + clen, "tail");
			struct sh sh = spawn_sh(arg);
			char *got = real_cmdline(sh.pid);
			end_sh(sh);

			size_t want_len = k == clen ? cap : start;
			char *want = expected_cut(arg, want_len);
			size_t n = strlen(got);
			assert_true(n <= cap);
			assert_int_equal(n, want_len);
			assert_string_equal(got, want);
			for (size_t i = 0; i < n;) {
				uint32_t cp;
				i += utf8_decode(got + i, n - i, &cp);
				assert_int_not_equal(cp, UTF8_REPLACEMENT);
			}
			free(want);
			free(got);
		}
	}
}

/* Invalid UTF-8 across the cap is cut at the cap, as it always was: stray
 * continuation bytes, a bad lead, an overlong lead, a truncated sequence
 * followed by ASCII. */
static void test_real_cmdline_cut_invalid(void **state)
{
	(void)state;
	static const char *const bad[] = {"\x80\x80\x80\x80\x80\x80", "\xFF\xFF\xFF", "\xE0\x80\x80", ("\xE2\x82" "zz")};
	const size_t pre = sizeof(SH_ARGV0) - 1, cap = PROCESS_CMDLINE_MAX;
	char arg[PROCESS_CMDLINE_MAX + 64];

	for (size_t b = 0; b < 4; b++) {
		size_t start = cap - 2;
		memset(arg, 'a', start - pre);
		strcpy(arg + start - pre, bad[b]);
		struct sh sh = spawn_sh(arg);
		char *got = real_cmdline(sh.pid);
		end_sh(sh);
		char *want = expected_cut(arg, cap);
		assert_int_equal(strlen(got), cap);
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
	/* Under the cap, invalid bytes pass as they are (the writers replace them). */
	struct sh sh = spawn_sh("x\xFF\xC3y");
	char *got = real_cmdline(sh.pid);
	end_sh(sh);
	assert_string_equal(got, "/bin/sh -c echo; read x sh x\xFF\xC3y");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_cmdline_user_start),
		cmocka_unit_test(test_cache_and_cpu_rate),
		cmocka_unit_test(test_gone_and_swept),
		cmocka_unit_test(test_sysstat),
		cmocka_unit_test(test_cpu_rate_window),
		cmocka_unit_test(test_attribution_once),
		cmocka_unit_test(test_attribution_unreadable),
		cmocka_unit_test(test_nspid),
		cmocka_unit_test(test_real_proc_held),
		cmocka_unit_test(test_held_only_on_procfs),
		cmocka_unit_test(test_want_only_some),
		cmocka_unit_test(test_real_cmdline_cut_utf8),
		cmocka_unit_test(test_real_cmdline_cut_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
