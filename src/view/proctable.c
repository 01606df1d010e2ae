/* proctable: filtering, ordering and cell text for the dashboard's process
 * table. Unknown values are never treated as 0; they show "--" and sort
 * last. */
#include "view/proctable.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/idle.h"
#include "util/fmt.h"
#include "util/utf8.h"
#include "util/xalloc.h"

const struct proctable_col_info PROCTABLE_COLS[PROCTABLE__COUNT] = {
	/* Each width leaves room for the title and the sort arrow. */
	[PROCTABLE_PID] = {"pid", "PID", 7, true, true},
	[PROCTABLE_USER] = {"user", "USER", 9, false, false},
	[PROCTABLE_DEV] = {"dev", "DEV", 4, true, true},
	[PROCTABLE_TYPE] = {"type", "TYPE", 5, false, false},
	[PROCTABLE_GPU] = {"gpu", "GPU%", 5, true, true},
	[PROCTABLE_MEMBW] = {"membw", "MEMBW%", 7, true, true},
	[PROCTABLE_GPUMEM] = {"gpumem", "GPU-MEM", 8, true, true},
	[PROCTABLE_CPU] = {"cpu", "CPU%", 5, true, true},
	[PROCTABLE_HOSTMEM] = {"hostmem", "HOST-MEM", 9, true, true},
	[PROCTABLE_TIME] = {"time", "TIME", 8, true, true},
	[PROCTABLE_IDLE] = {"idle", "IDLE", 6, true, true},
	[PROCTABLE_CONTAINER] = {"container", "CONTAINER", 12, false, false},
	[PROCTABLE_COMMAND] = {"command", "COMMAND", 0, false, false},
};

enum group_sort proctable_group_sort(enum proctable_col c)
{
	switch (c) {
	case PROCTABLE_GPUMEM: return GROUP_SORT_MEM;
	case PROCTABLE_GPU: return GROUP_SORT_UTIL;
	case PROCTABLE_DEV: return GROUP_SORT_GPUS;
	case PROCTABLE_USER:
	case PROCTABLE_CONTAINER:
	case PROCTABLE_COMMAND: return GROUP_SORT_LABEL;
	default: return GROUP_SORT_PROCS;
	}
}

static const char *const KIND_TEXT[PROCESS_KIND__COUNT] = {
	[PROCESS_COMPUTE] = "C", [PROCESS_GRAPHICS] = "G", [PROCESS_BOTH] = "C+G",
};

static int ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

int proctable_col_by_name(const char *name, size_t len)
{
	if (!name)
		return -1;
	for (int c = 0; c < PROCTABLE__COUNT; c++) {
		const char *n = PROCTABLE_COLS[c].name;
		size_t i = 0;

		while (i < len && n[i] && ascii_lower((unsigned char)name[i]) == n[i])
			i++;
		if (i == len && !n[i])
			return c;
	}
	return -1;
}

/* A string field when it is known and not empty, else NULL. */
static const char *known_str(const struct gpu_process *p, enum process_field b, const char *s)
{
	return process_has(p, b) && s && *s ? s : NULL;
}

static const char *container_text(const struct gpu_process *p, char *buf, size_t n)
{
	return process_label(p, buf, n);
}

static const char *command_text(const struct gpu_process *p)
{
	const char *s = known_str(p, PROC_F_CMDLINE, p->cmdline);

	return s ? s : known_str(p, PROC_F_NAME, p->name);
}

static const char *kind_text(const struct gpu_process *p)
{
	if (!process_has(p, PROC_F_KIND) || p->kind >= PROCESS_KIND__COUNT)
		return NULL;
	return KIND_TEXT[p->kind];
}

/* Puts a field's value into *out as a double, and returns whether it is
 * known and finite. */
static bool known_f64(const struct gpu_process *p, enum process_field b, long double v, double *out)
{
	if (!process_has(p, b) || !isfinite((double)v))
		return false;
	*out = (double)v;
	return true;
}

/* Seconds since p started, clamped at 0 when the start is in the future. */
static bool elapsed_s(const struct gpu_process *p, uint64_t now_ms, uint64_t *out)
{
	if (!process_has(p, PROC_F_START))
		return false;
	*out = now_ms > p->start_ms ? (now_ms - p->start_ms) / 1000 : 0;
	return true;
}

/* A cell's value for sorting, a number or a text, with known false when it
 * is unknown. */
struct sort_key {
	bool known;
	double num;
	const char *text;
};

/* scratch has SORT_SCRATCH bytes of room for a text made for the key, such as
 * the pod's "namespace/name". */
#define SORT_SCRATCH 520
static struct sort_key sort_key(const struct gpu_process *p, enum proctable_col c, uint64_t now_ms, char *scratch)
{
	struct sort_key k = {0};
	uint64_t u = 0;

