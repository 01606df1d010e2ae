/* sysstat: /proc/stat, /proc/meminfo and /proc/loadavg, held open and re-read
 * on a real procfs (see readfile_held). */
#include "proc/sysstat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/kvparse.h"
#include "util/ratewin.h"
#include "util/readfile.h"
#include "util/xalloc.h"

enum { SS_STAT, SS_MEMINFO, SS_LOADAVG, SS__COUNT };
static const char *const SS_FILES[SS__COUNT] = {"stat", "meminfo", "loadavg"};

struct sysstat {
	char *root;
	int rootfd;             /* opened again while it cannot be */
	bool hold;              /* a real procfs, so keep the files open */
	int held[SS__COUNT];
	uint64_t prev_total, prev_idle, prev_ns; /* the baseline of the CPU %, and its time */
	bool have_prev;
	uint64_t min_window_ns; /* the shortest window of a CPU % */
};

struct sysstat *sysstat_new(const char *procfs)
{
	struct sysstat *s = xcalloc(1, sizeof(*s));

	s->root = xstrdup(procfs);
	s->rootfd = readfile_opendir(procfs);
	s->hold = readfile_is_procfs(s->rootfd);
	for (int i = 0; i < SS__COUNT; i++)
		s->held[i] = -1;
	return s;
}

void sysstat_free(struct sysstat *s)
{
	if (!s)
		return;
	for (int i = 0; i < SS__COUNT; i++)
		if (s->held[i] >= 0)
			close(s->held[i]);
	if (s->rootfd >= 0)
		close(s->rootfd);
	free(s->root);
	free(s);
}

void sysstat_set_rate_window(struct sysstat *s, uint64_t min_ns)
{
	s->min_window_ns = min_ns;
}

static ssize_t read_file(struct sysstat *s, int which, char *buf, size_t n)
{
	if (s->rootfd < 0) {
		s->rootfd = readfile_opendir(s->root);
		s->hold = readfile_is_procfs(s->rootfd);
	}
	return readfile_held(s->rootfd, SS_FILES[which], &s->held[which], s->hold, buf, n);
}

/* Reads idle and total ticks from the "cpu" line's counters (user nice system
 * idle iowait irq softirq steal). Returns false when it has fewer than
 * four. */
static bool cpu_ticks(const char *val, size_t len, uint64_t *idle, uint64_t *total)
{
	struct kvparse_cur c;
	uint64_t v[8] = {0};
	int n = 0;

	kvparse_cur_init(&c, val, len);
	/* Each is under 2^61, so eight of them add up without wrapping. */
	while (n < 8 && kvparse_field_u64(&c, UINT64_MAX / 8, &v[n]))
		n++;
	if (n < 4)
		return false;
	*total = 0;
	for (int i = 0; i < n; i++)
		*total += v[i];
	*idle = v[3] + v[4]; /* idle + iowait */
	return true;
}

/* Reads MemTotal and MemAvailable from /proc/meminfo in bytes, its "kB"
 * being KiB. Each found flag says whether the first line of that key
 * parsed. */
static void meminfo(const char *buf, size_t len, uint64_t *total, bool *have_total, uint64_t *avail,
		    bool *have_avail)
{
	struct kvparse_iter it;
	struct kvparse_kv kv;
	bool seen_total = false, seen_avail = false;

	*have_total = *have_avail = false;
	kvparse_iter_init(&it, buf, len);
	while ((!seen_total || !seen_avail) && kvparse_next(&it, ':', &kv)) {
		if (!seen_total && kvparse_key_is(&kv, "MemTotal")) {
			seen_total = true;
			*have_total = kvparse_value(kv.val, kv.vlen, KVPARSE_UNIT_BYTES, total) == 0;
		} else if (!seen_avail && kvparse_key_is(&kv, "MemAvailable")) {
			seen_avail = true;
			*have_avail = kvparse_value(kv.val, kv.vlen, KVPARSE_UNIT_BYTES, avail) == 0;
		}
	}
}

/* Reads the 1-minute load, "12.34 ...", where the kernel writes two
 * decimals. */
static bool load1(const char *buf, size_t len, long double *out)
{
	struct kvparse_cur c;
	const char *f;
	size_t n;
	uint64_t whole, frac = 0, scale = 1;

	kvparse_cur_init(&c, buf, len);
	if (!kvparse_field(&c, &f, &n))
		return false;
	ssize_t w = kvparse_u64(f, n, 999999999, &whole);
	if (w <= 0)
		return false;
	if ((size_t)w < n && f[w] == '.') {
		size_t i = (size_t)w + 1, digits = n - i < 6 ? n - i : 6;
		ssize_t d = kvparse_u64(f + i, digits, UINT64_MAX, &frac);
		for (ssize_t k = 0; k < d; k++)
			scale *= 10;
		if (d <= 0)
			frac = 0;
	}
	*out = (double)whole + (double)frac / (double)scale;
	return true;
}

int sysstat_read(struct sysstat *s, uint64_t now_ns, struct system_stats *out)
{
	char buf[8192];
	int got = 0;
	ssize_t r;
	struct kvparse_iter it;
	struct kvparse_kv kv;

	memset(out, 0, sizeof(*out));
	/* Only its first line is wanted. The kernel makes the rest, a line per
	 * CPU and every interrupt, anyway, but it need not be copied. */
	r = read_file(s, SS_STAT, buf, 1024);
	if (r > 0) {
		uint64_t total, idle;
		kvparse_iter_init(&it, buf, kvparse_complete(buf, (size_t)r, 1024));
		if (kvparse_next(&it, ' ', &kv) && kvparse_key_is(&kv, "cpu") && cpu_ticks(kv.val, kv.vlen, &idle, &total)) {
			enum ratewin_verdict v = RATEWIN_AFRESH;
			if (s->have_prev && total >= s->prev_total && idle >= s->prev_idle)
				v = ratewin_judge(s->prev_ns, now_ns, s->min_window_ns);
			if (v == RATEWIN_RATE && total > s->prev_total) {
				double busy = (double)((total - s->prev_total) - (idle - s->prev_idle));
				double pct = 100.0 * busy / (double)(total - s->prev_total);
				if (pct >= 0 && pct <= 100) {
					out->cpu_pct = pct;
					out->valid |= UINT64_C(1) << SYS_F_CPU;
				}
			}
			/* A window too short for a rate keeps the older reading, so
			 * that the next one's window is long enough. */
			if (v != RATEWIN_SHORT) {
				s->prev_total = total;
				s->prev_idle = idle;
				s->prev_ns = now_ns;
				s->have_prev = true;
			}
			got++;
		}
	}
	r = read_file(s, SS_MEMINFO, buf, sizeof(buf));
	if (r > 0) {
		uint64_t total, avail;
		bool have_total, have_avail;
		meminfo(buf, kvparse_complete(buf, (size_t)r, sizeof(buf)), &total, &have_total, &avail, &have_avail);
		if (have_total) {
			out->mem_total_bytes = total;
			out->valid |= UINT64_C(1) << SYS_F_MEM_TOTAL;
			if (have_avail && avail <= total) {
				out->mem_used_bytes = total - avail;
				out->valid |= UINT64_C(1) << SYS_F_MEM_USED;
			}
			got++;
		}
	}
	r = read_file(s, SS_LOADAVG, buf, sizeof(buf));
	if (r > 0 && load1(buf, (size_t)r, &out->load_1m)) {
		out->valid |= UINT64_C(1) << SYS_F_LOAD1;
		got++;
	}
	return got ? 0 : -ENOENT;
}
