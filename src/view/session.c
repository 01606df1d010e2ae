/* session: one slot per GPU with a count, sum and peak per metric, found
 * through an open-addressing index on device_id. */
#include "view/session.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Twice as many index entries as slots, a power of two, so that probes stay
 * short. */
#define INDEX_SIZE (2 * SESSION_MAX_GPUS)

struct session_acc {
	uint64_t n;
	long double sum, peak;
};

struct session_gpu {
	char *id;
	uint64_t seen; /* the last push whose frame had this GPU */
	struct session_acc acc[SESSION__COUNT];
};

struct session {
	size_t max;
	uint64_t pushes, frames;
	bool ts_known;
	uint64_t first_ms, last_ms;
	struct session_gpu *gpus;
	size_t ngpus, gpus_cap;
	uint16_t index[INDEX_SIZE]; /* slot + 1, or 0 when empty */
};

struct session *session_new(size_t max_gpus)
{
	struct session *s = xcalloc(1, sizeof(*s));

	s->max = max_gpus < 1 ? 1 : max_gpus > SESSION_MAX_GPUS ? SESSION_MAX_GPUS : max_gpus;
	return s;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ngpus; i++)
		free(s->gpus[i].id);
	free(s->gpus);
	free(s);
}

void session_reset(struct session *s)
{
	for (size_t i = 0; i < s->ngpus; i++)
		free(s->gpus[i].id);
	s->ngpus = 0;
	s->frames = 0;
	s->ts_known = false;
	s->first_ms = s->last_ms = 0;
	memset(s->index, 0, sizeof(s->index));
}

static size_t hash_id(const char *id)
{
	uint32_t x = 2166136261u; /* FNV-1a */

	for (; *id; id++)
		x = (x ^ (unsigned char)*id) * 16777619u;
	return x & (INDEX_SIZE - 1);
}

/* The slot of id, or -1. */
static long find_gpu(const struct session *s, const char *id)
{
	for (size_t i = hash_id(id);; i = (i + 1) & (INDEX_SIZE - 1)) {
		unsigned v = s->index[i];
		if (!v)
			return -1;
		if (strcmp(s->gpus[v - 1].id, id) == 0)
			return (long)v - 1;
	}
}

static void index_insert(struct session *s, size_t slot)
{
	size_t i = hash_id(s->gpus[slot].id);

	while (s->index[i])
		i = (i + 1) & (INDEX_SIZE - 1);
	s->index[i] = (uint16_t)(slot + 1);
}

/* A slot for id with no figures. It is a new one, or, when max GPUs are
 * tracked, the one seen longest ago, emptied. */
static size_t add_gpu(struct session *s, const char *id)
{
	size_t slot = 0;
	bool evict = s->ngpus == s->max;

	if (evict) {
		for (size_t i = 1; i < s->ngpus; i++)
			if (s->gpus[i].seen < s->gpus[slot].seen)
				slot = i;
		free(s->gpus[slot].id);
	} else {
		if (s->ngpus == s->gpus_cap) {
			s->gpus_cap = s->gpus_cap ? 2 * s->gpus_cap : 8;
			if (s->gpus_cap > s->max)
				s->gpus_cap = s->max;
			s->gpus = xreallocarray(s->gpus, s->gpus_cap, sizeof(*s->gpus));
		}
		slot = s->ngpus++;
	}
	memset(&s->gpus[slot], 0, sizeof(s->gpus[slot]));
	s->gpus[slot].id = xstrdup(id);
	if (!evict) {
		index_insert(s, slot);
		return slot;
	}
	/* The evicted GPU's id is still in the index, which has no removal
	 * under open addressing, so index every slot anew; this is rare. */
	memset(s->index, 0, sizeof(s->index));
	for (size_t i = 0; i < s->ngpus; i++)
		index_insert(s, i);
	return slot;
}

static void add_value(struct session_acc *a, long double v)
{
	if (!isfinite((double)v))
		return;
	if (!a->n || v > a->peak)
		a->peak = v;
	a->sum += v;
	a->n++;
}

void session_push(struct session *s, const struct frame *f)
{
	s->pushes++;
	s->frames++;
	if (frame_has(f, FRAME_F_TS)) {
		if (!s->ts_known)
			s->first_ms = f->ts_ms;
		s->last_ms = f->ts_ms;
		s->ts_known = true;
	}
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (!gpu_has(g, GPU_F_DEVICE_ID) || !g->device_id || !*g->device_id)
			continue;
		long slot = find_gpu(s, g->device_id);
		if (slot < 0)
			slot = (long)add_gpu(s, g->device_id);
		struct session_gpu *sg = &s->gpus[slot];
		if (sg->seen == s->pushes)
			continue; /* of the same id twice in one frame, the first wins */
		sg->seen = s->pushes;
		if (gpu_is_unread(g))
			continue;
		if (gpu_has(g, GPU_F_UTIL))
			add_value(&sg->acc[SESSION_UTIL], g->util_pct);
		if (gpu_has(g, GPU_F_TEMP))
			add_value(&sg->acc[SESSION_TEMP], g->temp_c);
		if (gpu_has(g, GPU_F_POWER))
			add_value(&sg->acc[SESSION_POWER], g->power_w);
	}
}

bool session_get(const struct session *s, const char *device_id, enum session_metric m, struct session_stat *out)
{
	memset(out, 0, sizeof(*out));
	if (!device_id || (unsigned)m >= SESSION__COUNT)
		return false;
	long slot = find_gpu(s, device_id);
	if (slot < 0)
		return false;
	const struct session_acc *a = &s->gpus[slot].acc[m];
	out->n = a->n;
	if (a->n) {
		out->peak = (double)a->peak;
		out->mean = (double)(a->sum / (long double)a->n);
	}
	return true;
}

size_t session_gpus(const struct session *s)
{
	return s->ngpus;
}

uint64_t session_frames(const struct session *s)
{
	return s->frames;
}

bool session_span_ms(const struct session *s, uint64_t *ms)
{
	*ms = s->ts_known && s->last_ms > s->first_ms ? s->last_ms - s->first_ms : 0;
	return s->ts_known;
}
