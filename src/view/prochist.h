/* prochist: a short history per process of its GPU memory, GPU utilisation
 * and CPU %, for as long as the dashboard has seen it, for the details
 * screen's chart. It is keyed by (pid, start time), so a reused pid starts
 * afresh. It is bounded in processes and samples, and a process gone for a
 * while is freed. */
#ifndef GPUR_PROCHIST_H
#define GPUR_PROCHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

enum prochist_metric { PROCHIST_GPU_MEM, PROCHIST_GPU_UTIL, PROCHIST_CPU, PROCHIST__COUNT };

/* Processes tracked at once. Beyond this, a new one is tracked only in place
 * of one absent from the latest frame. */
#define PROCHIST_MAX_PROCS 1024
/* The most samples per process and metric; larger capacities are clamped.
 * With PROCHIST_MAX_PROCS, that is at most 6 MiB of samples in all. */
#define PROCHIST_MAX_CAPACITY 512
/* A process absent from this many pushes in a row is forgotten. */
#define PROCHIST_FORGET 30

/* Returns a new empty history of capacity samples per process and metric,
 * clamped to 1..PROCHIST_MAX_CAPACITY. prochist_free() frees it, and is a
 * no-op for NULL. */
struct prochist *prochist_new(size_t capacity);
void prochist_free(struct prochist *h);

/* Adds one sample per process of f, from the rows with a known pid; a
 * process on several GPUs is one process. Its GPU memory and GPU util are the
 * sums over its rows, each unknown when a row's is, and its CPU % is the
 * first known. A process seen again after an absence gets unknown samples for
 * the pushes it missed. The cost is O(rows + tracked), and it allocates only
 * as a process's samples grow. */
void prochist_push(struct prochist *h, const struct frame *f);

/* Copies the last min(n, held) samples of metric m of the process (pid,
 * start_ms) into out, oldest first, with NAN where unknown; start_known is
 * false when its start time is unknown. Returns how many, or 0 when the
 * process is not tracked. */
size_t prochist_get(const struct prochist *h, uint64_t pid, bool start_known, uint64_t start_ms,
		    enum prochist_metric m, double *out, size_t n);

/* The number of processes tracked now. */
size_t prochist_count(const struct prochist *h);

#endif
