/* composite: stable positions and re-indexing across live children. */
#include "backend/composite.h"

#include <string.h>

#include "util/buf.h"
#include "util/xalloc.h"

struct slot {
	size_t child;
	struct gpu ident;  /* identity and static fields at first sight */
	struct arena strs; /* ident's strings */
	unsigned state;    /* last published state */
};

struct composite {
	struct slot *slots;
	size_t nslots, cap;
};

struct composite *composite_new(void)
{
	return xcalloc(1, sizeof(struct composite));
}

void composite_free(struct composite *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nslots; i++)
		arena_fini(&c->slots[i].strs);
	free(c->slots);
	free(c);
}

static size_t slot_find(struct composite *s, size_t backend, const struct gpu *g)
{
	const char *id = gpu_has(g, GPU_F_DEVICE_ID) ? g->device_id : "";

	for (size_t i = 0; i < s->nslots; i++)
		if (s->slots[i].child == backend && strcmp(s->slots[i].ident.device_id, id) == 0)
			return i;
	if (s->nslots >= FRAME_MAX_GPUS)
		return SIZE_MAX;
	if (s->nslots == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->slots = xreallocarray(s->slots, s->cap, sizeof(*s->slots));
	}
	struct slot *sl = &s->slots[s->nslots];
	sl->child = backend;
	arena_init(&sl->strs);
	sl->ident = *g;
	gpu_drop_readings(&sl->ident);
	if (!gpu_has(g, GPU_F_DEVICE_ID)) {
		sl->ident.device_id = "";
		gpu_set(&sl->ident, GPU_F_DEVICE_ID);
	}
	field_dup_strings(&sl->ident, GPU_FIELDS, GPU_NFIELDS, &sl->strs);
	sl->state = gpu_state(g);
	return s->nslots++;
}

static void gpu_event(struct frame *out, const char *kind, size_t idx, const char *child)
{
	struct event *e = frame_backend_event(out, kind, child);

	if (!e)
		return;
	e->gpu_index = idx;
	e->device_id = out->gpus[idx].device_id;
	e->valid |= UINT64_C(1) << EVENT_F_GPU_INDEX | UINT64_C(1) << EVENT_F_DEVICE_ID;
}

static void compose_child(struct composite *s, size_t bi, const struct composite_child *kid, struct frame *out,
			  bool *placed)
{
	struct frame *src = kid->last;
	enum composite_mode mode = kid->mode;
	size_t map[FRAME_MAX_GPUS];

	/* The child's frame is read-only once polled, so out holds a reference
	 * to it and points into its strings and parents, which saves copying
	 * every string of every row on every poll. */
	if (mode != COMPOSITE_LOST)
		frame_pin(out, src);
	if (mode != COMPOSITE_LOST && src) {
		for (size_t g = 0; g < src->ngpus; g++) {
			size_t at = map[g] = slot_find(s, bi, &src->gpus[g]);
			if (at == SIZE_MAX)
				continue;
			while (out->ngpus <= at)
				frame_add_gpu(out);
			struct gpu *dst = &out->gpus[at];
			*dst = src->gpus[g]; /* its strings are src's, pinned */
			if (mode == COMPOSITE_IDENT)
				gpu_drop_readings(dst);
			placed[at] = true;
		}
	}
	if (mode == COMPOSITE_FULL || mode == COMPOSITE_REUSE) {
		for (size_t p = 0; src && p < src->nprocs; p++) {
			const struct gpu_process *row = &src->procs[p];
			if (row->gpu_index >= src->ngpus || map[row->gpu_index] == SIZE_MAX)
				continue; /* the stray-row rule */
			struct gpu_process *dst = frame_add_process(out);
			if (!dst)
				break;
			*dst = *row;
			dst->gpu_index = map[row->gpu_index];
		}
	}
	if (mode == COMPOSITE_FULL) {
		for (size_t e = 0; src && e < src->nevents; e++) {
			const struct event *ev = &src->events[e];
			if (event_has(ev, EVENT_F_GPU_INDEX) &&
			    (ev->gpu_index >= src->ngpus || map[ev->gpu_index] == SIZE_MAX))
				continue;
			struct event *dst = frame_add_event(out);
			if (!dst)
				break;
			*dst = *ev;
			if (event_has(ev, EVENT_F_GPU_INDEX))
				dst->gpu_index = map[ev->gpu_index];
		}
	}
}

void composite_compose(struct composite *c, const struct composite_child *kids, size_t n, struct frame *out)
{
	bool placed[FRAME_MAX_GPUS] = {false};
	struct buf names, drivers, line;

	for (size_t i = 0; i < n; i++)
		compose_child(c, i, &kids[i], out, placed);
	while (out->ngpus < c->nslots)
		frame_add_gpu(out);
	/* Devices that are not in their child's answer, because the child was
	 * lost or they were gone after re-detection, keep their position as
	 * lost, with their identity only. */
	for (size_t i = 0; i < c->nslots; i++) {
		struct slot *sl = &c->slots[i];
		struct gpu *g = &out->gpus[i];
		if (!placed[i]) {
			frame_copy_gpu(out, g, &sl->ident);
			g->state = GPU_STATE_LOST;
			gpu_set(g, GPU_F_STATE);
		}
		unsigned st = gpu_state(g);
		if (st == GPU_STATE_LOST && sl->state != GPU_STATE_LOST)
			gpu_event(out, EVENT_GPU_LOST, i, kids[sl->child].name);
		else if (st == GPU_STATE_OK && sl->state == GPU_STATE_LOST)
			gpu_event(out, EVENT_GPU_BACK, i, kids[sl->child].name);
		if (st != GPU_STATE__COUNT)
			sl->state = st;
	}

	buf_init(&names);
	buf_init(&drivers);
	buf_init(&line);
	for (size_t i = 0; i < n; i++) {
		const struct frame *last = kids[i].last;
		const char *drv = last && frame_has(last, FRAME_F_DRIVER) ? last->driver : "?";
		if (i) {
			buf_putc(&names, '+');
			buf_putc(&drivers, '+');
			buf_puts(&line, " + ");
		}
		buf_puts(&names, kids[i].name);
		buf_puts(&drivers, drv);
		/* The header's "nvml 550.54.15 + amdgpu 6.8.0 + xe 6.12". */
		buf_puts(&line, last && last->driver_label ? last->driver_label : kids[i].name);
		buf_putc(&line, ' ');
		buf_puts(&line, drv);
		if (!out->cuda && last && last->cuda)
			out->cuda = frame_str(out, last->cuda);
	}
	out->backend = frame_strn(out, buf_cstr(&names), names.len);
	out->driver = frame_strn(out, buf_cstr(&drivers), drivers.len);
	frame_set(out, FRAME_F_BACKEND);
	frame_set(out, FRAME_F_DRIVER);
	if (n > 1)
		out->driver_line = frame_strn(out, buf_cstr(&line), line.len);
	buf_fini(&names);
	buf_fini(&drivers);
	buf_fini(&line);
}
