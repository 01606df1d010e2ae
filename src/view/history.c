/* history: one ring of bytes per GPU holding every metric. All rings share
 * one write position, since every push writes one sample to every GPU. */
#include "view/history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* An open-addressing index from device_id to slot, with twice as many
 * entries as slots so that probes stay short. */
#define INDEX_SIZE (2 * HISTORY_MAX_GPUS)

struct history_gpu {
	char *id;
	uint8_t *ring;  /* HISTORY__COUNT rows of cap samples, each stored plus one (0 is unknown) */
	uint64_t seen;  /* the last push whose frame had this GPU */
	uint64_t stamp; /* the last push that wrote a sample of its own */
};

struct history {
	size_t cap, len, head; /* head is where the next sample goes */
	uint64_t pushes;
	struct history_gpu *gpus;
	size_t ngpus, gpus_cap;
	uint16_t index[INDEX_SIZE]; /* slot + 1, or 0 when empty */
};

static size_t clamp_capacity(size_t capacity)
{
	if (capacity < 1)
		return 1;
	return capacity > HISTORY_MAX_CAPACITY ? HISTORY_MAX_CAPACITY : capacity;
}

struct history *history_new(size_t capacity)
{
	struct history *h = xcalloc(1, sizeof(*h));

	h->cap = clamp_capacity(capacity);
	return h;
}

void history_free(struct history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->ngpus; i++) {
		free(h->gpus[i].id);
		xunmap(h->gpus[i].ring, HISTORY__COUNT * h->cap);
	}
	free(h->gpus);
	free(h);
}

static size_t hash_id(const char *s)
{
	uint32_t x = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		x = (x ^ (unsigned char)*s) * 16777619u;
	return x & (INDEX_SIZE - 1);
}

/* The slot of id, or -1. */
static long find_gpu(const struct history *h, const char *id)
{
	for (size_t i = hash_id(id);; i = (i + 1) & (INDEX_SIZE - 1)) {
		unsigned v = h->index[i];
		if (!v)
			return -1;
		if (strcmp(h->gpus[v - 1].id, id) == 0)
			return (long)v - 1;
	}
}

static void index_insert(struct history *h, size_t slot)
{
	size_t i = hash_id(h->gpus[slot].id);

	while (h->index[i])
		i = (i + 1) & (INDEX_SIZE - 1);
	h->index[i] = (uint16_t)(slot + 1);
}

static void index_rebuild(struct history *h)
{
	memset(h->index, 0, sizeof(h->index));
	for (size_t i = 0; i < h->ngpus; i++)
		index_insert(h, i);
}

/* A new slot for id, whose past samples all read unknown. */
static size_t add_gpu(struct history *h, const char *id)
{
	if (h->ngpus == h->gpus_cap) {
		h->gpus_cap = h->gpus_cap ? 2 * h->gpus_cap : 8;
		h->gpus = xreallocarray(h->gpus, h->gpus_cap, sizeof(*h->gpus));
	}
	struct history_gpu *g = &h->gpus[h->ngpus];
	g->id = xstrdup(id);
	/* Zeroed memory reads unknown, and the pages of an hour's ring at a fast
	 * interval stay untouched, and out of the resident set, until they are
	 * written. */
	g->ring = xmap_zeroed(HISTORY__COUNT * h->cap);
	g->seen = g->stamp = 0;
	index_insert(h, h->ngpus);
	return h->ngpus++;
}

/* The ring stores a sample plus one, so that 0, what calloc gives, is
 * unknown. */
static uint8_t stored(uint8_t sample)
{
	return sample == HISTORY_UNKNOWN ? 0 : (uint8_t)(sample + 1);
}

/* v rounded and clamped to 0..254, or unknown when it is not finite. */
static uint8_t to_sample(double v)
{
	if (!isfinite(v))
		return HISTORY_UNKNOWN;
	if (v <= 0)
		return 0;
	if (v >= 254)
		return 254;
	return (uint8_t)floor(v + 0.5);
}

static void sample_gpu(const struct gpu *g, uint8_t out[HISTORY__COUNT])
{
	memset(out, HISTORY_UNKNOWN, HISTORY__COUNT);
	if (gpu_is_unread(g))
		return;
	if (gpu_has(g, GPU_F_UTIL))
		out[HISTORY_UTIL] = to_sample(g->util_pct);
	if (gpu_has(g, GPU_F_MEM_USED) && gpu_has(g, GPU_F_MEM_TOTAL) && g->mem_total_bytes > 0)
		out[HISTORY_MEM] = to_sample((double)g->mem_used_bytes * 100 / (double)g->mem_total_bytes);
	if (gpu_has(g, GPU_F_TEMP))
		out[HISTORY_TEMP] = to_sample(g->temp_c); /* 41.5 C is 42, not 41 */
	if (gpu_has(g, GPU_F_POWER) && gpu_has(g, GPU_F_POWER_LIMIT) && g->power_limit_w > 0)
		out[HISTORY_POWER] = to_sample(g->power_w * 100 / g->power_limit_w);
	if (gpu_has(g, GPU_F_SM_ACTIVE))
		out[HISTORY_SM] = to_sample(g->act.sm_pct);
	if (gpu_has(g, GPU_F_TENSOR_ACTIVE))
		out[HISTORY_TENSOR] = to_sample(g->act.tensor_pct);
}

