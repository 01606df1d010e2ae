/* procinfo: what /proc says about a GPU process — name, command line, user,
 * start time, CPU %, RSS — cached per (pid, start time) so each poll reads
 * only /proc/PID/stat for a known process. */
#ifndef GPUR_PROCINFO_H
#define GPUR_PROCINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "model/frame.h"

struct procinfo;

/* procfs: where /proc is mounted (copied). User names come from the system
 * (getpwuid) for /proc, else from PROCFS/../etc/passwd when present, else the
 * numeric uid. */
struct procinfo *procinfo_new(const char *procfs);
void procinfo_free(struct procinfo *pi);
/* Starts a poll at monotonic time now_ns: later lookups refresh each pid
 * at most once, and a known pid at most about once a second. */
void procinfo_begin(struct procinfo *pi, uint64_t now_ns);
/* Fills p's name, cmdline, user, cpu_pct, host_mem_bytes and start_ms from
 * /proc/PID (strings into f's arena). Unknown stays unknown: a pid that is
 * gone or unreadable leaves those fields unset. */
void procinfo_fill(struct procinfo *pi, unsigned pid, struct frame *f, struct gpu_process *p);
/* From the next poll on, a known process that want (kept, not owned; NULL:
 * every pid) does not list keeps its last CPU % and RSS instead of being
 * read again (see pidwant.h). New processes are always read. */
struct pidwant;
void procinfo_set_want(struct procinfo *pi, struct pidwant *want);
/* Ends a poll: forgets pids not looked up since procinfo_begin. */
void procinfo_end(struct procinfo *pi);
/* Number of cached processes (tests, benchmarks). */
unsigned procinfo_cached(const struct procinfo *pi);

#endif
