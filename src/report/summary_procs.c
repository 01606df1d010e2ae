/* summary_procs: process rows into per-(pid, start time, GPU) entries and
 * per-group sums. The entries held are bounded: when too many are held, the
 * smallest by GPU-memory hours are summed into one row. */
#include <stdlib.h>
#include <string.h>

#include "report/summary_priv.h"
#include "util/utf8.h"
#include "util/xalloc.h"

const char *const SUMMARY_GROUP_KIND_NAMES[SUMMARY_G__COUNT] = {"container", "pod", "slurm_job", "user"};

#define PHASH_N (2 * SUMMARY_MAX_TRACKED)
#define GHASH_N (2 * SUMMARY_MAX_GROUPS)

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return h;
}

static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return h;
}

static uint64_t proc_hash(uint64_t pid, uint64_t start, uint32_t gpu)
{
	return mix(pid * 31 + mix(start) + (uint64_t)gpu * UINT64_C(0x9e3779b97f4a7c15));
}

static void proc_free(struct summary_proc *p)
{
	free(p->user);
	free(p->name);
	free(p->container);
	free(p->pod);
	free(p->cmdline);
}

void summary_free_procs(struct summary *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		proc_free(&s->procs[i]);
	free(s->procs);
	for (size_t i = 0; i < s->ngroups; i++) {
		free(s->groups[i].id);
		free(s->groups[i].name);
	}
	free(s->groups);
	if (s->priv) {
		free(s->priv->phash);
		free(s->priv->ghash);
		free(s->priv->pairs);
	}
}

static void phash_insert(struct summary_priv *pv, const struct summary_proc *p, uint32_t idx)
{
	size_t m = PHASH_N - 1, h = (size_t)proc_hash(p->pid, p->start_ms, p->gpu) & m;

	while (pv->phash[h])
		h = (h + 1) & m;
	pv->phash[h] = idx + 1;
}