	switch (c) {
	case PROCTABLE_PID:
		k.known = process_has(p, PROC_F_PID);
		k.num = (double)p->pid;
		break;
	case PROCTABLE_DEV:
		k.known = process_has(p, PROC_F_GPU_INDEX);
		k.num = (double)p->gpu_index;
		break;
	case PROCTABLE_GPU:
		k.known = known_f64(p, PROC_F_GPU_UTIL, p->gpu_util_pct, &k.num);
		break;
	case PROCTABLE_MEMBW:
		k.known = known_f64(p, PROC_F_MEM_BW, p->mem_bw_pct, &k.num);
		break;
	case PROCTABLE_CPU:
		k.known = known_f64(p, PROC_F_CPU, p->cpu_pct, &k.num);
		break;
	case PROCTABLE_GPUMEM:
		k.known = process_has(p, PROC_F_GPU_MEM);
		k.num = (double)p->gpu_mem_bytes;
		break;
	case PROCTABLE_HOSTMEM:
		k.known = process_has(p, PROC_F_HOST_MEM);
		k.num = (double)p->host_mem_bytes;
		break;
	case PROCTABLE_TIME:
		if ((k.known = elapsed_s(p, now_ms, &u)))
			k.num = (double)u;
		break;
	case PROCTABLE_IDLE:
		/* A process that is not idle is unknown here, so it sorts last
		 * either way. */
		if ((k.known = p->idle_since_ms != 0))
			k.num = now_ms > p->idle_since_ms ? (double)(now_ms - p->idle_since_ms) : 0;
		break;
	case PROCTABLE_USER:
		k.text = known_str(p, PROC_F_USER, p->user);
		break;
	case PROCTABLE_TYPE:
		k.text = kind_text(p);
		break;
	case PROCTABLE_CONTAINER:
		k.text = container_text(p, scratch, SORT_SCRATCH);
		break;
	case PROCTABLE_COMMAND:
	case PROCTABLE__COUNT:
		k.text = command_text(p);
		break;
	}
	if (k.text)
		k.known = true;
	return k;
}

/* ASCII case is folded first, so "alice" and "Bob" sort as a person expects,
 * and bytes break the tie so that the order is total. */
static int text_cmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	for (;; x++, y++) {
		int d = ascii_lower(*x) - ascii_lower(*y);
		if (d)
			return d < 0 ? -1 : 1;
		if (!*x)
			break;
	}
	int d = strcmp(a, b);
	return d < 0 ? -1 : d > 0;
}

static int u64_cmp(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* A row as the sort sees it: its key and what breaks ties, copied out of
 * the process once, so that comparisons read a few bytes side by side
 * rather than two processes' records. */
struct sort_row {
	struct sort_key key;
	uint64_t pid, gpu;
	size_t at; /* the row's position in the frame */
	bool pid_known, gpu_known;
};

/* Orders two rows: the key (unknown last, numbers descending, texts
 * ascending, all turned round by reverse), then PID, then GPU, then frame
 * position, so that the order is total and the sort need not be stable. */
static int row_cmp(const struct sort_row *a, const struct sort_row *b, bool reverse)
{
	int d = 0;

	if (a->key.known != b->key.known)
		return a->key.known ? -1 : 1;
	if (a->key.known) {
		if (a->key.text)
			d = text_cmp(a->key.text, b->key.text);
		else
			d = a->key.num > b->key.num ? -1 : a->key.num < b->key.num; /* numbers descend */
		if (reverse)
			d = -d;
		if (d)
			return d;
	}
	if (a->pid_known != b->pid_known)
		return a->pid_known ? -1 : 1;
	if (a->pid_known && (d = u64_cmp(a->pid, b->pid)))
		return d;
	if (a->gpu_known != b->gpu_known)
		return a->gpu_known ? -1 : 1;
	if (a->gpu_known && (d = u64_cmp(a->gpu, b->gpu)))
		return d;
	return u64_cmp(a->at, b->at);
}

/* Sorts the n rows of r by row_cmp, with tmp as room for n more: a merge
 * sort whose comparison is inlined, which the dashboard runs every frame. */
static void sort_rows(struct sort_row *r, struct sort_row *tmp, size_t n, bool reverse)
{
	struct sort_row *from = r, *to = tmp;

	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				to[k++] = row_cmp(&from[j], &from[i], reverse) < 0 ? from[j++] : from[i++];
			while (i < mid)
				to[k++] = from[i++];
			while (j < hi)
				to[k++] = from[j++];
		}
		struct sort_row *t = from;
		from = to;
		to = t;
	}
	if (from != r)
		memcpy(r, from, n * sizeof(*r));
}

