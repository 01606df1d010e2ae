/* test_feed_fleet: the fleet travels as its own message beside the frame. A
 * fleet backend of the test's own (two hosts a poll, through the backend's
 * fleet op) run by a real sampler through the live source and the feed,
 * paced by its worker and ticked on the virtual clock: the dashboard's
 * accessor (feed_latest_fleet) gives the hosts of the frame feed_latest()
 * gives, and the sink writes one record per host per poll with the poll's
 * events in the first. A machine's backend, and a headless replay, give
 * frames with no fleet beside them and one record each. A fleet recording
 * replayed for the dashboard gives its polls' hosts as a fleet again.
 * Waits are on the feed's own descriptor and state, never on time. */
#include <errno.h>
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
#include "model/fleet.h"
#include "record/recorder.h"
#include "record/replay.h"
#include "sampler.h"
#include "scripted_backend.h"
#include "testutil.h"

/* ---- a fleet backend: two hosts a poll ---- */

static int fb_open(struct backend *b, const struct backend_env *env)
{
	(void)env;
	b->priv = calloc(1, sizeof(int));
	return b->priv ? 0 : -ENOMEM;
}

/* The poll's own frame: the source's driver string and one note. */
static int fb_poll(struct backend *b, struct frame *f)
{
	int *polls = b->priv;

	++*polls;
	f->driver = frame_str(f, "http://prom");
	frame_set(f, FRAME_F_DRIVER);
	frame_note(f, EVENT_NOTE, "poll %d", *polls);
	return 0;
}

/* The hosts beside it: "a" and "b", one GPU each, busy as many percent as
 * polls were made. */
static struct fleet *fb_fleet(struct backend *b)
{
	static const char *const names[] = {"a", "b"};
	const int *polls = b->priv;
	struct fleet *fl = fleet_new("http://prom");

	for (size_t i = 0; i < 2; i++) {
		struct frame *h = frame_new();
		char id[16];
		h->host = frame_str(h, names[i]);
		h->backend = frame_str(h, "prometheus");
		h->valid |= UINT64_C(1) << FRAME_F_HOST | UINT64_C(1) << FRAME_F_BACKEND;
		struct gpu *g = frame_add_gpu(h);
		snprintf(id, sizeof(id), "GPU-%s", names[i]);
		g->device_id = frame_str(h, id);
		g->util_pct = *polls;
		g->valid |= UINT64_C(1) << GPU_F_DEVICE_ID | UINT64_C(1) << GPU_F_UTIL;
		fleet_add_host(fl, names[i], h);
		frame_unref(h);
	}
	return fl;
}

static bool fb_is_remote(const struct backend *b)
{
	(void)b;
	return true;
}

static void fb_close(struct backend *b)
{
	free(b->priv);
}

static const struct backend_ops FLEET_BACKEND = {
	.name = "fleet",
	.open = fb_open,
	.poll = fb_poll,
	.fleet = fb_fleet,
	.is_remote = fb_is_remote,
	.close = fb_close,
};

/* ---- the rig: a sampler, a source, a sink, a feed ---- */

struct rig {
	struct fake_clock clk;
	struct clock_virtual virt;
	struct script sc;
	bool scripted;
	struct backend_env env;
	struct sampler *sm;
	struct replay *replay;
	struct source *src;
	struct sink sink;
	struct feed *feed;
	char *dir, *out, *rec;
};

static void rig_sink(struct rig *r)
{
	char err[256];

	r->dir = testutil_tmpdir();
	r->out = testutil_path(r->dir, "out.jsonl");
	r->rec = testutil_path(r->dir, "rec.jsonl");
	sink_init(&r->sink);
	r->sink.json = recorder_open(r->out, err, sizeof(err));
	assert_non_null(r->sink.json);
}

/* A live rig over the fleet backend, or over a scripted machine. */
static void rig_live(struct rig *r, bool fleet)
{
	memset(r, 0, sizeof(*r));
	rig_sink(r);
	fake_clock_init(&r->clk, 100000);
	r->env.clock = &r->clk.c;
	struct backend *b;
	if (fleet) {
		b = backend_new(&FLEET_BACKEND);
		assert_int_equal(backend_open(b, &r->env), 0);
	} else {
		script_init(&r->sc, "alpha", 1, &r->clk.c);
		r->sc.remote = true;
		r->scripted = true;
		b = scripted_backend_new(&r->sc, true);
	}
	struct sampler_opts o = script_sampler_opts(&r->clk, &r->env, 1000);
	r->sm = sampler_new(&b, 1, &o);
	assert_non_null(r->sm);
	r->src = source_live(r->sm, 0);
}

