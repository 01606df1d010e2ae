/* test_group: keys and labels per mode, the sums (unknown when a
 * member's value is), the GPU sets, the order of groups and the filter that
 * opens one group. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/frame.h"
#include "model/group.h"
#include "testutil.h"

#define GIB 1073741824.0L

static struct gpu_process *add(struct frame *f, uint64_t pid, uint64_t gpu, const char *user, long double mem)
{
	struct gpu_process *p = frame_add_process(f);

	assert_non_null(p);
	p->pid = pid;
	p->gpu_index = gpu;
	process_set(p, PROC_F_PID);
	process_set(p, PROC_F_GPU_INDEX);
	if (user) {
		p->user = frame_str(f, user);
		process_set(p, PROC_F_USER);
	}
	if (mem >= 0) {
		p->gpu_mem_bytes = mem;
		process_set(p, PROC_F_GPU_MEM);
	}
	return p;
}

static void set(struct frame *f, struct gpu_process *p, enum process_field b, const char *s)
{
	testutil_proc_str(f, p, b, s);
}

static void util(struct gpu_process *p, long double v)
{
	p->gpu_util_pct = v;
	process_set(p, PROC_F_GPU_UTIL);
}

/* The attribution recording's frame: a pod with one container on two GPUs
 * (pids 10, 11), a Docker container (12), a Slurm job (13), nobody's (14). */
static struct frame *attribution(void)
{
	struct frame *f = frame_new();

	for (int i = 0; i < 2; i++)
		assert_non_null(frame_add_gpu(f));
	for (uint64_t pid = 10; pid <= 11; pid++) {
		struct gpu_process *p = add(f, pid, pid - 10, "alice", GIB);
		set(f, p, PROC_F_CONTAINER, "containerd:184c8653db58");
		set(f, p, PROC_F_CONTAINER_NAME, "trainer");
		set(f, p, PROC_F_POD, "ccd0a30e-12e9-4cab-a4ff-9124262dfbee");
		set(f, p, PROC_F_POD_NAME, "ddp-0");
		set(f, p, PROC_F_POD_NAMESPACE, "ml");
		util(p, 40);
	}
	struct gpu_process *p = add(f, 12, 1, "bob", 2 * GIB);
	set(f, p, PROC_F_CONTAINER, "docker:05cff9470056");
	set(f, p, PROC_F_CONTAINER_NAME, "notebook");
	util(p, 7.5);
	p = add(f, 13, 0, "carol", 4194304);
	set(f, p, PROC_F_CONTAINER, "slurm:4242");
	set(f, p, PROC_F_UNIT, "slurmstepd.scope");
	util(p, 1);
	p = add(f, 14, 0, "root", -1); /* its memory unknown */
	util(p, 0);
	return f;
}

static size_t all_rows(const struct frame *f, size_t *rows)
{
	for (size_t i = 0; i < f->nprocs; i++)
		rows[i] = i;
	return f->nprocs;
}

static const char *label_of(const struct frame *f, const struct group *grp, enum group_by by)
{
	static char buf[GROUP_KEY_MAX];

	group_label(&f->procs[grp->first], by, buf, sizeof(buf));
	return buf;
}

/* "label:count ..." of g, in order. */
static const char *summary(const struct frame *f, const struct grouping *g, enum group_by by)
{
	static char out[1024];
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < g->ngroups; i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s:%zu", i ? " " : "",
					label_of(f, &g->groups[i], by), g->groups[i].nprocs);
	return out;
}

