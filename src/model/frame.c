/* frame: construction, copying and GPU selection of poll results. */
#include "model/frame.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/xalloc.h"


const struct field FRAME_FIELDS[] = {
	{"ts_ms", FIELD_U64, FRAME_F_TS, offsetof(struct frame, ts_ms), 0, FIELD_U64_MAX, 0, NULL, 0, 0, NULL,
	 "wall-clock time of the poll (ms since the epoch)"},
	{"host", FIELD_STR, FRAME_F_HOST, offsetof(struct frame, host), 0, 0, 256, NULL, 0, 0, NULL,
	 "host name"},
	{"backend", FIELD_STR, FRAME_F_BACKEND, offsetof(struct frame, backend), 0, 0, 256, NULL, 0, 0,
	 NULL, "source name, children joined by +"},
	{"driver", FIELD_STR, FRAME_F_DRIVER, offsetof(struct frame, driver), 0, 0, 256, NULL, 0, 0, NULL,
	 "driver versions, joined by +"},
};
const size_t FRAME_NFIELDS = sizeof(FRAME_FIELDS) / sizeof(FRAME_FIELDS[0]);

const struct field SYSTEM_FIELDS[] = {
	{"cpu_pct", FIELD_NUM, SYS_F_CPU, offsetof(struct system_stats, cpu_pct), 0, 100, 0, NULL, 0, 0,
	 NULL, "host CPU, all cores (%)"},
	{"mem_used_bytes", FIELD_NUM, SYS_F_MEM_USED, offsetof(struct system_stats, mem_used_bytes), 0,
	 FIELD_U64_MAX, 0, NULL, 0, 0, NULL, "host memory used (bytes)"},
	{"mem_total_bytes", FIELD_NUM, SYS_F_MEM_TOTAL, offsetof(struct system_stats, mem_total_bytes),
	 0, FIELD_U64_MAX, 0, NULL, 0, 0, NULL, "host memory total (bytes)"},
	{"load_1m", FIELD_NUM, SYS_F_LOAD1, offsetof(struct system_stats, load_1m), 0, 1e9, 0, NULL, 0,
	 0, NULL, "1-minute load average"},
};
const size_t SYSTEM_NFIELDS = sizeof(SYSTEM_FIELDS) / sizeof(SYSTEM_FIELDS[0]);

struct frame *frame_new(void)
{
	struct frame *f = xcalloc(1, sizeof(*f));

	arena_init(&f->arena);
	atomic_init(&f->refs, 1);
	return f;
}

struct frame *frame_ref(struct frame *f)
{
	atomic_fetch_add(&f->refs, 1);
	return f;
}

/* Drops the references frame_pin() took; the nodes go with the arena. */
static void unpin_all(struct frame *f)
{
	for (struct frame_pin *p = f->pins; p; p = p->next)
		frame_unref(p->f);
	f->pins = NULL;
}

void frame_pin(struct frame *f, struct frame *other)
{
	if (!other || other == f)
		return;
	for (struct frame_pin *p = f->pins; p; p = p->next)
		if (p->f == other)
			return;
	struct frame_pin *p = arena_alloc(&f->arena, sizeof(*p));
	p->f = frame_ref(other);
	p->next = f->pins;
	f->pins = p;
}

void frame_unref(struct frame *f)
{
	if (!f || atomic_fetch_sub(&f->refs, 1) != 1)
		return;
	unpin_all(f);
	arena_fini(&f->arena);
	free(f->gpus);
	free(f->procs);
	free(f->events);
	free(f);
}

void frame_reset(struct frame *f)
{
	unpin_all(f);
	arena_fini(&f->arena);
	f->valid = 0;
	f->ts_ms = 0;
	f->host = f->backend = f->driver = f->cuda = f->driver_label = f->driver_line = NULL;
	memset(&f->system, 0, sizeof(f->system));
	f->ngpus = f->nprocs = f->nevents = 0;
	f->poll_us = 0;
	f->seen = NULL;
}

static void *grow(void *arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 8;
	return xreallocarray(arr, *cap, size);
}

struct gpu *frame_add_gpu(struct frame *f)
{
	if (f->ngpus >= FRAME_MAX_GPUS)
		return NULL;
	f->gpus = grow(f->gpus, &f->gpus_cap, f->ngpus, sizeof(*f->gpus));
	struct gpu *g = &f->gpus[f->ngpus++];
	memset(g, 0, sizeof(*g));
	return g;
}

struct gpu_process *frame_add_process(struct frame *f)
{
	if (f->nprocs >= FRAME_MAX_PROCESSES)
		return NULL;
	f->procs = grow(f->procs, &f->procs_cap, f->nprocs, sizeof(*f->procs));
	struct gpu_process *p = &f->procs[f->nprocs++];
	memset(p, 0, sizeof(*p));
	return p;
}

struct event *frame_add_event(struct frame *f)
{
	if (f->nevents >= FRAME_MAX_EVENTS)
		return NULL;
	f->events = grow(f->events, &f->events_cap, f->nevents, sizeof(*f->events));
	struct event *e = &f->events[f->nevents++];
	memset(e, 0, sizeof(*e));
	return e;
}

struct event *frame_note(struct frame *f, const char *kind, const char *fmt, ...)
{
	struct event *e = frame_add_event(f);

