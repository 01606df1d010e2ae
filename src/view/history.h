/* history: per-GPU ring buffers of recent readings, one byte per sample, for
 * the dashboard's charts. They are keyed by device_id, so a GPU keeps its
 * line when GPUs come and go. */
#ifndef GPUR_HISTORY_H
#define GPUR_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

/* SM and tensor activity come from NVML's GPM, where a GPU has it. */
enum history_metric { HISTORY_UTIL, HISTORY_MEM, HISTORY_TEMP, HISTORY_POWER, HISTORY_SM, HISTORY_TENSOR, HISTORY__COUNT };

/* A sample that was not measured, because the field was unknown or the GPU
 * was lost, suspended or absent from that frame. It is never 0. */
#define HISTORY_UNKNOWN 255
/* GPUs tracked at once; a frame holds at most FRAME_MAX_GPUS. */
#define HISTORY_MAX_GPUS 1024
/* The most samples per GPU and metric; larger capacities are clamped. */
#define HISTORY_MAX_CAPACITY 65536

/* Returns a new empty history holding capacity samples per GPU and metric,
 * clamped to 1..HISTORY_MAX_CAPACITY. history_free() frees it. */
struct history *history_new(size_t capacity);
/* NULL is a no-op. */
void history_free(struct history *h);

/* Adds one sample per GPU and metric from f: util is util_pct, mem is
 * used * 100 / total, temp is temp_c, and power is
 * power_w * 100 / power_limit_w, each rounded and clamped to 0..254, or
 * HISTORY_UNKNOWN where f does not know the value. A GPU is keyed by its
 * device_id, and GPUs without one, or a repeat of an id within f, are
 * skipped. A GPU first seen now reads unknown before now, and a known GPU
 * missing from f gets an unknown sample. A GPU absent for a whole capacity
 * is forgotten. Beyond HISTORY_MAX_GPUS, new GPUs are not tracked. The cost
 * is O(GPUs), and it allocates only for a GPU seen for the first time. */
void history_push(struct history *h, const struct frame *f);
/* The samples held per GPU and metric, at most the capacity. */
size_t history_len(const struct history *h);
/* Copies the last min(n, history_len()) samples of device_id's metric m into
 * out, oldest first, and returns how many, or 0 for a device not tracked. */
size_t history_get(const struct history *h, const char *device_id, enum history_metric m,
		   uint8_t *out, size_t n);
/* Changes the capacity, clamped as in history_new, keeping the newest
 * samples. */
void history_set_capacity(struct history *h, size_t capacity);
/* "util", "mem", "temp" or "power", or "?" for a value out of range. */
const char *history_metric_name(enum history_metric m);

#endif
