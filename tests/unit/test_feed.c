/* test_feed: the one frame pipeline, driven by a real recording through the
 * source interface, writing through a real sink: early events only in the
 * first frame, events posted by the dashboard in the next frame and named
 * after --gpus, --count, the end of a recording (finish or hold), seeking,
 * and a --gpus item that matches nothing. Waits are on the feed's own
 * descriptor and state, never on time. */
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "feed.h"
#include "record/recorder.h"
#include "record/replay.h"
#include "testutil.h"

struct fx {
	char *dir, *rec, *log;
	struct replay *replay;
	struct source *src;
	struct sink sink;
	struct feed *feed;
};

/* n records, ts_ms 1000*i, two GPUs A and B, one process on B. */
static struct fx *setup_n(int n, bool asap)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char err[256];
	char line[512];
	FILE *f;

	fx->dir = testutil_tmpdir();
	fx->rec = testutil_path(fx->dir, "rec.jsonl");
	fx->log = testutil_path(fx->dir, "log.jsonl");
	f = fopen(fx->rec, "w");
	assert_non_null(f);
	for (int i = 1; i <= n; i++) {
		snprintf(line, sizeof(line),
			 "{\"ts_ms\":%d,\"gpus\":[{\"name\":\"A\",\"device_id\":\"GPU-a\",\"state\":\"ok\"},"
			 "{\"name\":\"B\",\"device_id\":\"GPU-b\",\"state\":\"ok\"}],"
			 "\"processes\":[{\"pid\":%d,\"gpu_index\":1}]}\n",
			 1000 * i, 100 + i);
		fputs(line, f);
	}
	fclose(f);
	fx->replay = replay_open(fx->rec, err, sizeof(err));
	assert_non_null(fx->replay);
	fx->src = source_replay(fx->replay, asap);
	sink_init(&fx->sink);
	fx->sink.log = recorder_open(fx->log, err, sizeof(err));
	assert_non_null(fx->sink.log);
	return fx;
}

static void start(struct fx *fx, struct feed_opts o)
{
	o.source = fx->src;
	o.sink = &fx->sink;
	if (!o.interval)
		o.interval = 1;
	fx->feed = feed_start(&o);
	assert_non_null(fx->feed);
}

static void teardown_fx(struct fx *fx)
{
	feed_stop(fx->feed);
	sink_fini(&fx->sink);
	source_free(fx->src);
	replay_free(fx->replay);
	testutil_rmtree(fx->dir);
	free(fx->dir);
	free(fx->rec);
	free(fx->log);
	free(fx);
}

/* The recorded lines, parsed. */
static json_t *log_lines(struct fx *fx, size_t *n)
{
	size_t len;
	char *text = testutil_read_file(fx->log, &len);
	json_t *all = json_array();
	char *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(l, 0, NULL);
		assert_non_null(j);
		json_array_append_new(all, j);
	}
	free(text);
	*n = json_array_size(all);
	return all;
}

static size_t nevents(json_t *rec)
{
	return json_array_size(json_object_get(rec, "events"));
}

/* Waits on the feed's descriptor until its status satisfies cond. */
static void wait_status(struct feed *f, bool (*cond)(const struct feed_status *, uint64_t), uint64_t arg)
{
	struct feed_status st;
	for (;;) {
		feed_status(f, &st);
		if (cond(&st, arg))
			return;
		struct pollfd p = {feed_fd(f), POLLIN, 0};
		assert_true(poll(&p, 1, 30000) > 0);
		feed_drain(f);
	}
}

static bool at_end(const struct feed_status *st, uint64_t a) { (void)a; return st->at_end; }

/* Waits until n frames have been published and the feed holds its end. */
static void wait_published(struct feed *f, uint64_t n)
{
	for (;;) {
		uint64_t seq;
		struct feed_status st;
		frame_unref(feed_latest(f, &seq));
		feed_status(f, &st);
		if (seq >= n && st.at_end)
			return;
		struct pollfd p = {feed_fd(f), POLLIN, 0};
		assert_true(poll(&p, 1, 30000) > 0);
		feed_drain(f);
	}
}

/* Headless: every record once, as fast as it is read, then finished;
 * nobody reads the latest frame, so it is let go before the next record is
 * read (two large records are never held at once) and none is left at the
 * end; detection's events go into the first record only. */
static void test_headless_replay(void **state)
{
	(void)state;
	struct fx *fx = setup_n(5, true);
	struct frame *early = frame_new();
	frame_note(early, EVENT_NOTE, "%s", "from detection");

	start(fx, (struct feed_opts){.early = early});
	feed_wait(fx->feed, NULL);
	assert_int_equal(feed_result(fx->feed, NULL, 0), 0);
	assert_null(feed_latest(fx->feed, NULL));

	size_t n;
	json_t *lines = log_lines(fx, &n);
	assert_int_equal(n, 5);
	assert_int_equal(nevents(json_array_get(lines, 0)), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(json_array_get(lines, 0), "events"), 0), "detail")),
			    "from detection");
	for (size_t i = 1; i < n; i++)
		assert_int_equal(nevents(json_array_get(lines, i)), 0);
	json_decref(lines);
	frame_unref(early);
	teardown_fx(fx);
}

