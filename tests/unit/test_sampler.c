/* test_sampler: the sampler with scripted backends and a fake clock —
 * composition, per-GPU loss, backend loss and re-detection with backoff,
 * hangs that stall only their own backend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sampler.h"
#include "scripted_backend.h"

struct fixture {
	struct fake_clock clk;
	struct script a, b;
	struct backend_env env;
	struct sampler *s;
};

static struct sampler_opts opts(struct fixture *fx, uint64_t wait_ms)
{
	struct sampler_opts o = script_sampler_opts(&fx->clk, &fx->env, wait_ms);
	return o;
}

static struct fixture *setup(size_t na, size_t nb, uint64_t wait_ms)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct backend *bs[2];

	fake_clock_init(&fx->clk, 100000);
	fx->env.procfs = "/proc";
	fx->env.sysfs = "/sys";
	fx->env.clock = &fx->clk.c;
	script_init(&fx->a, "alpha", na, &fx->clk.c);
	script_init(&fx->b, "beta", nb, &fx->clk.c);
	fx->a.driver = "550.1";
	bs[0] = scripted_backend_new(&fx->a, true);
	bs[1] = scripted_backend_new(&fx->b, true);
	struct sampler_opts o = opts(fx, wait_ms);
	fx->s = sampler_new(bs, 2, &o);
	return fx;
}

static void teardown(struct fixture *fx)
{
	script_release(&fx->a);
	script_release(&fx->b);
	sampler_free(fx->s);
	script_fini(&fx->a);
	script_fini(&fx->b);
	free(fx);
}

static size_t count_events(const struct frame *f, const char *kind)
{
	size_t n = 0;
	for (size_t i = 0; i < f->nevents; i++)
		n += strcmp(f->events[i].kind, kind) == 0;
	return n;
}

static const struct event *find_event(const struct frame *f, const char *kind)
{
	for (size_t i = 0; i < f->nevents; i++)
		if (strcmp(f->events[i].kind, kind) == 0)
			return &f->events[i];
	return NULL;
}

static struct frame *tick_after(struct fixture *fx, unsigned long long ms)
{
	fake_clock_advance(&fx->clk, ms);
	return sampler_tick(fx->s, NULL);
}

static void set_lost1(struct script *sc, void *arg)
{
	sc->lost[1] = *(bool *)arg;
}

static void set_fail(struct script *sc, void *arg)
{
	sc->fail_polls = *(bool *)arg;
}

static void set_open_failures(struct script *sc, void *arg)
{
	sc->open_failures = *(int *)arg;
}

static void set_hang(struct script *sc, void *arg)
{
	sc->hang = *(bool *)arg;
}

static void set_ngpus(struct script *sc, void *arg)
{
	sc->ngpus = *(size_t *)arg;
}

static void set_stray(struct script *sc, void *arg)
{
	sc->stray_row = *(bool *)arg;
}

static void set_remote(struct script *sc, void *arg)
{
	sc->remote = *(bool *)arg;
}

static void set_pid_base(struct script *sc, void *arg)
{
	sc->pid_base = *(unsigned *)arg;
}

/* The sampler, not the backend, fills the /proc side of a row, on the
 * backend's worker: a local backend's row of this very process gets its
 * name, command line and start time, and is marked local; a remote
 * backend's row with the same pid is left as it came (another machine's
 * pid says nothing about this machine's /proc). */
