/* test_gpu_idle: the one rule for an idle GPU, which the dashboard's i key
 * and its GPU panels both follow: no utilisation (0 or unknown) and no
 * process of the frame on it, with its process list known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/frame.h"

/* GPU 0: 0 % and a process; GPU 1: 30 %, no process; GPU 2: 0 %, none;
 * GPU 3: utilisation unknown, none; GPU 4: unknown, a process. */
static struct frame *make(void)
{
	static const struct {
		bool util_known;
		long double util;
		bool proc;
	} gpus[] = {{true, 0, true}, {true, 30, false}, {true, 0, false}, {false, 0, false}, {false, 0, true}};
	struct frame *f = frame_new();

	for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++) {
		struct gpu *g = frame_add_gpu(f);
		g->util_pct = gpus[i].util;
		if (gpus[i].util_known)
			gpu_set(g, GPU_F_UTIL);
		if (gpus[i].proc) {
			struct gpu_process *p = frame_add_process(f);
			p->pid = 100 + i;
			p->gpu_index = i;
			p->valid = 1u << PROC_F_PID | 1u << PROC_F_GPU_INDEX;
		}
	}
	return f;
}

static void test_idle(void **state)
{
	(void)state;
	struct frame *f = make();

	assert_false(gpu_is_idle(f, 0)); /* a process on it */
	assert_false(gpu_is_idle(f, 1)); /* busy */
	assert_true(gpu_is_idle(f, 2));
	assert_true(gpu_is_idle(f, 3));  /* unknown utilisation is no use */
	assert_false(gpu_is_idle(f, 4));
	/* A GPU whose process list failed may have somebody on it; one
	 * read back as "processes_unknown": false is known. */
	f->gpus[3].procs_unknown = false;
	gpu_set(&f->gpus[3], GPU_F_PROCS_UNKNOWN);
	assert_true(gpu_is_idle(f, 3));
	f->gpus[3].procs_unknown = true;
	assert_false(gpu_is_idle(f, 3));
	assert_true(gpu_procs_unknown(&f->gpus[3]));
	assert_false(gpu_procs_unknown(&f->gpus[2]));
	/* A tiny utilisation is use. */
	f->gpus[2].util_pct = 0.01L;
	assert_false(gpu_is_idle(f, 2));
	frame_unref(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
