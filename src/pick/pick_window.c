/* pick_window: GPU by GPU, the worst readings of the last --stable and the
 * last time each reason to refuse a GPU held, so that a verdict needs no
 * more than one pass over the GPUs. The least free memory and the highest
 * utilisation of the window are kept in monotonic queues: each holds only
 * the samples that may still become the window's extreme, so it stays
 * short unless the readings keep improving. */
#include "pick/pick_window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* The reasons whose last time is kept, beside the readings. */
enum cause { C_LOST, C_UNREAD, C_ABSENT, C_MEM_UNKNOWN, C_UTIL_UNKNOWN, C_OTHER, C_PROCS_UNKNOWN, C__COUNT };

struct mono_e {
	uint64_t ts;
	double v;
};

/* A ring of samples whose values fall (a maximum's queue) or rise (a
 * minimum's) from front to back, so the front is the window's extreme. */
struct mono {
	struct mono_e *e;
	size_t head, n, cap;
	bool max;
};

struct dev {
	char *key;         /* the host, a newline and the id: unique in the window */
	char *host, *id;   /* host is NULL on this machine; id is NULL when the GPU has none */
	uint64_t first_ts, last_ts;
	uint64_t bad[C__COUNT];
	unsigned bad_set;  /* bit (1 << cause) when bad[cause] holds a time */
	struct mono free_min, util_max;
	char *user;        /* the other user last seen on it, NULL when unknown */
	/* The latest poll. */
	bool seen;
	size_t position, order;
	long index;
	bool instance, lost_now, unread_now, other_now, procs_unknown_now;
	bool total_known, free_known_now, util_known_now;
	double total, free_now, util_now;
};

struct pick_window {
	const struct pick_opts *o;
	char *me, *uid;
	bool partial, any;
	uint64_t stable, start_ts, now;
	struct dev **dev;
	size_t ndev, cap, hint;
	size_t order;             /* candidates of the latest poll so far */
	struct dev **at;          /* a frame's candidates by position, NULL for the others */
	size_t at_cap;
	struct pick_candidate *cand;
	size_t cand_cap;
	/* The times of the window's polls, oldest first: a ring. */
	uint64_t *polls;
	size_t phead, npolls, pcap;
};

static void mono_push(struct mono *m, uint64_t ts, double v)
{
	while (m->n) {
		const struct mono_e *back = &m->e[(m->head + m->n - 1) % m->cap];
		if (m->max ? back->v > v : back->v < v)
			break;
		m->n--;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 8;
		struct mono_e *e = xreallocarray(NULL, cap, sizeof(*e));
		for (size_t i = 0; i < m->n; i++)
			e[i] = m->e[(m->head + i) % m->cap];
		free(m->e);
		m->e = e;
		m->cap = cap;
		m->head = 0;
	}
	m->e[(m->head + m->n) % m->cap] = (struct mono_e){ts, v};
	m->n++;
}

/* Drops the samples taken before lo. */
static void mono_expire(struct mono *m, uint64_t lo)
{
	while (m->n && m->e[m->head].ts < lo) {
		m->head = (m->head + 1) % m->cap;
		m->n--;
	}
}

static void dev_free(struct dev *d)
{
	if (!d)
		return;
	free(d->key);
	free(d->host);
	free(d->id);
	free(d->user);
	free(d->free_min.e);
	free(d->util_max.e);
	free(d);
}

struct pick_window *pick_window_new(const struct pick_opts *o, const char *me, const char *uid, bool partial)
{
	struct pick_window *w = xcalloc(1, sizeof(*w));

	w->o = o;
	w->me = xstrdup(me);
	w->uid = xstrdup(uid);
	w->partial = partial;
	w->stable = pick_stable_ms(o);
	return w;
}

void pick_window_free(struct pick_window *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->ndev; i++)
		dev_free(w->dev[i]);
	free(w->dev);
	free(w->at);
	free(w->cand);
	free(w->polls);
	free(w->me);
	free(w->uid);
	free(w);
}

/* The first time that is still in the window: its first poll's. */
static uint64_t window_lo(const struct pick_window *w)
{
	return w->npolls ? w->polls[w->phead] : w->now;
}

/* The time whose state the window must hold from: stable before the
 * latest poll. */
static uint64_t window_cut(const struct pick_window *w)
{
	return w->now > w->stable ? w->now - w->stable : 0;
}

/* Adds the latest poll's time and lets go of the polls before the last one
 * at or before the cut, whose readings no longer stand in the window. */