static void test_process_details_filled_once_for_local_rows(void **state)
{
	(void)state;
	struct fixture *fx = setup(1, 1, 5000);
	unsigned me = (unsigned)getpid();
	bool on = true;
	script_set(&fx->a, set_pid_base, &me);
	script_set(&fx->b, set_pid_base, &me);
	script_set(&fx->b, set_remote, &on);
	frame_unref(sampler_tick(fx->s, NULL));
	struct frame *f = tick_after(fx, 1000);

	assert_int_equal(f->nprocs, 2);
	const struct gpu_process *l = &f->procs[0], *r = &f->procs[1];
	assert_int_equal(l->pid, me);
	assert_int_equal(r->pid, me);
	assert_true(l->local);
	assert_true(process_has(l, PROC_F_NAME));
	assert_string_equal(l->name, "test_sampler");
	assert_true(process_has(l, PROC_F_CMDLINE));
	assert_non_null(strstr(l->cmdline, "test_sampler"));
	assert_true(process_has(l, PROC_F_START));
	assert_true(process_has(l, PROC_F_USER));
	assert_false(r->local);
	assert_false(process_has(r, PROC_F_NAME));
	assert_false(process_has(r, PROC_F_CMDLINE));
	assert_false(process_has(r, PROC_F_START));
	assert_false(process_has(r, PROC_F_CPU));
	assert_false(process_has(r, PROC_F_HOST_MEM));
	frame_unref(f);
	teardown(fx);
}

/* Children are concatenated in order, rows re-indexed, names and drivers
 * joined with '+', '?' for a child without a driver, stray rows dropped. */
static void test_compose_two_backends(void **state)
{
	(void)state;
	struct fixture *fx = setup(2, 1, 5000);
	bool on = true;
	script_set(&fx->b, set_stray, &on);
	struct frame *f = sampler_tick(fx->s, NULL);

	assert_int_equal(f->ngpus, 3);
	assert_string_equal(f->gpus[0].device_id, "GPU-alpha-0");
	assert_string_equal(f->gpus[1].device_id, "GPU-alpha-1");
	assert_string_equal(f->gpus[2].device_id, "GPU-beta-0");
	assert_string_equal(f->backend, "alpha+beta");
	assert_string_equal(f->driver, "550.1+?");
	assert_string_equal(f->host, "testhost");
	assert_true(frame_has(f, FRAME_F_TS));
	assert_int_equal(f->ts_ms, 1700000000000ull + 100000);
	/* alpha's rows 0,1; beta's row 0 becomes gpu_index 2; its stray row goes. */
	assert_int_equal(f->nprocs, 3);
	assert_int_equal(f->procs[2].pid, 1000);
	assert_int_equal(f->procs[2].gpu_index, 2);
	for (size_t i = 0; i < f->nprocs; i++)
		assert_int_not_equal(f->procs[i].pid, 999);
	assert_int_equal(f->nevents, 0);
	frame_unref(f);
	teardown(fx);
}

/* GPU_IS_LOST is per device: that GPU turns lost (readings omitted, one
 * gpu_lost event), the others go on; the backend re-initialises with
 * backoff, and the GPU comes back in the same position with gpu_back. */
static void test_gpu_lost_and_back(void **state)
{
	(void)state;
	struct fixture *fx = setup(3, 1, 5000);
	bool on = true, off = false;
	frame_unref(sampler_tick(fx->s, NULL));

	script_set(&fx->a, set_lost1, &on);
	struct frame *f = tick_after(fx, 100);
	assert_int_equal(f->ngpus, 4);
	assert_int_equal(gpu_state(&f->gpus[1]), GPU_STATE_LOST);
	assert_false(gpu_has(&f->gpus[1], GPU_F_UTIL));
	assert_string_equal(f->gpus[1].device_id, "GPU-alpha-1");
	assert_int_equal(gpu_state(&f->gpus[0]), GPU_STATE_OK);
	assert_true(gpu_has(&f->gpus[2], GPU_F_UTIL));
	assert_int_equal(count_events(f, EVENT_GPU_LOST), 1);
	const struct event *e = find_event(f, EVENT_GPU_LOST);
	assert_int_equal(e->gpu_index, 1);
	assert_string_equal(e->device_id, "GPU-alpha-1");
	frame_unref(f);

	/* The event is in exactly one record. */
	f = tick_after(fx, 100);
	assert_int_equal(count_events(f, EVENT_GPU_LOST), 0);
	assert_int_equal(fx->a.reinits, 0);
	frame_unref(f);

	/* Re-initialisation after the 1 s backoff, then 2 s. */
	f = tick_after(fx, 1000);
	frame_unref(f);
	assert_int_equal(fx->a.reinits, 1);
	f = tick_after(fx, 1000);
	frame_unref(f);
	assert_int_equal(fx->a.reinits, 1);
	f = tick_after(fx, 1000);
	frame_unref(f);
	assert_int_equal(fx->a.reinits, 2);

	script_set(&fx->a, set_lost1, &off);
	f = tick_after(fx, 100);
	assert_int_equal(gpu_state(&f->gpus[1]), GPU_STATE_OK);
	assert_string_equal(f->gpus[1].device_id, "GPU-alpha-1");
	assert_int_equal(count_events(f, EVENT_GPU_BACK), 1);
	assert_int_equal(find_event(f, EVENT_GPU_BACK)->gpu_index, 1);
	frame_unref(f);
	teardown(fx);
}

