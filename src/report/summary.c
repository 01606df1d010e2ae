/* summary: the span, the GPUs and the events of a recording, one record at
 * a time. Processes and groups are in summary_procs.c. */
#include "report/summary.h"

#include <stdlib.h>
#include <string.h>

#include "report/summary_priv.h"
#include "util/utf8.h"
#include "util/xalloc.h"

const uint32_t SUMMARY_SLOWING_REASONS =
	(1u << GPU_THROTTLE_SW_POWER_CAP) | (1u << GPU_THROTTLE_HW_SLOWDOWN) | (1u << GPU_THROTTLE_SW_THERMAL) |
	(1u << GPU_THROTTLE_HW_THERMAL) | (1u << GPU_THROTTLE_HW_POWER_BRAKE) | (1u << GPU_THROTTLE_THERMAL) |
	(1u << GPU_THROTTLE_POWER_CAP);

char *summary_strdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = utf8_trim(s, strlen(s), SUMMARY_STR_MAX);
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

struct summary *summary_new(void)
{
	struct summary *s = xcalloc(1, sizeof(*s));

	s->priv = xcalloc(1, sizeof(*s->priv));
	s->priv->cur_slot = s->priv->slot_a;
	s->priv->prev_slot = s->priv->slot_b;
	s->priv->cur_orig = s->priv->orig_a;
	s->priv->prev_orig = s->priv->orig_b;
	downsample_grid_init(&s->grid);
	return s;
}

/* The event's strings are this summary's own copies (summary_strdup). */
static void free_owned(const char *p)
{
	free((void *)(uintptr_t)p);
}

static void free_event(struct event *e)
{
	free_owned(e->kind);
	free_owned(e->device_id);
	free_owned(e->backend);
	free_owned(e->signal);
	free_owned(e->result);
	free_owned(e->detail);
}

void summary_free(struct summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ngpus; i++) {
		free(s->gpus[i].device_id);
		free(s->gpus[i].name);
		free(s->gpus[i].plot);
	}
	free(s->gpus);
	for (size_t i = 0; i < s->nevents; i++)
		free_event(&s->events[i].e);
	free(s->events);
	summary_free_procs(s);
	free(s->host);
	free(s->backend);
	free(s->driver);
	downsample_grid_fini(&s->grid);
	if (s->priv)
		frame_unref(s->priv->prev);
	free(s->priv);
	free(s);
}

/* The summary's GPU for position i of f, added when new, or UINT32_MAX when
 * the table is full. hint is the slot this position had last time. */
static uint32_t gpu_slot(struct summary *s, const struct gpu *g, uint32_t hint)
{
	const char *id = g->device_id ? g->device_id : "";

	if (hint < s->ngpus && strncmp(s->gpus[hint].device_id, id, SUMMARY_STR_MAX) == 0)
		return hint;
	size_t n = utf8_trim(id, strlen(id), SUMMARY_STR_MAX);
	for (size_t k = 0; k < s->ngpus; k++)
		if (strlen(s->gpus[k].device_id) == n && memcmp(s->gpus[k].device_id, id, n) == 0)
			return (uint32_t)k;
	if (s->ngpus >= SUMMARY_MAX_GPUS) {
		s->gpus_dropped++;
		return UINT32_MAX;
	}
	if (s->ngpus == s->priv->gpus_cap) {
		s->priv->gpus_cap = s->priv->gpus_cap ? s->priv->gpus_cap * 2 : 8;
		s->gpus = xreallocarray(s->gpus, s->priv->gpus_cap, sizeof(*s->gpus));
	}
	struct summary_gpu *sg = &s->gpus[s->ngpus];
	memset(sg, 0, sizeof(*sg));
	sg->device_id = summary_strdup(id);
	if (s->ngpus < SUMMARY_MAX_PLOTTED) {
		sg->plot = xcalloc(1, sizeof(*sg->plot));
		for (int m = 0; m < SUMMARY__METRICS; m++)
			downsample_attach(&s->grid, &sg->plot->m[m]);
		downsample_attach_flags(&s->grid, &sg->plot->flags);
	}
	return (uint32_t)s->ngpus++;
}

static void stat_add(struct summary_stat *st, long double v)
{
	double d = (double)v;

	st->sum += d;
	if (!st->n || d > st->max)
		st->max = d;
	st->n++;
}

static void keep_first(char **dst, bool has, const char *v)
{
	if (!*dst && has && v)
		*dst = summary_strdup(v);
}