static int cmp_proc_hours(const void *a, const void *b)
{
	const struct summary_proc *x = a, *y = b;

	if (x->mem_byte_ms != y->mem_byte_ms)
		return x->mem_byte_ms > y->mem_byte_ms ? -1 : 1;
	if (x->first_ms != y->first_ms)
		return x->first_ms < y->first_ms ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

static void rest_add_proc(struct summary_rest *r, const struct summary_proc *p)
{
	r->count++;
	r->mem_byte_ms += p->mem_byte_ms;
	r->energy_j += p->energy_j;
	if (p->mem_known && (!r->mem_known || p->mem_max > r->mem_max))
		r->mem_max = p->mem_max;
	r->mem_known |= p->mem_known;
}

/* Keeps the `keep` entries with the most GPU-memory hours, summing the
 * others into proc_rest, and rebuilds the index. */
static void shrink(struct summary *s, size_t keep)
{
	struct summary_priv *pv = s->priv;

	qsort(s->procs, s->nprocs, sizeof(*s->procs), cmp_proc_hours);
	for (size_t i = keep; i < s->nprocs; i++) {
		rest_add_proc(&s->proc_rest, &s->procs[i]);
		proc_free(&s->procs[i]);
	}
	if (s->nprocs > keep)
		s->nprocs = keep;
	if (pv->phash) {
		memset(pv->phash, 0, PHASH_N * sizeof(*pv->phash));
		for (size_t i = 0; i < s->nprocs; i++)
			phash_insert(pv, &s->procs[i], (uint32_t)i);
	}
}

/* The group of (kind, id), added when new. Returns -1 when none can be added
 * because the table is full, and the caller then sums into group_others. */
static int32_t group_of(struct summary *s, uint8_t kind, const char *id, const char *name)
{
	struct summary_priv *pv = s->priv;
	size_t m = GHASH_N - 1, h;

	if (!pv->ghash)
		pv->ghash = xcalloc(GHASH_N, sizeof(*pv->ghash));
	char *cut = summary_strdup(id);
	h = (size_t)mix(str_hash(kind + 1, cut)) & m;
	while (pv->ghash[h]) {
		struct summary_group *g = &s->groups[pv->ghash[h] - 1];
		if (g->kind == kind && strcmp(g->id, cut) == 0) {
			free(cut);
			if (!g->name && name)
				g->name = summary_strdup(name);
			return (int32_t)(pv->ghash[h] - 1);
		}
		h = (h + 1) & m;
	}
	if (s->ngroups >= SUMMARY_MAX_GROUPS) {
		free(cut);
		return -1;
	}
	if (s->ngroups == pv->groups_cap) {
		pv->groups_cap = pv->groups_cap ? pv->groups_cap * 2 : 16;
		s->groups = xreallocarray(s->groups, pv->groups_cap, sizeof(*s->groups));
	}
	struct summary_group *g = &s->groups[s->ngroups];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->id = cut;
	g->name = summary_strdup(name);
	pv->ghash[h] = (uint32_t)++s->ngroups;
	return (int32_t)(s->ngroups - 1);
}

#define GROUP_OTHERS (-2)

static void set_groups(struct summary *s, struct summary_proc *e, const struct gpu_process *p)
{
	for (int k = 0; k < SUMMARY_G__COUNT; k++)
		e->groups[k] = -1;
	const char *c = process_has(p, PROC_F_CONTAINER) ? p->container : NULL;
	const char *cn = process_has(p, PROC_F_CONTAINER_NAME) ? p->container_name : NULL;
	int32_t g;
	if (c && strncmp(c, "slurm:", 6) == 0 && c[6]) {
		g = group_of(s, SUMMARY_G_SLURM, c + 6, cn);
		e->groups[SUMMARY_G_SLURM] = g < 0 ? GROUP_OTHERS : g;
	} else if (c && *c) {
		g = group_of(s, SUMMARY_G_CONTAINER, c, cn);
		e->groups[SUMMARY_G_CONTAINER] = g < 0 ? GROUP_OTHERS : g;
	}
	if (process_has(p, PROC_F_POD) && p->pod && *p->pod) {
		char buf[SUMMARY_STR_MAX * 2 + 2];
		const char *pn = process_has(p, PROC_F_POD_NAME) || process_has(p, PROC_F_POD_NAMESPACE)
					 ? process_pod_text(p, buf, sizeof(buf))
					 : NULL;
		g = group_of(s, SUMMARY_G_POD, p->pod, pn);
		e->groups[SUMMARY_G_POD] = g < 0 ? GROUP_OTHERS : g;
	}
	if (process_has(p, PROC_F_USER) && p->user && *p->user) {
		g = group_of(s, SUMMARY_G_USER, p->user, NULL);
		e->groups[SUMMARY_G_USER] = g < 0 ? GROUP_OTHERS : g;
	}
}

/* The entry of row p on GPU slot gpu, added when new. */
static struct summary_proc *entry_of(struct summary *s, const struct gpu_process *p, uint32_t gpu)
{
	struct summary_priv *pv = s->priv;
	bool sk = process_has(p, PROC_F_START);
	uint64_t start = sk ? p->start_ms : 0;
	size_t m = PHASH_N - 1, h = (size_t)proc_hash(p->pid, start, gpu) & m;

	while (pv->phash[h]) {
		struct summary_proc *e = &s->procs[pv->phash[h] - 1];
		if (e->pid == p->pid && e->start_ms == start && e->start_known == sk && e->gpu == gpu)
			return e;
		h = (h + 1) & m;
	}
	if (s->nprocs == pv->procs_cap) {
		pv->procs_cap = pv->procs_cap ? pv->procs_cap * 2 : 64;
		s->procs = xreallocarray(s->procs, pv->procs_cap, sizeof(*s->procs));
	}
	struct summary_proc *e = &s->procs[s->nprocs];
	memset(e, 0, sizeof(*e));
	e->pid = p->pid;
	e->start_ms = start;
	e->start_known = sk;
	e->gpu = gpu;
	e->seq = UINT64_MAX;
	pv->phash[h] = (uint32_t)++s->nprocs;
	set_groups(s, e, p);
	return e;
}

/* A copy of at most max bytes of s, cut on a character boundary. */
static char *dup_upto(const char *s, size_t max)
{
	size_t n = utf8_trim(s, strnlen(s, max + 1), max);
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static void fill(char **dst, bool has, const char *v)
{
	if (!*dst && has && v && *v)
		*dst = summary_strdup(v);
}

/* Counts (group, GPU) once per record, returning true the first time. */
static bool pair_first(struct summary_priv *pv, uint32_t group, uint32_t gpu)
{
	size_t m = pv->pairs_n - 1, h = (size_t)mix((uint64_t)group << 32 | gpu) & m;

	while (pv->pairs[h].seq == pv->seq) {
		if (pv->pairs[h].group == group && pv->pairs[h].gpu == gpu)
			return false;
		h = (h + 1) & m;
	}
	pv->pairs[h] = (struct summary_pair){pv->seq, group, gpu};
	return true;
}

static void credit_group(struct summary *s, int32_t gi, uint32_t gpu, double mem_ms, bool mem_known, double e,
			 uint64_t dt_ms, double idle_ms)
{
	struct summary_group *g = gi == GROUP_OTHERS ? &s->group_others : &s->groups[gi];
	uint32_t key = gi == GROUP_OTHERS ? UINT32_MAX : (uint32_t)gi;

	g->mem_byte_ms += mem_ms;
	g->idle_byte_ms += idle_ms;
	g->mem_known |= mem_known;
	g->energy_j += e;
	if (pair_first(s->priv, key, gpu))
		g->gpu_ms += (double)dt_ms;
}

/* Makes room for this record's rows: the table, the pairs index, and per GPU
 * the rows and their utilisation's sum, which is known when every row's
 * is. */
static void prepare_record(struct summary *s, const struct frame *p)
{
	struct summary_priv *pv = s->priv;

	if (!pv->phash)
		pv->phash = xcalloc(PHASH_N, sizeof(*pv->phash));
	if (s->nprocs + p->nprocs > SUMMARY_MAX_TRACKED)
		shrink(s, SUMMARY_MAX_TRACKED - FRAME_MAX_PROCESSES);
	size_t need = 16;
	while (need < 2 * SUMMARY_G__COUNT * p->nprocs)
		need *= 2;
	if (pv->pairs_n < need) {
		free(pv->pairs);
		pv->pairs = xcalloc(need, sizeof(*pv->pairs));
		pv->pairs_n = need;
	}
	for (size_t i = 0; i < p->ngpus; i++) {
		pv->rows[i] = 0;
		pv->util_sum[i] = 0;
		pv->util_all[i] = true;
	}
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct gpu_process *r = &p->procs[i];
		if (r->gpu_index >= p->ngpus)
			continue;
		pv->rows[r->gpu_index]++;
		if (process_has(r, PROC_F_GPU_UTIL))
			pv->util_sum[r->gpu_index] += (double)r->gpu_util_pct;
		else
			pv->util_all[r->gpu_index] = false;
	}
}

/* Notes what a row says of its process beyond the figures: names, owner, and
 * the span of records it was seen in. */
static void note_identity(struct summary_proc *e, const struct gpu_process *r, const struct frame *p)
{
	fill(&e->user, process_has(r, PROC_F_USER), r->user);
	fill(&e->name, process_has(r, PROC_F_NAME), r->name);
	fill(&e->container, process_has(r, PROC_F_CONTAINER), r->container);
	/* The command line is kept whole, for the report's title; the record
	 * already bounds it. */
	if (!e->cmdline && process_has(r, PROC_F_CMDLINE) && r->cmdline && *r->cmdline)
		e->cmdline = dup_upto(r->cmdline, PROCESS_CMDLINE_MAX);
	if (!e->pod && process_has(r, PROC_F_POD)) {
		char buf[SUMMARY_STR_MAX * 2 + 2];
		fill(&e->pod, true, process_pod_text(r, buf, sizeof(buf)));
	}
	if (frame_has(p, FRAME_F_TS)) {
		if (!e->ts_known || p->ts_ms < e->first_ms)
			e->first_ms = p->ts_ms;
		if (!e->ts_known || p->ts_ms > e->last_ms)
			e->last_ms = p->ts_ms;
		e->ts_known = true;
	}
}

/* Adds the row's utilisation and its memory over dt_ms into e, and returns
 * that memory in byte·ms. It returns 0 when the memory is unknown, which
 * *known says. */
static double note_figures(struct summary_proc *e, const struct gpu_process *r, uint64_t dt_ms, bool *known)
{
	double mem_ms = 0;

	*known = process_has(r, PROC_F_GPU_MEM);
	if (*known) {
		double b = (double)r->gpu_mem_bytes;
		if (!e->mem_known || b > e->mem_max)
			e->mem_max = b;
		e->mem_known = true;
		mem_ms = b * (double)dt_ms;
		e->mem_byte_ms += mem_ms;
	}
	if (process_has(r, PROC_F_GPU_UTIL)) {
		double u = (double)r->gpu_util_pct;
		e->util.sum += u;
		if (!e->util.n || u > e->util.max)
			e->util.max = u;
		e->util.n++;
	}
	return mem_ms;
}

void summary_credit_procs(struct summary *s, const struct frame *p, const uint32_t *slot, uint64_t dt_ms)
{
	struct summary_priv *pv = s->priv;

	if (!p->nprocs)
		return;
	prepare_record(s, p);
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct gpu_process *r = &p->procs[i];
		size_t gi = (size_t)r->gpu_index;
		if (gi >= p->ngpus || slot[gi] == UINT32_MAX)
			continue;
		struct summary_proc *e = entry_of(s, r, slot[gi]);
		if (e->seq == pv->seq)
			continue; /* the same process twice on one GPU in one record */
		e->seq = pv->seq;
		note_identity(e, r, p);
		bool mk;
		double mem_ms = note_figures(e, r, dt_ms, &mk);
		/* Memory held while idle: a quiet stretch counts once it ends
		 * idle, from its start; one that ends before is dropped. */
		double idle_ms = 0;
		if (r->idle_since_ms) {
			idle_ms = e->idle_pending + mem_ms;
			e->idle_pending = 0;
			if (!e->idle_since_ms)
				e->idle_since_ms = r->idle_since_ms;
		} else if (idle_quiet(&s->idle, p, r)) {
			e->idle_pending += mem_ms;
		} else {
			e->idle_pending = 0;
		}
		e->idle_byte_ms += idle_ms;
		/* Its share of the GPU's energy goes by utilisation when every row
		 * of the GPU has one, and else evenly. */
		double share = 0;
		if (pv->stretch_known[gi]) {
			double w = pv->util_all[gi] && pv->util_sum[gi] > 0 ? (double)r->gpu_util_pct / pv->util_sum[gi]
									    : 1.0 / pv->rows[gi];
			share = pv->stretch_e[gi] * w;
			e->energy_j += share;
		}
		for (int k = 0; k < SUMMARY_G__COUNT; k++)
			if (e->groups[k] != -1)
				credit_group(s, e->groups[k], slot[gi], mem_ms, mk, share, dt_ms, idle_ms);
	}
}

