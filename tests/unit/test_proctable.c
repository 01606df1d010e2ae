/* test_proctable: the column table, filters, sorting (unknown last in both
 * directions, ties by pid then GPU) and the text of every kind of cell. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/frame.h"
#include "testutil.h"
#include "view/proctable.h"

#define NOW_MS UINT64_C(1700000000000)

/* Appends a process with pid on GPU gpu (both known); other fields unknown. */
static struct gpu_process *add_proc(struct frame *f, uint64_t pid, uint64_t gpu)
{
	struct gpu_process *p = frame_add_process(f);

	assert_non_null(p);
	p->pid = pid;
	p->gpu_index = gpu;
	process_set(p, PROC_F_PID);
	process_set(p, PROC_F_GPU_INDEX);
	return p;
}

static void set_str(struct frame *f, struct gpu_process *p, enum process_field b, const char *s)
{
	testutil_proc_str(f, p, b, s);
}

static void set_gpu_mem(struct gpu_process *p, uint64_t bytes)
{
	p->gpu_mem_bytes = bytes;
	process_set(p, PROC_F_GPU_MEM);
}

static struct frame *frame_with_gpus(size_t n)
{
	struct frame *f = frame_new();

	for (size_t i = 0; i < n; i++)
		assert_non_null(frame_add_gpu(f));
	return f;
}

/* The pids of the view, in order, as "p1 p2 ..." for easy comparison. */
static const char *view_pids(const struct frame *f, const struct proctable_opts *o)
{
	static char out[512];
	size_t rows[64], n = proctable_view(f, o, rows, 64), len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%llu", i ? " " : "",
					(unsigned long long)f->procs[rows[i]].pid);
	return out;
}

static const char *cell(const struct frame *f, const struct gpu_process *p, enum proctable_col c)
{
	static char buf[256];

	proctable_cell(f, p, c, NOW_MS, buf, sizeof(buf));
	return buf;
}

static void test_columns(void **state)
{
	static const char *const names[] = {"pid", "user", "dev", "type", "gpu", "membw", "gpumem",
					    "cpu", "hostmem", "time", "idle", "container", "command"};
	static const char *const titles[] = {"PID", "USER", "DEV", "TYPE", "GPU%", "MEMBW%", "GPU-MEM",
					     "CPU%", "HOST-MEM", "TIME", "IDLE", "CONTAINER", "COMMAND"};

	(void)state;
	for (int c = 0; c < PROCTABLE__COUNT; c++) {
		assert_string_equal(PROCTABLE_COLS[c].name, names[c]);
		assert_string_equal(PROCTABLE_COLS[c].title, titles[c]);
		assert_int_equal(proctable_col_by_name(names[c], strlen(names[c])), c);
		if (c == PROCTABLE_COMMAND)
			assert_int_equal(PROCTABLE_COLS[c].width, 0);
		else
			assert_true(PROCTABLE_COLS[c].width >= (int)strlen(titles[c]));
		assert_true(PROCTABLE_COLS[c].numeric == PROCTABLE_COLS[c].right);
	}
	assert_int_equal(proctable_col_by_name("GPUMem", 6), PROCTABLE_GPUMEM);
	assert_int_equal(proctable_col_by_name("gpumem,cpu", 6), PROCTABLE_GPUMEM); /* length, not NUL */
	assert_int_equal(proctable_col_by_name("gpum", 4), -1);
	assert_int_equal(proctable_col_by_name("gpumemx", 7), -1);
	assert_int_equal(proctable_col_by_name("", 0), -1);
	assert_int_equal(proctable_col_by_name(NULL, 3), -1);
}

