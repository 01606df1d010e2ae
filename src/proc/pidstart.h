/* pidstart: when a process started, in ms since the epoch, from
 * /proc/PID/stat's starttime (field 22, clock ticks since boot) and
 * /proc/stat's btime — the one computation procinfo and psignal share, so
 * a row's start_ms and a re-check right before a signal always agree. */
#ifndef GPUR_PIDSTART_H
#define GPUR_PIDSTART_H

#include <stdbool.h>
#include <stdint.h>

/* start_ticks clock ticks after boot (ticks_per_s of them a second) on a
 * machine booted at btime_ms, as ms since the epoch into *start_ms. False,
 * *start_ms untouched, when ticks_per_s is not positive or the sum would
 * not fit. */
bool pidstart_ms(uint64_t start_ticks, long ticks_per_s, uint64_t btime_ms, uint64_t *start_ms);

/* The boot time in PROCFS/stat ("btime SECONDS") as ms since the epoch.
 * 0; -errno when the file cannot be read; -ENODATA when it has no usable
 * btime line. */
int pidstart_btime_ms(const char *procfs, uint64_t *btime_ms);

/* PROCFS/PID/stat's starttime as ms since the epoch (with PROCFS/stat's
 * btime and sysconf(_SC_CLK_TCK)), and its state letter (field 3: 'R',
 * 'S', 'Z' ...) into *state when state is not NULL. 0; -ESRCH when there
 * is no such pid there (ENOENT, or ESRCH from a process that went while it
 * was read); -EINVAL when the line does not parse; other -errno as read(2)
 * or open(2) gave them. */
int pidstart_read(const char *procfs, unsigned pid, uint64_t *start_ms, char *state);
/* The same field raw: clock ticks after boot (a process's identity with
 * its pid, which a step of the wall clock — btime moves with it — never
 * changes). Returns as pidstart_read. */
int pidstart_ticks(const char *procfs, unsigned pid, uint64_t *ticks, char *state);

#endif