/* Whether the non-empty needle occurs in hay, ignoring ASCII case. */
static bool contains_ci(const char *hay, const char *needle, size_t nlen)
{
	if (!hay)
		return false;
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < nlen && hay[i] &&
		       ascii_lower((unsigned char)hay[i]) == ascii_lower((unsigned char)needle[i]))
			i++;
		if (i == nlen)
			return true;
		if (!hay[i])
			return false; /* the rest is shorter than the needle */
	}
	return false;
}

static bool row_passes(const struct frame *f, const struct gpu_process *p, const struct proctable_opts *o)
{
	if (o->only_user && !(process_has(p, PROC_F_USER) && p->user && strcmp(p->user, o->only_user) == 0))
		return false;
	if (o->hidden_gpu && process_has(p, PROC_F_GPU_INDEX) && p->gpu_index < f->ngpus &&
	    o->hidden_gpu[p->gpu_index])
		return false;
	if (!o->filter || !*o->filter)
		return true;

	const char *q = o->filter;
	size_t qlen = strlen(q);
	if (process_has(p, PROC_F_PID)) {
		char pid[24];
		snprintf(pid, sizeof(pid), "%" PRIu64, p->pid);
		if (contains_ci(pid, q, qlen))
			return true;
	}
	return contains_ci(known_str(p, PROC_F_USER, p->user), q, qlen) ||
	       contains_ci(known_str(p, PROC_F_NAME, p->name), q, qlen) ||
	       contains_ci(known_str(p, PROC_F_CMDLINE, p->cmdline), q, qlen) ||
	       contains_ci(known_str(p, PROC_F_CONTAINER, p->container), q, qlen) ||
	       contains_ci(known_str(p, PROC_F_CONTAINER_NAME, p->container_name), q, qlen) ||
	       contains_ci(known_str(p, PROC_F_POD, p->pod), q, qlen) ||
	       contains_ci(known_str(p, PROC_F_POD_NAME, p->pod_name), q, qlen) ||
	       contains_ci(known_str(p, PROC_F_POD_NAMESPACE, p->pod_namespace), q, qlen) ||
	       contains_ci(known_str(p, PROC_F_UNIT, p->unit), q, qlen);
}

size_t proctable_view(const struct frame *f, const struct proctable_opts *o, size_t *rows, size_t cap)
{
	size_t *all = rows, n = 0;

	if (cap == 0)
		return 0;
	for (size_t i = 0; i < f->nprocs; i++) {
		if (!row_passes(f, &f->procs[i], o))
			continue;
		if (n == cap && all == rows) {
			/* More rows pass than fit, so sort them all and keep the first cap. */
			all = xreallocarray(NULL, f->nprocs, sizeof(*all));
			memcpy(all, rows, n * sizeof(*all));
		}
		all[n++] = i;
	}
	/* Each row's key is made once, not at every comparison. A key's text
	 * may live in its row's share of the scratch, which only the container
	 * column uses. An out-of-range column (a bad caller) sorts by PID
	 * rather than reading past the table. */
	enum proctable_col col = (unsigned)o->sort < PROCTABLE__COUNT ? o->sort : PROCTABLE_PID;
	struct sort_row *sr = xreallocarray(NULL, n ? 2 * n : 1, sizeof(*sr));
	bool texts = col == PROCTABLE_CONTAINER;
	char *scratch = xreallocarray(NULL, texts && n ? n : 1, SORT_SCRATCH);
	for (size_t j = 0; j < n; j++) {
		const struct gpu_process *p = &f->procs[all[j]];
		sr[j] = (struct sort_row){
			.key = sort_key(p, col, o->now_ms, scratch + (texts ? j * SORT_SCRATCH : 0)),
			.pid = p->pid,
			.gpu = p->gpu_index,
			.at = all[j],
			.pid_known = process_has(p, PROC_F_PID),
			.gpu_known = process_has(p, PROC_F_GPU_INDEX),
		};
	}
	sort_rows(sr, sr + n, n, o->reverse);
	for (size_t j = 0; j < n; j++)
		all[j] = sr[j].at;
	free(sr);
	free(scratch);
	if (all != rows) {
		memcpy(rows, all, cap * sizeof(*rows));
		free(all);
		n = cap;
	}
	return n;
}

/* Copies s into buf without splitting a UTF-8 sequence. */
static void put_text(char *buf, size_t n, const char *s)
{
	size_t len = utf8_trim(s, strlen(s), n - 1);

	memcpy(buf, s, len);
	buf[len] = '\0';
}

static void put_pct(char *buf, size_t n, double v)
{
	fmt_fixed(buf, n, floor(v < 0 ? 0 : v + 0.5), 0);
}

/* Writes v with the given decimals, then the text of suffix. */
static void put_num_unit(char *buf, size_t n, double v, unsigned decimals, const char *suffix)
{
	size_t at = fmt_fixed(buf, n, v, decimals);
	put_text(buf + at, n - at, suffix);
}