/* --count stops after N frames. */
static void test_count(void **state)
{
	(void)state;
	struct fx *fx = setup_n(5, true);

	start(fx, (struct feed_opts){.count = 2});
	feed_wait(fx->feed, NULL);
	size_t n;
	json_t *lines = log_lines(fx, &n);
	assert_int_equal(n, 2);
	json_decref(lines);
	teardown_fx(fx);
}

/* Held at the end (the dashboard): an event posted then goes into the next
 * frame and only that one, named as the dashboard sees GPUs (after
 * --gpus); Home plays the first record again at position 1, End the last
 * at position 3, each counted as a seek with the frames after it. */
static void test_hold_post_seek(void **state)
{
	(void)state;
	struct fx *fx = setup_n(3, false);
	char err[128];
	struct gpusel *sel = gpusel_parse("GPU-b", err, sizeof(err));
	assert_non_null(sel);

	start(fx, (struct feed_opts){.hold = true, .notify = true, .speed = 64, .sel = sel});
	wait_status(fx->feed, at_end, 0);
	struct feed_status st;
	feed_status(fx->feed, &st);
	assert_int_equal(st.position, 3);
	assert_false(st.finished);
	assert_true(st.interval == 1.0); /* the recorded cadence */

	struct event e = {0};
	e.kind = EVENT_SIGNAL;
	e.pid = 102;
	e.gpu_index = 0; /* B, as the dashboard sees it */
	e.valid = UINT64_C(1) << EVENT_F_KIND | UINT64_C(1) << EVENT_F_PID | UINT64_C(1) << EVENT_F_GPU_INDEX;
	assert_true(feed_post_event(fx->feed, &e));
	/* Each seek is counted with the frames published after it (the
	 * dashboard's session starts again there). */
	uint64_t seq, seeks = 99;
	frame_unref(feed_latest_seeks(fx->feed, &seq, &seeks));
	assert_int_equal(seeks, 0);
	feed_seek(fx->feed, FEED_SEEK_START);
	wait_published(fx->feed, 6);
	frame_unref(feed_latest_seeks(fx->feed, &seq, &seeks));
	assert_int_equal(seeks, 1);
	feed_seek(fx->feed, FEED_SEEK_END);
	wait_published(fx->feed, 7);
	feed_status(fx->feed, &st);
	assert_int_equal(st.position, 3);
	frame_unref(feed_latest_seeks(fx->feed, &seq, &seeks));
	assert_int_equal(seq, 7);
	assert_int_equal(seeks, 2);

	size_t n;
	json_t *lines = log_lines(fx, &n);
	/* 3 records, then Home: 1, 2, 3 again, then End: 3. */
	assert_int_equal(n, 7);
	json_t *home = json_array_get(lines, 3);
	assert_int_equal(json_integer_value(json_object_get(home, "ts_ms")), 1000);
	assert_int_equal(nevents(home), 1);
	json_t *ev = json_array_get(json_object_get(home, "events"), 0);
	assert_string_equal(json_string_value(json_object_get(ev, "kind")), "signal");
	assert_int_equal(json_integer_value(json_object_get(ev, "gpu_index")), 0);
	assert_int_equal(json_array_size(json_object_get(home, "gpus")), 1);
	for (size_t i = 0; i < n; i++)
		if (i != 3)
			assert_int_equal(nevents(json_array_get(lines, i)), 0);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(lines, 6), "ts_ms")), 3000);
	json_decref(lines);
	feed_stop(fx->feed);
	fx->feed = NULL;
	gpusel_free(sel);
	teardown_fx(fx);
}

/* A --gpus item that matches no GPU of the first frame: the feed finishes
 * on a failure, says why, and records nothing. */
static void test_selection_matches_nothing(void **state)
{
	(void)state;
	struct fx *fx = setup_n(3, true);
	char err[128], why[256];
	struct gpusel *sel = gpusel_parse("GPU-zzz", err, sizeof(err));

	start(fx, (struct feed_opts){.sel = sel});
	feed_wait(fx->feed, NULL);
	assert_int_equal(feed_result(fx->feed, why, sizeof(why)), 1);
	assert_string_equal(why, "--gpus: no GPU matches 'GPU-zzz' (2 GPUs here)");
	size_t n;
	json_t *lines = log_lines(fx, &n);
	assert_int_equal(n, 0);
	json_decref(lines);
	feed_stop(fx->feed);
	fx->feed = NULL;
	gpusel_free(sel);
	teardown_fx(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headless_replay),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_hold_post_seek),
		cmocka_unit_test(test_selection_matches_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
