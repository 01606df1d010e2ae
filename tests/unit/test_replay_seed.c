/* test_replay_seed: the tests of the original Rust replay backend
 * (seed/replay.rs), ported one for one. The seed's load() is replay_open(),
 * its poll()/processes() read the frame replay_next() fills (the first
 * record: the seed's skip of it is not kept), driver_info() is
 * replay_driver_line(). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "record/replay.h"
#include "testutil.h"

struct seed {
	char *dir;
	struct replay *r;
	struct frame *f;
};

/* write_log() + load() + the first poll. */
static void load(struct seed *s, const char *body)
{
	char err[512];
	char *path;

	s->dir = testutil_tmpdir();
	path = testutil_path(s->dir, "rec.jsonl");
	testutil_write_str(path, body);
	s->r = replay_open(path, err, sizeof(err));
	free(path);
	if (!s->r)
		fail_msg("load: %s", err);
	s->f = frame_new();
	assert_int_equal(replay_next(s->r, s->f), 1);
}

static int teardown(void **state)
{
	struct seed *s = *state;

	replay_free(s->r);
	frame_unref(s->f);
	if (s->dir)
		testutil_rmtree(s->dir);
	free(s->dir);
	free(s);
	return 0;
}

static int setup(void **state)
{
	*state = calloc(1, sizeof(struct seed));
	assert_non_null(*state);
	return 0;
}

/* Attribution and container come off the record, not off this host. */
static void recorded_attribution_survives_playback(void **state)
{
	struct seed *s = *state;
	char drv[128];

	load(s, "{\"ts_ms\":1,\"backend\":\"nvml\",\"driver\":\"550.1\",\"gpus\":[{\"name\":\"card0\"}],"
		"\"processes\":[{\"pid\":7,\"container\":\"docker:abcdef123456\"}]}\n");
	assert_string_equal(replay_driver_line(s->f, drv, sizeof(drv), false), "nvml \xC2\xB7 550.1");
	assert_true(s->f->nprocs >= 1);
	assert_true(process_has(&s->f->procs[0], PROC_F_CONTAINER));
	assert_string_equal(s->f->procs[0].container, "docker:abcdef123456");
}

/* A recorded row can name a card the frame doesn't contain — a truncated or
 * hand-edited log. It has no card to be drawn against, so it goes. */
static void rows_naming_a_card_outside_the_recorded_frame_are_dropped(void **state)
{
	struct seed *s = *state;

	load(s, "{\"gpus\":[{\"name\":\"card0\"},{\"name\":\"card1\"}],\"processes\":["
		"{\"pid\":1,\"gpu_index\":0},{\"pid\":2,\"gpu_index\":1},"
		"{\"pid\":3,\"gpu_index\":7}]}\n");
	assert_int_equal(s->f->ngpus, 2);
	assert_int_equal(s->f->nprocs, 2);
	assert_int_equal(s->f->procs[0].pid, 1);
	assert_int_equal(s->f->procs[1].pid, 2);
}

/* A recording written before gpu_mem_bytes could be unknown carries a plain
 * number and must still mean what it said: 0 is a measured zero. */
static void a_pre_option_recording_keeps_its_recorded_memory(void **state)
{
	struct seed *s = *state;

	load(s, "{\"gpus\":[{\"name\":\"card0\"}],\"processes\":["
		"{\"pid\":1,\"gpu_mem_bytes\":0},"
		"{\"pid\":2,\"gpu_mem_bytes\":2147483648}]}\n");
	assert_int_equal(s->f->nprocs, 2);
	assert_true(process_has(&s->f->procs[0], PROC_F_GPU_MEM));
	assert_int_equal(s->f->procs[0].gpu_mem_bytes, 0);
	assert_true(process_has(&s->f->procs[1], PROC_F_GPU_MEM));
	assert_int_equal(s->f->procs[1].gpu_mem_bytes, UINT64_C(2147483648));
}

/* A record that names no memory at all is the unknown, not a fabricated zero. */
static void a_record_omitting_memory_replays_as_unknown(void **state)
{
	struct seed *s = *state;

	load(s, "{\"gpus\":[{\"name\":\"card0\"}],\"processes\":[{\"pid\":1}]}\n");
	assert_int_equal(s->f->nprocs, 1);
	assert_false(process_has(&s->f->procs[0], PROC_F_GPU_MEM));
}

/* Pre-attribution recordings still load; the header just stays blank. */
static void legacy_records_without_attribution_still_load(void **state)
{
	struct seed *s = *state;
	char drv[128];

	load(s, "{\"gpus\":[],\"processes\":[]}\n");
	assert_null(replay_driver_line(s->f, drv, sizeof(drv), false));
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(recorded_attribution_survives_playback),
		T(rows_naming_a_card_outside_the_recorded_frame_are_dropped),
		T(a_pre_option_recording_keeps_its_recorded_memory),
		T(a_record_omitting_memory_replays_as_unknown),
		T(legacy_records_without_attribution_still_load),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
