/* test_pick: the arguments of --select and --wait, and the window that
 * judges GPUs: the worst poll of the last --stable counts, a value unknown
 * in it never passes a filter that is on, a GPU must have been seen for the
 * whole window, MIG instances are chosen instead of their GPU, another
 * user's process (or an unknown user's) keeps a GPU unless --shared, and
 * the free ones come best first. A poll's readings stand until the next. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/fleet.h"
#include "model/frame.h"
#include "pick/pick.h"
#include "pick/pick_lock.h"
#include "pick/pick_text.h"
#include "pick/pick_window.h"
#include "util/buf.h"

#define GIB 1073741824.0L

static void test_sizes(void **state)
{
	struct pick_size s = {0};

	(void)state;
	assert_true(pick_parse_size("20G", &s));
	assert_true(s.set && !s.pct && s.value == 20 * 1073741824.0);
	assert_true(pick_parse_size("20GiB", &s));
	assert_true(s.value == 20 * 1073741824.0);
	assert_true(pick_parse_size("1.5T", &s));
	assert_true(s.value == 1.5 * 1099511627776.0);
	assert_true(pick_parse_size("512MiB", &s) && s.value == 512 * 1048576.0);
	assert_true(pick_parse_size("4096", &s) && s.value == 4096);
	assert_true(pick_parse_size("0", &s) && s.value == 0);
	assert_true(pick_parse_size("50%", &s) && s.pct && s.value == 50);
	assert_true(pick_parse_size("12.5%", &s) && s.pct && s.value == 12.5);
	s.value = 7;
	static const char *const bad[] = {"", "G", "-1G", "20GB", "20g", "101%", "1e3", "0x10", "20 G", ".", "inf", "%"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (pick_parse_size(bad[i], &s))
			fail_msg("'%s' read as a size", bad[i]);
	assert_true(s.value == 7); /* left as it was */
}

static void test_percentages_and_durations(void **state)
{
	struct pick_pct p = {0};
	struct pick_duration d = {0};
	enum pick_format f = PICK_FORMAT_UUID;

	(void)state;
	assert_true(pick_parse_pct("10", &p) && p.value == 10);
	assert_true(pick_parse_pct("7.5%", &p) && p.value == 7.5);
	assert_true(pick_parse_pct("100", &p) && pick_parse_pct("0", &p));
	assert_false(pick_parse_pct("100.5", &p));
	assert_false(pick_parse_pct("-1", &p));
	assert_false(pick_parse_pct("ten", &p));
	assert_false(pick_parse_pct("10%%", &p));

	assert_true(pick_parse_duration("10s", PICK_STABLE_MAX_MS, true, &d) && d.ms == 10000);
	assert_true(pick_parse_duration("0.5s", PICK_STABLE_MAX_MS, true, &d) && d.ms == 500);
	assert_true(pick_parse_duration("250ms", PICK_STABLE_MAX_MS, true, &d) && d.ms == 250);
	assert_true(pick_parse_duration("2m", PICK_STABLE_MAX_MS, true, &d) && d.ms == 120000);
	assert_true(pick_parse_duration("1.5h", PICK_STABLE_MAX_MS, true, &d) && d.ms == 5400000);
	assert_true(pick_parse_duration("3", PICK_STABLE_MAX_MS, true, &d) && d.ms == 3000); /* seconds */
	assert_true(pick_parse_duration("0", PICK_STABLE_MAX_MS, true, &d) && d.ms == 0);
	assert_true(pick_parse_duration("24h", PICK_STABLE_MAX_MS, true, &d));
	assert_false(pick_parse_duration("25h", PICK_STABLE_MAX_MS, true, &d));
	assert_false(pick_parse_duration("0", PICK_TIMEOUT_MAX_MS, false, &d));
	assert_false(pick_parse_duration("0.0001s", PICK_TIMEOUT_MAX_MS, false, &d)); /* rounds to 0 */
	assert_false(pick_parse_duration("10x", PICK_TIMEOUT_MAX_MS, false, &d));
	assert_false(pick_parse_duration("-1s", PICK_TIMEOUT_MAX_MS, false, &d));
	assert_true(pick_parse_duration("2d", PICK_TIMEOUT_MAX_MS, false, &d) && d.ms == 172800000);

	assert_true(pick_parse_format("index", &f) && f == PICK_FORMAT_INDEX);
	assert_true(pick_parse_format("uuid", &f) && f == PICK_FORMAT_UUID);
	assert_false(pick_parse_format("UUID", &f));
}