static void test_sort_numbers_unknown_last(void **state)
{
	struct frame *f = frame_with_gpus(2);
	struct proctable_opts o = {.sort = PROCTABLE_GPUMEM, .now_ms = NOW_MS};

	(void)state;
	set_gpu_mem(add_proc(f, 1, 0), 100);
	add_proc(f, 2, 0);              /* unknown */
	set_gpu_mem(add_proc(f, 3, 0), 0); /* a measured zero */
	set_gpu_mem(add_proc(f, 4, 0), 300);
	add_proc(f, 5, 0);              /* unknown */
	assert_string_equal(view_pids(f, &o), "4 1 3 2 5");
	o.reverse = true;
	/* Ascending, yet unknown still last and after the measured 0. */
	assert_string_equal(view_pids(f, &o), "3 1 4 2 5");
	frame_unref(f);
}

static void test_sort_ties_and_stability(void **state)
{
	struct frame *f = frame_with_gpus(2);
	struct proctable_opts o = {.sort = PROCTABLE_GPU, .now_ms = NOW_MS};
	struct gpu_process *p;
	size_t rows[8];

	(void)state;
	p = add_proc(f, 30, 0);
	p->gpu_util_pct = 50;
	process_set(p, PROC_F_GPU_UTIL);
	p = add_proc(f, 10, 1);
	p->gpu_util_pct = 50;
	process_set(p, PROC_F_GPU_UTIL);
	p = add_proc(f, 20, 0);
	p->gpu_util_pct = 50;
	process_set(p, PROC_F_GPU_UTIL);
	p = add_proc(f, 10, 0);
	p->gpu_util_pct = 50;
	process_set(p, PROC_F_GPU_UTIL);
	p = add_proc(f, 5, 0);
	p->gpu_util_pct = 90;
	process_set(p, PROC_F_GPU_UTIL);
	assert_string_equal(view_pids(f, &o), "5 10 10 20 30");
	assert_int_equal(proctable_view(f, &o, rows, 8), 5);
	assert_int_equal(rows[1], 3); /* pid 10 on GPU 0 before pid 10 on GPU 1 */
	assert_int_equal(rows[2], 1);
	o.reverse = true;
	/* Ties keep pid order in either direction. */
	assert_string_equal(view_pids(f, &o), "10 10 20 30 5");
	frame_unref(f);
}

static bool ties_ok(const struct gpu_process *x, const struct gpu_process *y, size_t a, size_t b);

/* Whether row a may come before row b sorted by GPU memory, descending, unknown
 * last, then pid, then GPU, then frame position: the order written out
 * here, independently of the sort. */
static bool mem_order_ok(const struct frame *f, size_t a, size_t b, bool reverse)
{
	const struct gpu_process *x = &f->procs[a], *y = &f->procs[b];
	bool kx = process_has(x, PROC_F_GPU_MEM), ky = process_has(y, PROC_F_GPU_MEM);

	if (kx != ky)
		return kx;
	if (kx && x->gpu_mem_bytes != y->gpu_mem_bytes)
		return reverse ? x->gpu_mem_bytes < y->gpu_mem_bytes : x->gpu_mem_bytes > y->gpu_mem_bytes;
	return ties_ok(x, y, a, b);
}

/* The same for USER, a text: known first, ascending by its text (the test's
 * users differ in more than case), turned round by reverse, then the same
 * ties. */
static bool user_order_ok(const struct frame *f, size_t a, size_t b, bool reverse)
{
	const struct gpu_process *x = &f->procs[a], *y = &f->procs[b];
	bool kx = process_has(x, PROC_F_USER), ky = process_has(y, PROC_F_USER);

	if (kx != ky)
		return kx;
	if (kx && strcmp(x->user, y->user) != 0)
		return reverse ? strcmp(x->user, y->user) > 0 : strcmp(x->user, y->user) < 0;
	return ties_ok(x, y, a, b);
}

/* Ties: a known pid first, ascending, then the GPU, then the frame
 * position. */
static bool ties_ok(const struct gpu_process *x, const struct gpu_process *y, size_t a, size_t b)
{
	bool px = process_has(x, PROC_F_PID), py = process_has(y, PROC_F_PID);
	if (px != py)
		return px;
	if (px && x->pid != y->pid)
		return x->pid < y->pid;
	if (x->gpu_index != y->gpu_index)
		return x->gpu_index < y->gpu_index;
	return a < b;
}

