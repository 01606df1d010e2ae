/* test_prochist: per-process samples keyed by (pid, start): sums over a
 * process's rows, unknown as NAN (never 0), gaps, the ring's wrap, a reused
 * pid, forgetting, and the bound on processes. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/frame.h"
#include "view/prochist.h"

static struct gpu_process *add(struct frame *f, uint64_t pid, uint64_t gpu, long double mem, long double util)
{
	struct gpu_process *p = frame_add_process(f);

	assert_non_null(p);
	p->pid = pid;
	p->gpu_index = gpu;
	process_set(p, PROC_F_PID);
	process_set(p, PROC_F_GPU_INDEX);
	if (mem >= 0) {
		p->gpu_mem_bytes = mem;
		process_set(p, PROC_F_GPU_MEM);
	}
	if (util >= 0) {
		p->gpu_util_pct = util;
		process_set(p, PROC_F_GPU_UTIL);
	}
	return p;
}

static struct frame *gpus(size_t n)
{
	struct frame *f = frame_new();
	for (size_t i = 0; i < n; i++)
		assert_non_null(frame_add_gpu(f));
	return f;
}

static void push_one(struct prochist *h, uint64_t pid, long double mem)
{
	struct frame *f = gpus(1);
	add(f, pid, 0, mem, 10);
	prochist_push(h, f);
	frame_unref(f);
}

static void test_sums_and_unknown(void **state)
{
	(void)state;
	struct prochist *h = prochist_new(8);
	double v[8];

	/* pid 7 on two GPUs; its CPU % known on the second row only. */
	struct frame *f = gpus(2);
	add(f, 7, 0, 100, 20);
	struct gpu_process *b = add(f, 7, 1, 50, -1);
	b->cpu_pct = 150;
	process_set(b, PROC_F_CPU);
	add(f, 8, 0, -1, 0); /* memory unknown, util a measured 0 */
	prochist_push(h, f);
	frame_unref(f);
	assert_int_equal(prochist_count(h), 2);
	assert_int_equal(prochist_get(h, 7, false, 0, PROCHIST_GPU_MEM, v, 8), 1);
	assert_true(v[0] == 150);
	assert_int_equal(prochist_get(h, 7, false, 0, PROCHIST_GPU_UTIL, v, 8), 1);
	assert_true(isnan(v[0])); /* one row's util unknown: the sum is */
	assert_int_equal(prochist_get(h, 7, false, 0, PROCHIST_CPU, v, 8), 1);
	assert_true(v[0] == 150);
	assert_int_equal(prochist_get(h, 8, false, 0, PROCHIST_GPU_MEM, v, 8), 1);
	assert_true(isnan(v[0]));
	assert_int_equal(prochist_get(h, 8, false, 0, PROCHIST_GPU_UTIL, v, 8), 1);
	assert_true(v[0] == 0);
	assert_int_equal(prochist_get(h, 8, false, 0, PROCHIST_CPU, v, 8), 1);
	assert_true(isnan(v[0]));
	assert_int_equal(prochist_get(h, 9, false, 0, PROCHIST_CPU, v, 8), 0);
	assert_int_equal(prochist_get(h, 8, false, 0, (enum prochist_metric)9, v, 8), 0);
	prochist_free(h);
	prochist_free(NULL);
}

static void test_ring_and_gaps(void **state)
{
	(void)state;
	struct prochist *h = prochist_new(40); /* grows 16 -> 32 -> 40, then wraps */
	double v[64];

	for (int i = 1; i <= 100; i++)
		push_one(h, 5, i);
	assert_int_equal(prochist_get(h, 5, false, 0, PROCHIST_GPU_MEM, v, 64), 40);
	for (int i = 0; i < 40; i++)
		assert_true(v[i] == 61 + i);
	assert_int_equal(prochist_get(h, 5, false, 0, PROCHIST_GPU_MEM, v, 3), 3);
	assert_true(v[0] == 98 && v[2] == 100);
	/* Absent for 2 pushes, then back: two unknown samples between. */
	prochist_push(h, NULL);
	struct frame *empty = gpus(1);
	prochist_push(h, empty);
	frame_unref(empty);
	push_one(h, 5, 7);
	assert_int_equal(prochist_get(h, 5, false, 0, PROCHIST_GPU_MEM, v, 4), 4);
	assert_true(v[0] == 100);
	assert_true(isnan(v[1]) && isnan(v[2]));
	assert_true(v[3] == 7);
	prochist_free(h);
}