static void test_texts(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(pick_duration_text(10000, b, sizeof(b)), "10s");
	assert_string_equal(pick_duration_text(500, b, sizeof(b)), "0.5s");
	assert_string_equal(pick_duration_text(1500, b, sizeof(b)), "1.5s");
	assert_string_equal(pick_duration_text(250, b, sizeof(b)), "250ms");
	assert_string_equal(pick_duration_text(7200000, b, sizeof(b)), "2h");
	assert_string_equal(pick_duration_text(0, b, sizeof(b)), "0s");
	assert_string_equal(pick_bytes_text(3435973837.0, b, sizeof(b)), "3.2 GiB");
	assert_string_equal(pick_bytes_text(72.0 * 1073741824.0, b, sizeof(b)), "72.0 GiB");
	assert_string_equal(pick_bytes_text(512, b, sizeof(b)), "512 B");
	assert_string_equal(pick_lock_name("GPU-1234", b, sizeof(b)), "GPU-1234.lock");
	assert_string_equal(pick_lock_name("MIG-GPU-1/2/0", b, sizeof(b)), "MIG-GPU-1_2_0.lock");
	assert_string_equal(pick_lock_name("..", b, sizeof(b)), "_..lock");
}

/* Adds a GPU called id with total and free GiB and util % (a negative
 * value: unknown). */
static struct gpu *add_gpu(struct frame *f, const char *id, double total, double free_gib, double util)
{
	struct gpu *g = frame_add_gpu(f);

	g->device_id = frame_str(f, id);
	gpu_set(g, GPU_F_DEVICE_ID);
	g->state = GPU_STATE_OK;
	gpu_set(g, GPU_F_STATE);
	if (total >= 0) {
		g->mem_total_bytes = (long double)total * GIB;
		gpu_set(g, GPU_F_MEM_TOTAL);
	}
	if (free_gib >= 0) {
		g->mem_used_bytes = (long double)(total - free_gib) * GIB;
		gpu_set(g, GPU_F_MEM_USED);
	}
	if (util >= 0) {
		g->util_pct = util;
		gpu_set(g, GPU_F_UTIL);
	}
	return g;
}

static void add_proc(struct frame *f, size_t gpu, const char *user)
{
	struct gpu_process *p = frame_add_process(f);

	p->pid = 1000 + f->nprocs;
	p->gpu_index = gpu;
	p->valid = 1u << PROC_F_PID | 1u << PROC_F_GPU_INDEX;
	if (user) {
		p->user = frame_str(f, user);
		process_set(p, PROC_F_USER);
	}
}

/* The verdict on the GPU called id at the latest poll. */
static const struct pick_candidate *verdict(struct pick_window *w, const char *id)
{
	struct pick_candidate *c;
	size_t n = pick_window_judge(w, &c);

	for (size_t i = 0; i < n; i++)
		if (c[i].id && strcmp(c[i].id, id) == 0)
			return &c[i];
	fail_msg("no candidate %s", id);
	return NULL;
}

/* A poll at ts of one GPU "GPU-a" at util % with 80 GiB free of 80. */
static void poll_util(struct pick_window *w, uint64_t ts, double util)
{
	struct frame *f = frame_new();

	add_gpu(f, "GPU-a", 80, 80, util);
	pick_window_add(w, ts, f, NULL, NULL);
	frame_unref(f);
}