/* Many rows, of every length a merge sort splits differently, with few
 * distinct values, repeated pids and unknowns, sorted by a number and by a
 * text: each view holds every row once, in the order above, in both
 * directions, and a view cut to a few rows is the start of the whole one. */
static void test_sort_many(void **state)
{
	static size_t rows[300], whole[300];
	unsigned seed = 7;

	(void)state;
	for (size_t n = 0; n <= 260; n += n < 20 ? 1 : 37) {
		struct frame *f = frame_with_gpus(4);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			struct gpu_process *p = add_proc(f, seed >> 8 & 31, seed >> 16 & 3);
			if (seed >> 20 & 7)
				set_gpu_mem(p, (uint64_t)(seed >> 24 & 3) << 30);
			if (!(seed >> 27 & 15))
				p->valid &= ~(UINT64_C(1) << PROC_F_PID);
			static const char *const users[] = {"alice", "bob", "carol"};
			if (seed >> 28 & 3)
				set_str(f, p, PROC_F_USER, users[(seed >> 4) % 3]);
		}
		for (int k = 0; k < 4; k++) {
			bool rev = k & 1, by_user = k >= 2;
			struct proctable_opts o = {.sort = by_user ? PROCTABLE_USER : PROCTABLE_GPUMEM, .reverse = rev,
						   .now_ms = NOW_MS};
			size_t got = proctable_view(f, &o, whole, 300);
			assert_int_equal(got, n);
			bool seen[300] = {false};
			for (size_t i = 0; i < got; i++) {
				assert_false(seen[whole[i]]);
				seen[whole[i]] = true;
				if (i)
					assert_true(by_user ? user_order_ok(f, whole[i - 1], whole[i], rev)
							    : mem_order_ok(f, whole[i - 1], whole[i], rev));
			}
			size_t cut = n / 3;
			if (cut) {
				assert_int_equal(proctable_view(f, &o, rows, cut), cut);
				assert_memory_equal(rows, whole, cut * sizeof(*rows));
			}
		}
		frame_unref(f);
	}
}

