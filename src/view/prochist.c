/* prochist: one entry per (pid, start) with a lazily grown ring of floats per
 * metric. Each push marks and sweeps, freeing an entry not marked for
 * PROCHIST_FORGET pushes, and an open-addressing index is rebuilt after each
 * sweep. */
#include "view/prochist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define INDEX_SIZE (2 * PROCHIST_MAX_PROCS)
#define NO_START UINT64_MAX /* the key of a process whose start is unknown */

struct prochist_proc {
	uint64_t pid, start;
	float *ring;          /* PROCHIST__COUNT rows of alloc samples */
	size_t alloc, len, head; /* head is the oldest sample once the ring is full */
	uint64_t seen;        /* the last push that had it */
	/* This push's sample, summed over the process's rows. */
	double acc[PROCHIST__COUNT];
	bool known[PROCHIST__COUNT];
};

struct prochist {
	size_t cap;
	uint64_t pushes;
	struct prochist_proc procs[PROCHIST_MAX_PROCS];
	size_t nprocs;
	uint16_t index[INDEX_SIZE]; /* slot + 1, or 0 when empty */
};

struct prochist *prochist_new(size_t capacity)
{
	struct prochist *h = xcalloc(1, sizeof(*h));

	h->cap = capacity < 1 ? 1 : capacity > PROCHIST_MAX_CAPACITY ? PROCHIST_MAX_CAPACITY : capacity;
	return h;
}

void prochist_free(struct prochist *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nprocs; i++)
		free(h->procs[i].ring);
	free(h);
}

size_t prochist_count(const struct prochist *h)
{
	return h->nprocs;
}

static size_t hash_key(uint64_t pid, uint64_t start)
{
	uint64_t x = pid * 0x9E3779B97F4A7C15u ^ start * 0xC2B2AE3D27D4EB4Fu;
	return (size_t)(x ^ x >> 29) & (INDEX_SIZE - 1);
}

static long find(const struct prochist *h, uint64_t pid, uint64_t start)
{
	for (size_t i = hash_key(pid, start);; i = (i + 1) & (INDEX_SIZE - 1)) {
		unsigned v = h->index[i];
		if (!v)
			return -1;
		if (h->procs[v - 1].pid == pid && h->procs[v - 1].start == start)
			return (long)v - 1;
	}
}

static void index_add(struct prochist *h, size_t slot)
{
	size_t i = hash_key(h->procs[slot].pid, h->procs[slot].start);

	while (h->index[i])
		i = (i + 1) & (INDEX_SIZE - 1);
	h->index[i] = (uint16_t)(slot + 1);
}

static void index_rebuild(struct prochist *h)
{
	memset(h->index, 0, sizeof(h->index));
	for (size_t i = 0; i < h->nprocs; i++)
		index_add(h, i);
}

/* Appends one sample of every metric, with NAN for unknown, growing the ring
 * up to the capacity and then overwriting the oldest. */
static void append(const struct prochist *h, struct prochist_proc *p, const float *v)
{
	if (p->len == p->alloc && p->alloc < h->cap) {
		size_t na = p->alloc ? p->alloc * 2 : 16;
		na = na > h->cap ? h->cap : na;
		float *nr = xreallocarray(NULL, na * PROCHIST__COUNT, sizeof(*nr));
		/* The ring is still linear while it grows, so the oldest sample is at
		 * 0. */
		for (int m = 0; m < PROCHIST__COUNT; m++)
			if (p->len)
				memcpy(nr + (size_t)m * na, p->ring + (size_t)m * p->alloc, p->len * sizeof(*nr));
		free(p->ring);
		p->ring = nr;
		p->alloc = na;
	}
	size_t at = p->len < p->alloc ? p->len : p->head;
	for (int m = 0; m < PROCHIST__COUNT; m++)
		p->ring[(size_t)m * p->alloc + at] = v[m];
	if (p->len < p->alloc)
		p->len++;
	else
		p->head = (p->head + 1) % p->alloc;
}

/* A slot for a new process: a free one, else the one longest absent and not
 * in this push, or -1 when every tracked process is in this frame. */