static void add_event(struct summary *s, const struct frame *p, const struct event *src, const uint32_t *orig)
{
	s->events_total++;
	if (s->nevents >= SUMMARY_MAX_EVENTS)
		return;
	if (!s->events)
		s->events = xcalloc(SUMMARY_MAX_EVENTS, sizeof(*s->events));
	struct summary_event *se = &s->events[s->nevents++];
	memset(se, 0, sizeof(*se));
	se->e.valid = src->valid;
	se->e.kind = summary_strdup(src->kind);
	se->e.device_id = summary_strdup(src->device_id);
	se->e.backend = summary_strdup(src->backend);
	se->e.signal = summary_strdup(src->signal);
	se->e.result = summary_strdup(src->result);
	se->e.detail = summary_strdup(src->detail);
	se->e.pid = src->pid;
	se->e.xid = src->xid;
	se->e.gpu_instance = src->gpu_instance;
	if (event_has(src, EVENT_F_GPU_INDEX))
		se->e.gpu_index = src->gpu_index < p->ngpus ? orig[src->gpu_index] : src->gpu_index;
	se->ts_known = frame_has(p, FRAME_F_TS);
	se->ts_ms = p->ts_ms;
}

/* The energy of a GPU over the stretch from its reading a to its reading b
 * in the next record, which is NULL when there is none or the GPU is not in
 * it. Returns false when nothing says. */
static bool stretch_energy(const struct gpu *a, const struct gpu *b, uint64_t dt_ms, double *e)
{
	if (b && gpu_has(a, GPU_F_ENERGY) && gpu_has(b, GPU_F_ENERGY) && b->energy_j >= a->energy_j) {
		*e = (double)(b->energy_j - a->energy_j);
		return true;
	}
	double w = 0;
	int k = 0;
	if (gpu_has(a, GPU_F_POWER)) {
		w += (double)a->power_w;
		k++;
	}
	if (b && gpu_has(b, GPU_F_POWER)) {
		w += (double)b->power_w;
		k++;
	}
	if (!k || !b)
		return false;
	*e = w / k * (double)dt_ms / 1000.0;
	return true;
}

static void credit_gpu(struct summary *s, struct summary_gpu *sg, const struct gpu *g, const struct gpu *next,
		       uint64_t dt_ms, size_t col, size_t pos)
{
	struct summary_priv *pv = s->priv;
	uint32_t flags = 0;

	if (!sg->name && gpu_has(g, GPU_F_NAME) && g->name)
		sg->name = summary_strdup(g->name);
	if (gpu_has(g, GPU_F_STATE)) {
		sg->state_known = true;
		if (g->state == GPU_STATE_LOST) {
			sg->lost_ms += dt_ms;
			flags |= SUMMARY_FLAG_LOST;
		} else if (g->state == GPU_STATE_SUSPENDED) {
			sg->suspended_ms += dt_ms;
			flags |= SUMMARY_FLAG_SUSPENDED;
		}
	}
	if (gpu_has(g, GPU_F_THROTTLE)) {
		sg->throttle_known = true;
		if (g->throttle & SUMMARY_SLOWING_REASONS) {
			sg->throttled_ms += dt_ms;
			flags |= SUMMARY_FLAG_THROTTLED;
		}
		flags |= (g->throttle & ((1u << GPU_THROTTLE__COUNT) - 1)) << SUMMARY_FLAG_REASON0;
	}
	static const enum gpu_field fields[SUMMARY__METRICS] = {GPU_F_UTIL, GPU_F_MEM_USED, GPU_F_POWER, GPU_F_TEMP,
								GPU_F_CLOCK_GFX, GPU_F_SM_ACTIVE, GPU_F_TENSOR_ACTIVE};
	const long double vals[SUMMARY__METRICS] = {g->util_pct, g->mem_used_bytes, g->power_w, g->temp_c,
						    g->clock_gfx_mhz, g->act.sm_pct, g->act.tensor_pct};
	struct summary_stat *stats[SUMMARY__METRICS] = {&sg->util, &sg->mem, &sg->power, &sg->temp, &sg->clock,
							&sg->sm, &sg->tensor};
	for (int m = 0; m < SUMMARY__METRICS; m++) {
		if (!gpu_has(g, fields[m]))
			continue;
		stat_add(stats[m], vals[m]);
		if (sg->plot && col != SIZE_MAX)
			downsample_add(&sg->plot->m[m], col, (double)vals[m]);
	}
	if (sg->plot && col != SIZE_MAX)
		sg->plot->flags.bits[col] |= flags;
	if (gpu_has(g, GPU_F_TEMP_SLOWDOWN)) {
		sg->temp_slowdown_c = (double)g->temp_slowdown_c;
		sg->known |= SUMMARY_K_SLOWDOWN;
	}
	if (gpu_has(g, GPU_F_POWER_LIMIT)) {
		sg->power_limit_w = (double)g->power_limit_w;
		sg->known |= SUMMARY_K_PLIMIT;
	}
	if (gpu_has(g, GPU_F_MEM_TOTAL)) {
		sg->mem_total_bytes = (double)g->mem_total_bytes;
		sg->known |= SUMMARY_K_MEMTOTAL;
	}
	if (gpu_has(g, GPU_F_CLOCK_GFX_MAX)) {
		sg->clock_gfx_max_mhz = (double)g->clock_gfx_max_mhz;
		sg->known |= SUMMARY_K_CLOCKMAX;
	}
	double e = 0;
	pv->stretch_known[pos] = stretch_energy(g, next, dt_ms, &e);
	pv->stretch_e[pos] = e;
	if (pv->stretch_known[pos]) {
		sg->energy_j += e;
		sg->energy_known = true;
	}
}