static void test_sort_text_and_others(void **state)
{
	struct frame *f = frame_with_gpus(3);
	struct proctable_opts o = {.sort = PROCTABLE_USER, .now_ms = NOW_MS};
	struct gpu_process *p;

	(void)state;
	set_str(f, add_proc(f, 1, 2), PROC_F_USER, "carol");
	add_proc(f, 2, 0); /* unknown user */
	set_str(f, add_proc(f, 3, 1), PROC_F_USER, "Bob");
	set_str(f, add_proc(f, 4, 0), PROC_F_USER, "alice");
	assert_string_equal(view_pids(f, &o), "4 3 1 2"); /* text: ascending, case folded */
	o.reverse = true;
	assert_string_equal(view_pids(f, &o), "1 3 4 2");

	o.reverse = false;
	o.sort = PROCTABLE_PID; /* a number: descending */
	assert_string_equal(view_pids(f, &o), "4 3 2 1");
	o.sort = PROCTABLE_DEV;
	assert_string_equal(view_pids(f, &o), "1 3 2 4");

	/* TIME: the longest running first; unknown start last. */
	o.sort = PROCTABLE_TIME;
	p = &f->procs[0];
	p->start_ms = NOW_MS - 5000;
	process_set(p, PROC_F_START);
	p = &f->procs[2];
	p->start_ms = NOW_MS - 90000;
	process_set(p, PROC_F_START);
	p = &f->procs[3];
	p->start_ms = NOW_MS - 1000;
	process_set(p, PROC_F_START);
	assert_string_equal(view_pids(f, &o), "3 1 4 2");

	/* TYPE sorts by its text: C, C+G, G. */
	o.sort = PROCTABLE_TYPE;
	f->procs[0].kind = PROCESS_GRAPHICS;
	f->procs[1].kind = PROCESS_BOTH;
	f->procs[3].kind = PROCESS_COMPUTE;
	process_set(&f->procs[0], PROC_F_KIND);
	process_set(&f->procs[1], PROC_F_KIND);
	process_set(&f->procs[3], PROC_F_KIND);
	assert_string_equal(view_pids(f, &o), "4 2 1 3");

	/* CONTAINER falls back to the pod; a unit alone is no owner (unknown,
	 * last). */
	o.sort = PROCTABLE_CONTAINER;
	set_str(f, &f->procs[0], PROC_F_UNIT, "b.service");
	set_str(f, &f->procs[2], PROC_F_POD, "a-pod");
	set_str(f, &f->procs[3], PROC_F_CONTAINER, "c-ctr");
	assert_string_equal(view_pids(f, &o), "3 4 1 2");
	/* A pod by name sorts as "namespace/name". */
	set_str(f, &f->procs[1], PROC_F_POD_NAME, "web");
	set_str(f, &f->procs[1], PROC_F_POD_NAMESPACE, "b-ns");
	assert_string_equal(view_pids(f, &o), "3 2 4 1");

	/* CPU: unknown after a measured 0, in both directions. */
	o.sort = PROCTABLE_CPU;
	f->procs[1].cpu_pct = 0;
	process_set(&f->procs[1], PROC_F_CPU);
	f->procs[2].cpu_pct = 150;
	process_set(&f->procs[2], PROC_F_CPU);
	assert_string_equal(view_pids(f, &o), "3 2 1 4");
	o.reverse = true;
	assert_string_equal(view_pids(f, &o), "2 3 1 4");
	frame_unref(f);
}

static void test_filters(void **state)
{
	struct frame *f = frame_with_gpus(2);
	struct proctable_opts o = {.sort = PROCTABLE_PID, .reverse = true, .now_ms = NOW_MS};
	struct gpu_process *p;
	bool hidden[2] = {false, true};

	(void)state;
	p = add_proc(f, 1234, 0);
	set_str(f, p, PROC_F_USER, "alice");
	set_str(f, p, PROC_F_NAME, "python3");
	set_str(f, p, PROC_F_CMDLINE, "python3 Train.py --epochs 3");
	p = add_proc(f, 77, 1);
	set_str(f, p, PROC_F_USER, "bob");
	set_str(f, p, PROC_F_NAME, "Xorg");
	p = add_proc(f, 88, 0);
	set_str(f, p, PROC_F_USER, "carol");
	set_str(f, p, PROC_F_CONTAINER, "docker:deadbeef");
	p = add_proc(f, 99, 0);
	set_str(f, p, PROC_F_POD, "llm-serving-0");
	p = add_proc(f, 100, 1);
	set_str(f, p, PROC_F_UNIT, "slurm-job-42.scope");

	assert_string_equal(view_pids(f, &o), "77 88 99 100 1234");
	o.filter = "";
	assert_string_equal(view_pids(f, &o), "77 88 99 100 1234");
	o.filter = "TRAIN";  /* cmdline, case ignored */
	assert_string_equal(view_pids(f, &o), "1234");
	o.filter = "23";     /* inside the pid */
	assert_string_equal(view_pids(f, &o), "1234");
	o.filter = "xorg";   /* name */
	assert_string_equal(view_pids(f, &o), "77");
	o.filter = "BOB";    /* user */
	assert_string_equal(view_pids(f, &o), "77");
	o.filter = "deadbeef";
	assert_string_equal(view_pids(f, &o), "88");
	o.filter = "serving";
	assert_string_equal(view_pids(f, &o), "99");
	o.filter = "job-42";
	assert_string_equal(view_pids(f, &o), "100");
	o.filter = "o";      /* python3, bob, docker, job.scope; not llm-serving-0 */
	assert_string_equal(view_pids(f, &o), "77 88 100 1234");
	o.filter = "no such thing";
	assert_string_equal(view_pids(f, &o), "");
	o.filter = "python3 Train.py --epochs 3 and more"; /* longer than any field */
	assert_string_equal(view_pids(f, &o), "");

	o.filter = NULL;
	o.only_user = "carol";
	assert_string_equal(view_pids(f, &o), "88");
	o.only_user = "car"; /* exact, not a substring */
	assert_string_equal(view_pids(f, &o), "");
	o.only_user = NULL;
	o.hidden_gpu = hidden;
	assert_string_equal(view_pids(f, &o), "88 99 1234");
	o.filter = "o";
	o.only_user = "alice";
	assert_string_equal(view_pids(f, &o), "1234");
	frame_unref(f);
}

