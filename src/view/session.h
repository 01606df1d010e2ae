/* session: each GPU's peak and mean utilisation, temperature and power since
 * the session began, when the dashboard started or a replay was rewound or
 * sought. They are keyed by device_id, so a GPU keeps its figures when GPUs
 * come and go, and when it is lost. The session is bounded to a fixed number
 * of GPUs, and the one seen longest ago makes room for a new one. */
#ifndef GPUR_SESSION_H
#define GPUR_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

enum session_metric { SESSION_UTIL, SESSION_TEMP, SESSION_POWER, SESSION__COUNT };

/* The most GPUs tracked. It is as many as a frame holds, so a frame's GPUs
 * never push each other out. */
#define SESSION_MAX_GPUS FRAME_MAX_GPUS

/* One metric of one GPU over the session. */
struct session_stat {
	uint64_t n;        /* frames in which the value was known, 0 when never known */
	double peak, mean; /* meaningful only when n > 0 */
};

/* Returns a new empty session tracking at most max_gpus GPUs, clamped to
 * 1..SESSION_MAX_GPUS. session_free() frees it. */
struct session *session_new(size_t max_gpus);
/* NULL is a no-op. */
void session_free(struct session *s);

/* Forgets every GPU and the time spanned, so a new session starts with the
 * next push. */
void session_reset(struct session *s);

/* Adds frame f. For each GPU with a device_id, each metric whose value f
 * knows (util_pct, temp_c, power_w) counts towards its peak and mean; GPUs
 * without a device_id, and a repeat of an id within f, are skipped. An
 * unknown value, including a lost or suspended GPU's, counts towards
 * nothing, never as 0. A GPU absent from f keeps its figures. A GPU first
 * seen when max_gpus are tracked takes the place of the one seen longest
 * ago. The cost is O(GPUs of f), and it allocates only for a GPU seen for
 * the first time. */
void session_push(struct session *s, const struct frame *f);

/* Puts device_id's figures for metric m into *out. Returns false, with *out
 * zeroed, when the GPU is not tracked or m is out of range. */
bool session_get(const struct session *s, const char *device_id, enum session_metric m, struct session_stat *out);

/* The number of GPUs tracked now. */
size_t session_gpus(const struct session *s);
/* The number of frames pushed since the session began. */
uint64_t session_frames(const struct session *s);
/* Puts into *ms the time the session spans, from the first to the latest
 * frame pushed that had a timestamp (ts_ms). Returns false when no frame had
 * one. */
bool session_span_ms(const struct session *s, uint64_t *ms);

#endif
