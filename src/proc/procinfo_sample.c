/* procinfo_sample: the samples of a known process between full reads of its
 * /proc/PID/stat (procinfo.c): its CPU-time clock, its held statm only when
 * it has run, and a probe of its parent. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include "proc/procinfo_priv.h"
#include "util/kvparse.h"
#include "util/ratewin.h"

/* A CPU rate from the CPU time used (ns) since the baseline sample. A
 * window shorter than pi->min_window_ns gives no rate and keeps the
 * baseline, so that a later sample measures over a window long enough. */
void procinfo_cpu_sample(struct procinfo *pi, struct entry *e, uint64_t cpu_time_ns)
{
	enum ratewin_verdict v = RATEWIN_AFRESH;

	e->cpu_valid = false;
	if (e->have_cpu && cpu_time_ns >= e->cpu_time_ns)
		v = ratewin_judge(e->cpu_ns, pi->now_ns, pi->min_window_ns);
	if (v == RATEWIN_SHORT)
		return;
	if (e->have_cpu && cpu_time_ns == e->cpu_time_ns)
		e->idle_runs += e->idle_runs < UINT32_MAX;
	else
		e->idle_runs = 0;
	if (v == RATEWIN_RATE) {
		double secs = (double)(pi->now_ns - e->cpu_ns) / 1e9;
		e->cpu_pct = (double)(cpu_time_ns - e->cpu_time_ns) / 1e9 / secs * 100.0;
		e->cpu_valid = e->cpu_pct >= 0 && e->cpu_pct <= 1e6;
	}
	e->cpu_time_ns = cpu_time_ns;
	e->cpu_ns = pi->now_ns;
	e->have_cpu = true;
}

/* The process's CPU time over all threads, in ns, from its CPU-time clock. */
bool procinfo_read_clock(struct entry *e, unsigned pid, uint64_t *ns)
{
	struct timespec ts;

	if (!e->have_clk) {
		if (pid > INT32_MAX || clock_getcpuclockid((pid_t)pid, &e->clk) != 0)
			return false;
		e->have_clk = true;
	}
	if (clock_gettime(e->clk, &ts) != 0 || ts.tv_sec < 0) {
		e->have_clk = false;
		return false;
	}
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return true;
}

/* Samples between full reads: the CPU clock, then the held statm, whose
 * second field is the resident pages. Returns false when either fails,
 * because the process has gone. */
bool procinfo_quick_sample(struct procinfo *pi, struct entry *e)
{
	char buf[160];
	uint64_t ns, pages;
	struct kvparse_cur c;
	const char *field;
	size_t flen;

	if (!procinfo_read_clock(e, e->pid, &ns))
		return false;
	/* The process has not run since the last sample, to the nanosecond of
	 * its CPU time, so its pages have not been touched either and RSS
	 * stands. A process that had gone and left its pid to another would
	 * not read the same nanosecond. The full read, at most
	 * PROCINFO_FULL_NS away, checks the start time anyway and picks up
	 * pages the kernel reclaimed. */
	if (e->have_cpu && ns == e->cpu_time_ns && e->rss_valid && pi->now_ns >= e->rss_ns &&
	    pi->now_ns - e->rss_ns < PROCINFO_RSS_NS) {
		pi->quick++;
		pi->idle++;
		procinfo_cpu_sample(pi, e, ns);
		return true;
	}
	ssize_t r = pread(e->statmfd, buf, sizeof(buf), 0);
	if (r <= 0)
		return false;
	kvparse_cur_init(&c, buf, (size_t)r);
	if (!kvparse_field(&c, &field, &flen) || !kvparse_field_u64(&c, UINT64_MAX / (uint64_t)pi->page, &pages))
		return false;
	pi->quick++;
	procinfo_cpu_sample(pi, e, ns);
	e->rss = pages * (uint64_t)pi->page;
	e->rss_valid = true;
	e->rss_ns = pi->now_ns;
	return true;
}

/* Whether the parent pid still exists; its children are reparented when it
 * exits. It is probed with kill(2) and no signal, once per parent per poll,
 * and only on the procfs of gpur's own namespace, where its pids are
 * kill(2)'s. A parent that has exited but is not yet reaped still answers,
 * and the full read every PROCINFO_FULL_NS catches that. */
bool procinfo_parent_alive(struct procinfo *pi, unsigned ppid)
{
	if (ppid <= 1 || ppid > INT32_MAX)
		return true; /* PID 1 never exits, and 0 is the kernel's */
	for (unsigned i = 0; i < pi->nparents; i++)
		if (pi->parents[i].pid == ppid)
			return pi->parents[i].alive;
	pi->probes++;
	bool alive = kill((pid_t)ppid, 0) == 0 || errno == EPERM;
	if (pi->nparents < PROCINFO_PARENTS) {
		pi->parents[pi->nparents].pid = ppid;
		pi->parents[pi->nparents].alive = alive;
		pi->nparents++;
	}
	return alive;
}