	if (!e)
		return NULL;
	e->kind = frame_str(f, kind);
	e->valid |= UINT64_C(1) << EVENT_F_KIND;
	if (fmt) {
		char tmp[1024];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(tmp, sizeof(tmp), fmt, ap);
		va_end(ap);
		e->detail = frame_str(f, tmp);
		e->valid |= UINT64_C(1) << EVENT_F_DETAIL;
	}
	return e;
}

struct event *frame_backend_event(struct frame *f, const char *kind, const char *backend)
{
	struct event *e = frame_note(f, kind, NULL);

	if (e && backend) {
		e->backend = frame_str(f, backend);
		e->valid |= UINT64_C(1) << EVENT_F_BACKEND;
	}
	return e;
}

const char *frame_str(struct frame *f, const char *s)
{
	return arena_strdup(&f->arena, s);
}

const char *frame_strn(struct frame *f, const char *s, size_t n)
{
	return arena_strndup(&f->arena, s, n);
}

void frame_copy_gpu(struct frame *f, struct gpu *dst, const struct gpu *src)
{
	*dst = *src;
	field_dup_strings(dst, GPU_FIELDS, GPU_NFIELDS, &f->arena);
}

void frame_set_parents(struct frame *f, struct gpu_process *p, const struct process_parent *src, size_t n)
{
	p->parents = NULL;
	p->nparents = 0;
	if (!src || n == 0)
		return;
	struct process_parent *dst = arena_alloc(&f->arena, n * sizeof(*dst));
	for (size_t i = 0; i < n; i++) {
		dst[i].pid = src[i].pid;
		dst[i].name = frame_str(f, src[i].name);
	}
	p->parents = dst;
	p->nparents = n;
}

void frame_copy_process(struct frame *f, struct gpu_process *dst, const struct gpu_process *src)
{
	*dst = *src;
	field_dup_strings(dst, PROCESS_FIELDS, PROCESS_NFIELDS, &f->arena);
	dst->cgroup_path = frame_str(f, src->cgroup_path); /* not in the table, so not recorded */
	frame_set_parents(f, dst, src->parents, src->nparents);
}

void frame_copy_event(struct frame *f, struct event *dst, const struct event *src)
{
	*dst = *src;
	field_dup_strings(dst, EVENT_FIELDS, EVENT_NFIELDS, &f->arena);
}

void frame_copy(struct frame *dst, const struct frame *src)
{
	frame_reset(dst);
	dst->valid = src->valid;
	dst->ts_ms = src->ts_ms;
	dst->host = frame_str(dst, src->host);
	dst->backend = frame_str(dst, src->backend);
	dst->driver = frame_str(dst, src->driver);
	dst->cuda = frame_str(dst, src->cuda);
	dst->driver_label = frame_str(dst, src->driver_label);
	dst->driver_line = frame_str(dst, src->driver_line);
	dst->system = src->system;
	dst->poll_us = src->poll_us;
	for (size_t i = 0; i < src->ngpus; i++)
		frame_copy_gpu(dst, frame_add_gpu(dst), &src->gpus[i]);
	for (size_t i = 0; i < src->nprocs; i++)
		frame_copy_process(dst, frame_add_process(dst), &src->procs[i]);
	for (size_t i = 0; i < src->nevents; i++)
		frame_copy_event(dst, frame_add_event(dst), &src->events[i]);
}

void frame_keep_gpus(struct frame *f, const bool *keep)
{
	size_t map[FRAME_MAX_GPUS];
	size_t old = f->ngpus, n = 0;

	for (size_t i = 0; i < f->ngpus; i++) {
		map[i] = keep[i] ? n : SIZE_MAX;
		if (keep[i]) {
			if (f->seen)
				f->seen[n] = f->seen[i];
			f->gpus[n++] = f->gpus[i];
		}
	}
	f->ngpus = n;
	n = 0;
	for (size_t i = 0; i < f->nprocs; i++) {
		struct gpu_process *p = &f->procs[i];
		if (p->gpu_index >= old || map[p->gpu_index] == SIZE_MAX)
			continue;
		p->gpu_index = map[p->gpu_index];
		f->procs[n++] = *p;
	}
	f->nprocs = n;
	n = 0;
	for (size_t i = 0; i < f->nevents; i++) {
		struct event *e = &f->events[i];
		if (event_has(e, EVENT_F_GPU_INDEX)) {
			if (e->gpu_index >= old || map[e->gpu_index] == SIZE_MAX)
				continue;
			e->gpu_index = map[e->gpu_index];
		}
		f->events[n++] = *e;
	}
	f->nevents = n;
}

void frame_drop_rows_from(struct frame *f, size_t k)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nprocs; i++)
		if (f->procs[i].gpu_index < k)
			f->procs[n++] = f->procs[i];
	f->nprocs = n;
	for (size_t i = 0; i < f->nevents; i++)
		if (event_has(&f->events[i], EVENT_F_GPU_INDEX) && f->events[i].gpu_index >= k)
			f->events[i].valid &= ~(UINT64_C(1) << EVENT_F_GPU_INDEX);
}

void frame_normalize(struct frame *f)
{
	for (size_t i = 0; i < f->ngpus; i++)
		if (gpu_is_unread(&f->gpus[i]))
			gpu_drop_readings(&f->gpus[i]);
	frame_drop_rows_from(f, f->ngpus);
}
