/* test_procinfo_names: container names reach every process of a container
 * alike. A process whose container has no name yet asks the name cache
 * again at each poll (in memory), so a name that appears after the process
 * was first seen (a config written late, a kubelet log link made after the
 * container started) reaches it once the cache reads the node again
 * (CNAMES_RETRY_MS), together with every other process of that container;
 * between those reads no file is read; a named container is never asked
 * again. A Kubernetes container under the cgroupfs driver, whose path names
 * no runtime, is "k8s:" unless the node's directories name Docker,
 * containerd or CRI-O, and its log link names it either way. Procfs and
 * rootfs are fixture trees made here. */
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

/* A process whose cgroup file is text, in procfs proc. */
static void put_proc_cg(const char *proc, unsigned pid, const char *cgroup)
{
	char rel[32];
	put_proc(proc, pid, 100);
	snprintf(rel, sizeof(rel), "%u/cgroup", pid);
	write_at(proc, rel, cgroup);
}

/* dir/rel made, with every directory on the way. */
static void mkdirs_at(const char *dir, const char *rel)
{
	char *p = testutil_path(dir, rel);
	for (char *s = p + strlen(dir) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(p);
}

#define UID_B "ccd0a30e-12e9-4cab-a4ff-9124262dfbee"
#define KID(n) n "00000000000000000000000000000000000000000000000000000000000000"

static const struct {
	unsigned pid;
	const char *id, *dirs[2], *container, *name;
} CRI_CASES[] = {
	{2001, KID("01"), {"var/lib/docker/containers/"}, "docker:010000000000", NULL},
	{2002, KID("02"), {"run/containerd/io.containerd.runtime.v2.task/k8s.io/"}, "containerd:020000000000", NULL},
	{2003, KID("03"), {"run/containers/storage/overlay-containers/"}, "crio:030000000000", "llm"},
	{2004, KID("04"), {"var/lib/containers/storage/overlay-containers/"}, "crio:040000000000", NULL},
	/* Two runtimes name one id: Docker, then containerd, win over CRI-O. */
	{2005, KID("05"), {"var/lib/containers/storage/overlay-containers/", "var/lib/docker/containers/"},
	 "docker:050000000000", NULL},
	{2006, KID("06"), {"run/containers/storage/overlay-containers/",
			   "run/containerd/io.containerd.runtime.v2.task/k8s.io/"},
	 "containerd:060000000000", NULL},
	/* Nothing names the runtime: "k8s:", named by its log link. */
	{2007, KID("07"), {NULL}, "k8s:070000000000", "trainer"},
};

/* Polls every CRI_CASES pid once at now_ns and checks its container, pod
 * and names. */
static void poll_cri(struct procinfo *pi, uint64_t now_ns, bool names)
{
	struct frame *f = frame_new();

	procinfo_begin(pi, now_ns);
	for (size_t i = 0; i < sizeof(CRI_CASES) / sizeof(CRI_CASES[0]); i++) {
		struct gpu_process *p = frame_add_process(f);
		assert_true(procinfo_fill(pi, CRI_CASES[i].pid, f, p));
		assert_true(process_has(p, PROC_F_CONTAINER));
		assert_true(process_has(p, PROC_F_POD));
		assert_string_equal(p->pod, UID_B);
		char k8s[32];
		snprintf(k8s, sizeof(k8s), "k8s:%.12s", CRI_CASES[i].id);
		const char *want = names ? CRI_CASES[i].container : k8s;
		if (strcmp(p->container, want) != 0)
			fail_msg("pid %u: container '%s', expected '%s'", CRI_CASES[i].pid, p->container, want);
		if (names && CRI_CASES[i].name) {
			assert_true(process_has(p, PROC_F_CONTAINER_NAME));
			assert_string_equal(p->container_name, CRI_CASES[i].name);
			assert_string_equal(p->pod_name, "train-0");
			assert_string_equal(p->pod_namespace, "research");
		} else if (names) {
			assert_false(process_has(p, PROC_F_CONTAINER_NAME));
		}
	}
	procinfo_end(pi);
	frame_unref(f);
}

static void test_cgroupfs_kubernetes_runtime(void **state)
{
	(void)state;
	char *root = testutil_tmpdir();
	char *proc = mkdir_at(root, "proc"), rel[512], cg[512];
	write_at(proc, "stat", "cpu  100 0 100 800 0 0 0 0 0 0\nbtime 1700000000\n");
	mkdirs_at(root, "var/log/containers");
	static const char *const qos[] = {"/burstable", "", "/besteffort"};
	for (size_t i = 0; i < sizeof(CRI_CASES) / sizeof(CRI_CASES[0]); i++) {
		for (size_t k = 0; k < 2 && CRI_CASES[i].dirs[k]; k++) {
			snprintf(rel, sizeof(rel), "%s%s", CRI_CASES[i].dirs[k], CRI_CASES[i].id);
			mkdirs_at(root, rel);
		}
		if (CRI_CASES[i].name) {
			snprintf(rel, sizeof(rel), "var/log/containers/train-0_research_%s-%s.log", CRI_CASES[i].name,
				 CRI_CASES[i].id);
			write_at(root, rel, "");
		}
		/* Every QoS class, on cgroup v2 and v1 lines in turn. */
		snprintf(cg, sizeof(cg), "%s:/kubepods%s/pod" UID_B "/%s\n", i % 2 ? "4:memory" : "0:",
			 qos[i % 3], CRI_CASES[i].id);
		put_proc_cg(proc, CRI_CASES[i].pid, cg);
	}

	struct procinfo *pi = procinfo_new(proc);
	procinfo_set_rootfs(pi, root);
	/* The same on later polls: the runtime is looked for once. */
	for (uint64_t s = 1; s <= 3; s++)
		poll_cri(pi, s * SEC, true);
	procinfo_free(pi);
	/* No node files to read (no --rootfs names): every row is "k8s:". */
	pi = procinfo_new(proc);
	poll_cri(pi, SEC, false);
	procinfo_free(pi);

	testutil_rmtree(root);
	free(proc);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_late_name_reaches_every_process),
		cmocka_unit_test(test_cgroupfs_kubernetes_runtime),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