static void test_growth_keeps_order(void **state)
{
	(void)state;
	struct prochist *h = prochist_new(PROCHIST_MAX_CAPACITY * 4); /* clamped */
	static double v[PROCHIST_MAX_CAPACITY + 10];

	for (int i = 0; i < PROCHIST_MAX_CAPACITY + 5; i++)
		push_one(h, 1, i);
	assert_int_equal(prochist_get(h, 1, false, 0, PROCHIST_GPU_MEM, v, PROCHIST_MAX_CAPACITY + 10),
			 PROCHIST_MAX_CAPACITY);
	for (int i = 0; i < PROCHIST_MAX_CAPACITY; i++)
		assert_true(v[i] == 5 + i);
	prochist_free(h);
}

static void test_reused_pid_and_forget(void **state)
{
	(void)state;
	struct prochist *h = prochist_new(16);
	double v[16];

	struct frame *f = gpus(1);
	struct gpu_process *p = add(f, 42, 0, 1, 1);
	p->start_ms = 1000;
	process_set(p, PROC_F_START);
	prochist_push(h, f);
	p->start_ms = 2000; /* the same pid, another process */
	p->gpu_mem_bytes = 2;
	prochist_push(h, f);
	frame_unref(f);
	assert_int_equal(prochist_get(h, 42, true, 1000, PROCHIST_GPU_MEM, v, 16), 1);
	assert_true(v[0] == 1);
	assert_int_equal(prochist_get(h, 42, true, 2000, PROCHIST_GPU_MEM, v, 16), 1);
	assert_true(v[0] == 2);
	assert_int_equal(prochist_get(h, 42, false, 0, PROCHIST_GPU_MEM, v, 16), 0);
	/* Gone for PROCHIST_FORGET pushes: freed. */
	for (int i = 0; i < PROCHIST_FORGET - 1; i++)
		prochist_push(h, NULL);
	assert_int_equal(prochist_get(h, 42, true, 2000, PROCHIST_GPU_MEM, v, 16), 1);
	prochist_push(h, NULL);
	assert_int_equal(prochist_get(h, 42, true, 2000, PROCHIST_GPU_MEM, v, 16), 0);
	assert_int_equal(prochist_count(h), 0);
	prochist_free(h);
}

static void test_bounded(void **state)
{
	(void)state;
	struct prochist *h = prochist_new(4);
	double v[4];

	struct frame *f = gpus(1);
	for (uint64_t pid = 1; pid <= PROCHIST_MAX_PROCS + 100; pid++)
		add(f, pid, 0, (long double)pid, 1);
	prochist_push(h, f);
	frame_unref(f);
	assert_int_equal(prochist_count(h), PROCHIST_MAX_PROCS);
	assert_int_equal(prochist_get(h, PROCHIST_MAX_PROCS + 1, false, 0, PROCHIST_GPU_MEM, v, 4), 0);
	/* A new process takes the place of one gone from the frame. */
	push_one(h, 99999, 3);
	assert_int_equal(prochist_count(h), PROCHIST_MAX_PROCS);
	assert_int_equal(prochist_get(h, 99999, false, 0, PROCHIST_GPU_MEM, v, 4), 1);
	assert_true(v[0] == 3);
	/* Every other one still found by its key. */
	size_t found = 0;
	for (uint64_t pid = 1; pid <= PROCHIST_MAX_PROCS; pid++)
		found += prochist_get(h, pid, false, 0, PROCHIST_GPU_MEM, v, 4) == 1 && v[0] == (double)pid;
	assert_int_equal(found, PROCHIST_MAX_PROCS - 1);
	prochist_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums_and_unknown),
		cmocka_unit_test(test_ring_and_gaps),
		cmocka_unit_test(test_growth_keeps_order),
		cmocka_unit_test(test_reused_pid_and_forget),
		cmocka_unit_test(test_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