static void add_poll(struct pick_window *w, uint64_t ts)
{
	if (w->npolls == w->pcap) {
		size_t cap = w->pcap ? 2 * w->pcap : 16;
		uint64_t *p = xreallocarray(NULL, cap, sizeof(*p));
		for (size_t i = 0; i < w->npolls; i++)
			p[i] = w->polls[(w->phead + i) % w->pcap];
		free(w->polls);
		w->polls = p;
		w->pcap = cap;
		w->phead = 0;
	}
	w->polls[(w->phead + w->npolls) % w->pcap] = ts;
	w->npolls++;
	uint64_t cut = window_cut(w);
	while (w->npolls > 1 && w->polls[(w->phead + 1) % w->pcap] <= cut) {
		w->phead = (w->phead + 1) % w->pcap;
		w->npolls--;
	}
}

static bool in_window(const struct dev *d, enum cause c, uint64_t lo)
{
	return (d->bad_set >> c & 1u) && d->bad[c] >= lo;
}

static void mark(struct dev *d, enum cause c, uint64_t ts)
{
	d->bad[c] = ts;
	d->bad_set |= 1u << c;
}

/* The device called key, found where the last poll had it when the order
 * has not changed, or a new one. */
static struct dev *find_dev(struct pick_window *w, const char *key, const char *host, const char *id, uint64_t ts)
{
	for (size_t k = 0; k < w->ndev; k++) {
		size_t i = (w->hint + k) % w->ndev;
		if (strcmp(w->dev[i]->key, key) == 0) {
			w->hint = i + 1;
			return w->dev[i];
		}
	}
	struct dev *d = xcalloc(1, sizeof(*d));
	d->key = xstrdup(key);
	d->host = host ? xstrdup(host) : NULL;
	d->id = id ? xstrdup(id) : NULL;
	d->first_ts = ts;
	d->util_max.max = true;
	if (w->ndev == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->dev = xreallocarray(w->dev, w->cap, sizeof(*w->dev));
	}
	w->dev[w->ndev++] = d;
	return d;
}

/* Whether GPU i of f is a GPU in MIG mode, whose instances are the
 * candidates: it says so, or an instance names it as its parent. */
static bool mig_parent(const struct frame *f, size_t i)
{
	const struct gpu *g = &f->gpus[i];

	if (gpu_has(g, GPU_F_MIG_MODE) && g->mig_mode)
		return true;
	if (!gpu_has(g, GPU_F_DEVICE_ID))
		return false;
	for (size_t j = i + 1; j < f->ngpus; j++) {
		const struct gpu *m = &f->gpus[j];
		if (!gpu_has(m, GPU_F_PARENT_DEVICE_ID))
			break; /* instances follow their parent */
		if (strcmp(m->parent_device_id, g->device_id) == 0)
			return true;
	}
	return false;
}

/* The parent of instance i of f, or NULL when it is not in the frame. */
static const struct gpu *parent_of(const struct frame *f, size_t i)
{
	const char *p = f->gpus[i].parent_device_id;

	for (size_t j = i; j-- > 0;)
		if (gpu_has(&f->gpus[j], GPU_F_DEVICE_ID) && strcmp(f->gpus[j].device_id, p) == 0)
			return &f->gpus[j];
	return NULL;
}

/* Takes the readings of g, an ok GPU or not, into d at ts. */
static void take_readings(struct dev *d, const struct gpu *g, const struct gpu *parent, uint64_t ts)
{
	unsigned st = gpu_state(g), pst = parent ? gpu_state(parent) : GPU_STATE_OK;

	d->lost_now = st == GPU_STATE_LOST || pst == GPU_STATE_LOST;
	d->unread_now = st == GPU_STATE_SUSPENDED || pst == GPU_STATE_SUSPENDED;
	if (d->lost_now)
		mark(d, C_LOST, ts);
	if (d->unread_now)
		mark(d, C_UNREAD, ts);
	/* A failed process list may hide another user's process, on the
	 * instance or on its GPU. */
	d->procs_unknown_now = gpu_list_failed(g) || (parent && gpu_list_failed(parent));
	if (d->procs_unknown_now)
		mark(d, C_PROCS_UNKNOWN, ts);
	d->total_known = gpu_has(g, GPU_F_MEM_TOTAL) && g->mem_total_bytes > 0;
	d->total = d->total_known ? (double)g->mem_total_bytes : 0;
	d->free_known_now = d->total_known && gpu_has(g, GPU_F_MEM_USED);
	if (d->free_known_now) {
		double used = (double)g->mem_used_bytes;
		d->free_now = used < d->total ? d->total - used : 0;
		mono_push(&d->free_min, ts, d->free_now);
	} else {
		mark(d, C_MEM_UNKNOWN, ts);
	}
	/* A MIG instance has no utilisation from NVML; its GPM graphics
	 * activity, where known, says the same of it. */
	d->util_known_now = true;
	if (gpu_has(g, GPU_F_UTIL))
		d->util_now = (double)g->util_pct;
	else if (gpu_has(g, GPU_F_GR_ACTIVE))
		d->util_now = (double)g->act.gr_pct;
	else
		d->util_known_now = false;
	if (d->util_known_now)
		mono_push(&d->util_max, ts, d->util_now);
	else
		mark(d, C_UTIL_UNKNOWN, ts);
}

