/* pidwant: which processes' /proc figures (CPU %, RSS) someone needs fresh.
 * When nothing else reads them, that is with no --log and no sorting by CPU
 * or host memory, the dashboard wants only the rows on its screen. A process
 * off the screen keeps its last figures instead of costing a /proc/PID/stat
 * read every poll. The set is written from one thread and read by the
 * backends' workers. */
#ifndef GPUR_PIDWANT_H
#define GPUR_PIDWANT_H

#include <stdbool.h>
#include <stddef.h>

struct pidwant;

/* The process's one set, which wants every pid until told otherwise. It is
 * never freed, because a backend worker abandoned in a hung call may still
 * read it when the call returns, after everything else has gone. */
struct pidwant *pidwant_get(void);
/* Wants every pid again. */
void pidwant_all(struct pidwant *w);
/* Wants only these pids, which are copied. Beyond PIDWANT_MAX pids, every
 * pid is wanted. */
#define PIDWANT_MAX 4096
void pidwant_set(struct pidwant *w, const unsigned *pids, size_t n);
/* Copies the set, sorted, into *buf for one poll, growing it as needed; *cap
 * is its size in pids. Returns how many pids there are, or -1 when every pid
 * is wanted or w is NULL. */
long pidwant_snapshot(struct pidwant *w, unsigned **buf, size_t *cap);
/* Whether pid is in a snapshot of n >= 0 sorted pids. */
bool pidwant_has(const unsigned *pids, long n, unsigned pid);
/* Whether the processes' parents are wanted: they are, until told
 * otherwise, and the dashboard wants them only while its process tree is
 * open, so that a user who never opens it pays no parent probes. */
void pidwant_tree(struct pidwant *w, bool on);
bool pidwant_tree_wanted(struct pidwant *w);

#endif