/* A library failure loses the backend: event, its GPUs turn lost with
 * identity kept, the other backend goes on; re-detection runs with backoff
 * 1 s doubling to 30 s, and GPUs come back in their positions. */
static void test_backend_lost_redetect_backoff(void **state)
{
	(void)state;
	struct fixture *fx = setup(2, 1, 5000);
	bool on = true, off = false;
	int fails = 7;
	frame_unref(sampler_tick(fx->s, NULL));

	script_set(&fx->a, set_fail, &on);
	script_set(&fx->a, set_open_failures, &fails);
	struct frame *f = tick_after(fx, 100);
	unsigned long long lost_at = fx->clk.ms;
	assert_int_equal(count_events(f, EVENT_BACKEND_LOST), 1);
	assert_string_equal(find_event(f, EVENT_BACKEND_LOST)->backend, "alpha");
	assert_int_equal(count_events(f, EVENT_GPU_LOST), 2);
	assert_int_equal(f->ngpus, 3);
	assert_int_equal(gpu_state(&f->gpus[0]), GPU_STATE_LOST);
	assert_string_equal(f->gpus[0].name, "alpha card 0");
	assert_true(gpu_has(&f->gpus[0], GPU_F_MEM_TOTAL)); /* static fields may stay */
	assert_int_equal(gpu_state(&f->gpus[2]), GPU_STATE_OK);
	assert_true(gpu_has(&f->gpus[2], GPU_F_UTIL));
	assert_int_equal(f->nprocs, 1); /* beta's row only */
	frame_unref(f);

	script_set(&fx->a, set_fail, &off);
	/* Tick every 100 ms of fake time for up to 200 s; record when opens happen. */
	int opens_before = fx->a.opens;
	for (int i = 0; i < 2000; i++) {
		f = tick_after(fx, 100);
		assert_int_equal(f->ngpus, 3);
		if (count_events(f, EVENT_BACKEND_BACK)) {
			assert_int_equal(gpu_state(&f->gpus[0]), GPU_STATE_OK);
			assert_string_equal(f->gpus[1].device_id, "GPU-alpha-1");
			assert_int_equal(count_events(f, EVENT_GPU_BACK), 2);
			frame_unref(f);
			break;
		}
		frame_unref(f);
	}
	int opens = fx->a.opens - opens_before;
	assert_int_equal(opens, 8); /* 7 failures, then success */
	/* Gaps between attempts: 1, 2, 4, 8, 16, 30, 30, 30 s (±one tick). */
	unsigned long long expect[] = {1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000};
	unsigned long long prev = lost_at;
	for (int i = 0; i < 8; i++) {
		unsigned long long t = fx->a.open_times[opens_before + i];
		assert_in_range(t - prev, expect[i], expect[i] + 100);
		prev = t;
	}
	teardown(fx);
}

/* A hung backend stalls only itself: frames go on with the other backend's
 * fresh data, the hung GPUs keep identity and state without readings once
 * stale, one note after 5 s, and readings return when it answers. */