/* Marks the candidate at position i of the frame, if it is one, as used by
 * user at ts. */
static void mark_other(struct pick_window *w, size_t i, const char *user, uint64_t ts)
{
	struct dev *d = w->at[i];

	if (!d)
		return;
	mark(d, C_OTHER, ts);
	if (!d->other_now || (!d->user && user)) {
		free(d->user);
		d->user = user ? xstrdup(user) : NULL;
	}
	d->other_now = true;
}

/* Marks the GPUs whose processes belong to another user. A process on a
 * GPU in MIG mode, not on one of its instances, may run on any of them. */
static void take_processes(struct pick_window *w, const struct frame *f, uint64_t ts)
{
	for (size_t k = 0; k < f->nprocs; k++) {
		const struct gpu_process *p = &f->procs[k];
		const char *user = process_has(p, PROC_F_USER) ? p->user : NULL;
		size_t i = (size_t)p->gpu_index;

		if (i >= f->ngpus || (user && (strcmp(user, w->me) == 0 || strcmp(user, w->uid) == 0)))
			continue;
		mark_other(w, i, user, ts);
		if (w->at[i] || !gpu_has(&f->gpus[i], GPU_F_DEVICE_ID))
			continue;
		for (size_t j = i + 1; j < f->ngpus; j++)
			if (gpu_has(&f->gpus[j], GPU_F_PARENT_DEVICE_ID) &&
			    strcmp(f->gpus[j].parent_device_id, f->gpus[i].device_id) == 0)
				mark_other(w, j, user, ts);
	}
}

static void add_frame(struct pick_window *w, uint64_t ts, const struct frame *f, const char *host,
		      const struct gpusel *sel)
{
	long phys = 0;

	if (f->ngpus > w->at_cap) {
		w->at_cap = f->ngpus;
		w->at = xreallocarray(w->at, w->at_cap, sizeof(*w->at));
	}
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		bool instance = gpu_has(g, GPU_F_PARENT_DEVICE_ID);
		long index = instance ? -1 : phys++;

		w->at[i] = NULL;
		if (mig_parent(f, i) || (sel && !gpusel_match(sel, f, i)))
			continue;
		const char *id = gpu_has(g, GPU_F_DEVICE_ID) && g->device_id[0] ? g->device_id : NULL;
		char key[512];
		if (id)
			snprintf(key, sizeof(key), "%s\n%s", host ? host : "", id);
		else
			snprintf(key, sizeof(key), "%s\n#%zu", host ? host : "", i);
		struct dev *d = find_dev(w, key, host, id, ts);
		if (d->seen)
			continue; /* a second GPU with the same id is not told apart */
		w->at[i] = d;
		d->seen = true;
		d->last_ts = ts;
		d->position = i;
		d->index = index;
		d->instance = instance;
		d->order = w->order++;
		d->other_now = false;
		take_readings(d, g, instance ? parent_of(f, i) : NULL, ts);
	}
	take_processes(w, f, ts);
}

void pick_window_add(struct pick_window *w, uint64_t ts_ms, const struct frame *f, const struct fleet *fl,
		     const struct gpusel *sel)
{
	if (w->any && ts_ms < w->now)
		ts_ms = w->now;
	if (!w->any)
		w->start_ts = ts_ms;
	w->any = true;
	w->now = ts_ms;
	add_poll(w, ts_ms);
	w->order = 0;
	for (size_t i = 0; i < w->ndev; i++)
		w->dev[i]->seen = false;
	if (fl) {
		for (size_t h = 0; h < fl->nhosts; h++)
			if (fl->hosts[h].frame)
				add_frame(w, ts_ms, fl->hosts[h].frame, fl->hosts[h].name, sel);
	} else if (f) {
		add_frame(w, ts_ms, f, NULL, sel);
	}
	/* A GPU away for the whole window is forgotten, so that one coming back
	 * starts afresh; one away for less is marked. */
	uint64_t lo = window_lo(w);
	size_t kept = 0;
	for (size_t i = 0; i < w->ndev; i++) {
		struct dev *d = w->dev[i];
		if (!d->seen) {
			mark(d, C_ABSENT, ts_ms);
			if (d->last_ts < lo) {
				dev_free(d);
				continue;
			}
		}
		mono_expire(&d->free_min, lo);
		mono_expire(&d->util_max, lo);
		w->dev[kept++] = d;
	}
	w->ndev = kept;
	w->hint = 0;
}

