/* test_procinfo_names: container names reach every process of a container
 * alike. A process whose container has no name yet asks the name cache
 * again at each poll (in memory), so a name that appears after the process
 * was first seen (a config written late, a kubelet log link made after the
 * container started) reaches it once the cache reads the node again
 * (CNAMES_RETRY_MS), together with every other process of that container;
 * between those reads no file is read; a named container is never asked
 * again. Procfs and rootfs are fixture trees made here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc/cnames.h"
#include "proc/procinfo.h"
#include "testutil.h"

#define ID "05cff94700561b2ad0c8e1c6c7e4b5f3a9d0e2c4b6a8f0e1d2c3b4a5f6e7d8c9"
#define SEC 1000000000ull

static void write_at(const char *dir, const char *rel, const char *s)
{
	char *p = testutil_path(dir, rel);
	testutil_write_str(p, s);
	free(p);
}

static char *mkdir_at(const char *dir, const char *rel)
{
	char *p = testutil_path(dir, rel);
	assert_int_equal(mkdir(p, 0755), 0);
	return p;
}

/* A process of the Docker container ID (systemd driver, cgroup v2). */
static void put_proc(const char *proc, unsigned pid, unsigned long long start)
{
	char rel[32], buf[512];
	snprintf(rel, sizeof(rel), "%u", pid);
	char *dir = mkdir_at(proc, rel);
	snprintf(buf, sizeof(buf),
		 "%u (python3) S 1 %u %u 0 -1 4194560 100 0 0 0 10 10 0 0 20 0 1 0 %llu 123456 100 184467 0 0 0\n",
		 pid, pid, pid, start);
	write_at(dir, "stat", buf);
	write_at(dir, "cmdline", "python3");
	write_at(dir, "status", "Name:\tpython3\nUid:\t0\t0\t0\t0\n");
	write_at(dir, "cgroup", "0::/system.slice/docker-" ID ".scope\n");
	free(dir);
}

struct poll_result {
	bool known[2];
	char name[2][64];
};

/* One poll at now_ns of pids 1001 and 1002 (when there). */
static struct poll_result poll_at(struct procinfo *pi, uint64_t now_ns, int nprocs)
{
	struct poll_result r;
	struct frame *f = frame_new();

	memset(&r, 0, sizeof(r));
	procinfo_begin(pi, now_ns);
	for (int i = 0; i < nprocs; i++) {
		struct gpu_process *p = frame_add_process(f);
		assert_true(procinfo_fill(pi, 1001u + (unsigned)i, f, p));
		assert_true(process_has(p, PROC_F_CONTAINER));
		assert_string_equal(p->container, "docker:05cff9470056");
		r.known[i] = process_has(p, PROC_F_CONTAINER_NAME);
		if (r.known[i])
			snprintf(r.name[i], sizeof(r.name[i]), "%s", p->container_name);
	}
	procinfo_end(pi);
	frame_unref(f);
	return r;
}

static void test_late_name_reaches_every_process(void **state)
{
	(void)state;
	char *root = testutil_tmpdir();
	char *proc = mkdir_at(root, "proc");
	write_at(proc, "stat", "cpu  100 0 100 800 0 0 0 0 0 0\nbtime 1700000000\n");
	char *var = mkdir_at(root, "var"), *lib = mkdir_at(var, "lib"), *docker = mkdir_at(lib, "docker");
	char *containers = mkdir_at(docker, "containers"), *cdir = mkdir_at(containers, ID);
	put_proc(proc, 1001, 100);

	struct procinfo *pi = procinfo_new(proc);
	procinfo_set_rootfs(pi, root);

	/* Seen before its container has a config: no name. */
	struct poll_result r = poll_at(pi, 1 * SEC, 1);
	assert_false(r.known[0]);
	unsigned long reads = procinfo_name_reads(pi);
	assert_true(reads >= 1);

	/* The config appears; a second process of the container starts. Until
	 * the cache may read the node again, neither has the name, and no
	 * file is read: the two agree. */
	write_at(cdir, "config.v2.json", "{\"ID\":\"" ID "\",\"Name\":\"/late-name\"}");
	put_proc(proc, 1002, 500);
	for (uint64_t s = 2; s < 60; s += 7) {
		r = poll_at(pi, s * SEC, 2);
		assert_false(r.known[0]);
		assert_false(r.known[1]);
	}
	assert_int_equal(procinfo_name_reads(pi), reads);

	/* Past CNAMES_RETRY_MS: one read, and both processes have the name. */
	r = poll_at(pi, 1 * SEC + (uint64_t)CNAMES_RETRY_MS * 1000000u + SEC, 2);
	assert_true(r.known[0]);
	assert_true(r.known[1]);
	assert_string_equal(r.name[0], "late-name");
	assert_string_equal(r.name[1], "late-name");
	unsigned long after = procinfo_name_reads(pi);
	assert_true(after > reads);

	/* Named: never asked again, whatever the files say. */
	write_at(cdir, "config.v2.json", "{\"ID\":\"" ID "\",\"Name\":\"/renamed\"}");
	for (uint64_t s = 200; s < 400; s += 61) {
		r = poll_at(pi, s * SEC, 2);
		assert_string_equal(r.name[0], "late-name");
		assert_string_equal(r.name[1], "late-name");
	}
	assert_int_equal(procinfo_name_reads(pi), after);

	procinfo_free(pi);
	testutil_rmtree(root);
	free(cdir);
	free(containers);
	free(docker);
	free(lib);
	free(var);
	free(proc);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_late_name_reaches_every_process),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