static void test_view_cap(void **state)
{
	struct frame *f = frame_with_gpus(1);
	struct proctable_opts o = {.sort = PROCTABLE_GPUMEM, .now_ms = NOW_MS};
	size_t rows[3];

	(void)state;
	for (uint64_t pid = 1; pid <= 10; pid++)
		set_gpu_mem(add_proc(f, pid, 0), pid * 1000);
	/* More rows pass than fit: the top of the whole order, not of the first few. */
	assert_int_equal(proctable_view(f, &o, rows, 3), 3);
	assert_int_equal(f->procs[rows[0]].pid, 10);
	assert_int_equal(f->procs[rows[1]].pid, 9);
	assert_int_equal(f->procs[rows[2]].pid, 8);
	assert_int_equal(proctable_view(f, &o, rows, 0), 0);
	frame_unref(f);
}

/* Whose /proc figures the table needs fresh: the rows shown, or all. */
static void test_wanted(void **state)
{
	(void)state;
	struct frame *f = frame_with_gpus(1);
	size_t view[6] = {5, 4, 3, 2, 1, 0};
	unsigned pids[8];

	for (uint64_t i = 0; i < 6; i++)
		add_proc(f, 100 + i, 0);
	/* Rows 1..3 of the view (pids 104, 103, 102) shown. */
	assert_int_equal(proctable_wanted(f, view, 6, 1, 3, PROCTABLE_GPUMEM, pids, 8), 3);
	assert_int_equal(pids[0], 104);
	assert_int_equal(pids[1], 103);
	assert_int_equal(pids[2], 102);
	/* The view ends before the screen does. */
	assert_int_equal(proctable_wanted(f, view, 6, 4, 10, PROCTABLE_PID, pids, 8), 2);
	assert_int_equal(pids[1], 100);
	/* Sorted by what /proc gives: every process. */
	assert_int_equal(proctable_wanted(f, view, 6, 0, 3, PROCTABLE_CPU, pids, 8), -1);
	assert_int_equal(proctable_wanted(f, view, 6, 0, 3, PROCTABLE_HOSTMEM, pids, 8), -1);
	/* More rows than room, or no frame: every process. */
	assert_int_equal(proctable_wanted(f, view, 6, 0, 6, PROCTABLE_GPUMEM, pids, 2), -1);
	assert_int_equal(proctable_wanted(NULL, view, 0, 0, 6, PROCTABLE_GPUMEM, pids, 8), -1);
	/* A row without a pid is nobody's. */
	f->procs[5].valid &= ~(UINT64_C(1) << PROC_F_PID);
	assert_int_equal(proctable_wanted(f, view, 6, 0, 2, PROCTABLE_GPUMEM, pids, 8), 1);
	assert_int_equal(pids[0], 104);
	frame_unref(f);
}