static void test_modes(void **state)
{
	(void)state;
	struct frame *f = attribution();
	struct grouping g;
	size_t rows[8], n = all_rows(f, rows);

	group_init(&g);
	group_build(&g, f, rows, n, GROUP_BY_NONE, GROUP_SORT_MEM, false);
	assert_int_equal(g.ngroups, 0);
	/* GPU memory descending; the unknown sum (root's) after the known ones,
	 * "(none)" last of all. */
	group_build(&g, f, rows, n, GROUP_BY_CONTAINER, GROUP_SORT_MEM, false);
	assert_string_equal(summary(f, &g, GROUP_BY_CONTAINER), "notebook:1 trainer:2 slurm:4242:1 (none):1");
	group_build(&g, f, rows, n, GROUP_BY_POD, GROUP_SORT_MEM, false);
	assert_string_equal(summary(f, &g, GROUP_BY_POD), "ml/ddp-0:2 (none):3");
	group_build(&g, f, rows, n, GROUP_BY_JOB, GROUP_SORT_MEM, false);
	assert_string_equal(summary(f, &g, GROUP_BY_JOB), "slurm:4242:1 (none):4");
	group_build(&g, f, rows, n, GROUP_BY_USER, GROUP_SORT_MEM, false);
	assert_string_equal(summary(f, &g, GROUP_BY_USER), "alice:2 bob:1 carol:1 root:1");
	/* Reversed: the smallest first, unknown still last. */
	group_build(&g, f, rows, n, GROUP_BY_USER, GROUP_SORT_MEM, true);
	assert_string_equal(summary(f, &g, GROUP_BY_USER), "carol:1 alice:2 bob:1 root:1");
	/* By a count (PID) and by name (USER). */
	group_build(&g, f, rows, n, GROUP_BY_USER, GROUP_SORT_PROCS, false);
	assert_string_equal(summary(f, &g, GROUP_BY_USER), "alice:2 bob:1 carol:1 root:1");
	/* "(none)" stays last even when its count is the largest. */
	group_build(&g, f, rows, n, GROUP_BY_JOB, GROUP_SORT_PROCS, false);
	assert_string_equal(summary(f, &g, GROUP_BY_JOB), "slurm:4242:1 (none):4");
	group_build(&g, f, rows, n, GROUP_BY_USER, GROUP_SORT_LABEL, true);
	assert_string_equal(summary(f, &g, GROUP_BY_USER), "root:1 carol:1 bob:1 alice:2");
	group_build(&g, f, rows, n, GROUP_BY_USER, GROUP_SORT_UTIL, false);
	assert_string_equal(summary(f, &g, GROUP_BY_USER), "alice:2 bob:1 carol:1 root:1");
	group_fini(&g);
	group_fini(&g); /* twice is harmless */
	frame_unref(f);
}

static void test_sums(void **state)
{
	(void)state;
	struct frame *f = attribution();
	struct grouping g;
	size_t rows[8], n = all_rows(f, rows);
	char gpus[64];

	group_init(&g);
	group_build(&g, f, rows, n, GROUP_BY_POD, GROUP_SORT_MEM, false);
	assert_int_equal(g.ngroups, 2);
	const struct group *pod = &g.groups[0], *none = &g.groups[1];
	assert_true(pod->mem_known);
	assert_true(pod->mem_bytes == 2 * GIB);
	assert_true(pod->util_known);
	assert_true(pod->util_pct == 80);
	assert_int_equal(pod->ngpus, 2);
	group_gpus(pod, gpus, sizeof(gpus));
	assert_string_equal(gpus, "0,1");
	/* 12 (2 GiB), 13 (4 MiB), 14 (unknown): the sum is unknown, not 2 GiB + 4 MiB. */
	assert_int_equal(none->nprocs, 3);
	assert_false(none->mem_known);
	assert_int_equal(none->nmem_unknown, 1);
	assert_true(none->util_known);
	assert_true(none->util_pct == 8.5L);
	assert_int_equal(none->ngpus, 2);
	group_fini(&g);
	frame_unref(f);
}

