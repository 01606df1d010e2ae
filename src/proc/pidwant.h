/* pidwant: which processes' /proc figures (CPU %, RSS) someone needs fresh.
 * The dashboard, when nothing else reads them (no --log; not sorted by CPU
 * or host memory), wants only the rows on its screen: a process off the
 * screen keeps its last figures instead of costing a /proc/PID/stat read
 * every poll. Set from one thread, read by the backends' workers. */
#ifndef GPUR_PIDWANT_H
#define GPUR_PIDWANT_H

#include <stdbool.h>
#include <stddef.h>

struct pidwant;

/* The process's one set, wanting every pid until told otherwise. It is
 * never freed: a backend worker abandoned in a hung call may still read
 * it when the call returns, after everything else has gone. */
struct pidwant *pidwant_get(void);
/* Every pid wanted again. */
void pidwant_all(struct pidwant *w);
/* Only these (copied; at most PIDWANT_MAX, beyond that every pid). */
#define PIDWANT_MAX 4096
void pidwant_set(struct pidwant *w, const unsigned *pids, size_t n);
/* A copy for one poll into *buf (grown as needed; *cap its size in pids),
 * sorted; returns how many, or -1 when every pid is wanted. NULL w: -1. */
long pidwant_snapshot(struct pidwant *w, unsigned **buf, size_t *cap);
/* pid in a snapshot of n (>= 0) sorted pids. */
bool pidwant_has(const unsigned *pids, long n, unsigned pid);

#endif