static void test_cells_numbers(void **state)
{
	struct frame *f = frame_with_gpus(4);
	struct gpu_process *p = add_proc(f, 4194304, 3);
	struct gpu_process *u;

	(void)state;
	p->gpu_util_pct = 87.4;
	p->mem_bw_pct = 87.6;
	p->cpu_pct = 250.2;
	process_set(p, PROC_F_GPU_UTIL);
	process_set(p, PROC_F_MEM_BW);
	process_set(p, PROC_F_CPU);
	assert_string_equal(cell(f, p, PROCTABLE_PID), "4194304");
	assert_string_equal(cell(f, p, PROCTABLE_DEV), "3");
	assert_string_equal(cell(f, p, PROCTABLE_GPU), "87");
	assert_string_equal(cell(f, p, PROCTABLE_MEMBW), "88");
	assert_string_equal(cell(f, p, PROCTABLE_CPU), "250");
	p->gpu_util_pct = 0;
	assert_string_equal(cell(f, p, PROCTABLE_GPU), "0");

	/* Nothing known: "--" everywhere, never "0"; IDLE is blank for a
	 * process that is not idle, and the time since it became quiet for
	 * one that is. */
	u = frame_add_process(f);
	for (int c = 0; c < PROCTABLE__COUNT; c++)
		assert_string_equal(cell(f, u, (enum proctable_col)c), c == PROCTABLE_IDLE ? "" : "--");
	u->idle_since_ms = NOW_MS - (2 * 3600 + 14 * 60 + 30) * 1000ull;
	assert_string_equal(cell(f, u, PROCTABLE_IDLE), "2h14m");
	u->idle_since_ms = NOW_MS - 45 * 60 * 1000ull;
	assert_string_equal(cell(f, u, PROCTABLE_IDLE), "45m");
	frame_unref(f);
}

static void test_cells_bytes(void **state)
{
	static const struct {
		uint64_t bytes;
		const char *text;
	} cases[] = {
		{0, "0B"},
		{512, "512B"},
		{1023, "1023B"},
		{1024, "1.0KiB"},
		{1536, "1.5KiB"},
		{512ull << 20, "512MiB"},
		{(3ull << 30) / 2, "1.5GiB"},
		{80ull << 30, "80GiB"},
		{(10ull << 30) - (1ull << 20), "10GiB"},   /* 9.999: no "10.0" */
		{(1ull << 30) - (1ull << 10), "1.0GiB"},   /* 1023.999 MiB rounds up a unit */
		{(10ull << 20), "10MiB"},
		{(99ull << 20) / 10, "9.9MiB"},
		{1ull << 40, "1.0TiB"},
		{UINT64_MAX, "16EiB"},
	};
	struct frame *f = frame_with_gpus(1);
	struct gpu_process *p = add_proc(f, 1, 0);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p->gpu_mem_bytes = p->host_mem_bytes = cases[i].bytes;
		process_set(p, PROC_F_GPU_MEM);
		process_set(p, PROC_F_HOST_MEM);
		assert_string_equal(cell(f, p, PROCTABLE_GPUMEM), cases[i].text);
		assert_string_equal(cell(f, p, PROCTABLE_HOSTMEM), cases[i].text);
	}
	frame_unref(f);
}

static void test_cells_time(void **state)
{
	static const struct {
		uint64_t ago_ms;
		const char *text;
	} cases[] = {
		{0, "0s"},
		{999, "0s"},
		{59999, "59s"},
		{60000, "1:00"},
		{(12 * 60 + 34) * 1000, "12:34"},
		{3599999, "59:59"},
		{3600000, "1:00:00"},
		{(3 * 3600 + 4 * 60 + 5) * 1000, "3:04:05"},
		{86399000, "23:59:59"},
		{86400000, "1d00h"},
		{(2 * 86400 + 3 * 3600 + 59) * 1000ull, "2d03h"},
		{400 * 86400000ull, "400d00h"},
	};
	struct frame *f = frame_with_gpus(1);
	struct gpu_process *p = add_proc(f, 1, 0);

	(void)state;
	process_set(p, PROC_F_START);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p->start_ms = NOW_MS - cases[i].ago_ms;
		assert_string_equal(cell(f, p, PROCTABLE_TIME), cases[i].text);
	}
	p->start_ms = NOW_MS + 5000; /* a start in the future (clock step) */
	assert_string_equal(cell(f, p, PROCTABLE_TIME), "0s");
	frame_unref(f);
}