static void test_labels_and_keys(void **state)
{
	(void)state;
	struct frame *f = frame_new();
	char buf[GROUP_KEY_MAX], key[GROUP_KEY_MAX], key2[GROUP_KEY_MAX];

	assert_non_null(frame_add_gpu(f));
	/* A container without a name shows its id; a pod without a container
	 * shows as "pod ns/name" under container; a bare unit as itself. */
	struct gpu_process *a = add(f, 1, 0, NULL, 1);
	set(f, a, PROC_F_CONTAINER, "docker:1a2b3c4d5e6f");
	struct gpu_process *b = add(f, 2, 0, NULL, 1);
	set(f, b, PROC_F_POD, "uid-1");
	set(f, b, PROC_F_POD_NAME, "web");
	set(f, b, PROC_F_POD_NAMESPACE, "prod");
	struct gpu_process *c = add(f, 3, 0, NULL, 1);
	set(f, c, PROC_F_UNIT, "session-4.scope");
	struct gpu_process *d = add(f, 4, 0, NULL, 1);
	set(f, d, PROC_F_POD, "uid-2"); /* a pod known by its uid only */

	group_label(a, GROUP_BY_CONTAINER, buf, sizeof(buf));
	assert_string_equal(buf, "docker:1a2b3c4d5e6f");
	group_label(b, GROUP_BY_CONTAINER, buf, sizeof(buf));
	assert_string_equal(buf, "pod prod/web");
	/* A login session (a unit alone) has no container: the "(none)" row. */
	group_label(c, GROUP_BY_CONTAINER, buf, sizeof(buf));
	assert_string_equal(buf, GROUP_NONE_LABEL);
	assert_false(group_key(c, GROUP_BY_CONTAINER, key2));
	group_label(b, GROUP_BY_POD, buf, sizeof(buf));
	assert_string_equal(buf, "prod/web");
	group_label(d, GROUP_BY_POD, buf, sizeof(buf));
	assert_string_equal(buf, "uid-2");
	group_label(a, GROUP_BY_POD, buf, sizeof(buf));
	assert_string_equal(buf, GROUP_NONE_LABEL);
	group_label(a, GROUP_BY_USER, buf, sizeof(buf));
	assert_string_equal(buf, GROUP_NONE_LABEL);
	/* A short buffer: cut, terminated. */
	group_label(b, GROUP_BY_CONTAINER, buf, 6);
	assert_string_equal(buf, "pod p");

	assert_true(group_key(a, GROUP_BY_CONTAINER, key));
	assert_false(group_key(a, GROUP_BY_JOB, key2));
	assert_string_equal(key2, "");
	/* A container id never equals a user of the same spelling. */
	struct gpu_process *e = add(f, 5, 0, "docker:1a2b3c4d5e6f", 1);
	assert_true(group_key(e, GROUP_BY_USER, key2));
	assert_string_not_equal(key, key2);
	/* Unknown strings count as absent even when the pointer is set. */
	e->valid &= ~(UINT64_C(1) << PROC_F_USER);
	assert_false(group_key(e, GROUP_BY_USER, key2));

	assert_string_equal(group_name(GROUP_BY_JOB), "job");
	assert_string_equal(group_name((enum group_by)99), "?");
	assert_int_equal(group_by_name("pod", 3), GROUP_BY_POD);
	assert_int_equal(group_by_name("po", 2), -1);
	frame_unref(f);
}

static void test_filter_opens_a_group(void **state)
{
	(void)state;
	struct frame *f = attribution();
	size_t rows[8], n = all_rows(f, rows);
	char key[GROUP_KEY_MAX];

	group_key(&f->procs[0], GROUP_BY_CONTAINER, key);
	n = group_filter(f, rows, n, GROUP_BY_CONTAINER, key);
	assert_int_equal(n, 2);
	assert_int_equal(f->procs[rows[0]].pid, 10);
	assert_int_equal(f->procs[rows[1]].pid, 11);
	/* The "(none)" group opens too. */
	n = all_rows(f, rows);
	n = group_filter(f, rows, n, GROUP_BY_JOB, "");
	assert_int_equal(n, 4);
	frame_unref(f);
}

/* A Kubernetes container whose runtime no file names ("k8s:<12 hex>") is a
 * container like any other: grouped by its id under container (not folded
 * into its pod), by its pod under pod, no job; a group of it opens. */