void history_push(struct history *h, const struct frame *f)
{
	size_t pos = h->head, kept = 0;
	uint8_t v[HISTORY__COUNT];

	h->pushes++;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (!gpu_has(g, GPU_F_DEVICE_ID) || !g->device_id || !*g->device_id)
			continue;
		long slot = find_gpu(h, g->device_id);
		if (slot < 0) {
			if (h->ngpus == HISTORY_MAX_GPUS)
				continue;
			slot = (long)add_gpu(h, g->device_id);
		}
		struct history_gpu *s = &h->gpus[slot];
		if (s->stamp == h->pushes)
			continue; /* of the same id twice in one frame, the first wins */
		sample_gpu(g, v);
		for (int m = 0; m < HISTORY__COUNT; m++)
			s->ring[(size_t)m * h->cap + pos] = stored(v[m]);
		s->stamp = s->seen = h->pushes;
	}
	for (size_t i = 0; i < h->ngpus; i++) {
		struct history_gpu *s = &h->gpus[i];
		if (s->stamp != h->pushes) {
			for (int m = 0; m < HISTORY__COUNT; m++)
				s->ring[(size_t)m * h->cap + pos] = 0;
		}
		if (h->pushes - s->seen >= h->cap) {
			/* Absent for every sample held, so there is nothing left to chart. */
			free(s->id);
			xunmap(s->ring, HISTORY__COUNT * h->cap);
			continue;
		}
		h->gpus[kept++] = *s;
	}
	if (kept != h->ngpus) {
		h->ngpus = kept;
		index_rebuild(h);
	}
	h->head = (pos + 1) % h->cap;
	if (h->len < h->cap)
		h->len++;
}

size_t history_len(const struct history *h)
{
	return h->len;
}

/* Copies the last count samples of one ring row to out, oldest first. The
 * row holds cap samples, and the next write goes at head. */
static void ring_tail(const uint8_t *row, size_t cap, size_t head, size_t count, uint8_t *out)
{
	if (count == 0)
		return; /* out may be NULL */
	size_t start = (head + cap - count) % cap;
	size_t first = cap - start < count ? cap - start : count;

	memcpy(out, row + start, first);
	memcpy(out + first, row, count - first);
}

size_t history_get(const struct history *h, const char *device_id, enum history_metric m,
		   uint8_t *out, size_t n)
{
	if (!device_id || (unsigned)m >= HISTORY__COUNT)
		return 0;
	long slot = find_gpu(h, device_id);
	if (slot < 0)
		return 0;
	size_t count = n < h->len ? n : h->len;
	ring_tail(h->gpus[slot].ring + (size_t)m * h->cap, h->cap, h->head, count, out);
	for (size_t i = 0; i < count; i++)
		out[i] = out[i] ? (uint8_t)(out[i] - 1) : HISTORY_UNKNOWN;
	return count;
}

void history_set_capacity(struct history *h, size_t capacity)
{
	size_t cap = clamp_capacity(capacity);
	size_t keep = h->len < cap ? h->len : cap;

	if (cap == h->cap)
		return;
	for (size_t i = 0; i < h->ngpus; i++) {
		uint8_t *ring = xmap_zeroed(HISTORY__COUNT * cap);
		for (size_t m = 0; m < HISTORY__COUNT; m++)
			ring_tail(h->gpus[i].ring + m * h->cap, h->cap, h->head, keep, ring + m * cap);
		xunmap(h->gpus[i].ring, HISTORY__COUNT * h->cap);
		h->gpus[i].ring = ring;
	}
	h->cap = cap;
	h->len = keep;
	h->head = keep % cap;
}

const char *history_metric_name(enum history_metric m)
{
	static const char *const names[HISTORY__COUNT] = {
		[HISTORY_UTIL] = "util", [HISTORY_MEM] = "mem", [HISTORY_TEMP] = "temp", [HISTORY_POWER] = "power",
		[HISTORY_SM] = "sm", [HISTORY_TENSOR] = "tensor",
	};

	return (unsigned)m < HISTORY__COUNT ? names[m] : "?";
}
