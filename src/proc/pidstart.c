/* pidstart: a process's start time from procfs (see pidstart.h). */
#include "proc/pidstart.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/kvparse.h"
#include "util/readfile.h"
#include "util/xalloc.h"

bool pidstart_ms(uint64_t start_ticks, long ticks_per_s, uint64_t btime_ms, uint64_t *start_ms)
{
	if (ticks_per_s <= 0 || start_ticks > UINT64_MAX / 1000u)
		return false;
	uint64_t since_boot_ms = start_ticks * 1000u / (uint64_t)ticks_per_s;
	if (since_boot_ms > UINT64_MAX - btime_ms)
		return false;
	*start_ms = btime_ms + since_boot_ms;
	return true;
}

/* The btime line comes after a cpu line per CPU and the intr line, whose
 * length grows with the interrupts, so it is past 16 KiB on a large machine.
 * The file is read in growing buffers up to this bound. */
#define PIDSTART_STAT_MAX (8u << 20)

int pidstart_btime_ms(const char *procfs, uint64_t *btime_ms)
{
	struct kvparse_iter it;
	struct kvparse_kv kv;
	uint64_t bt;
	int rc = -ENODATA;

	for (size_t cap = 16384; cap <= PIDSTART_STAT_MAX; cap *= 4) {
		char *buf = xmalloc(cap);
		ssize_t r = readfile_at(procfs, "stat", buf, cap);
		if (r < 0) {
			free(buf);
			return (int)r;
		}
		kvparse_iter_init(&it, buf, kvparse_complete(buf, (size_t)r, cap));
		while (kvparse_next(&it, ' ', &kv)) {
			if (!kvparse_key_is(&kv, "btime"))
				continue;
			rc = kvparse_value(kv.val, kv.vlen, KVPARSE_UNIT_NONE, &bt) != 0 || bt >= UINT64_MAX / 1000u ? -ENODATA : 0;
			if (rc == 0)
				*btime_ms = bt * 1000u;
			free(buf);
			return rc;
		}
		free(buf);
		if ((size_t)r + 1 < cap)
			break; /* the whole file was read (readfile_at keeps a byte for the NUL) with no btime in it */
	}
	return rc;
}

int pidstart_ticks(const char *procfs, unsigned pid, uint64_t *ticks, char *state)
{
	char rel[32], buf[1024];
	struct kvparse_cur c;
	const char *field;
	size_t flen;
	uint64_t start = 0;

	snprintf(rel, sizeof(rel), "%u/stat", pid);
	ssize_t r = readfile_at(procfs, rel, buf, sizeof(buf));
	if (r == -ENOENT || r == -ESRCH)
		return -ESRCH;
	if (r < 0)
		return (int)r;
	/* comm (field 2) may hold spaces and ')', so the fields go on after
	 * the last ')'. */
	const char *close = memrchr(buf, ')', (size_t)r);
	if (!close)
		return -EINVAL;
	kvparse_cur_init(&c, close + 1, (size_t)(buf + r - close - 1));
	for (int i = 3; i <= 22; i++) {
		if (i == 22) {
			if (!kvparse_field_u64(&c, UINT64_MAX / 1000u, &start))
				return -EINVAL;
		} else if (!kvparse_field(&c, &field, &flen)) {
			return -EINVAL;
		} else if (i == 3 && state) {
			*state = flen == 1 ? field[0] : '?';
		}
	}
	*ticks = start;
	return 0;
}

int pidstart_read(const char *procfs, unsigned pid, uint64_t *start_ms, char *state)
{
	uint64_t start, btime_ms;
	int rc = pidstart_ticks(procfs, pid, &start, state);

	if (rc < 0)
		return rc;
	rc = pidstart_btime_ms(procfs, &btime_ms);
	if (rc < 0)
		return rc == -ENOENT ? -ENODATA : rc;
	long ticks = sysconf(_SC_CLK_TCK);
	if (!pidstart_ms(start, ticks > 0 ? ticks : 100, btime_ms, start_ms))
		return -EINVAL;
	return 0;
}
