/* pidstart: when a process started, in ms since the epoch, from
 * /proc/PID/stat's starttime (field 22, clock ticks since boot) and
 * /proc/stat's btime. procinfo and psignal share this one computation, so a
 * row's start_ms and a re-check right before a signal always agree. */
#ifndef GPUR_PIDSTART_H
#define GPUR_PIDSTART_H

#include <stdbool.h>
#include <stdint.h>

/* Converts start_ticks clock ticks after boot, at ticks_per_s a second, on a
 * machine booted at btime_ms into ms since the epoch in *start_ms. Returns
 * false, leaving *start_ms untouched, when ticks_per_s is not positive or the
 * sum would not fit. */
bool pidstart_ms(uint64_t start_ticks, long ticks_per_s, uint64_t btime_ms, uint64_t *start_ms);

/* Reads the boot time in PROCFS/stat ("btime SECONDS") as ms since the epoch.
 * Returns 0; -errno when the file cannot be read; or -ENODATA when it has no
 * usable btime line. */
int pidstart_btime_ms(const char *procfs, uint64_t *btime_ms);

/* Reads PROCFS/PID/stat's starttime as ms since the epoch, using
 * PROCFS/stat's btime and sysconf(_SC_CLK_TCK), and its state letter
 * (field 3: 'R', 'S', 'Z' and so on) into *state when state is not NULL.
 * Returns 0; -ESRCH when there is no such pid there, from ENOENT or from
 * ESRCH for a process that went while it was read; -EINVAL when the line
 * does not parse; or another -errno as read(2) or open(2) gave it. */
int pidstart_read(const char *procfs, unsigned pid, uint64_t *start_ms, char *state);
/* The same field raw, in clock ticks after boot. With the pid it is a
 * process's identity, which a step of the wall clock never changes, whereas
 * btime moves with the clock. Returns what pidstart_read returns. */
int pidstart_ticks(const char *procfs, unsigned pid, uint64_t *ticks, char *state);

#endif
