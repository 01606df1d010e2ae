/* test_source: the source interface's defaults, and what each kind of source
 * says it can do. A source of the test's own with only next and destroy:
 * every other call answers for the op it lacks (it cannot seek, so both
 * seeks say -ENOTSUP and source_can_seek() says false; it is not recorded,
 * has no cadence, nobody is busy; it cannot pace, so source_pace() hands
 * nothing over), its due time is its first_due_ms and then the interval,
 * and what its next yields (a fleet beside a frame included) passes
 * through. A pace op without can_pace is never called. The live source
 * over a real sampler cannot seek, is not recorded, paces itself with one
 * backend (counting what it hands over) and not with two; a recording seeks,
 * is recorded, learns its cadence and cannot pace. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/fleet.h"
#include "record/replay.h"
#include "sampler.h"
#include "scripted_backend.h"
#include "source_priv.h"
#include "testutil.h"

/* ---- a source with only the required ops ---- */

struct bare {
	struct source s;
	int made, limit;  /* frames made; none after limit */
	bool with_fleet;  /* each frame comes with a fleet of one host */
	int paced;        /* calls of the pace op */
};

static struct frame *bare_next(struct source *s, struct fleet **fleet)
{
	struct bare *b = (struct bare *)s;

	assert_null(*fleet); /* the wrapper clears it: a kind sets it only for a fleet */
	if (b->made == b->limit)
		return NULL;
	struct frame *f = frame_new();
	f->ts_ms = 1000u * (uint64_t)++b->made;
	frame_set(f, FRAME_F_TS);
	if (b->with_fleet) {
		*fleet = fleet_new("http://prom");
		fleet_add_host(*fleet, "host-a", f);
	}
	return f;
}

static void bare_destroy(struct source *s)
{
	free(s);
}

static int bare_pace(struct source *s, uint64_t first_due_ms, const struct source_pace *p)
{
	(void)first_due_ms;
	(void)p;
	((struct bare *)s)->paced++;
	return 0;
}

static const struct source_ops BARE_OPS = {.next = bare_next, .destroy = bare_destroy};
/* A pace op, but no can_pace: the source never says it can. */
static const struct source_ops PACE_ONLY_OPS = {.next = bare_next, .destroy = bare_destroy, .pace = bare_pace};

static struct bare *bare_new(const struct source_ops *ops, uint64_t first_due_ms, int limit)
{
	struct bare *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	source_init(&b->s, ops, first_due_ms);
	b->limit = limit;
	return b;
}

static bool take_none(void *ctx, struct frame *fr, struct fleet *fl)
{
	(*(int *)ctx)++;
	frame_unref(fr);
	fleet_unref(fl);
	return false;
}

/* Every op it lacks has its default, through the wrappers. */
static void test_defaults(void **state)
{
	(void)state;
	struct bare *b = bare_new(&BARE_OPS, 7, 2);
	struct source *s = &b->s;

	assert_false(source_can_seek(s));
	struct frame *last = frame_new();
	struct frame *was = last;
	struct fleet *last_fleet = fleet_new(NULL);
	struct fleet *was_fleet = last_fleet;
	uint64_t skipped = 9;
	assert_int_equal(source_seek(s, SOURCE_SEEK_END, &last, &last_fleet, &skipped), -ENOTSUP);
	assert_null(last);
	assert_null(last_fleet);
	assert_int_equal(skipped, 0);
	frame_unref(was);
	fleet_unref(was_fleet);
	assert_int_equal(source_seek(s, SOURCE_SEEK_START, &last, &last_fleet, &skipped), -ENOTSUP);
	uint64_t before = 9;
	assert_int_equal(source_seek_time(s, 1500, &before), -ENOTSUP);
	assert_int_equal(before, 0);

	assert_false(source_recorded(s));
	assert_int_equal(source_cadence_ms(s), 0);
	const char *name = "someone";
	assert_int_equal(source_busy_ms(s, &name), 0);
	assert_null(name);

	int taken = 0;
	struct source_pace p = {.interval_s = 1.0, .take = take_none, .ctx = &taken};
	assert_false(source_can_pace(s));
	assert_int_equal(source_pace(s, &p), -ENOTSUP);
	assert_int_equal(taken, 0);
	source_pace_interval(s, 2.0); /* nothing to change */
	source_pace_stop(s);          /* nothing to stop */
	volatile sig_atomic_t cancel = 0;
	source_set_cancel(s, &cancel);
	source_set_cancel(s, NULL);

	/* Its first frame is due after first_due_ms; later ones after the
	 * interval, at any speed (it keeps no time of its own). */
	assert_int_equal(source_due_ms(s, 0.25, 1.0), 7);
	struct fleet *sentinel = fleet_new(NULL);
	struct fleet *fl = sentinel; /* overwritten: no fleet here */
	struct frame *f = source_next(s, &fl);
	assert_non_null(f);
	assert_null(fl);
	fleet_unref(sentinel);
	assert_int_equal(f->ts_ms, 1000);
	frame_unref(f);
	assert_int_equal(source_due_ms(s, 0.25, 4.0), 250);
	frame_unref(source_next(s, &fl));
	assert_null(source_next(s, &fl)); /* the end */
	assert_null(fl);
	source_free(s);
}