static void test_k8s_container(void **state)
{
	(void)state;
	struct frame *f = frame_new();
	struct grouping g;
	size_t rows[8], n;
	char key[GROUP_KEY_MAX];

	assert_non_null(frame_add_gpu(f));
	static const struct {
		uint64_t pid;
		const char *container;
	} rs[] = {{20, "k8s:184c8653db58"}, {21, "k8s:184c8653db58"}, {22, "k8s:d8c32f2c636c"}};
	for (size_t i = 0; i < 3; i++) {
		struct gpu_process *p = add(f, rs[i].pid, 0, "alice", GIB * (long double)(3 - i));
		set(f, p, PROC_F_CONTAINER, rs[i].container);
		set(f, p, PROC_F_POD, "ccd0a30e-12e9-4cab-a4ff-9124262dfbee");
	}
	n = all_rows(f, rows);
	group_init(&g);
	group_build(&g, f, rows, n, GROUP_BY_CONTAINER, GROUP_SORT_MEM, false);
	assert_string_equal(summary(f, &g, GROUP_BY_CONTAINER), "k8s:184c8653db58:2 k8s:d8c32f2c636c:1");
	group_build(&g, f, rows, n, GROUP_BY_POD, GROUP_SORT_MEM, false);
	assert_string_equal(summary(f, &g, GROUP_BY_POD), "ccd0a30e-12e9-4cab-a4ff-9124262dfbee:3");
	group_build(&g, f, rows, n, GROUP_BY_JOB, GROUP_SORT_MEM, false);
	assert_string_equal(summary(f, &g, GROUP_BY_JOB), "(none):3");
	group_fini(&g);
	assert_true(group_key(&f->procs[0], GROUP_BY_CONTAINER, key));
	assert_int_equal(key[0], 'c');
	n = group_filter(f, rows, n, GROUP_BY_CONTAINER, key);
	assert_int_equal(n, 2);
	assert_int_equal(f->procs[rows[0]].pid, 20);
	assert_int_equal(f->procs[rows[1]].pid, 21);
	frame_unref(f);
}

static void test_gpu_ranges(void **state)
{
	(void)state;
	struct group grp;
	char buf[64];

	memset(&grp, 0, sizeof(grp));
	group_gpus(&grp, buf, sizeof(buf));
	assert_string_equal(buf, "--");
	for (unsigned i = 0; i < 4; i++)
		grp.gpus[0] |= 1u << i;
	grp.gpus[0] |= 1u << 6;
	grp.gpus[1] |= 1u << 1; /* GPU 33 */
	group_gpus(&grp, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,6,33");
	group_gpus(&grp, buf, 6);
	assert_string_equal(buf, "0-3+");
}

/* Many rows, many groups: every row lands in the group of its key. */
static void test_many(void **state)
{
	(void)state;
	struct frame *f = frame_new();
	static size_t rows[2000];
	struct grouping g;
	char name[32];

	assert_non_null(frame_add_gpu(f));
	for (uint64_t i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "u%03u", (unsigned)(i % 300));
		add(f, i + 1, 0, name, 1);
	}
	size_t n = all_rows(f, rows);
	group_init(&g);
	group_build(&g, f, rows, n, GROUP_BY_USER, GROUP_SORT_LABEL, false);
	assert_int_equal(g.ngroups, 300);
	size_t total = 0;
	for (size_t i = 0; i < g.ngroups; i++) {
		total += g.groups[i].nprocs;
		assert_true(g.groups[i].mem_bytes == (long double)g.groups[i].nprocs);
	}
	assert_int_equal(total, 2000);
	assert_string_equal(label_of(f, &g.groups[0], GROUP_BY_USER), "u000");
	assert_int_equal(g.groups[0].nprocs, 7); /* 0, 300, ... 1800 */
	group_fini(&g);
	frame_unref(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_sums),
		cmocka_unit_test(test_labels_and_keys),
		cmocka_unit_test(test_filter_opens_a_group),
		cmocka_unit_test(test_k8s_container),
		cmocka_unit_test(test_gpu_ranges),
		cmocka_unit_test(test_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
