/* idle: an open-addressing table of the processes seen quiet, by pid, start
 * time and GPU, renewed each frame. */
#include "model/idle.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gpu.h"
#include "model/process.h"
#include "util/xalloc.h"

struct slot {
	uint64_t pid, start_ms, gpu; /* the key; gpu is the device's position, stable in a run */
	uint64_t quiet_since_ms;     /* 0: an empty slot */
	uint64_t seen_ms;            /* the last frame that had it */
	bool idle;                   /* its idle event was given */
	long double bytes;           /* what it held at its last quiet frame */
	const char *name;            /* not owned: only used in the frame it comes from */
};

struct idle_tracker {
	struct idle_opts o;
	struct slot *slots;
	size_t cap, n; /* cap is a power of two */
	char **names;  /* each slot's name, for the active event of an exit */
};

struct idle_tracker *idle_new(const struct idle_opts *o)
{
	struct idle_tracker *t = xcalloc(1, sizeof(*t));
	t->o = *o;
	t->cap = 64;
	t->slots = xcalloc(t->cap, sizeof(*t->slots));
	t->names = xcalloc(t->cap, sizeof(*t->names));
	return t;
}

void idle_free(struct idle_tracker *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap; i++)
		free(t->names[i]);
	free(t->names);
	free(t->slots);
	free(t);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static size_t home(const struct idle_tracker *t, uint64_t pid, uint64_t start, uint64_t gpu)
{
	return (size_t)mix(pid * 31 + start * 7 + gpu) & (t->cap - 1);
}

static struct slot *find(struct idle_tracker *t, uint64_t pid, uint64_t start, uint64_t gpu)
{
	for (size_t h = home(t, pid, start, gpu);; h = (h + 1) & (t->cap - 1)) {
		struct slot *s = &t->slots[h];
		if (!s->quiet_since_ms)
			return NULL;
		if (s->pid == pid && s->start_ms == start && s->gpu == gpu)
			return s;
	}
}

static void grow(struct idle_tracker *t);

static struct slot *add(struct idle_tracker *t, uint64_t pid, uint64_t start, uint64_t gpu)
{
	if ((t->n + 1) * 4 > t->cap * 3)
		grow(t);
	size_t h = home(t, pid, start, gpu);
	while (t->slots[h].quiet_since_ms)
		h = (h + 1) & (t->cap - 1);
	t->n++;
	struct slot *s = &t->slots[h];
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->start_ms = start;
	s->gpu = gpu;
	return s;
}

static void grow(struct idle_tracker *t)
{
	struct slot *old = t->slots;
	char **old_names = t->names;
	size_t oldcap = t->cap;

	t->cap *= 2;
	t->slots = xcalloc(t->cap, sizeof(*t->slots));
	t->names = xcalloc(t->cap, sizeof(*t->names));
	t->n = 0;
	for (size_t i = 0; i < oldcap; i++) {
		if (!old[i].quiet_since_ms)
			continue;
		struct slot *s = add(t, old[i].pid, old[i].start_ms, old[i].gpu);
		*s = old[i];
		t->names[s - t->slots] = old_names[i];
	}
	free(old);
	free(old_names);
}

/* Empties the slot at i and moves later ones of its run back, as linear
 * probing needs. */
static void drop(struct idle_tracker *t, size_t i)
{
	free(t->names[i]);
	t->names[i] = NULL;
	t->slots[i].quiet_since_ms = 0;
	t->n--;
	for (size_t j = (i + 1) & (t->cap - 1); t->slots[j].quiet_since_ms; j = (j + 1) & (t->cap - 1)) {
		struct slot s = t->slots[j];
		char *name = t->names[j];
		t->slots[j].quiet_since_ms = 0;
		t->names[j] = NULL;
		t->n--;
		struct slot *d = add(t, s.pid, s.start_ms, s.gpu);
		*d = s;
		t->names[d - t->slots] = name;
	}
}