/* A pace op alone is not pacing: without can_pace the wrapper never calls
 * it. */
static void test_pace_needs_can_pace(void **state)
{
	(void)state;
	struct bare *b = bare_new(&PACE_ONLY_OPS, 0, 1);
	int taken = 0;
	struct source_pace p = {.interval_s = 1.0, .take = take_none, .ctx = &taken};

	assert_false(source_can_pace(&b->s));
	assert_int_equal(source_pace(&b->s, &p), -ENOTSUP);
	assert_int_equal(b->paced, 0);
	assert_int_equal(taken, 0);
	source_free(&b->s);
}

/* A fleet beside a frame passes through source_next() as its own message. */
static void test_fleet_passes_through(void **state)
{
	(void)state;
	struct bare *b = bare_new(&BARE_OPS, 0, 1);
	struct fleet *fl = NULL;

	b->with_fleet = true;
	struct frame *f = source_next(&b->s, &fl);
	assert_non_null(f);
	assert_non_null(fl);
	assert_int_equal(fl->nhosts, 1);
	assert_string_equal(fl->hosts[0].name, "host-a");
	assert_ptr_equal(fl->hosts[0].frame, f);
	frame_unref(f);
	fleet_unref(fl);
	source_free(&b->s);
}

/* ---- the live source over a real sampler ---- */

struct live_rig {
	struct fake_clock clk;
	struct script sc[2];
	struct backend_env env;
	struct sampler *sm;
};

static void live_rig_init(struct live_rig *r, size_t nbackends)
{
	memset(r, 0, sizeof(*r));
	fake_clock_init(&r->clk, 100000);
	r->env.procfs = "/proc";
	r->env.sysfs = "/sys";
	r->env.clock = &r->clk.c;
	struct backend *b[2];
	for (size_t i = 0; i < nbackends; i++) {
		script_init(&r->sc[i], i ? "beta" : "alpha", 1, &r->clk.c);
		r->sc[i].remote = true; /* rows are not looked up in this machine's /proc */
		b[i] = scripted_backend_new(&r->sc[i], true);
	}
	struct sampler_opts o = script_sampler_opts(&r->clk, &r->env, 1000);
	r->sm = sampler_new(b, nbackends, &o);
	assert_non_null(r->sm);
}

static void live_rig_fini(struct live_rig *r, size_t nbackends)
{
	sampler_free(r->sm);
	for (size_t i = 0; i < nbackends; i++)
		script_fini(&r->sc[i]);
}

/* What a paced source handed over: noted here, checked by the test's own
 * thread (this runs on the sampler's). */
struct handed {
	int n;
	size_t ngpus;
	bool fleet;
};

static bool take_one(void *ctx, struct frame *fr, struct fleet *fl)
{
	struct handed *h = ctx;

	h->n++;
	h->ngpus = fr->ngpus;
	h->fleet = fl != NULL;
	frame_unref(fr);
	fleet_unref(fl);
	return false; /* no more */
}