static void test_the_worst_of_the_window_counts(void **state)
{
	struct pick_opts o = {.select_n = 1, .stable = {true, 1500}};
	struct pick_window *w = pick_window_new(&o, "me", "1000", false);
	const struct pick_candidate *c;

	(void)state;
	poll_util(w, 10000, 0);
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_SHORT); /* seen for less than --stable */
	poll_util(w, 11000, 50);
	poll_util(w, 12000, 0);
	c = verdict(w, "GPU-a");
	/* The window holds from 10500, where the poll of 10000 stands, with
	 * the spike at 11000 in it. */
	assert_int_equal(c->why, PICK_UTIL_HIGH);
	assert_false(c->now);
	assert_true(c->util_pct == 50 && c->util_now == 0);
	/* At 13000 the spike's reading still stands at 11500. */
	poll_util(w, 13000, 5);
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_UTIL_HIGH);
	poll_util(w, 14000, 5);
	c = verdict(w, "GPU-a");
	assert_int_equal(c->why, PICK_FREE);
	assert_true(c->util_pct == 5);

	struct buf b;
	buf_init(&b);
	poll_util(w, 15000, 20);
	pick_text_reason(&b, verdict(w, "GPU-a"), &o);
	assert_string_equal(buf_cstr(&b), "GPU 0 is at 20% (> 10%, --max-util)");
	buf_reset(&b);
	poll_util(w, 16000, 0);
	pick_text_reason(&b, verdict(w, "GPU-a"), &o);
	assert_string_equal(buf_cstr(&b), "GPU 0 was at 20% in the last 1.5s (> 10%, --max-util)");
	buf_reset(&b);
	pick_text_brief(&b, verdict(w, "GPU-a"), &o);
	assert_string_equal(buf_cstr(&b), "GPU 0: 20% > 10%");
	buf_fini(&b);
	pick_window_free(w);
}

/* With --stable 0 the latest poll alone counts. */
static void test_stable_zero(void **state)
{
	struct pick_opts o = {.select_n = 1, .stable = {true, 0}};
	struct pick_window *w = pick_window_new(&o, "me", "1000", false);

	(void)state;
	poll_util(w, 5, 90);
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_UTIL_HIGH);
	poll_util(w, 6, 0);
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_FREE);
	pick_window_free(w);
}

static void test_unknowns(void **state)
{
	struct pick_opts o = {.select_n = 1, .stable = {true, 0}};
	struct pick_window *w = pick_window_new(&o, "me", "1000", false);
	struct frame *f = frame_new();

	(void)state;
	add_gpu(f, "GPU-nomem", 80, -1, 0);
	add_gpu(f, "GPU-nototal", -1, -1, 0);
	add_gpu(f, "GPU-noutil", 80, 80, -1);
	add_gpu(f, "GPU-zero", 0, 0, 0); /* unified memory: a total of 0 says nothing */
	struct gpu *lost = add_gpu(f, "GPU-lost", 80, 80, 0);
	lost->state = GPU_STATE_LOST;
	struct gpu *susp = add_gpu(f, "GPU-susp", 80, -1, -1);
	susp->state = GPU_STATE_SUSPENDED;
	struct gpu *noid = add_gpu(f, "x", 80, 80, 0);
	noid->valid &= ~(UINT64_C(1) << GPU_F_DEVICE_ID);
	pick_window_add(w, 100, f, NULL, NULL);
	assert_int_equal(verdict(w, "GPU-nomem")->why, PICK_MEM_UNKNOWN);
	assert_int_equal(verdict(w, "GPU-nototal")->why, PICK_MEM_UNKNOWN);
	assert_int_equal(verdict(w, "GPU-noutil")->why, PICK_UTIL_UNKNOWN);
	assert_int_equal(verdict(w, "GPU-zero")->why, PICK_MEM_UNKNOWN);
	assert_int_equal(verdict(w, "GPU-lost")->why, PICK_LOST);
	assert_int_equal(verdict(w, "GPU-susp")->why, PICK_UNREAD);
	struct pick_candidate *c;
	size_t n = pick_window_judge(w, &c);
	assert_int_equal(n, 7);
	assert_int_equal(c[n - 1].why, PICK_NO_ID);
	pick_window_free(w);

	/* Filters that are off let unknowns pass. */
	o.min_free = (struct pick_size){true, false, 0};
	o.max_util = (struct pick_pct){true, 100};
	w = pick_window_new(&o, "me", "1000", false);
	pick_window_add(w, 100, f, NULL, NULL);
	assert_int_equal(verdict(w, "GPU-nomem")->why, PICK_FREE);
	assert_int_equal(verdict(w, "GPU-noutil")->why, PICK_FREE);
	assert_int_equal(verdict(w, "GPU-lost")->why, PICK_LOST); /* never */
	pick_window_free(w);
	frame_unref(f);
}

