/* test_sampler_pace: frames paced by the worker itself (sampler_run) —
 * handed over from the worker's thread, one poll each; a hung call watched
 * by the caller's thread, which goes on composing frames (values kept, then
 * identity only, with the "no answer" note) until the backend answers; the
 * callback ends it; a stop ends it while the call still hangs; a new
 * interval applies to the next frame. Real threads, the scripted backend,
 * a fake clock for the hang's age; every wait is for a condition. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "model/fleet.h"
#include "sampler.h"
#include "scripted_backend.h"

#define MAXF 256

struct seen_frame {
	pthread_t thread;
	size_t ngpus;
	bool util_known;
	bool no_answer, answered;
	uint64_t poll_us;
};

struct collect {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct seen_frame f[MAXF];
	size_t n;
	size_t want; /* the callback says "no more" at this count (0: never) */
	bool after_end; /* a callback came after sampler_run returned */
	bool ended;
};

struct fixture {
	struct fake_clock clk;
	struct script a;
	struct backend_env env;
	struct sampler *s;
	struct collect c;
	/* The runner: the thread in sampler_run (the watchdog). */
	pthread_t runner;
	struct sampler_run_opts p;
	int rc;
	bool running;
};

static bool has_note(const struct frame *fr, const char *text)
{
	for (size_t i = 0; i < fr->nevents; i++)
		if (fr->events[i].detail && strstr(fr->events[i].detail, text))
			return true;
	return false;
}

static bool on_frame(void *ctx, struct frame *fr, struct fleet *fl)
{
	struct collect *c = ctx;

	pthread_mutex_lock(&c->mu);
	if (c->ended)
		c->after_end = true;
	if (c->n < MAXF) {
		struct seen_frame *s = &c->f[c->n];
		s->thread = pthread_self();
		s->ngpus = fr->ngpus;
		s->util_known = fr->ngpus && gpu_has(&fr->gpus[0], GPU_F_UTIL);
		s->no_answer = has_note(fr, "no answer from alpha");
		s->answered = has_note(fr, "alpha answered again");
		s->poll_us = fr->poll_us;
	}
	c->n++;
	bool more = !c->want || c->n < c->want;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	frame_unref(fr);
	fleet_unref(fl); /* NULL: the scripted backend is no fleet source */
	return more;
}

/* Waits (up to 20 s of real time) until n frames have come. */
static bool wait_frames(struct collect *c, size_t n)
{
	struct timespec dl;
	bool ok = true;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 20;
	pthread_mutex_lock(&c->mu);
	while (c->n < n && ok)
		ok = pthread_cond_timedwait(&c->cv, &c->mu, &dl) != ETIMEDOUT;
	ok = c->n >= n;
	pthread_mutex_unlock(&c->mu);
	return ok;
}

static size_t frames(struct collect *c)
{
	pthread_mutex_lock(&c->mu);
	size_t n = c->n;
	pthread_mutex_unlock(&c->mu);
	return n;
}

static void *runner_main(void *arg)
{
	struct fixture *fx = arg;

	fx->rc = sampler_run(fx->s, &fx->p);
	pthread_mutex_lock(&fx->c.mu);
	fx->c.ended = true;
	pthread_mutex_unlock(&fx->c.mu);
	return NULL;
}

static struct fixture *setup(double interval_s, uint64_t wait_ms, size_t want)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	fake_clock_init(&fx->clk, 100000);
	fx->env.procfs = "/proc";
	fx->env.sysfs = "/sys";
	fx->env.clock = &fx->clk.c;
	script_init(&fx->a, "alpha", 2, &fx->clk.c);
	fx->a.driver = "550.1";
	struct backend *b = scripted_backend_new(&fx->a, true);
	struct sampler_opts o = script_sampler_opts(&fx->clk, &fx->env, wait_ms);
	fx->s = sampler_new(&b, 1, &o);
	assert_non_null(fx->s);
	assert_true(sampler_can_pace(fx->s));
	pthread_mutex_init(&fx->c.mu, NULL);
	pthread_cond_init(&fx->c.cv, NULL);
	fx->c.want = want;
	fx->p = (struct sampler_run_opts){.first_due_ms = 0, .interval_s = interval_s, .frame = on_frame, .ctx = &fx->c};
	return fx;
}

static void start(struct fixture *fx)
{
	assert_int_equal(pthread_create(&fx->runner, NULL, runner_main, fx), 0);
	fx->running = true;
}

static void join(struct fixture *fx)
{
	pthread_join(fx->runner, NULL);
	fx->running = false;
}

/* Stops the run from this thread and joins it. */
static void stop(struct fixture *fx)
{
	sampler_stop_run(fx->s);
	join(fx);
}

static void teardown(struct fixture *fx)
{
	if (fx->running)
		stop(fx);
	script_release(&fx->a);
	sampler_free(fx->s);
	script_fini(&fx->a);
	pthread_mutex_destroy(&fx->c.mu);
	pthread_cond_destroy(&fx->c.cv);
	free(fx);
}

static void set_hang(struct script *sc, void *arg)
{
	sc->hang = *(bool *)arg;
}

static int polls(struct script *sc)
{
	pthread_mutex_lock(&sc->mu);
	int n = sc->polls;
	pthread_mutex_unlock(&sc->mu);
	return n;
}

/* Each frame is one poll, composed and handed over on the worker's thread
 * (not the runner's); the callback's "no more" ends the run with 0, and no
 * frame comes after it. */