/* Live, one backend: no seeking, not recorded, paced by its worker; what
 * it hands over is counted like a frame taken (its next is due after the
 * interval, no longer after first_due_ms). */
static void test_live_one_backend(void **state)
{
	(void)state;
	struct live_rig r;
	live_rig_init(&r, 1);
	struct source *s = source_live(r.sm, 5);

	assert_false(source_can_seek(s));
	struct frame *last;
	struct fleet *last_fleet;
	uint64_t n;
	assert_int_equal(source_seek(s, SOURCE_SEEK_END, &last, &last_fleet, &n), -ENOTSUP);
	assert_int_equal(source_seek_time(s, 1, &n), -ENOTSUP);
	assert_false(source_recorded(s));
	assert_int_equal(source_cadence_ms(s), 0);
	assert_true(source_can_pace(s));
	assert_int_equal(source_due_ms(s, 0.5, 1.0), 5);

	struct handed h = {0};
	struct source_pace p = {.interval_s = 0.01, .take = take_one, .ctx = &h};
	assert_int_equal(source_pace(s, &p), 0); /* take said "no more" */
	assert_int_equal(h.n, 1);
	assert_int_equal(h.ngpus, 1);
	assert_false(h.fleet); /* a machine's backend: no fleet */
	assert_int_equal(source_due_ms(s, 0.5, 1.0), 500);
	source_free(s);
	live_rig_fini(&r, 1);
}

/* Live, two backends: the source cannot pace (the feed ticks instead). */
static void test_live_two_backends(void **state)
{
	(void)state;
	struct live_rig r;
	live_rig_init(&r, 2);
	struct source *s = source_live(r.sm, 0);
	struct handed h = {0};
	struct source_pace p = {.interval_s = 0.01, .take = take_one, .ctx = &h};

	assert_false(source_can_pace(s));
	assert_int_equal(source_pace(s, &p), -ENOTSUP);
	assert_int_equal(h.n, 0);
	struct fleet *fl;
	struct frame *f = source_next(s, &fl);
	assert_int_equal(f->ngpus, 2);
	assert_null(fl);
	frame_unref(f);
	source_free(s);
	live_rig_fini(&r, 2);
}

/* ---- a recording ---- */

/* A recording seeks, is recorded, learns its cadence from its records and
 * cannot pace. */
static void test_recording(void **state)
{
	(void)state;
	char *dir = testutil_tmpdir(), *path = testutil_path(dir, "rec.jsonl");
	char err[256];

	testutil_write_str(path, "{\"ts_ms\":1000,\"gpus\":[]}\n{\"ts_ms\":3000,\"gpus\":[]}\n{\"ts_ms\":5000,\"gpus\":[]}\n");
	struct replay *rp = replay_open(path, err, sizeof(err));
	assert_non_null(rp);
	struct source *s = source_replay(rp, true);

	assert_true(source_can_seek(s));
	assert_true(source_recorded(s));
	assert_false(source_can_pace(s));
	assert_int_equal(source_cadence_ms(s), 0); /* nothing read yet */
	struct fleet *fl;
	frame_unref(source_next(s, &fl));
	frame_unref(source_next(s, &fl));
	assert_null(fl);
	assert_int_equal(source_cadence_ms(s), 2000);

	struct frame *last;
	struct fleet *last_fleet;
	uint64_t skipped;
	assert_int_equal(source_seek(s, SOURCE_SEEK_END, &last, &last_fleet, &skipped), 0);
	assert_non_null(last);
	assert_null(last_fleet);
	assert_int_equal(last->ts_ms, 5000);
	assert_int_equal(skipped, 3);
	frame_unref(last);
	assert_int_equal(source_seek(s, SOURCE_SEEK_START, &last, &last_fleet, &skipped), 0);
	struct frame *f = source_next(s, &fl);
	assert_int_equal(f->ts_ms, 1000);
	frame_unref(f);

	source_free(s);
	replay_free(rp);
	testutil_rmtree(dir);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_pace_needs_can_pace),
		cmocka_unit_test(test_fleet_passes_through),
		cmocka_unit_test(test_live_one_backend),
		cmocka_unit_test(test_live_two_backends),
		cmocka_unit_test(test_recording),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