/* A rig over a recording of two fleet polls (hosts a and b at 1000 and
 * 2000 ms, as --prometheus --log writes them). */
static void rig_replay(struct rig *r, bool asap)
{
	char err[256];

	memset(r, 0, sizeof(*r));
	rig_sink(r);
	FILE *f = fopen(r->rec, "w");
	assert_non_null(f);
	for (int t = 1; t <= 2; t++)
		for (char h = 'a'; h <= 'b'; h++)
			fprintf(f,
				"{\"ts_ms\":%d,\"host\":\"%c\",\"backend\":\"prometheus\",\"driver\":\"http://prom\","
				"\"gpus\":[{\"device_id\":\"GPU-%c\",\"state\":\"ok\",\"util_pct\":%d}]}\n",
				1000 * t, h, h, t);
	fclose(f);
	r->replay = replay_open(r->rec, err, sizeof(err));
	assert_non_null(r->replay);
	r->src = source_replay(r->replay, asap);
}

static void rig_start(struct rig *r, struct feed_opts o)
{
	o.source = r->src;
	o.sink = &r->sink;
	if (!o.interval)
		o.interval = 0.01;
	r->feed = feed_start(&o);
	assert_non_null(r->feed);
}

static void rig_fini(struct rig *r)
{
	feed_stop(r->feed);
	sink_fini(&r->sink);
	source_free(r->src);
	sampler_free(r->sm);
	replay_free(r->replay);
	if (r->scripted)
		script_fini(&r->sc);
	testutil_rmtree(r->dir);
	free(r->dir);
	free(r->out);
	free(r->rec);
}

/* The records the sink wrote, parsed. */
static json_t *records(const struct rig *r)
{
	char *text = testutil_read_file(r->out, NULL);
	json_t *all = json_array();
	char *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(l, 0, NULL);
		assert_non_null(j);
		json_array_append_new(all, j);
	}
	free(text);
	return all;
}

static const char *host_of(json_t *recs, size_t i)
{
	return json_string_value(json_object_get(json_array_get(recs, i), "host"));
}

static size_t nevents(json_t *recs, size_t i)
{
	return json_array_size(json_object_get(json_array_get(recs, i), "events"));
}

/* The latest frame and the fleet beside it, published together. */
static struct fleet *latest_pair(struct feed *f, struct frame **fr)
{
	uint64_t seq, fleet_seq;

	*fr = feed_latest(f, &seq);
	struct fleet *fl = feed_latest_fleet(f, &fleet_seq);
	assert_non_null(*fr);
	assert_int_equal(seq, fleet_seq);
	return fl;
}

/* Two polls of the fleet backend through the feed: the latest frame's
 * fleet has both hosts, as read by the second poll; the frame itself holds
 * only the source's own (no GPUs, its note); the sink wrote a, b, a, b. */
static void fleet_live(bool ticked)
{
	struct rig r;
	rig_live(&r, true);
	if (ticked)
		clock_virtual_init(&r.virt, 1700000000000ull);
	rig_start(&r, (struct feed_opts){.count = 2, .virt = ticked ? &r.virt : NULL});
	feed_wait(r.feed, NULL);
	assert_int_equal(feed_result(r.feed, NULL, 0), 0);

	struct frame *fr;
	struct fleet *fl = latest_pair(r.feed, &fr);
	assert_non_null(fl);
	assert_int_equal(fl->nhosts, 2);
	assert_string_equal(fl->hosts[0].name, "a");
	assert_string_equal(fl->hosts[1].name, "b");
	assert_int_equal(fl->hosts[1].frame->ngpus, 1);
	assert_true(fl->hosts[1].frame->gpus[0].util_pct == 2); /* the second poll's */
	assert_int_equal(fr->ngpus, 0);
	assert_int_equal(fr->nevents, 1);
	assert_string_equal(fr->events[0].detail, "poll 2");
	frame_unref(fr);
	fleet_unref(fl);

	json_t *recs = records(&r);
	assert_int_equal(json_array_size(recs), 4);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(host_of(recs, i), i % 2 ? "b" : "a");
		assert_int_equal(nevents(recs, i), i % 2 ? 0 : 1); /* the poll's note, in its first record */
		json_t *g = json_array_get(json_object_get(json_array_get(recs, i), "gpus"), 0);
		assert_string_equal(json_string_value(json_object_get(g, "device_id")), i % 2 ? "GPU-b" : "GPU-a");
	}
	json_decref(recs);
	rig_fini(&r);
}

