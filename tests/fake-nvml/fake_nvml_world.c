/* fake_nvml_world: the machine around the fake GPUs, where a scenario asks
 * for it. "proc_cpu" makes the processes of a procfs fixture busy: at every
 * poll each listed pid's utime, field 14 of
 * PROCFS/PID/stat, moves on by its share of one core over the scenario's
 * interval, as a busy process's does on a real machine. The demo recording
 * is made this way, with a virtual clock, so its CPU % are real rates. A
 * tick is a read of GPU 0's utilisation: once a poll, never during
 * re-detection (which calls nvmlDeviceGetCount again).
 *   "proc_cpu": {"hz": 100, "interval_ms": 1000, "pids": {"51200": 97.5, ...},
 *                "host": {"cpus": 224, "pct": [5.1, 6.3, ...]}}
 * "host" moves PROCFS/stat's first ("cpu") line the same way: the machine's
 * cpus x hz x interval ticks a poll, pct % of them busy (user 85 %, system
 * 15 %; an array is one value a poll, cycled), the rest idle, so gpur's
 * host CPU % is a rate too. The per-CPU lines are left as they are.
 * PROCFS is $FAKE_NVML_PROCFS (a copy of the fixture: the files change).
 *
 * $FAKE_NVML_LIVE_PROCFS=DIR (a real procfs, usually /proc): a scenario's
 * process is listed only while DIR/PID exists and is not a zombie, and the
 * memory it held is then off its GPU's used memory, as the driver frees an
 * exited process's context. The demo's processes are stand-ins that hold
 * the fixture's pids in a PID namespace, so a signal gpur sends ends one for
 * real. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_nvml_priv.h"

#define WORLD_MAX_PIDS 64

static unsigned long ticks_done;

static struct {
	unsigned pid;
	unsigned long long base; /* utime as the fixture had it */
	bool have;
} busy[WORLD_MAX_PIDS];

/* path's first n - 1 bytes into buf, terminated; false when unreadable. */
static bool read_small(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t got = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[got] = '\0';
	return got < n - 1; /* larger than buf: left alone rather than cut */
}

/* path's content becomes s (a fixture copy: written in place). */
static void write_small(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fputs(s, f);
	fclose(f);
}

/* Rewrites DIR/PID/stat with utime = base + ticks. */
static void set_utime(const char *dir, size_t k, unsigned long long ticks)
{
	char path[4096], buf[4096], out[4200];

	snprintf(path, sizeof(path), "%s/%u/stat", dir, busy[k].pid);
	if (!read_small(path, buf, sizeof(buf)))
		return;
	char *p = strrchr(buf, ')');
	if (!p)
		return;
	/* After ')': state (field 3) ... utime is the 12th field. */
	char *field = p + 1;
	for (int i = 3; i < 14 && field; i++) {
		field = strchr(field + 1, ' ');
	}
	if (!field)
		return;
	field++;
	char *end = strchr(field, ' ');
	if (!end)
		return;
	if (!busy[k].have) {
		busy[k].base = strtoull(field, NULL, 10);
		busy[k].have = true;
	}
	int w = snprintf(out, sizeof(out), "%.*s%llu%s", (int)(field - buf), buf, busy[k].base + ticks, end);
	if (w < 0 || (size_t)w >= sizeof(out))
		return;
	write_small(path, out);
}

/* The host's "cpu" line: user, nice, system, idle, then the rest as the
 * fixture had them. */
static struct {
	bool have;
	unsigned long long user, nice, system, idle;
	char rest[512];
	double busy, total; /* ticks added so far */
} host;