uint64_t pick_window_span_ms(const struct pick_window *w)
{
	return w->any ? w->now - w->start_ts : 0;
}

/* Why d, seen in the latest poll, is not free, or PICK_FREE, with whether
 * the reason holds now. */
static enum pick_why judge(const struct pick_window *w, const struct dev *d, const struct pick_candidate *c,
			   bool *now)
{
	const struct pick_opts *o = w->o;
	uint64_t lo = window_lo(w);
	bool covered = d->first_ts <= window_cut(w) || (w->partial && d->first_ts <= w->start_ts);

	*now = true;
	if (!d->id)
		return PICK_NO_ID;
	if (in_window(d, C_LOST, lo))
		return *now = d->lost_now, PICK_LOST;
	if (in_window(d, C_UNREAD, lo))
		return *now = d->unread_now, PICK_UNREAD;
	if (!covered || in_window(d, C_ABSENT, lo))
		return PICK_SHORT;
	if (pick_mem_filter(o)) {
		if (in_window(d, C_MEM_UNKNOWN, lo))
			return *now = !d->free_known_now, PICK_MEM_UNKNOWN;
		if (c->free_bytes < c->need_bytes)
			return *now = d->free_now < c->need_bytes, PICK_MEM_LOW;
	}
	if (pick_util_filter(o)) {
		if (in_window(d, C_UTIL_UNKNOWN, lo))
			return *now = !d->util_known_now, PICK_UTIL_UNKNOWN;
		if (c->util_pct > pick_max_util(o))
			return *now = d->util_now > pick_max_util(o), PICK_UTIL_HIGH;
	}
	if (!o->shared && in_window(d, C_OTHER, lo))
		return *now = d->other_now, PICK_OTHER_USER;
	if (!o->shared && in_window(d, C_PROCS_UNKNOWN, lo))
		return *now = d->procs_unknown_now, PICK_PROCS_UNKNOWN;
	return PICK_FREE;
}

static int by_rank(const void *pa, const void *pb)
{
	const struct pick_candidate *a = pa, *b = pb;
	bool fa = a->why == PICK_FREE, fb = b->why == PICK_FREE;

	if (fa != fb)
		return fa ? -1 : 1;
	if (fa) {
		if (a->free_known != b->free_known)
			return a->free_known ? -1 : 1;
		if (a->free_known && a->free_bytes != b->free_bytes)
			return a->free_bytes > b->free_bytes ? -1 : 1;
		if (a->util_known != b->util_known)
			return a->util_known ? -1 : 1;
		if (a->util_known && a->util_pct != b->util_pct)
			return a->util_pct < b->util_pct ? -1 : 1;
	}
	return a->order < b->order ? -1 : a->order > b->order;
}

size_t pick_window_sort(struct pick_candidate *c, size_t n)
{
	size_t nfree = 0;

	qsort(c, n, sizeof(*c), by_rank);
	while (nfree < n && c[nfree].why == PICK_FREE)
		nfree++;
	return nfree;
}

size_t pick_window_judge(struct pick_window *w, struct pick_candidate **out)
{
	size_t n = 0;

	if (w->ndev > w->cand_cap) {
		w->cand_cap = w->ndev;
		w->cand = xreallocarray(w->cand, w->cand_cap, sizeof(*w->cand));
	}
	for (size_t i = 0; i < w->ndev; i++) {
		const struct dev *d = w->dev[i];
		if (!d->seen)
			continue;
		struct pick_candidate *c = &w->cand[n++];
		*c = (struct pick_candidate){
			.id = d->id,
			.host = d->host,
			.position = d->position,
			.index = d->index,
			.instance = d->instance,
			.order = d->order,
			.free_known = d->free_min.n > 0,
			.util_known = d->util_max.n > 0,
			.free_now = d->free_now,
			.util_now = d->util_now,
			.need_bytes = d->total_known ? pick_min_free_bytes(w->o, d->total) : 0,
		};
		if (c->free_known)
			c->free_bytes = d->free_min.e[d->free_min.head].v;
		if (c->util_known)
			c->util_pct = d->util_max.e[d->util_max.head].v;
		c->why = judge(w, d, c, &c->now);
		if (c->why == PICK_OTHER_USER)
			c->user = d->user;
	}
	pick_window_sort(w->cand, n);
	*out = w->cand;
	return n;
}