static void test_cells_text(void **state)
{
	struct frame *f = frame_with_gpus(1);
	struct gpu_process *p = add_proc(f, 1, 0);
	char buf[8];

	(void)state;
	p->kind = PROCESS_COMPUTE;
	process_set(p, PROC_F_KIND);
	assert_string_equal(cell(f, p, PROCTABLE_TYPE), "C");
	p->kind = PROCESS_GRAPHICS;
	assert_string_equal(cell(f, p, PROCTABLE_TYPE), "G");
	p->kind = PROCESS_BOTH;
	assert_string_equal(cell(f, p, PROCTABLE_TYPE), "C+G");
	p->kind = PROCESS_KIND__COUNT;
	assert_string_equal(cell(f, p, PROCTABLE_TYPE), "--");

	/* A plain service or a login session has no container. */
	set_str(f, p, PROC_F_UNIT, "job.scope");
	assert_string_equal(cell(f, p, PROCTABLE_CONTAINER), "--");
	set_str(f, p, PROC_F_POD, "pod-1");
	assert_string_equal(cell(f, p, PROCTABLE_CONTAINER), "pod-1");
	set_str(f, p, PROC_F_CONTAINER, "");  /* empty: no better than none */
	assert_string_equal(cell(f, p, PROCTABLE_CONTAINER), "pod-1");
	set_str(f, p, PROC_F_CONTAINER, "docker:abc");
	assert_string_equal(cell(f, p, PROCTABLE_CONTAINER), "docker:abc");

	set_str(f, p, PROC_F_NAME, "python3");
	assert_string_equal(cell(f, p, PROCTABLE_COMMAND), "python3");
	set_str(f, p, PROC_F_CMDLINE, "python3 train.py");
	assert_string_equal(cell(f, p, PROCTABLE_COMMAND), "python3 train.py");

	/* Copied as is (control characters included: the dashboard sanitises). */
	set_str(f, p, PROC_F_USER, "a\tb");
	assert_string_equal(cell(f, p, PROCTABLE_USER), "a\tb");

	/* Cut to n-1 bytes, never inside a UTF-8 sequence. */
	set_str(f, p, PROC_F_CMDLINE, "h\xC3\xA9llo");
	proctable_cell(f, p, PROCTABLE_COMMAND, NOW_MS, buf, 3);
	assert_string_equal(buf, "h");
	proctable_cell(f, p, PROCTABLE_COMMAND, NOW_MS, buf, 4);
	assert_string_equal(buf, "h\xC3\xA9");
	set_str(f, p, PROC_F_CMDLINE, "\xE2\x82\xAC\xE2\x82\xAC"); /* two euro signs */
	proctable_cell(f, p, PROCTABLE_COMMAND, NOW_MS, buf, 6);
	assert_string_equal(buf, "\xE2\x82\xAC");
	proctable_cell(f, p, PROCTABLE_COMMAND, NOW_MS, buf, 1);
	assert_string_equal(buf, "");
	memset(buf, 'x', sizeof(buf));
	proctable_cell(f, p, PROCTABLE_COMMAND, NOW_MS, buf, 0); /* n 0: untouched */
	assert_int_equal(buf[0], 'x');
	proctable_cell(f, p, PROCTABLE_PID, NOW_MS, buf, 1);
	assert_string_equal(buf, "");
	frame_unref(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_sort_numbers_unknown_last),
		cmocka_unit_test(test_sort_ties_and_stability),
		cmocka_unit_test(test_sort_many),
		cmocka_unit_test(test_sort_text_and_others),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_view_cap),
		cmocka_unit_test(test_wanted),
		cmocka_unit_test(test_cells_numbers),
		cmocka_unit_test(test_cells_bytes),
		cmocka_unit_test(test_cells_time),
		cmocka_unit_test(test_cells_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