bool idle_quiet(const struct idle_opts *o, const struct frame *f, const struct gpu_process *p)
{
	if (!process_has(p, PROC_F_GPU_MEM) || !isfinite((double)p->gpu_mem_bytes) ||
	    p->gpu_mem_bytes < (long double)o->mem_bytes)
		return false;
	if (process_has(p, PROC_F_GPU_UTIL) && isfinite((double)p->gpu_util_pct))
		return p->gpu_util_pct <= 0;
	if (p->gpu_index >= f->ngpus)
		return false;
	const struct gpu *g = &f->gpus[p->gpu_index];
	return gpu_has(g, GPU_F_UTIL) && isfinite((double)g->util_pct) && g->util_pct <= 0;
}

void idle_format(uint64_t ms, char *buf, size_t n)
{
	uint64_t s = ms / 1000;
	if (s < 60)
		snprintf(buf, n, "%" PRIu64 "s", s);
	else if (s < 3600)
		snprintf(buf, n, "%" PRIu64 "m", s / 60);
	else if (s < 86400)
		snprintf(buf, n, "%" PRIu64 "h%02" PRIu64 "m", s / 3600, s / 60 % 60);
	else
		snprintf(buf, n, "%" PRIu64 "d%02" PRIu64 "h", s / 86400, s / 3600 % 24);
}

/* The stable identity of each GPU of f in the run: its device id's hash
 * when known, else its position. */
static void gpu_keys(const struct frame *f, uint64_t *keys)
{
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		keys[i] = i;
		if (gpu_has(g, GPU_F_DEVICE_ID) && g->device_id) {
			uint64_t h = 1469598103934665603ull;
			for (const char *c = g->device_id; *c; c++)
				h = (h ^ (unsigned char)*c) * 1099511628211ull;
			keys[i] = h;
		}
	}
}

