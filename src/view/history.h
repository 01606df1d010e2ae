/* history: per-GPU ring buffers of recent readings (one byte per sample) for
 * the dashboard's charts, keyed by device_id so a GPU keeps its line when
 * GPUs come and go. */
#ifndef GPUR_HISTORY_H
#define GPUR_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

enum history_metric { HISTORY_UTIL, HISTORY_MEM, HISTORY_TEMP, HISTORY_POWER, HISTORY__COUNT };

/* A sample that was not measured: the field was unknown, the GPU was lost or
 * suspended, or absent from that frame. Never 0. */
#define HISTORY_UNKNOWN 255
/* GPUs tracked at once (a frame holds at most FRAME_MAX_GPUS). */
#define HISTORY_MAX_GPUS 1024
/* Samples per GPU and metric at most; larger capacities are clamped. */
#define HISTORY_MAX_CAPACITY 65536

/* A new empty history holding capacity samples per GPU and metric (clamped
 * to 1..HISTORY_MAX_CAPACITY); history_free() frees it. */
struct history *history_new(size_t capacity);
/* NULL is a no-op. */
void history_free(struct history *h);

/* Adds one sample per GPU and metric from f: util = util_pct, mem =
 * used * 100 / total, temp = temp_c, power = power_w * 100 / power_limit_w,
 * rounded and clamped to 0..254; HISTORY_UNKNOWN where f does not know the
 * value. A GPU is keyed by its device_id (GPUs without one, or a repeat of an
 * id within f, are skipped); a GPU first seen now reads unknown before now,
 * a known GPU missing from f gets an unknown sample. A GPU absent for a whole
 * capacity is forgotten. Beyond HISTORY_MAX_GPUS new GPUs are not tracked.
 * O(GPUs); allocates only for a GPU seen for the first time. */
void history_push(struct history *h, const struct frame *f);
/* Samples held per GPU and metric (<= capacity). */
size_t history_len(const struct history *h);
/* Copies the last min(n, history_len()) samples of device_id's metric m into
 * out, oldest first, and returns how many; 0 for a device not tracked. */
size_t history_get(const struct history *h, const char *device_id, enum history_metric m,
		   uint8_t *out, size_t n);
/* Changes the capacity (clamped as in history_new), keeping the newest
 * samples. */
void history_set_capacity(struct history *h, size_t capacity);
/* "util", "mem", "temp", "power"; "?" for a value out of range. */
const char *history_metric_name(enum history_metric m);

#endif
