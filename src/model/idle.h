/* idle: processes that hold GPU memory without using the GPU. A process is
 * idle when it holds at least mem_bytes of GPU memory while its own GPU
 * utilisation is 0 % (or, where that is unknown, its GPU's is 0 %), without
 * a break, for after_ms. The tracker is fed every frame of a run, live or
 * replayed, in order; it marks each idle process with the time it became
 * quiet (gpu_process.idle_since_ms), and adds an `idle` event when a process
 * becomes idle and an `active` event when it stops being idle or exits, once
 * each. A stretch broken by IDLE_GAP_MS without a sight of the process
 * starts again. Time is the frame's ts_ms, so a replay computes the same as the live
 * run did; a frame without one is passed through untouched. Recorded `idle`
 * and `active` events are dropped from the frames it is fed, so that a
 * replay with other options says what those options say. */
#ifndef GPUR_IDLE_H
#define GPUR_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/frame.h"

#define IDLE_MEM_DEFAULT ((uint64_t)1 << 30)       /* --idle-mem: 1 GiB */
#define IDLE_AFTER_DEFAULT_MS (30 * 60 * 1000ull) /* --idle-after: 30 min */
#define IDLE_MAX_TRACKED 65536                    /* processes followed at once */
/* A process not seen for this long (a gap in a recording, a GPU that was
 * lost) is not known to have stayed quiet: its stretch starts again. */
#define IDLE_GAP_MS (15 * 60 * 1000ull)

#define EVENT_IDLE "idle"
#define EVENT_ACTIVE "active"

struct idle_opts {
	uint64_t mem_bytes;
	uint64_t after_ms;
};

struct idle_tracker;

struct idle_tracker *idle_new(const struct idle_opts *o);
void idle_free(struct idle_tracker *t);
/* Takes f, the next frame of the run: marks its idle processes and adds its
 * idle and active events. */
void idle_update(struct idle_tracker *t, struct frame *f);
/* Whether p, as it is in a frame, is quiet by the rule: it holds at least
 * mem_bytes at 0 % (its own, or its GPU's when its own is unknown). */
bool idle_quiet(const struct idle_opts *o, const struct frame *f, const struct gpu_process *p);
/* "2h14m", "45m", "3d04h", "59s": how long, for the dashboard. */
void idle_format(uint64_t ms, char *buf, size_t n);

#endif