static void host_tick(const char *dir, json_t *spec)
{
	static char buf[1 << 20]; /* a real host's stat: a line per CPU, every interrupt */
	char path[4096];
	json_t *pct = json_object_get(spec, "pct");
	double cpus = (double)jint(spec, "cpus", 1);
	double p;

	if (json_is_array(pct) && json_array_size(pct))
		p = json_number_value(json_array_get(pct, (ticks_done - 1) % json_array_size(pct)));
	else if (json_is_number(pct))
		p = json_number_value(pct);
	else
		return;
	if (p < 0 || p > 100 || cpus < 1)
		return;
	snprintf(path, sizeof(path), "%s/stat", dir);
	if (!read_small(path, buf, sizeof(buf)))
		return;
	char *eol = strchr(buf, '\n');
	if (strncmp(buf, "cpu ", 4) != 0 || !eol)
		return;
	if (!host.have) {
		int used = 0;
		if (sscanf(buf + 4, "%llu %llu %llu %llu%n", &host.user, &host.nice, &host.system, &host.idle, &used) != 4)
			return;
		snprintf(host.rest, sizeof(host.rest), "%.*s", (int)(eol - (buf + 4 + used)), buf + 4 + used);
		host.have = true;
	}
	/* Poll 1 is the first sample: from it on, the rate. */
	if (ticks_done > 1) {
		double all = cpus * (double)jint(json_object_get(S.root, "proc_cpu"), "hz", 100) *
			     (double)jint(json_object_get(S.root, "proc_cpu"), "interval_ms", 1000) / 1000.0;
		host.busy += all * p / 100.0;
		host.total += all;
	}
	unsigned long long busy = (unsigned long long)(host.busy + 0.5), all = (unsigned long long)(host.total + 0.5);
	unsigned long long user = busy * 85 / 100, sys = busy - user;
	static char out[sizeof(buf) + 160];
	int w = snprintf(out, sizeof(out), "cpu  %llu %llu %llu %llu%s%s", host.user + user, host.nice,
			 host.system + sys, host.idle + (all - busy), host.rest, eol);
	if (w < 0 || (size_t)w >= sizeof(out))
		return;
	write_small(path, out);
}

void world_tick(void)
{
	json_t *pc = json_object_get(S.root, "proc_cpu");
	const char *dir = getenv("FAKE_NVML_PROCFS");
	json_t *pids = json_object_get(pc, "pids");
	const char *key;
	json_t *v;
	size_t k = 0;

	if (!pc || !dir || !*dir)
		return;
	ticks_done++;
	if (json_is_object(json_object_get(pc, "host")))
		host_tick(dir, json_object_get(pc, "host"));
	if (!json_is_object(pids))
		return;
	double hz = (double)jint(pc, "hz", 100), secs = (double)jint(pc, "interval_ms", 1000) / 1000.0;
	json_object_foreach(pids, key, v) {
		if (k >= WORLD_MAX_PIDS || !json_is_number(v))
			break;
		busy[k].pid = (unsigned)strtoul(key, NULL, 10);
		/* Poll 1 is the first sample: from it on, pct % of a core. */
		double ticks = json_number_value(v) / 100.0 * hz * secs * (double)(ticks_done - 1);
		set_utime(dir, k, (unsigned long long)(ticks + 0.5));
		k++;
	}
}

/* $FAKE_NVML_LIVE_PROCFS, read once (callers hold the fake's lock): a
 * getenv per listed process would weigh on the benches, which count the
 * fake's work inside gpur's (and nvtop's). NULL when unset or empty. */
static const char *live_dir(void)
{
	static const char *dir;
	static bool looked;

	if (!looked) {
		dir = getenv("FAKE_NVML_LIVE_PROCFS");
		if (dir && !*dir)
			dir = NULL;
		looked = true;
	}
	return dir;
}

bool world_alive(unsigned pid)
{
	const char *dir = live_dir();
	char path[4096], buf[4096]; /* a stat line is some 300 bytes */

	if (!dir)
		return true;
	if ((size_t)snprintf(path, sizeof(path), "%s/%u/stat", dir, pid) >= sizeof(path) ||
	    !read_small(path, buf, sizeof(buf)))
		return false;
	/* The state follows the last ')': comm may hold any byte. */
	const char *rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] && rp[2] != 'Z' && rp[2] != 'X';
}

unsigned long long world_freed(const struct fdev *d)
{
	unsigned long long sum = 0, m;

	if (!live_dir())
		return 0;
	for (size_t i = 0; i < d->nprocs; i++) {
		const struct fproc *p = &d->procs[i];
		/* Outside its "polls" the scenario's used memory is the author's. */
		if (!FPROC_IN_POLLS(p) || world_alive(p->pid))
			continue;
		if (p->mem && value_at(p->mem, &m) && m != NVML_VALUE_NOT_AVAILABLE)
			sum += m;
	}
	return sum;
}
