/* test_frame: the frame helpers every source shares — dropping the rows of
 * GPUs at or past a position, what a lost GPU last read (model/seen), and
 * frames that share another's strings by pinning it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/frame.h"
#include "model/seen.h"

static struct frame *make(size_t ngpus, uint64_t ts_ms)
{
	struct frame *f = frame_new();
	char id[32];

	f->ts_ms = ts_ms;
	frame_set(f, FRAME_F_TS);
	for (size_t i = 0; i < ngpus; i++) {
		struct gpu *g = frame_add_gpu(f);
		snprintf(id, sizeof(id), "GPU-%zu", i);
		g->device_id = frame_str(f, id);
		g->state = GPU_STATE_OK;
		g->util_pct = (long double)(10 * i) + 0.5L;
		g->valid = 1u << GPU_F_DEVICE_ID | 1u << GPU_F_STATE | 1u << GPU_F_UTIL;
		for (int k = 0; k < 2; k++) {
			struct gpu_process *p = frame_add_process(f);
			p->pid = 100 * (i + 1) + (uint64_t)k;
			p->gpu_index = i;
			p->valid = 1u << PROC_F_PID | 1u << PROC_F_GPU_INDEX;
		}
		struct event *e = frame_note(f, EVENT_NOTE, "about GPU %zu", i);
		e->gpu_index = i;
		e->valid |= UINT64_C(1) << EVENT_F_GPU_INDEX;
	}
	return f;
}

/* Rows of GPUs at or past k go, in order, the others stay; events keep
 * what they say but lose an index at or past k. */