static long new_slot(struct prochist *h)
{
	if (h->nprocs < PROCHIST_MAX_PROCS)
		return (long)h->nprocs++;
	long best = -1;
	for (size_t i = 0; i < h->nprocs; i++)
		if (h->procs[i].seen < h->pushes && (best < 0 || h->procs[i].seen < h->procs[best].seen))
			best = (long)i;
	if (best >= 0) {
		free(h->procs[best].ring);
		index_rebuild(h); /* its old key must not be found */
	}
	return best;
}

static void take_row(struct prochist *h, const struct gpu_process *r)
{
	uint64_t start = process_has(r, PROC_F_START) && r->start_ms != NO_START ? r->start_ms : NO_START;
	long s = find(h, r->pid, start);
	struct prochist_proc *p;

	if (s < 0) {
		if ((s = new_slot(h)) < 0)
			return;
		p = &h->procs[s];
		memset(p, 0, sizeof(*p));
		p->pid = r->pid;
		p->start = start;
		p->seen = 0;
		index_rebuild(h);
	}
	p = &h->procs[s];
	if (p->seen != h->pushes) {
		/* The first row of this process in this push. */
		if (p->seen && h->pushes - p->seen > 1) {
			static const float gap[PROCHIST__COUNT] = {NAN, NAN, NAN};
			uint64_t missed = h->pushes - p->seen - 1;
			for (uint64_t k = 0; k < missed && k < h->cap; k++)
				append(h, p, gap);
		}
		p->seen = h->pushes;
		p->acc[PROCHIST_GPU_MEM] = p->acc[PROCHIST_GPU_UTIL] = 0;
		p->known[PROCHIST_GPU_MEM] = p->known[PROCHIST_GPU_UTIL] = true;
		p->known[PROCHIST_CPU] = false;
	}
	if (process_has(r, PROC_F_GPU_MEM) && isfinite((double)r->gpu_mem_bytes))
		p->acc[PROCHIST_GPU_MEM] += (double)r->gpu_mem_bytes;
	else
		p->known[PROCHIST_GPU_MEM] = false;
	if (process_has(r, PROC_F_GPU_UTIL) && isfinite((double)r->gpu_util_pct))
		p->acc[PROCHIST_GPU_UTIL] += (double)r->gpu_util_pct;
	else
		p->known[PROCHIST_GPU_UTIL] = false;
	if (!p->known[PROCHIST_CPU] && process_has(r, PROC_F_CPU) && isfinite((double)r->cpu_pct)) {
		p->acc[PROCHIST_CPU] = (double)r->cpu_pct;
		p->known[PROCHIST_CPU] = true;
	}
}

void prochist_push(struct prochist *h, const struct frame *f)
{
	h->pushes++;
	for (size_t i = 0; f && i < f->nprocs; i++)
		if (process_has(&f->procs[i], PROC_F_PID))
			take_row(h, &f->procs[i]);
	/* Sweep: sample what was seen, and forget what has been gone too long. */
	size_t n = 0;
	for (size_t i = 0; i < h->nprocs; i++) {
		struct prochist_proc *p = &h->procs[i];
		if (p->seen == h->pushes) {
			float v[PROCHIST__COUNT];
			for (int m = 0; m < PROCHIST__COUNT; m++)
				v[m] = p->known[m] ? (float)p->acc[m] : NAN;
			append(h, p, v);
		} else if (h->pushes - p->seen >= PROCHIST_FORGET) {
			free(p->ring);
			continue;
		}
		if (n != i)
			h->procs[n] = *p;
		n++;
	}
	if (n != h->nprocs) {
		h->nprocs = n;
		index_rebuild(h);
	}
}

size_t prochist_get(const struct prochist *h, uint64_t pid, bool start_known, uint64_t start_ms,
		    enum prochist_metric m, double *out, size_t n)
{
	if ((unsigned)m >= PROCHIST__COUNT)
		return 0;
	long s = find(h, pid, start_known && start_ms != NO_START ? start_ms : NO_START);
	if (s < 0)
		return 0;
	const struct prochist_proc *p = &h->procs[s];
	size_t k = n < p->len ? n : p->len;
	size_t oldest = p->len < p->alloc ? 0 : p->head;
	for (size_t i = 0; i < k; i++)
		out[i] = p->ring[(size_t)m * p->alloc + (oldest + p->len - k + i) % p->alloc];
	return k;
}