static void test_users(void **state)
{
	struct pick_opts o = {.select_n = 1, .stable = {true, 0}};
	struct pick_window *w = pick_window_new(&o, "me", "1000", false);
	struct frame *f = frame_new();
	struct buf b;

	(void)state;
	for (int i = 0; i < 5; i++) {
		char id[16];
		snprintf(id, sizeof(id), "GPU-%d", i);
		add_gpu(f, id, 80, 80, 0);
	}
	add_proc(f, 0, "me");
	add_proc(f, 1, "1000"); /* the current user by uid */
	add_proc(f, 2, "bob");
	add_proc(f, 3, NULL);
	add_proc(f, 4, "me");
	add_proc(f, 4, "carol");
	pick_window_add(w, 100, f, NULL, NULL);
	assert_int_equal(verdict(w, "GPU-0")->why, PICK_FREE);
	assert_int_equal(verdict(w, "GPU-1")->why, PICK_FREE);
	assert_int_equal(verdict(w, "GPU-2")->why, PICK_OTHER_USER);
	assert_int_equal(verdict(w, "GPU-3")->why, PICK_OTHER_USER);
	assert_null(verdict(w, "GPU-3")->user);
	assert_string_equal(verdict(w, "GPU-4")->user, "carol");
	buf_init(&b);
	pick_text_reason(&b, verdict(w, "GPU-2"), &o);
	assert_string_equal(buf_cstr(&b), "GPU 2 runs a process of user bob (--shared)");
	buf_reset(&b);
	pick_text_reason(&b, verdict(w, "GPU-3"), &o);
	assert_string_equal(buf_cstr(&b), "GPU 3 runs a process of an unknown user (--shared)");
	buf_fini(&b);
	pick_window_free(w);

	o.shared = true;
	w = pick_window_new(&o, "me", "1000", false);
	pick_window_add(w, 100, f, NULL, NULL);
	assert_int_equal(verdict(w, "GPU-2")->why, PICK_FREE);
	assert_int_equal(verdict(w, "GPU-3")->why, PICK_FREE);
	pick_window_free(w);
	frame_unref(f);
}

/* A GPU whose process list failed in a poll of the window may run another
 * user's process: it is not free unless --shared, and says why. */
static void test_procs_unknown(void **state)
{
	struct pick_opts o = {.select_n = 1, .stable = {true, 1500}};
	struct pick_window *w = pick_window_new(&o, "me", "1000", false);
	struct buf b;

	(void)state;
	buf_init(&b);
	for (uint64_t ts = 10000; ts <= 15000; ts += 1000) {
		struct frame *f = frame_new();
		struct gpu *g = add_gpu(f, "GPU-a", 80, 80, 0);
		if (ts == 12000) {
			g->procs_unknown = true;
			gpu_set(g, GPU_F_PROCS_UNKNOWN);
		}
		/* Read back from a record, "processes_unknown": false is known. */
		struct gpu *h = add_gpu(f, "GPU-b", 80, 80, 0);
		h->procs_unknown = false;
		gpu_set(h, GPU_F_PROCS_UNKNOWN);
		pick_window_add(w, ts, f, NULL, NULL);
		frame_unref(f);
		const struct pick_candidate *c = verdict(w, "GPU-a");
		if (ts == 15000)
			assert_int_equal(c->why, PICK_FREE);
		if (ts == 12000) {
			assert_int_equal(c->why, PICK_PROCS_UNKNOWN);
			assert_true(c->now);
			pick_text_reason(&b, c, &o);
			assert_string_equal(buf_cstr(&b),
					    "GPU 0's processes cannot be listed, so another user's may be on it (--shared)");
			buf_reset(&b);
		}
		if (ts == 13000 || ts == 14000) {
			/* The failed poll's reading stands until the next poll, and
			 * that stretch is in the window until 14500. */
			assert_int_equal(c->why, PICK_PROCS_UNKNOWN);
			assert_false(c->now);
			pick_text_reason(&b, c, &o);
			assert_string_equal(buf_cstr(&b), "GPU 0's processes could not be listed in the last 1.5s, so "
							  "another user's may be on it (--shared)");
			buf_reset(&b);
			pick_text_brief(&b, c, &o);
			assert_string_equal(buf_cstr(&b), "GPU 0: processes unknown");
			buf_reset(&b);
		}
		if (ts >= 12000)
			assert_int_equal(verdict(w, "GPU-b")->why, PICK_FREE);
	}
	pick_window_free(w);

	o.shared = true;
	w = pick_window_new(&o, "me", "1000", false);
	for (uint64_t ts = 10000; ts <= 12000; ts += 1000) {
		struct frame *f = frame_new();
		struct gpu *g = add_gpu(f, "GPU-a", 80, 80, 0);
		g->procs_unknown = true;
		gpu_set(g, GPU_F_PROCS_UNKNOWN);
		pick_window_add(w, ts, f, NULL, NULL);
		frame_unref(f);
	}
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_FREE); /* --shared takes anybody's GPU */
	pick_window_free(w);
	buf_fini(&b);
}