static void test_drop_rows_from(void **state)
{
	(void)state;
	struct frame *f = make(4, 1000);

	frame_drop_rows_from(f, 2);
	assert_int_equal(f->nprocs, 4);
	assert_int_equal(f->procs[0].pid, 100);
	assert_int_equal(f->procs[3].pid, 201);
	for (size_t i = 0; i < f->nprocs; i++)
		assert_true(f->procs[i].gpu_index < 2);
	assert_int_equal(f->nevents, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(event_has(&f->events[i], EVENT_F_GPU_INDEX), i < 2);
	assert_string_equal(f->events[3].detail, "about GPU 3");
	frame_drop_rows_from(f, 0);
	assert_int_equal(f->nprocs, 0);
	frame_unref(f);
}

/* frame_normalize is rule 4 through the same helper: rows past the last GPU
 * go, and a lost GPU's readings are omitted. */
static void test_normalize(void **state)
{
	(void)state;
	struct frame *f = make(3, 1000);

	f->ngpus = 2;
	f->gpus[1].state = GPU_STATE_LOST;
	frame_normalize(f);
	assert_int_equal(f->nprocs, 4);
	assert_false(gpu_has(&f->gpus[1], GPU_F_UTIL));
	assert_true(gpu_has(&f->gpus[0], GPU_F_UTIL));
	assert_false(event_has(&f->events[2], EVENT_F_GPU_INDEX));
	frame_unref(f);
}

/* A lost GPU's last ok readings and the time it was found gone come with a
 * later frame, however many frames in between nobody drew; an ok GPU has
 * none; back at the start (seen_clear) nothing is known. */
static void test_seen(void **state)
{
	(void)state;
	struct seen s;
	seen_init(&s);

	for (uint64_t t = 1; t <= 5; t++) {
		struct frame *f = make(3, 1000 * t);
		f->gpus[1].util_pct = (long double)t;
		seen_update(&s, f);
		seen_attach(&s, f);
		assert_null(f->seen); /* nothing lost: nothing attached */
		frame_unref(f);
	}
	for (uint64_t t = 6; t <= 9; t++) {
		struct frame *f = make(3, 1000 * t);
		f->gpus[1].state = GPU_STATE_LOST;
		gpu_drop_readings(&f->gpus[1]);
		seen_update(&s, f);
		seen_attach(&s, f);
		assert_non_null(f->seen);
		assert_true(f->seen[1].seen);
		assert_int_equal(f->seen[1].ts_ms, 5000);   /* its last ok poll */
		assert_int_equal(f->seen[1].gone_ms, 6000); /* the poll that found it gone */
		assert_true(gpu_has(&f->seen[1].g, GPU_F_UTIL));
		assert_true(f->seen[1].g.util_pct == 5);
		assert_null(f->seen[1].g.device_id);
		assert_false(f->seen[0].seen);
		frame_unref(f);
	}
	/* Back: the time it went is forgotten. */
	struct frame *f = make(3, 10000);
	seen_update(&s, f);
	frame_unref(f);
	f = make(3, 11000);
	f->gpus[1].state = GPU_STATE_LOST;
	seen_update(&s, f);
	seen_attach(&s, f);
	assert_int_equal(f->seen[1].ts_ms, 10000);
	assert_int_equal(f->seen[1].gone_ms, 11000);
	frame_unref(f);

	seen_clear(&s);
	f = make(3, 12000);
	f->gpus[1].state = GPU_STATE_LOST;
	seen_update(&s, f);
	seen_attach(&s, f);
	assert_null(f->seen);
	frame_unref(f);
	seen_fini(&s);
}

/* One description for the dashboard and the table: every known part in a
 * fixed order, unknown parts left out, cut before a character that does not
 * fit. */
/* A frame that pins another keeps it, and so the strings its elements
 * share with it, until the frame goes: the other's own last reference may
 * go first (AddressSanitizer would see a read of freed memory), and
 * pinning the same frame twice holds it once (its leak check would see a
 * reference never dropped). A reset lets the pinned frames go. */
static void test_pin(void **state)
{
	(void)state;
	struct frame *src = make(2, 1000), *out = frame_new(), *other = make(1, 2000);

	frame_pin(out, src);
	frame_pin(out, src);
	frame_pin(out, out);
	frame_pin(out, NULL);
	*frame_add_gpu(out) = src->gpus[1];
	*frame_add_process(out) = src->procs[3];
	assert_int_equal(atomic_load(&src->refs), 2);
	frame_unref(src);
	assert_string_equal(out->gpus[0].device_id, "GPU-1");
	assert_int_equal(out->procs[0].gpu_index, 1);

	frame_pin(out, other);
	assert_int_equal(atomic_load(&other->refs), 2);
	frame_reset(out);
	assert_null(out->pins);
	assert_int_equal(atomic_load(&other->refs), 1);
	frame_unref(other);
	frame_unref(out);
}

static void test_event_describe(void **state)
{
	(void)state;
	struct frame *f = frame_new();
	struct event *e = frame_note(f, EVENT_SIGNAL, "%s", "permission denied");
	char out[128];

	e->gpu_index = 2;
	e->pid = 4242;
	e->backend = frame_str(f, "nvml");
	e->signal = frame_str(f, "SIGTERM");
	e->result = frame_str(f, "EPERM");
	e->valid |= UINT64_C(1) << EVENT_F_GPU_INDEX | UINT64_C(1) << EVENT_F_PID | UINT64_C(1) << EVENT_F_BACKEND |
		    UINT64_C(1) << EVENT_F_SIGNAL | UINT64_C(1) << EVENT_F_RESULT;
	size_t len = event_describe(e, out, sizeof(out));
	assert_int_equal(len, strlen(out));
	assert_string_equal(out, "signal GPU 2 (nvml) pid 4242 SIGTERM = EPERM: permission denied");
	assert_false(event_is_bad(e));

	/* A sent signal's own words are not said twice; other words are kept. */
	struct event *s = frame_note(f, EVENT_SIGNAL, "%s", "SIGTERM sent to pid 4242");
	s->pid = 4242;
	s->signal = frame_str(f, "SIGTERM");
	s->result = frame_str(f, "sent");
	s->valid |= UINT64_C(1) << EVENT_F_PID | UINT64_C(1) << EVENT_F_SIGNAL | UINT64_C(1) << EVENT_F_RESULT;
	event_describe(s, out, sizeof(out));
	assert_string_equal(out, "signal pid 4242 SIGTERM = sent");
	s->detail = frame_str(f, "SIGTERM sent to pid 4242, which has already exited (a zombie)");
	event_describe(s, out, sizeof(out));
	assert_string_equal(out, "signal pid 4242 SIGTERM = sent: SIGTERM sent to pid 4242, which has already exited (a zombie)");

	struct event *l = frame_note(f, EVENT_GPU_LOST, NULL);
	event_describe(l, out, sizeof(out));
	assert_string_equal(out, "gpu_lost");
	assert_true(event_is_bad(l));

	/* "note: é" is 8 bytes: in 8 (7 and the NUL) the é does not fit. */
	struct event *u = frame_note(f, EVENT_NOTE, "\xc3\xa9");
	assert_int_equal(event_describe(u, out, 8), 6);
	assert_string_equal(out, "note: ");
	assert_int_equal(event_describe(u, out, 9), 8);
	frame_unref(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_rows_from),
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_seen),
		cmocka_unit_test(test_event_describe),
		cmocka_unit_test(test_pin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
