/* seen: the last ok readings per device_id. */
#include "model/seen.h"

#include <string.h>

#include "util/xalloc.h"

#define SEEN_ID_MAX 128

struct seen_entry {
	char id[SEEN_ID_MAX];
	struct gpu_seen s;
};

void seen_init(struct seen *s)
{
	memset(s, 0, sizeof(*s));
}

void seen_fini(struct seen *s)
{
	free(s->v);
	seen_init(s);
}

void seen_clear(struct seen *s)
{
	s->n = 0;
}

/* The entry of id; positions are stable, so entry i is tried first. */
static struct seen_entry *find(const struct seen *s, size_t hint, const char *id)
{
	if (hint < s->n && strcmp(s->v[hint].id, id) == 0)
		return &s->v[hint];
	for (size_t k = 0; k < s->n; k++)
		if (strcmp(s->v[k].id, id) == 0)
			return &s->v[k];
	return NULL;
}

void seen_update(struct seen *s, const struct frame *f)
{
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (!gpu_has(g, GPU_F_DEVICE_ID) || strlen(g->device_id) >= SEEN_ID_MAX)
			continue;
		if (gpu_state(g) != GPU_STATE_OK) {
			struct seen_entry *e = gpu_is_unread(g) ? find(s, i, g->device_id) : NULL;
			if (e && !e->s.gone_ms && frame_has(f, FRAME_F_TS))
				e->s.gone_ms = f->ts_ms;
			continue;
		}
		struct seen_entry *e = find(s, i, g->device_id);
		if (!e) {
			if (s->n >= FRAME_MAX_GPUS)
				continue;
			if (s->n == s->cap) {
				s->cap = s->cap ? s->cap * 2 : 8;
				s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
			}
			e = &s->v[s->n++];
			memcpy(e->id, g->device_id, strlen(g->device_id) + 1);
		}
		e->s.g = *g;
		/* Strings belong to f's arena, so the entry keeps numbers only. */
		e->s.g.name = e->s.g.device_id = e->s.g.parent_device_id = e->s.g.vendor = e->s.g.pci_bus_id = NULL;
		e->s.ts_ms = frame_has(f, FRAME_F_TS) ? f->ts_ms : 0;
		e->s.gone_ms = 0;
		e->s.seen = true;
	}
}

void seen_attach(const struct seen *s, struct frame *f)
{
	struct gpu_seen *out = NULL;

	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (!gpu_is_unread(g) || !gpu_has(g, GPU_F_DEVICE_ID))
			continue;
		const struct seen_entry *e = find(s, i, g->device_id);
		if (!e)
			continue;
		if (!out) {
			out = arena_alloc(&f->arena, f->ngpus * sizeof(*out));
			memset(out, 0, f->ngpus * sizeof(*out));
		}
		out[i] = e->s;
	}
	f->seen = out;
}