/* Free ones first: the most free memory, then the lowest utilisation, then
 * the first; the others after them in order, with the shortfall. */
static void test_order_and_shortfall(void **state)
{
	struct pick_opts o = {.select_n = 3, .stable = {true, 0}, .min_free = {true, false, 10 * GIB}};
	struct pick_window *w = pick_window_new(&o, "me", "1000", false);
	struct frame *f = frame_new();
	struct pick_candidate *c;

	(void)state;
	add_gpu(f, "GPU-0", 80, 40, 5);
	add_gpu(f, "GPU-1", 80, 3.2, 0);
	add_gpu(f, "GPU-2", 80, 70, 8);
	add_gpu(f, "GPU-3", 80, 70, 2);
	add_gpu(f, "GPU-4", 80, 70, 2);
	add_gpu(f, "GPU-5", 80, 80, 45);
	pick_window_add(w, 100, f, NULL, NULL);
	size_t n = pick_window_judge(w, &c);
	assert_int_equal(n, 6);
	static const char *const want[] = {"GPU-3", "GPU-4", "GPU-2", "GPU-0", "GPU-1", "GPU-5"};
	for (size_t i = 0; i < n; i++)
		assert_string_equal(c[i].id, want[i]);
	struct buf b;
	buf_init(&b);
	pick_text_values(&b, c, 3, PICK_FORMAT_INDEX);
	assert_string_equal(buf_cstr(&b), "3,4,2");
	buf_reset(&b);
	c[0].why = PICK_LOCKED;
	size_t nfree = pick_window_sort(c, n);
	assert_int_equal(nfree, 3);
	assert_string_equal(c[0].id, "GPU-4");
	pick_text_shortfall(&b, c, n, nfree, &o);
	assert_string_equal(buf_cstr(&b), "only 3 GPUs qualify: GPU 1 has 3.2 GiB free (< 10.0 GiB, --min-free); "
					  "GPU 3 is locked by another gpur --lock; GPU 5 is at 45% (> 10%, --max-util)");
	buf_fini(&b);
	pick_window_free(w);
	frame_unref(f);
}

/* A GPU in MIG mode is never chosen; its instances are, by their MIG ids,
 * and a process on the GPU itself may be on any of them. */
static void test_mig(void **state)
{
	struct pick_opts o = {.select_n = 1, .stable = {true, 0}};
	struct pick_window *w = pick_window_new(&o, "me", "1000", false);
	struct frame *f = frame_new();

	(void)state;
	struct gpu *parent = add_gpu(f, "GPU-p", 40, 40, -1);
	parent->mig_mode = true;
	gpu_set(parent, GPU_F_MIG_MODE);
	struct gpu *one = add_gpu(f, "MIG-one", 20, 20, -1);
	one->parent_device_id = frame_str(f, "GPU-p");
	gpu_set(one, GPU_F_PARENT_DEVICE_ID);
	one->act.gr_pct = 3; /* GPM's activity stands for the utilisation NVML does not give */
	gpu_set(one, GPU_F_GR_ACTIVE);
	struct gpu *two = add_gpu(f, "MIG-two", 5, 5, -1);
	two->parent_device_id = frame_str(f, "GPU-p");
	gpu_set(two, GPU_F_PARENT_DEVICE_ID);
	add_gpu(f, "GPU-plain", 40, 40, 0);
	pick_window_add(w, 100, f, NULL, NULL);
	struct pick_candidate *c;
	size_t n = pick_window_judge(w, &c);
	assert_int_equal(n, 3); /* no GPU-p */
	assert_string_equal(c[0].id, "GPU-plain");
	assert_string_equal(c[1].id, "MIG-one");
	assert_int_equal(c[1].why, PICK_FREE);
	assert_int_equal(verdict(w, "MIG-two")->why, PICK_UTIL_UNKNOWN);
	struct buf b;
	buf_init(&b);
	pick_text_values(&b, c, 2, PICK_FORMAT_INDEX);
	assert_string_equal(buf_cstr(&b), "1,MIG-one"); /* the plain GPU is the second physical one */
	buf_reset(&b);
	pick_text_reason(&b, verdict(w, "MIG-two"), &o);
	assert_string_equal(buf_cstr(&b), "MIG-two's utilisation is unknown (--max-util)");
	buf_fini(&b);
	add_proc(f, 0, "bob");
	pick_window_add(w, 200, f, NULL, NULL);
	assert_int_equal(verdict(w, "MIG-one")->why, PICK_OTHER_USER);
	assert_int_equal(verdict(w, "GPU-plain")->why, PICK_FREE);
	pick_window_free(w);
	frame_unref(f);
}

