/* test_proctree: a GPU process's parents for the tree view. From procfs
 * fixtures: the walk stops at a container's init (NSpid ending in 1), at
 * PID 1, at an entry that cannot be read (kept, name unknown), at a loop
 * and at the depth bound; procinfo walks a chain once per process and
 * again only when its parent changes. On the real /proc: a grandchild of
 * the test has its parent and the test among its parents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc/procinfo.h"
#include "proc/proctree.h"
#include "util/readfile.h"
#include "testutil.h"

static void write_at(const char *dir, const char *rel, const char *s)
{
	char *p = testutil_path(dir, rel);
	testutil_write_str(p, s);
	free(p);
}

/* /proc/PID with stat (comm, parent, start time) and status (NSpid). */
static void put(const char *proc, unsigned pid, const char *comm, unsigned ppid, const char *nspid)
{
	char rel[32], buf[1024];
	snprintf(rel, sizeof(rel), "%u", pid);
	char *dir = testutil_path(proc, rel);
	mkdir(dir, 0755);
	snprintf(buf, sizeof(buf), "%u (%s) S %u %u %u 0 -1 4194560 100 0 0 0 10 10 0 0 20 0 1 0 5000 123456 100 184467 0 0 0\n",
		 pid, comm, ppid, pid, pid);
	write_at(dir, "stat", buf);
	snprintf(buf, sizeof(buf), "Name:\t%s\nUid:\t0\t0\t0\t0\nNSpid:\t%s\n", comm, nspid ? nspid : rel);
	write_at(dir, "status", buf);
	write_at(dir, "cmdline", comm);
	free(dir);
}

struct fx {
	char *root, *proc;
	int fd;
};

static struct fx *fx_new(void)
{
	struct fx *x = calloc(1, sizeof(*x));
	x->root = testutil_tmpdir();
	x->proc = testutil_path(x->root, "proc");
	mkdir(x->proc, 0755);
	write_at(x->proc, "stat", "cpu  100 0 100 800 0 0 0 0 0 0\nbtime 1700000000\n");
	x->fd = readfile_opendir(x->proc);
	return x;
}

static void fx_free(struct fx *x)
{
	if (x->fd >= 0)
		close(x->fd);
	testutil_rmtree(x->root);
	free(x->root);
	free(x->proc);
	free(x);
}

