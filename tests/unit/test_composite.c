/* test_composite: combining children's results without threads: offsets,
 * the stray-row rule, joined names and drivers, slow/hung/lost children. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "backend/composite.h"

static struct frame *child(const char *prefix, size_t ngpus, const char *driver)
{
	struct frame *f = frame_new();
	char id[32];

	for (size_t i = 0; i < ngpus; i++) {
		struct gpu *g = frame_add_gpu(f);
		snprintf(id, sizeof(id), "%s-%zu", prefix, i);
		g->device_id = frame_str(f, id);
		g->state = GPU_STATE_OK;
		g->util_pct = 50;
		g->valid = 1u << GPU_F_DEVICE_ID | 1u << GPU_F_STATE | 1u << GPU_F_UTIL;
		struct gpu_process *p = frame_add_process(f);
		p->pid = 100 + i;
		p->gpu_index = i;
		p->valid = 1u << PROC_F_PID | 1u << PROC_F_GPU_INDEX;
	}
	struct gpu_process *stray = frame_add_process(f);
	stray->pid = 7;
	stray->gpu_index = ngpus; /* names a device this child did not report */
	stray->valid = 1u << PROC_F_PID | 1u << PROC_F_GPU_INDEX;
	struct event *e = frame_note(f, EVENT_NOTE, "from %s", prefix);
	e->gpu_index = 0;
	e->valid |= 1u << EVENT_F_GPU_INDEX;
	if (driver) {
		f->driver = frame_str(f, driver);
		frame_set(f, FRAME_F_DRIVER);
	}
	return f;
}

static void test_offsets_and_joins(void **state)
{
	(void)state;
	struct composite *c = composite_new();
	struct frame *a = child("a", 2, "550.54.15"), *b = child("b", 1, NULL);
	struct composite_child kids[] = {{"nvml", a, COMPOSITE_FULL}, {"amdgpu", b, COMPOSITE_FULL}};
	struct frame *out = frame_new();

	composite_compose(c, kids, 2, out);
	assert_int_equal(out->ngpus, 3);
	assert_string_equal(out->gpus[2].device_id, "b-0");
	assert_string_equal(out->backend, "nvml+amdgpu");
	assert_string_equal(out->driver, "550.54.15+?");
	assert_int_equal(out->nprocs, 3); /* both strays dropped */
	assert_int_equal(out->procs[2].pid, 100);
	assert_int_equal(out->procs[2].gpu_index, 2);
	assert_int_equal(out->nevents, 2);
	assert_int_equal(out->events[1].gpu_index, 2); /* b's GPU 0 is position 2 */
	frame_unref(out);
	frame_unref(a);
	frame_unref(b);
	composite_free(c);
}

static void test_slow_hung_and_lost_children(void **state)
{
	(void)state;
	struct composite *c = composite_new();
	struct frame *a = child("a", 1, "1"), *b = child("b", 1, "2"), *d = child("d", 1, "3");
	struct composite_child kids[] = {{"x", a, COMPOSITE_FULL}, {"y", b, COMPOSITE_FULL}, {"z", d, COMPOSITE_FULL}};
	struct frame *out = frame_new();

	composite_compose(c, kids, 3, out);
	frame_unref(out);

	kids[0].mode = COMPOSITE_REUSE; /* slow: last answer, no repeated events */
	kids[1].mode = COMPOSITE_IDENT; /* hung: identity and state only */
	kids[2].mode = COMPOSITE_LOST;  /* failed: lost, identity kept */
	out = frame_new();
	composite_compose(c, kids, 3, out);
	assert_int_equal(out->ngpus, 3);
	assert_true(gpu_has(&out->gpus[0], GPU_F_UTIL));
	assert_false(gpu_has(&out->gpus[1], GPU_F_UTIL));
	assert_int_equal(gpu_state(&out->gpus[1]), GPU_STATE_OK);
	assert_int_equal(gpu_state(&out->gpus[2]), GPU_STATE_LOST);
	assert_string_equal(out->gpus[2].device_id, "d-0");
	assert_int_equal(out->nprocs, 1); /* only the slow child's row */
	assert_int_equal(out->nevents, 1);
	assert_string_equal(out->events[0].kind, EVENT_GPU_LOST);
	assert_int_equal(out->events[0].gpu_index, 2);
	assert_string_equal(out->events[0].backend, "z");
	frame_unref(out);

	kids[2].mode = COMPOSITE_FULL;
	out = frame_new();
	composite_compose(c, kids, 3, out);
	assert_int_equal(gpu_state(&out->gpus[2]), GPU_STATE_OK);
	size_t back = 0;
	for (size_t i = 0; i < out->nevents; i++)
		back += strcmp(out->events[i].kind, EVENT_GPU_BACK) == 0;
	assert_int_equal(back, 1);
	frame_unref(out);
	frame_unref(a);
	frame_unref(b);
	frame_unref(d);
	composite_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_and_joins),
		cmocka_unit_test(test_slow_hung_and_lost_children),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