static void test_hang_stalls_only_its_backend(void **state)
{
	(void)state;
	struct fixture *fx = setup(1, 1, 200);
	bool on = true;
	frame_unref(sampler_tick(fx->s, NULL));

	script_set(&fx->a, set_hang, &on);
	struct frame *f = tick_after(fx, 100);
	script_wait_in_poll(&fx->a);
	frame_unref(f);
	int beta_polls = fx->b.polls;
	size_t notes = 0;
	for (int i = 0; i < 70; i++) {
		f = tick_after(fx, 100);
		assert_int_equal(f->ngpus, 2);
		assert_true(gpu_has(&f->gpus[1], GPU_F_UTIL)); /* beta is fresh */
		assert_string_equal(f->gpus[0].device_id, "GPU-alpha-0");
		assert_int_equal(gpu_state(&f->gpus[0]), GPU_STATE_OK);
		if (fx->clk.ms - 100200 > 1100)
			assert_false(gpu_has(&f->gpus[0], GPU_F_UTIL)); /* stale: identity only */
		const struct event *e = find_event(f, EVENT_NOTE);
		if (e) {
			notes++;
			assert_string_equal(e->detail, "no answer from alpha for 5 s");
		}
		frame_unref(f);
	}
	assert_int_equal(notes, 1);
	assert_int_equal(fx->b.polls - beta_polls, 70);

	script_release(&fx->a);
	/* The answer arrives between ticks, whenever the released worker
	 * thread runs (late on a loaded machine): tick until it is there, for
	 * up to 30 s of real time. */
	uint64_t give_up = clock_mono_ns() + 30000000000ull;
	for (;;) {
		f = tick_after(fx, 100);
		bool back = gpu_has(&f->gpus[0], GPU_F_UTIL);
		const struct event *e = find_event(f, EVENT_NOTE);
		if (e)
			assert_string_equal(e->detail, "alpha answered again");
		frame_unref(f);
		if (back)
			break;
		assert_true(clock_mono_ns() < give_up);
		nanosleep(&(struct timespec){0, 1000000}, NULL); /* let the worker run */
	}
	teardown(fx);
}

/* New GPUs are appended after everything seen; a GPU missing after
 * re-detection keeps its position as lost. */
static void test_positions_are_stable(void **state)
{
	(void)state;
	struct fixture *fx = setup(1, 1, 5000);
	size_t two = 2, zero = 0;
	frame_unref(sampler_tick(fx->s, NULL));

	script_set(&fx->a, set_ngpus, &two);
	struct frame *f = tick_after(fx, 100);
	assert_int_equal(f->ngpus, 3);
	assert_string_equal(f->gpus[0].device_id, "GPU-alpha-0");
	assert_string_equal(f->gpus[1].device_id, "GPU-beta-0");
	assert_string_equal(f->gpus[2].device_id, "GPU-alpha-1");
	/* alpha's second GPU's row points at position 2. */
	bool found = false;
	for (size_t i = 0; i < f->nprocs; i++)
		if (f->procs[i].pid == 1001)
			found = f->procs[i].gpu_index == 2;
	assert_true(found);
	frame_unref(f);

	script_set(&fx->a, set_ngpus, &zero);
	f = tick_after(fx, 100);
	assert_int_equal(f->ngpus, 3);
	assert_int_equal(gpu_state(&f->gpus[0]), GPU_STATE_LOST);
	assert_int_equal(gpu_state(&f->gpus[2]), GPU_STATE_LOST);
	assert_int_equal(gpu_state(&f->gpus[1]), GPU_STATE_OK);
	assert_int_equal(count_events(f, EVENT_GPU_LOST), 2);
	frame_unref(f);
	teardown(fx);
}

/* Detection runs on the workers: a backend that fails its first open is
 * retried with backoff, and its first success is not a come-back. */