static void test_parse_stat(void **state)
{
	(void)state;
	char comm[16];
	unsigned ppid = 0;
	const char *s = "4242 (we) ird (nam) R 77 4242 4242 0 -1 0\n";
	assert_true(proctree_parse_stat(s, strlen(s), comm, sizeof(comm), &ppid));
	assert_string_equal(comm, "we) ird (nam");
	assert_int_equal(ppid, 77);
	/* A comm cut to the buffer, not past it. */
	assert_true(proctree_parse_stat(s, strlen(s), comm, 4, &ppid));
	assert_string_equal(comm, "we)");
	const char *bad[] = {"", "4242 no parens S 1", "4242 (x)", "4242 (x) S", "4242 (x) S -3 1", "4242 (x) S 99999999999 1",
			     "4242 )x( S 1 2"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(proctree_parse_stat(bad[i], strlen(bad[i]), comm, sizeof(comm), &ppid));
}

/* python in a container: its parents end at the container's init (tini,
 * pid 1 inside), not at the shim or the host's PID 1. */
static void test_stops_at_container_init(void **state)
{
	(void)state;
	struct fx *x = fx_new();
	put(x->proc, 1, "systemd", 0, NULL);
	put(x->proc, 200, "containerd-shim", 1, NULL);
	put(x->proc, 300, "tini", 200, "300\t1");
	put(x->proc, 400, "torchrun", 300, "400\t7");
	put(x->proc, 500, "python3", 400, "500\t9");
	struct proctree_node n[PROCTREE_MAX];
	size_t k = proctree_walk(x->fd, x->proc, 400, n, PROCTREE_MAX);
	assert_int_equal(k, 2);
	assert_int_equal(n[0].pid, 400);
	assert_string_equal(n[0].name, "torchrun");
	assert_int_equal(n[1].pid, 300);
	assert_string_equal(n[1].name, "tini");
	/* The same through a path instead of a directory descriptor. */
	assert_int_equal(proctree_walk(-1, x->proc, 400, n, PROCTREE_MAX), 2);
	fx_free(x);
}

static void test_stops_at_pid1_gone_loop_depth(void **state)
{
	(void)state;
	struct fx *x = fx_new();
	struct proctree_node n[PROCTREE_MAX];
	put(x->proc, 1, "init", 0, NULL);
	put(x->proc, 10, "sshd", 1, NULL);
	put(x->proc, 20, "bash", 10, NULL);
	size_t k = proctree_walk(x->fd, x->proc, 20, n, PROCTREE_MAX);
	assert_int_equal(k, 3);
	assert_int_equal(n[2].pid, 1);
	assert_string_equal(n[2].name, "init");
	assert_true(n[2].name_known);

	/* A parent with no /proc entry: kept, its name unknown, the end. */
	put(x->proc, 30, "orphan", 999, NULL);
	k = proctree_walk(x->fd, x->proc, 30, n, PROCTREE_MAX);
	assert_int_equal(k, 2);
	assert_int_equal(n[1].pid, 999);
	assert_false(n[1].name_known);
	assert_string_equal(n[1].name, "");

	/* A garbage stat reads as unreadable too. */
	char *d = testutil_path(x->proc, "40");
	mkdir(d, 0755);
	write_at(d, "stat", "40 (x");
	free(d);
	put(x->proc, 41, "child", 40, NULL);
	assert_int_equal(proctree_walk(x->fd, x->proc, 41, n, PROCTREE_MAX), 2);
	assert_false(n[1].name_known);

	/* A loop (only a hostile tree has one) ends the walk. */
	put(x->proc, 50, "a", 51, NULL);
	put(x->proc, 51, "b", 50, NULL);
	assert_int_equal(proctree_walk(x->fd, x->proc, 50, n, PROCTREE_MAX), 2);

	/* A chain deeper than the bound is cut there. */
	for (unsigned p = 100; p < 140; p++)
		put(x->proc, p, "deep", p + 1, NULL);
	put(x->proc, 140, "top", 1, NULL);
	assert_int_equal(proctree_walk(x->fd, x->proc, 100, n, PROCTREE_MAX), PROCTREE_MAX);
	assert_int_equal(n[PROCTREE_MAX - 1].pid, 100 + PROCTREE_MAX - 1);
	assert_int_equal(proctree_walk(x->fd, x->proc, 0, n, PROCTREE_MAX), 0);
	fx_free(x);
}

/* procinfo gives a row its parents, walks once per process, and again
 * when the parent changes (its parent died: reparented to PID 1). */
static void test_procinfo_walks_once(void **state)
{
	(void)state;
	struct fx *x = fx_new();
	put(x->proc, 1, "init", 0, NULL);
	put(x->proc, 10, "launcher", 1, NULL);
	put(x->proc, 20, "worker", 10, NULL);
	struct procinfo *pi = procinfo_new(x->proc);
	uint64_t now = 1000000000ull;
	for (int poll = 0; poll < 3; poll++, now += 2000000000ull) {
		struct frame *f = frame_new();
		struct gpu_process *p = frame_add_process(f);
		procinfo_begin(pi, now);
		assert_true(procinfo_fill(pi, 20, f, p));
		procinfo_end(pi);
		assert_int_equal(p->nparents, 2);
		assert_int_equal(p->parents[0].pid, 10);
		assert_string_equal(p->parents[0].name, "launcher");
		assert_int_equal(p->parents[1].pid, 1);
		/* The row's copy is the frame's own. */
		struct frame *g = frame_new();
		frame_copy(g, f);
		frame_unref(f);
		assert_int_equal(g->procs[0].nparents, 2);
		assert_string_equal(g->procs[0].parents[0].name, "launcher");
		frame_unref(g);
	}
	assert_int_equal(procinfo_tree_walks(pi), 1);
	put(x->proc, 20, "worker", 1, NULL); /* reparented */
	struct frame *f = frame_new();
	struct gpu_process *p = frame_add_process(f);
	procinfo_begin(pi, now);
	procinfo_fill(pi, 20, f, p);
	procinfo_end(pi);
	assert_int_equal(procinfo_tree_walks(pi), 2);
	assert_int_equal(p->nparents, 1);
	assert_int_equal(p->parents[0].pid, 1);
	frame_unref(f);
	procinfo_free(pi);
	fx_free(x);
}

/* A container's init shows no parents: its tree ends with it (a shim and
 * the host above it are not the container's). One of its children stops
 * at it. */
static void test_procinfo_container_init(void **state)
{
	(void)state;
	struct fx *x = fx_new();
	put(x->proc, 1, "systemd", 0, NULL);
	put(x->proc, 200, "containerd-shim", 1, NULL);
	put(x->proc, 300, "tritonserver", 200, "300\t1");
	put(x->proc, 310, "python3", 300, "310\t5");
	struct procinfo *pi = procinfo_new(x->proc);
	struct frame *f = frame_new();
	struct gpu_process *p = frame_add_process(f), *q = frame_add_process(f);
	procinfo_begin(pi, 1000000000ull);
	assert_true(procinfo_fill(pi, 300, f, p));
	assert_true(procinfo_fill(pi, 310, f, q));
	procinfo_end(pi);
	assert_true(process_has(p, PROC_F_CONTAINER_PID));
	assert_int_equal(p->container_pid, 1);
	assert_int_equal(p->nparents, 0);
	assert_int_equal(q->nparents, 1);
	assert_int_equal(q->parents[0].pid, 300);
	frame_unref(f);
	procinfo_free(pi);
	fx_free(x);
}

/* With the tree off (every mode but the dashboard) no parent is walked
 * and rows say they have none; the rest of the row is filled as ever. */
static void test_procinfo_tree_off(void **state)
{
	(void)state;
	struct fx *x = fx_new();
	put(x->proc, 1, "init", 0, NULL);
	put(x->proc, 10, "launcher", 1, NULL);
	put(x->proc, 20, "worker", 10, NULL);
	struct procinfo *pi = procinfo_new(x->proc);
	procinfo_set_tree(pi, false);
	uint64_t now = 1000000000ull;
	for (int poll = 0; poll < 2; poll++, now += 2000000000ull) {
		struct frame *f = frame_new();
		struct gpu_process *p = frame_add_process(f);
		procinfo_begin(pi, now);
		assert_true(procinfo_fill(pi, 20, f, p));
		procinfo_end(pi);
		assert_int_equal(p->nparents, 0);
		assert_true(process_has(p, PROC_F_NAME));
		assert_string_equal(p->name, "worker");
		frame_unref(f);
	}
	assert_int_equal(procinfo_tree_walks(pi), 0);
	procinfo_free(pi);
	fx_free(x);
}

/* On the real /proc: a grandchild's parents are its parent, then us. */
static void test_real_grandchild(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pid_t g = fork();
		if (g == 0) {
			for (;;)
				pause();
		}
		if (write(fds[1], &g, sizeof(g)) != (ssize_t)sizeof(g))
			_exit(1);
		waitpid(g, NULL, 0);
		_exit(0);
	}
	pid_t g;
	assert_int_equal(read(fds[0], &g, sizeof(g)), (ssize_t)sizeof(g));
	close(fds[0]);
	close(fds[1]);
	struct procinfo *pi = procinfo_new("/proc");
	struct frame *f = frame_new();
	struct gpu_process *p = frame_add_process(f);
	procinfo_begin(pi, 1000000000ull);
	assert_true(procinfo_fill(pi, (unsigned)g, f, p));
	procinfo_end(pi);
	assert_true(p->nparents >= 2);
	assert_int_equal(p->parents[0].pid, (uint64_t)child);
	assert_int_equal(p->parents[1].pid, (uint64_t)getpid());
	assert_non_null(p->parents[1].name);
	frame_unref(f);
	procinfo_free(pi);
	kill(g, SIGKILL);
	waitpid(child, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_stops_at_container_init),
		cmocka_unit_test(test_stops_at_pid1_gone_loop_depth),
		cmocka_unit_test(test_procinfo_walks_once),
		cmocka_unit_test(test_procinfo_container_init),
		cmocka_unit_test(test_procinfo_tree_off),
		cmocka_unit_test(test_real_grandchild),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