/* Writes bytes in binary units, with one decimal under 10 ("1.5GiB"), whole
 * numbers above ("512MiB", "80GiB"), and bytes as they are ("512B"). */
static void put_bytes(char *buf, size_t n, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	unsigned u = 0;
	double v = (double)bytes;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0) {
		size_t at = fmt_u64(buf, n, bytes, 0, ' ');
		put_text(buf + at, n - at, "B");
		return;
	}
	if (v < 9.95) {
		put_num_unit(buf, n, v, 1, units[u]);
		return;
	}
	v = floor(v + 0.5);
	if (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		snprintf(buf, n, "1.0%s", units[u + 1]);
		return;
	}
	put_num_unit(buf, n, v, 0, units[u]);
}

/* Writes a duration as "42s", "3:07", "2:03:07" or "6d04h". */
static void put_elapsed(char *buf, size_t n, uint64_t s)
{
	size_t at;

	if (s < 60) {
		at = fmt_u64(buf, n, s, 0, ' ');
		put_text(buf + at, n - at, "s");
	} else if (s < 86400) {
		at = fmt_u64(buf, n, s < 3600 ? s / 60 : s / 3600, 0, ' ');
		if (s >= 3600) {
			put_text(buf + at, n - at, ":");
			at += strlen(buf + at);
			at += fmt_u64(buf + at, n - at, s / 60 % 60, 2, '0');
		}
		put_text(buf + at, n - at, ":");
		at += strlen(buf + at);
		fmt_u64(buf + at, n - at, s % 60, 2, '0');
	} else {
		at = fmt_u64(buf, n, s / 86400, 0, ' ');
		put_text(buf + at, n - at, "d");
		at += strlen(buf + at);
		at += fmt_u64(buf + at, n - at, s / 3600 % 24, 2, '0');
		put_text(buf + at, n - at, "h");
	}
}

void proctable_cell(const struct frame *f, const struct gpu_process *p, enum proctable_col c,
		    uint64_t now_ms, char *buf, size_t n)
{
	const char *text = NULL;
	uint64_t u = 0;
	char scratch[SORT_SCRATCH];

	(void)f;
	if (n == 0)
		return;
	switch (c) {
	case PROCTABLE_PID:
		if (process_has(p, PROC_F_PID)) {
			fmt_u64(buf, n, p->pid, 0, ' ');
			return;
		}
		break;
	case PROCTABLE_DEV:
		if (process_has(p, PROC_F_GPU_INDEX)) {
			fmt_u64(buf, n, p->gpu_index, 0, ' ');
			return;
		}
		break;
	case PROCTABLE_GPU:
	case PROCTABLE_MEMBW:
	case PROCTABLE_CPU: {
		struct sort_key k = sort_key(p, c, now_ms, scratch);
		if (k.known) {
			put_pct(buf, n, k.num);
			return;
		}
		break;
	}
	case PROCTABLE_GPUMEM:
		if (process_has(p, PROC_F_GPU_MEM)) {
			put_bytes(buf, n, field_num_u64(p->gpu_mem_bytes));
			return;
		}
		break;
	case PROCTABLE_HOSTMEM:
		if (process_has(p, PROC_F_HOST_MEM)) {
			put_bytes(buf, n, field_num_u64(p->host_mem_bytes));
			return;
		}
		break;
	case PROCTABLE_TIME:
		if (elapsed_s(p, now_ms, &u)) {
			put_elapsed(buf, n, u);
			return;
		}
		break;
	case PROCTABLE_IDLE:
		/* Blank, not "--", for a process that is not idle: that is known. */
		if (p->idle_since_ms)
			idle_format(now_ms > p->idle_since_ms ? now_ms - p->idle_since_ms : 0, buf, n);
		else if (n)
			buf[0] = '\0';
		return;
	case PROCTABLE_USER:
	case PROCTABLE_TYPE:
	case PROCTABLE_CONTAINER:
	case PROCTABLE_COMMAND:
		text = sort_key(p, c, now_ms, scratch).text;
		break;
	case PROCTABLE__COUNT:
		break;
	}
	put_text(buf, n, text ? text : "--");
}

long proctable_wanted(const struct frame *f, const size_t *view, size_t nview, size_t top, size_t shown,
		      enum proctable_col sort, unsigned *pids, size_t cap)
{
	size_t n = 0;

	if (!f || sort == PROCTABLE_CPU || sort == PROCTABLE_HOSTMEM)
		return -1;
	for (size_t i = top; i < nview && i - top < shown; i++) {
		if (n == cap)
			return -1;
		const struct gpu_process *p = &f->procs[view[i]];
		if (process_has(p, PROC_F_PID) && p->pid <= UINT32_MAX)
			pids[n++] = (unsigned)p->pid;
	}
	return (long)n;
}