static void test_frames_come_from_the_worker(void **state)
{
	(void)state;
	struct fixture *fx = setup(0.01, 1000, 5);
	start(fx);
	join(fx);
	assert_int_equal(fx->rc, 0);
	assert_int_equal(frames(&fx->c), 5);
	for (size_t i = 0; i < 5; i++) {
		assert_false(pthread_equal(fx->c.f[i].thread, fx->runner));
		assert_false(pthread_equal(fx->c.f[i].thread, pthread_self()));
		assert_int_equal(fx->c.f[i].ngpus, 2);
		assert_true(fx->c.f[i].util_known);
	}
	assert_int_equal(polls(&fx->a), 5);
	sampler_free(fx->s);
	fx->s = NULL;
	assert_int_equal(frames(&fx->c), 5);
	assert_false(fx->c.after_end);
	script_fini(&fx->a);
	pthread_mutex_destroy(&fx->c.mu);
	pthread_cond_destroy(&fx->c.cv);
	free(fx);
}

/* A hung call: the runner composes the frames (the last values while the
 * call is younger than stale_ms, then identity only with the note), every
 * interval, and the worker's next frame says the backend answered again. */
static void test_a_hang_is_watched(void **state)
{
	(void)state;
	struct fixture *fx = setup(0.01, 10, 0);
	bool on = true;
	start(fx);
	assert_true(wait_frames(&fx->c, 2));
	script_set(&fx->a, set_hang, &on);
	script_wait_in_poll(&fx->a);
	size_t at_hang = frames(&fx->c);
	assert_true(wait_frames(&fx->c, at_hang + 3));
	pthread_mutex_lock(&fx->c.mu);
	for (size_t i = at_hang; i < at_hang + 3; i++) {
		assert_true(pthread_equal(fx->c.f[i].thread, fx->runner));
		assert_int_equal(fx->c.f[i].ngpus, 2);
		assert_true(fx->c.f[i].util_known); /* kept: the call is young */
	}
	pthread_mutex_unlock(&fx->c.mu);
	fake_clock_advance(&fx->clk, 6000);
	size_t aged = frames(&fx->c);
	assert_true(wait_frames(&fx->c, aged + 2));
	pthread_mutex_lock(&fx->c.mu);
	/* The first frame composed after the clock moved: identity only, and
	 * the note (a frame may have been composed as the clock moved). */
	bool noted = false, ident = false;
	for (size_t i = aged; i < fx->c.n && i < MAXF; i++) {
		noted |= fx->c.f[i].no_answer;
		/* Its "poll" is the call's age, not the watchdog's composing. */
		if (fx->c.f[i].no_answer)
			assert_true(fx->c.f[i].poll_us >= 6000000u);
		ident |= fx->c.f[i].ngpus == 2 && !fx->c.f[i].util_known;
		assert_true(pthread_equal(fx->c.f[i].thread, fx->runner));
	}
	pthread_mutex_unlock(&fx->c.mu);
	assert_true(noted);
	assert_true(ident);
	size_t before = frames(&fx->c);
	script_release(&fx->a);
	/* The worker's own frame comes, and says so. */
	bool back = false;
	for (size_t want = before + 1; !back && want < MAXF; want++) {
		assert_true(wait_frames(&fx->c, want));
		pthread_mutex_lock(&fx->c.mu);
		const struct seen_frame *f = &fx->c.f[want - 1];
		if (!pthread_equal(f->thread, fx->runner)) {
			back = true;
			assert_true(f->answered);
			assert_true(f->util_known);
		}
		pthread_mutex_unlock(&fx->c.mu);
	}
	assert_true(back);
	stop(fx);
	assert_int_equal(fx->rc, 1);
	teardown(fx);
}

/* A stop ends the run at once although the worker's call still hangs (the
 * run returns while the call is in progress), and no frame comes after. */
static void test_stop_while_hung(void **state)
{
	(void)state;
	struct fixture *fx = setup(0.01, 10, 0);
	bool on = true;
	script_set(&fx->a, set_hang, &on);
	start(fx);
	script_wait_in_poll(&fx->a);
	stop(fx);
	assert_int_equal(fx->rc, 1);
	pthread_mutex_lock(&fx->a.mu);
	assert_true(fx->a.in_poll); /* still hung when the run ended */
	pthread_mutex_unlock(&fx->a.mu);
	size_t n = frames(&fx->c);
	fake_clock_advance(&fx->clk, 1); /* the call's age is not 0 while it runs */
	script_release(&fx->a);
	/* Back from its call (else sampler_free would abandon it). */
	while (sampler_busy_ms(fx->s, 0) != 0)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	sampler_free(fx->s); /* joins the worker */
	fx->s = NULL;
	assert_int_equal(frames(&fx->c), n);
	assert_false(fx->c.after_end);
	script_fini(&fx->a);
	pthread_mutex_destroy(&fx->c.mu);
	pthread_cond_destroy(&fx->c.cv);
	free(fx);
}

/* An interval of an hour: the first frame comes (first_due_ms 0) and the
 * next is an hour away; a new interval brings it at once. */
static void test_new_interval_applies_to_the_next_frame(void **state)
{
	(void)state;
	struct fixture *fx = setup(3600, 1000, 4);
	start(fx);
	assert_true(wait_frames(&fx->c, 1));
	assert_int_equal(polls(&fx->a), 1);
	sampler_set_interval(fx->s, 0.01);
	join(fx);
	assert_int_equal(fx->rc, 0);
	assert_int_equal(frames(&fx->c), 4);
	teardown(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_come_from_the_worker),
		cmocka_unit_test(test_a_hang_is_watched),
		cmocka_unit_test(test_stop_while_hung),
		cmocka_unit_test(test_new_interval_applies_to_the_next_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
