/* fake_nvml_world: the machine around the fake GPUs, where a scenario asks
 * for it. "proc_cpu" makes the processes of a procfs fixture busy: at every
 * poll each listed pid's utime, field 14 of
 * PROCFS/PID/stat, moves on by its share of one core over the scenario's
 * interval, as a busy process's does on a real machine. The demo recording
 * is made this way, with a virtual clock, so its CPU % are real rates. A
 * tick is a read of GPU 0's utilisation: once a poll, never during
 * re-detection (which calls nvmlDeviceGetCount again).
 *   "proc_cpu": {"hz": 100, "interval_ms": 1000, "pids": {"51200": 97.5, ...}}
 * PROCFS is $FAKE_NVML_PROCFS (a copy of the fixture: the files change). */
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

/* Rewrites DIR/PID/stat with utime = base + ticks. */
static void set_utime(const char *dir, size_t k, unsigned long long ticks)
{
	char path[4096], buf[4096], out[4200];

	snprintf(path, sizeof(path), "%s/%u/stat", dir, busy[k].pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
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
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(out, f);
	fclose(f);
}

void world_tick(void)
{
	json_t *pc = json_object_get(S.root, "proc_cpu");
	const char *dir = getenv("FAKE_NVML_PROCFS");
	json_t *pids = json_object_get(pc, "pids");
	const char *key;
	json_t *v;
	size_t k = 0;

	if (!pc || !dir || !*dir || !json_is_object(pids))
		return;
	ticks_done++;
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