static int cmp_group_hours(const void *a, const void *b)
{
	const struct summary_group *x = a, *y = b;

	if (x->mem_byte_ms != y->mem_byte_ms)
		return x->mem_byte_ms > y->mem_byte_ms ? -1 : 1;
	if (x->gpu_ms != y->gpu_ms)
		return x->gpu_ms > y->gpu_ms ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->id, y->id);
}

static int cmp_group_kind(const void *a, const void *b)
{
	const struct summary_group *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return cmp_group_hours(a, b);
}

static void rest_add_group(struct summary_rest *r, const struct summary_group *g, uint64_t count)
{
	r->count += count;
	r->mem_byte_ms += g->mem_byte_ms;
	r->energy_j += g->energy_j;
	r->gpu_ms += g->gpu_ms;
	r->mem_known |= g->mem_known;
}

void summary_finish_procs(struct summary *s)
{
	if (s->nprocs > SUMMARY_TOP_ROWS)
		shrink(s, SUMMARY_TOP_ROWS);
	else if (s->nprocs)
		qsort(s->procs, s->nprocs, sizeof(*s->procs), cmp_proc_hours);
	/* Groups past the cap while reading are summed with those past the top rows. */
	if (s->group_others.gpu_ms || s->group_others.mem_byte_ms || s->group_others.energy_j)
		rest_add_group(&s->group_rest, &s->group_others, 1);
	if (s->ngroups > SUMMARY_TOP_ROWS) {
		qsort(s->groups, s->ngroups, sizeof(*s->groups), cmp_group_hours);
		for (size_t i = SUMMARY_TOP_ROWS; i < s->ngroups; i++) {
			rest_add_group(&s->group_rest, &s->groups[i], 1);
			free(s->groups[i].id);
			free(s->groups[i].name);
		}
		s->ngroups = SUMMARY_TOP_ROWS;
	}
	if (s->ngroups)
		qsort(s->groups, s->ngroups, sizeof(*s->groups), cmp_group_kind);
	/* The group indices in the entries are stale now, and nothing reads
	 * them after this. */
}
