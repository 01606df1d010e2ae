/* sysstat: /proc/stat, /proc/meminfo and /proc/loadavg (held open and
 * re-read on a real procfs: see readfile_held). */
#include "proc/sysstat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/readfile.h"
#include "util/xalloc.h"

enum { SS_STAT, SS_MEMINFO, SS_LOADAVG, SS__COUNT };
static const char *const SS_FILES[SS__COUNT] = {"stat", "meminfo", "loadavg"};

struct sysstat {
	char *root;
	int rootfd;             /* opened again while it cannot be */
	bool hold;              /* a real procfs: keep the files open */
	int held[SS__COUNT];
	uint64_t prev_total, prev_idle;
	bool have_prev;
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

static ssize_t read_file(struct sysstat *s, int which, char *buf, size_t n)
{
	if (s->rootfd < 0) {
		s->rootfd = readfile_opendir(s->root);
		s->hold = readfile_is_procfs(s->rootfd);
	}
	return readfile_held(s->rootfd, SS_FILES[which], &s->held[which], s->hold, buf, n);
}

/* A decimal number at *s (after blanks), advancing *s past it; false when
 * there is none or it is over max. (By hand: strtoull and strtod cost more
 * than the rest of reading the host's figures.) */
static bool parse_u64(const char **s, uint64_t max, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9') {
		uint64_t d = (uint64_t)(*p++ - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*s = p;
	*out = v;
	return true;
}

/* Value of "Key:   123 kB" in meminfo, in bytes. */
static bool meminfo_value(const char *buf, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = buf;

	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
			const char *v = p + klen + 1;
			uint64_t kb;
			if (!parse_u64(&v, UINT64_MAX / 1024, &kb))
				return false;
			*out = kb * 1024u;
			return true;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/* Up to max space-separated decimal counters from s (the "cpu" line);
 * returns how many, stopping at the first that is not one. */
static int parse_counters(const char *s, uint64_t *v, int max)
{
	int n = 0;

	while (n < max && parse_u64(&s, UINT64_MAX, &v[n]))
		n++;
	return n;
}

int sysstat_read(struct sysstat *s, struct system_stats *out)
{
	char buf[8192];
	int got = 0;

	memset(out, 0, sizeof(*out));
	/* Only its first line is wanted: the kernel makes the rest (a line per
	 * CPU, every interrupt) anyway, but it need not be copied. */
	if (read_file(s, SS_STAT, buf, 1024) > 0 && strncmp(buf, "cpu ", 4) == 0) {
		uint64_t v[8] = {0}, total = 0;
		int n = parse_counters(buf + 4, v, 8);
		if (n >= 4) {
			for (int i = 0; i < n; i++)
				total += v[i];
			uint64_t idle = v[3] + (n > 4 ? v[4] : 0); /* idle + iowait */
			if (s->have_prev && total > s->prev_total && idle >= s->prev_idle) {
				double busy = (double)((total - s->prev_total) - (idle - s->prev_idle));
				double pct = 100.0 * busy / (double)(total - s->prev_total);
				if (pct >= 0 && pct <= 100) {
					out->cpu_pct = pct;
					out->valid |= UINT64_C(1) << SYS_F_CPU;
				}
			}
			s->prev_total = total;
			s->prev_idle = idle;
			s->have_prev = true;
			got++;
		}
	}
	if (read_file(s, SS_MEMINFO, buf, sizeof(buf)) > 0) {
		uint64_t total, avail;
		if (meminfo_value(buf, "MemTotal", &total)) {
			out->mem_total_bytes = total;
			out->valid |= UINT64_C(1) << SYS_F_MEM_TOTAL;
			if (meminfo_value(buf, "MemAvailable", &avail) && avail <= total) {
				out->mem_used_bytes = total - avail;
				out->valid |= UINT64_C(1) << SYS_F_MEM_USED;
			}
			got++;
		}
	}
	if (read_file(s, SS_LOADAVG, buf, sizeof(buf)) > 0) {
		/* "12.34 ...": the kernel writes two decimals. */
		const char *p = buf;
		uint64_t whole, frac = 0, scale = 1;
		bool ok = parse_u64(&p, 999999999, &whole);
		if (ok && *p == '.') {
			p++;
			while (*p >= '0' && *p <= '9' && scale < 1000000) {
				frac = frac * 10 + (uint64_t)(*p++ - '0');
				scale *= 10;
			}
		}
		if (ok) {
			out->load_1m = (double)whole + (double)frac / (double)scale;
			out->valid |= UINT64_C(1) << SYS_F_LOAD1;
			got++;
		}
	}
	return got ? 0 : -ENOENT;
}