/* Live, one backend, the real clock: the worker paces and hands over. */
static void test_fleet_paced(void **state)
{
	(void)state;
	fleet_live(false);
}

/* Live on the virtual clock: the feed ticks the sampler. */
static void test_fleet_ticked(void **state)
{
	(void)state;
	fleet_live(true);
}

/* A machine's backend: no fleet beside its frames, one record a frame. */
static void test_machine_has_no_fleet(void **state)
{
	(void)state;
	struct rig r;
	rig_live(&r, false);
	rig_start(&r, (struct feed_opts){.count = 2});
	feed_wait(r.feed, NULL);

	struct frame *fr;
	assert_null(latest_pair(r.feed, &fr));
	assert_int_equal(fr->ngpus, 1);
	frame_unref(fr);
	json_t *recs = records(&r);
	assert_int_equal(json_array_size(recs), 2);
	assert_string_equal(host_of(recs, 0), "testhost");
	json_decref(recs);
	rig_fini(&r);
}

static bool at_end(struct feed *f)
{
	struct feed_status st;
	feed_status(f, &st);
	return st.at_end;
}

/* A fleet recording for the dashboard (held, notified): each poll's records
 * become one frame with the hosts beside it, and the sink writes them
 * back one record per host, as recorded. */
static void test_fleet_replay_dashboard(void **state)
{
	(void)state;
	struct rig r;
	rig_replay(&r, false);
	rig_start(&r, (struct feed_opts){.hold = true, .notify = true, .speed = 64});
	while (!at_end(r.feed)) {
		struct pollfd p = {feed_fd(r.feed), POLLIN, 0};
		assert_true(poll(&p, 1, 30000) > 0);
		feed_drain(r.feed);
	}

	struct frame *fr;
	uint64_t seq;
	frame_unref(feed_latest(r.feed, &seq));
	assert_int_equal(seq, 2); /* two polls, not four records */
	struct fleet *fl = latest_pair(r.feed, &fr);
	assert_non_null(fl);
	assert_int_equal(fl->nhosts, 2);
	assert_string_equal(fl->hosts[0].name, "a");
	assert_string_equal(fl->hosts[1].name, "b");
	assert_int_equal(fr->ts_ms, 2000);
	assert_int_equal(fr->ngpus, 0);
	frame_unref(fr);
	fleet_unref(fl);

	json_t *recs = records(&r);
	assert_int_equal(json_array_size(recs), 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(host_of(recs, i), i % 2 ? "b" : "a");
	json_decref(recs);
	rig_fini(&r);
}

/* Headless, the same recording stays record for record: plain frames,
 * no fleet beside them. */
static void test_fleet_replay_headless(void **state)
{
	(void)state;
	struct rig r;
	rig_replay(&r, true);
	rig_start(&r, (struct feed_opts){.count = 3});
	feed_wait(r.feed, NULL);

	struct frame *fr;
	assert_null(latest_pair(r.feed, &fr));
	assert_int_equal(fr->ngpus, 1);
	assert_string_equal(fr->host, "a"); /* the third record */
	frame_unref(fr);
	json_t *recs = records(&r);
	assert_int_equal(json_array_size(recs), 3);
	json_decref(recs);
	rig_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fleet_paced),
		cmocka_unit_test(test_fleet_ticked),
		cmocka_unit_test(test_machine_has_no_fleet),
		cmocka_unit_test(test_fleet_replay_dashboard),
		cmocka_unit_test(test_fleet_replay_headless),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
