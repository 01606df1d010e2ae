/* frame: everything one poll produced — GPUs, processes, events, the host's
 * system figures — plus its own arena for strings. A published frame is
 * read-only; readers share it through a reference count. */
#ifndef GPUR_FRAME_H
#define GPUR_FRAME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/event.h"
#include "model/field.h"
#include "model/gpu.h"
#include "model/process.h"
#include "util/arena.h"

/* Record limits. A recorded line with more GPUs, processes or events is
 * skipped (docs/record-format.md, rule 5), and the live side obeys them too. */
#define FRAME_MAX_GPUS 1024
#define FRAME_MAX_PROCESSES 16384
#define FRAME_MAX_EVENTS 1024

enum system_field { SYS_F_CPU, SYS_F_MEM_USED, SYS_F_MEM_TOTAL, SYS_F_LOAD1, SYS_F__COUNT };

struct system_stats {
	uint64_t valid;
	long double cpu_pct; /* all cores, 0-100; every figure here is a FIELD_NUM */
	long double mem_used_bytes, mem_total_bytes;
	long double load_1m;
};

enum frame_field { FRAME_F_TS, FRAME_F_HOST, FRAME_F_BACKEND, FRAME_F_DRIVER, FRAME_F_SYSTEM, FRAME_F__COUNT };

/* What a GPU last read while it was ok, and when; ts_ms is 0 when it was
 * never seen ok. gone_ms is the time of the poll that found it gone, the last
 * moment the source saw it and the one "last seen" shows, or 0 when not
 * known. g keeps numbers only, and its strings are NULL. */
struct gpu_seen {
	bool seen; /* false when never seen ok, and then the rest is zero */
	uint64_t ts_ms, gone_ms;
	struct gpu g;
};

/* A frame whose strings another frame points into (frame_pin()). */
struct frame_pin {
	struct frame *f;
	struct frame_pin *next;
};

struct frame {
	uint64_t valid; /* bit (1 << enum frame_field) */
	uint64_t ts_ms; /* wall clock, ms since the epoch, an integer (FIELD_U64) and never a fraction */
	const char *host, *backend, *driver;
	struct system_stats system;
	struct gpu *gpus;
	size_t ngpus, gpus_cap;
	struct gpu_process *procs;
	size_t nprocs, procs_cap;
	struct event *events;
	size_t nevents, events_cap;
	struct arena arena;
	/* Not recorded. These are what the dashboard shows about the source. */
	uint64_t poll_us;      /* how long its poll took with composing, or how long a hung call has hung */
	const char *cuda;      /* CUDA version for the header, or NULL */
	/* A backend's name for its driver in the header ("xe", "i915/xe").
	 * When it is NULL, the header shows the backend's name. */
	const char *driver_label;
	/* For a composite of several backends, the header's "nvml 550.54.15 +
	 * amdgpu 6.8.0 + xe 6.12"; NULL otherwise. */
	const char *driver_line;
	/* For each GPU, its last ok readings (see model/seen.h), or NULL; the
	 * array is in the arena. The frame pipeline fills it for lost or
	 * suspended GPUs. */
	struct gpu_seen *seen;
	/* Frames this one holds a reference to, because its elements point
	 * into their strings (frame_pin()); the nodes are in the arena. */
	struct frame_pin *pins;
	atomic_int refs;
};

extern const struct field FRAME_FIELDS[];   /* top level: ts_ms, host, backend, driver */
extern const size_t FRAME_NFIELDS;
extern const struct field SYSTEM_FIELDS[];
extern const size_t SYSTEM_NFIELDS;

/* Returns a new empty frame with one reference, which frame_unref() frees. */
struct frame *frame_new(void);
struct frame *frame_ref(struct frame *f);
/* Drops a reference, and the last one frees the frame. NULL is a no-op. */
void frame_unref(struct frame *f);
/* Empties f for reuse, keeping the arrays' capacity and releasing the
 * strings. */
void frame_reset(struct frame *f);

static inline bool frame_has(const struct frame *f, enum frame_field b)
{
	return (f->valid >> b) & 1u;
}
static inline void frame_set(struct frame *f, enum frame_field b)
{
	f->valid |= UINT64_C(1) << b;
}

/* Appends a zeroed element, one with every field unknown. The pointer is
 * valid until the next add of the same kind. Returns NULL when the record
 * limit is reached. */
struct gpu *frame_add_gpu(struct frame *f);
struct gpu_process *frame_add_process(struct frame *f);
struct event *frame_add_event(struct frame *f);
/* Appends an event of kind with an optional printf-style detail. */
__attribute__((format(printf, 3, 4)))
struct event *frame_note(struct frame *f, const char *kind, const char *fmt, ...);
/* Appends an event of kind that names a backend, or none when backend is
 * NULL. */
struct event *frame_backend_event(struct frame *f, const char *kind, const char *backend);
/* Returns a copy of s in the frame's arena, or NULL when s is NULL. */
const char *frame_str(struct frame *f, const char *s);
const char *frame_strn(struct frame *f, const char *s, size_t n);

/* Holds a reference to other until f is freed or reset, so that f's
 * elements may point into other's strings and parents: a GPU, process or
 * event of other copied by value (struct assignment) into f then stays
 * valid without duplicating its strings. Published frames are read-only, so
 * other's strings never change. other NULL or f itself is a no-op. */
void frame_pin(struct frame *f, struct frame *other);

/* Deep-copies src's recorded content into dst, which is reset first. */
void frame_copy(struct frame *dst, const struct frame *src);
/* Copies one GPU, process or event from another frame, duplicating its
 * strings. */
void frame_copy_gpu(struct frame *f, struct gpu *dst, const struct gpu *src);
/* Sets p's parents to a copy of src[0..n), pids and names, in f's arena. */
void frame_set_parents(struct frame *f, struct gpu_process *p, const struct process_parent *src, size_t n);
void frame_copy_process(struct frame *f, struct gpu_process *dst, const struct gpu_process *src);
void frame_copy_event(struct frame *f, struct event *dst, const struct event *src);

/* Keeps only GPUs whose keep[i] is true, renumbering process rows and events
 * and dropping those of removed GPUs. */
void frame_keep_gpus(struct frame *f, const bool *keep);
/* Drops the process rows of GPUs at or past position k, and takes the GPU
 * index off the events that name one while keeping what they say. A row is
 * then never drawn against a device the frame does not have
 * (docs/record-format.md, rule 4). */
void frame_drop_rows_from(struct frame *f, size_t k);
/* Applies the record format's rules 4 and 6 (docs/record-format.md). The
 * readings of lost or suspended GPUs are omitted, rows whose gpu_index is not
 * below ngpus are dropped, and events whose gpu_index is not below ngpus
 * lose it. */
void frame_normalize(struct frame *f);

#endif