static struct event *add_event(struct frame *f, const char *kind, const struct gpu_process *p, uint64_t gpu_index,
			       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static struct event *add_event(struct frame *f, const char *kind, const struct gpu_process *p, uint64_t gpu_index,
			       const char *fmt, ...)
{
	char detail[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	struct event *e = frame_note(f, kind, "%s", detail);
	if (!e)
		return NULL;
	e->pid = p ? p->pid : 0;
	e->valid |= UINT64_C(1) << EVENT_F_PID;
	if (gpu_index < f->ngpus) {
		const struct gpu *g = &f->gpus[gpu_index];
		e->gpu_index = gpu_index;
		e->valid |= UINT64_C(1) << EVENT_F_GPU_INDEX;
		if (gpu_has(g, GPU_F_DEVICE_ID) && g->device_id) {
			e->device_id = frame_str(f, g->device_id);
			e->valid |= UINT64_C(1) << EVENT_F_DEVICE_ID;
		}
	}
	return e;
}

static const char *who(const struct gpu_process *p)
{
	return process_has(p, PROC_F_NAME) && p->name && *p->name ? p->name : "?";
}

/* A process that left, with its GPU's position in the frame. */
struct gone {
	struct slot s;
	uint64_t idx;
	const char *name; /* the tracker's copy, freed when its slot is dropped */
};

static int cmp_gone(const void *a, const void *b)
{
	const struct gone *x = a, *y = b;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	if (x->s.pid != y->s.pid)
		return x->s.pid < y->s.pid ? -1 : 1;
	return x->s.start_ms < y->s.start_ms ? -1 : x->s.start_ms > y->s.start_ms;
}

/* Drops the idle and active events a recording holds. */
static void drop_recorded(struct frame *f)
{
	size_t k = 0;
	for (size_t i = 0; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		bool ours = event_has(e, EVENT_F_KIND) && e->kind &&
			    (strcmp(e->kind, EVENT_IDLE) == 0 || strcmp(e->kind, EVENT_ACTIVE) == 0);
		if (!ours)
			f->events[k++] = *e;
	}
	f->nevents = k;
}

/* Tracks one process of the frame: a quiet one since when it has been
 * quiet, marked idle after --idle-after with an event; one that works
 * again says so if it was idle, and is forgotten. */
static void track(struct idle_tracker *t, struct frame *f, struct gpu_process *p, const uint64_t *keys, uint64_t now)
{
	char span[32];

	p->idle_since_ms = 0;
	if (!process_has(p, PROC_F_PID))
		return;
	uint64_t start = process_has(p, PROC_F_START) ? p->start_ms : 0;
	uint64_t gk = p->gpu_index < f->ngpus ? keys[p->gpu_index] : p->gpu_index;
	struct slot *s = find(t, p->pid, start, gk);
	if (!idle_quiet(&t->o, f, p)) {
		if (s && s->idle) {
			idle_format(now > s->quiet_since_ms ? now - s->quiet_since_ms : 0, span, sizeof(span));
			add_event(f, EVENT_ACTIVE, p, p->gpu_index, "%s works again after idle %s", who(p), span);
		}
		if (s)
			drop(t, (size_t)(s - t->slots));
		return;
	}
	if (s && !s->idle && now > s->seen_ms + IDLE_GAP_MS)
		s->quiet_since_ms = now; /* not seen quiet in between */
	if (!s) {
		if (t->n >= IDLE_MAX_TRACKED)
			return;
		s = add(t, p->pid, start, gk);
		s->quiet_since_ms = now;
	}
	s->seen_ms = now;
	s->bytes = p->gpu_mem_bytes;
	size_t at = (size_t)(s - t->slots);
	if (!t->names[at] && process_has(p, PROC_F_NAME) && p->name)
		t->names[at] = xstrdup(p->name);
	if (now - s->quiet_since_ms < t->o.after_ms)
		return;
	p->idle_since_ms = s->quiet_since_ms;
	if (!s->idle) {
		s->idle = true;
		idle_format(now - s->quiet_since_ms, span, sizeof(span));
		bool user = process_has(p, PROC_F_USER) && p->user && *p->user;
		add_event(f, EVENT_IDLE, p, p->gpu_index, "%s%s%s%s holds %.1f GiB at 0%% GPU for %s", who(p),
			  user ? " (" : "", user ? p->user : "", user ? ")" : "", (double)p->gpu_mem_bytes / 1073741824.0,
			  span);
	}
}

/* A process quiet before and not in this frame has exited, or left the
 * GPU: an idle one says so once, and each is forgotten. While its GPU is
 * not in the frame, is lost or suspended, or could not list its processes
 * in this poll, nothing is known of it, and it is kept as it is. */
static void sweep_gone(struct idle_tracker *t, struct frame *f, const uint64_t *keys, uint64_t now)
{
	char span[32];
	size_t nstale = 0;
	struct gone *stale = NULL;

	for (size_t i = 0; i < t->cap; i++) {
		struct slot *s = &t->slots[i];
		if (!s->quiet_since_ms || s->seen_ms == now)
			continue;
		uint64_t idx = UINT64_MAX;
		for (size_t g = 0; g < f->ngpus && idx == UINT64_MAX; g++)
			if (keys[g] == s->gpu)
				idx = g;
		if (idx == UINT64_MAX || gpu_procs_unknown(&f->gpus[idx]))
			continue;
		stale = xreallocarray(stale, nstale + 1, sizeof(*stale));
		stale[nstale++] = (struct gone){*s, idx, t->names[i]};
	}
	/* In the order of GPU and pid, so that a replay gives the same
	 * events in the same order every time. */
	if (nstale)
		qsort(stale, nstale, sizeof(*stale), cmp_gone);
	for (size_t i = 0; i < nstale; i++) {
		const struct slot *s = &stale[i].s;
		if (s->idle) {
			idle_format(now > s->quiet_since_ms ? now - s->quiet_since_ms : 0, span, sizeof(span));
			struct gpu_process gone = {.pid = s->pid};
			add_event(f, EVENT_ACTIVE, &gone, stale[i].idx, "%s exited after idle %s",
				  stale[i].name && *stale[i].name ? stale[i].name : "?", span);
		}
	}
	for (size_t i = 0; i < nstale; i++) {
		struct slot *s = find(t, stale[i].s.pid, stale[i].s.start_ms, stale[i].s.gpu);
		if (s)
			drop(t, (size_t)(s - t->slots));
	}
	free(stale);
}

void idle_update(struct idle_tracker *t, struct frame *f)
{
	drop_recorded(f);
	if (!frame_has(f, FRAME_F_TS) || !f->ts_ms)
		return;
	uint64_t keys[FRAME_MAX_GPUS];
	gpu_keys(f, keys);
	for (size_t i = 0; i < f->nprocs; i++)
		track(t, f, &f->procs[i], keys, f->ts_ms);
	sweep_gone(t, f, keys, f->ts_ms);
}