/* A GPU that went away within the window is not seen for all of it, and a
 * recording shorter than the window counts from its first poll. */
static void test_gone_and_partial(void **state)
{
	struct pick_opts o = {.select_n = 1, .stable = {true, 1000}};
	struct pick_window *w = pick_window_new(&o, "me", "1000", false);
	struct frame *empty = frame_new();

	(void)state;
	poll_util(w, 0, 0);
	poll_util(w, 1000, 0);
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_FREE);
	pick_window_add(w, 1500, empty, NULL, NULL);
	poll_util(w, 2000, 0);
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_SHORT);
	poll_util(w, 2600, 0); /* the poll without it stands until 2000 */
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_SHORT);
	poll_util(w, 3100, 0);
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_FREE);
	pick_window_free(w);

	w = pick_window_new(&o, "me", "1000", false);
	poll_util(w, 5000, 0);
	poll_util(w, 5300, 0);
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_SHORT);
	pick_window_free(w);
	w = pick_window_new(&o, "me", "1000", true);
	poll_util(w, 5000, 0);
	poll_util(w, 5300, 0);
	assert_int_equal(verdict(w, "GPU-a")->why, PICK_FREE);
	pick_window_free(w);
	frame_unref(empty);
}

/* In a fleet, the same id on two hosts is two GPUs, named after their
 * hosts. */
static void test_fleet(void **state)
{
	struct pick_opts o = {.select_n = 2, .stable = {true, 0}};
	struct pick_window *w = pick_window_new(&o, "me", "1000", false);
	struct fleet *fl = fleet_new("http://prom");
	struct frame *a = frame_new(), *b = frame_new();
	struct pick_candidate *c;
	struct buf t;

	(void)state;
	add_gpu(a, "GPU-x", 80, 78, 0);
	add_gpu(b, "GPU-x", 80, 79, 0);
	add_gpu(b, "GPU-y", 80, 80, 50);
	fleet_add_host(fl, "node-a", a);
	fleet_add_host(fl, "node-b", b);
	pick_window_add(w, 100, NULL, fl, NULL);
	size_t n = pick_window_judge(w, &c);
	assert_int_equal(n, 3);
	buf_init(&t);
	pick_text_values(&t, c, 2, PICK_FORMAT_UUID);
	assert_string_equal(buf_cstr(&t), "node-b:GPU-x,node-a:GPU-x");
	buf_reset(&t);
	pick_text_values(&t, c, 2, PICK_FORMAT_INDEX);
	assert_string_equal(buf_cstr(&t), "node-b:0,node-a:0");
	buf_reset(&t);
	pick_text_reason(&t, &c[2], &o);
	assert_string_equal(buf_cstr(&t), "node-b GPU 1 is at 50% (> 10%, --max-util)");
	buf_fini(&t);
	fleet_unref(fl);
	frame_unref(a);
	frame_unref(b);
	pick_window_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_percentages_and_durations),
		cmocka_unit_test(test_texts),
		cmocka_unit_test(test_the_worst_of_the_window_counts),
		cmocka_unit_test(test_stable_zero),
		cmocka_unit_test(test_unknowns),
		cmocka_unit_test(test_users),
		cmocka_unit_test(test_procs_unknown),
		cmocka_unit_test(test_order_and_shortfall),
		cmocka_unit_test(test_mig),
		cmocka_unit_test(test_gone_and_partial),
		cmocka_unit_test(test_fleet),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