/* Credits record p, whose successor is n, or NULL when p is the last. */
static void credit(struct summary *s, const struct frame *p, const uint32_t *slot, const uint32_t *orig,
		   const struct frame *n, uint64_t n_seq)
{
	uint64_t dt = 0;
	bool pts = frame_has(p, FRAME_F_TS);

	if (n && pts && frame_has(n, FRAME_F_TS) && n->ts_ms > p->ts_ms) {
		uint64_t raw = n->ts_ms - p->ts_ms;
		dt = raw > SUMMARY_GAP_MS ? SUMMARY_GAP_MS : raw;
		if (raw > SUMMARY_GAP_MS) {
			s->gaps++;
			s->gap_ms += raw;
			if (s->ngap < SUMMARY_MAX_GAPS)
				s->gap[s->ngap++] = (struct summary_gap){p->ts_ms, n->ts_ms};
		}
	}
	s->records++;
	if (pts) {
		if (!s->ts_known || p->ts_ms < s->first_ms)
			s->first_ms = p->ts_ms;
		if (!s->ts_known || p->ts_ms > s->last_ms)
			s->last_ms = p->ts_ms;
		s->ts_known = true;
	}
	keep_first(&s->host, frame_has(p, FRAME_F_HOST), p->host);
	keep_first(&s->backend, frame_has(p, FRAME_F_BACKEND), p->backend);
	keep_first(&s->driver, frame_has(p, FRAME_F_DRIVER), p->driver);
	size_t col = pts ? downsample_column(&s->grid, p->ts_ms) : SIZE_MAX;
	for (size_t i = 0; i < p->ngpus; i++) {
		s->priv->stretch_known[i] = false;
		if (slot[i] == UINT32_MAX)
			continue;
		struct summary_gpu *sg = &s->gpus[slot[i]];
		const struct gpu *next = n && sg->next_seq == n_seq ? &n->gpus[sg->next_pos] : NULL;
		credit_gpu(s, sg, &p->gpus[i], next, dt, col, i);
	}
	summary_credit_procs(s, p, slot, dt);
	for (size_t i = 0; i < p->nevents; i++)
		add_event(s, p, &p->events[i], orig);
}

void summary_add(struct summary *s, struct frame *f, const uint32_t *orig)
{
	struct summary_priv *pv = s->priv;

	if (s->finished)
		return;
	pv->seq++;
	for (size_t i = 0; i < f->ngpus && i < FRAME_MAX_GPUS; i++) {
		uint32_t k = gpu_slot(s, &f->gpus[i], pv->prev_slot[i]);
		pv->cur_slot[i] = k;
		pv->cur_orig[i] = orig ? orig[i] : (uint32_t)i;
		if (k != UINT32_MAX) {
			s->gpus[k].index = pv->cur_orig[i];
			s->gpus[k].next_seq = pv->seq;
			s->gpus[k].next_pos = i;
		}
	}
	if (pv->prev)
		credit(s, pv->prev, pv->prev_slot, pv->prev_orig, f, pv->seq);
	uint32_t *t = pv->prev_slot;
	pv->prev_slot = pv->cur_slot;
	pv->cur_slot = t;
	t = pv->prev_orig;
	pv->prev_orig = pv->cur_orig;
	pv->cur_orig = t;
	frame_unref(pv->prev);
	pv->prev = frame_ref(f);
}

static int cmp_gpu(const void *a, const void *b)
{
	const struct summary_gpu *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return strcmp(x->device_id, y->device_id);
}

void summary_finish(struct summary *s)
{
	struct summary_priv *pv = s->priv;

	if (s->finished)
		return;
	if (pv->prev) {
		pv->seq++;
		credit(s, pv->prev, pv->prev_slot, pv->prev_orig, NULL, pv->seq);
		frame_unref(pv->prev);
		pv->prev = NULL;
	}
	s->finished = true;
	for (size_t i = 0; i < s->ngpus; i++)
		if (s->gpus[i].energy_known)
			s->energy_total_j += s->gpus[i].energy_j;
	summary_finish_procs(s);
	/* Process rows name GPUs by slot, so sort a permutation and then
	 * renumber. */
	uint32_t *map = xcalloc(s->ngpus ? s->ngpus : 1, sizeof(*map));
	for (size_t i = 0; i < s->ngpus; i++)
		s->gpus[i].next_pos = i; /* reading is over, so next_pos keeps the old slot */
	if (s->ngpus)
		qsort(s->gpus, s->ngpus, sizeof(*s->gpus), cmp_gpu);
	for (size_t i = 0; i < s->ngpus; i++)
		map[s->gpus[i].next_pos] = (uint32_t)i;
	for (size_t i = 0; i < s->nprocs; i++)
		s->procs[i].gpu = map[s->procs[i].gpu];
	free(map);
}