static void test_absent_backend_is_detected_later(void **state)
{
	(void)state;
	struct fake_clock clk;
	struct script sc;
	struct backend_env env = {.procfs = "/proc", .sysfs = "/sys"};
	fake_clock_init(&clk, 5000);
	env.clock = &clk.c;
	script_init(&sc, "gamma", 1, &clk.c);
	sc.open_failures = 1;
	struct backend *b = scripted_backend_new(&sc, false);
	struct fixture tmp = {.env = env};
	tmp.clk = clk;
	struct sampler_opts o = opts(&tmp, 5000);
	o.clock = &clk.c;
	o.env = &env;
	struct sampler *s = sampler_new(&b, 1, &o);

	struct sampler_census c;
	sampler_census(s, &c);
	assert_int_equal(c.pending, 1); /* not tried yet */
	struct frame *f = sampler_tick(s, NULL); /* attempt 1 fails */
	assert_int_equal(f->ngpus, 0);
	frame_unref(f);
	sampler_census(s, &c);
	assert_int_equal(c.failed, 1);
	assert_int_equal(c.open, 0);
	fake_clock_advance(&clk, 999);
	f = sampler_tick(s, NULL);
	assert_int_equal(sc.opens, 1);
	frame_unref(f);
	fake_clock_advance(&clk, 1);
	f = sampler_tick(s, NULL);
	assert_int_equal(sc.opens, 2);
	assert_int_equal(f->ngpus, 1);
	assert_int_equal(count_events(f, EVENT_BACKEND_BACK), 0);
	frame_unref(f);
	sampler_census(s, &c);
	assert_int_equal(c.open, 1);
	sampler_free(s);
	script_fini(&sc);
}

static void count_report(const char *name, const char *why, void *ctx)
{
	assert_string_equal(name, "delta");
	assert_string_equal(why, "delta: driver not loaded");
	(*(int *)ctx)++;
}

/* After detection, backends that never opened are reported and dropped;
 * the others go on with their GPUs at positions that start afresh. */
static void test_drop_absent(void **state)
{
	(void)state;
	struct fake_clock clk;
	struct script ok, bad;
	struct backend_env env = {.procfs = "/proc", .sysfs = "/sys"};
	fake_clock_init(&clk, 5000);
	env.clock = &clk.c;
	script_init(&bad, "delta", 1, &clk.c);
	script_init(&ok, "epsilon", 2, &clk.c);
	bad.open_failures = 100;
	struct backend *bs[2] = {scripted_backend_new(&bad, false), scripted_backend_new(&ok, false)};
	struct fixture tmp = {.env = env};
	struct sampler_opts o = opts(&tmp, 5000);
	o.clock = &clk.c;
	o.env = &env;
	struct sampler *s = sampler_new(bs, 2, &o);
	int reported = 0;

	frame_unref(sampler_tick(s, NULL));
	assert_int_equal(sampler_drop_absent(s, count_report, &reported), 1);
	assert_int_equal(reported, 1);
	assert_int_equal(sampler_nbackends(s), 1);
	assert_string_equal(sampler_backend_name(s, 0), "epsilon");
	fake_clock_advance(&clk, 60000);
	struct frame *f = sampler_tick(s, NULL);
	assert_int_equal(f->ngpus, 2);
	assert_string_equal(f->gpus[0].device_id, "GPU-epsilon-0");
	assert_string_equal(f->backend, "epsilon");
	frame_unref(f);
	assert_int_equal(bad.opens, 1); /* never tried again */
	sampler_free(s);
	script_fini(&ok);
	script_fini(&bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compose_two_backends),
		cmocka_unit_test(test_process_details_filled_once_for_local_rows),
		cmocka_unit_test(test_gpu_lost_and_back),
		cmocka_unit_test(test_backend_lost_redetect_backoff),
		cmocka_unit_test(test_hang_stalls_only_its_backend),
		cmocka_unit_test(test_positions_are_stable),
		cmocka_unit_test(test_absent_backend_is_detected_later),
		cmocka_unit_test(test_drop_absent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
