/* prometheus_fleet: series of several queries sorted by (host, GPU) and
 * folded into one frame per host. */
#include "backend/prometheus_fleet.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gpu.h"
#include "util/xalloc.h"

/* gpur's own families, which have one name under both of dcgm-exporter's. */
static const char *const GPUR_FAMILY[PROM_M__COUNT] = {
	[PROM_M_LOST] = "gpur_gpu_lost",
	[PROM_M_SUSPENDED] = "gpur_gpu_suspended",
	[PROM_M_CONTAINER] = "gpur_container_gpu_memory_bytes",
	[PROM_M_PROC_MEM] = "gpur_process_gpu_memory_bytes",
	[PROM_M_PROC_UTIL] = "gpur_process_gpu_util_percent",
};

/* The metric of a GPU query under both names, as the GPU field table names
 * it (free memory is not a field), or NULL for gpur's own families. */
static const struct field_prom *query_prom(enum prom_metric m)
{
	switch (m) {
	case PROM_M_UTIL: return GPU_FIELDS[GPU_F_UTIL].prom;
	case PROM_M_FB_USED: return GPU_FIELDS[GPU_F_MEM_USED].prom;
	case PROM_M_FB_FREE: return GPU_METRIC_FB_FREE.prom;
	case PROM_M_TEMP: return GPU_FIELDS[GPU_F_TEMP].prom;
	case PROM_M_POWER: return GPU_FIELDS[GPU_F_POWER].prom;
	case PROM_M_SM: return GPU_FIELDS[GPU_F_SM_ACTIVE].prom;
	case PROM_M_TENSOR: return GPU_FIELDS[GPU_F_TENSOR_ACTIVE].prom;
	default: return NULL;
	}
}

const char *prom_fleet_metric(enum prom_metric m)
{
	const struct field_prom *p = query_prom(m);
	return p ? p->name : GPUR_FAMILY[m];
}

void prom_fleet_query(char *out, size_t n, enum prom_metric m, const char *match)
{
	size_t ml = match ? strlen(match) : 0;
	const struct field_prom *p = query_prom(m);

	if (ml >= 2 && match[0] == '{' && match[ml - 1] == '}') {
		match++;
		ml -= 2;
	}
	char sel[1100];
	/* A GPU metric is asked for under both names in one query, so that a
	 * fleet of both costs no more queries. */
	if (p && p->name_4_10)
		snprintf(sel, sizeof(sel), "{__name__=~\"%s|%s\"%s%.*s}", p->name, p->name_4_10, ml ? "," : "", (int)ml,
			 match);
	else if (ml)
		snprintf(sel, sizeof(sel), "%s{%.*s}", prom_fleet_metric(m), (int)ml, match);
	else
		snprintf(sel, sizeof(sel), "%s", prom_fleet_metric(m));
	/* One container per exporter target, so the answer grows with hosts
	 * and not with containers. */
	if (m == PROM_M_CONTAINER)
		snprintf(out, n, "topk by (Hostname, instance) (1, %s)", sel);
	else
		snprintf(out, n, "%s", sel);
}

struct entry {
	const struct prom_series *s;
	enum prom_metric m;
	unsigned long idx; /* the gpu label as a number, ULONG_MAX for none */
	double v;          /* the value in the GPU field's unit */
};

/* The value of series s of query m in its GPU field's unit: a series under
 * dcgm-exporter 4.10's name is in 4.10's unit, and any other (the legacy
 * name, or none) in the legacy one. */
static double field_value(enum prom_metric m, const struct prom_series *s)
{
	const struct field_prom *p = query_prom(m);
	if (!p || !s->known)
		return s->value;
	bool is_4_10 = s->name && p->name_4_10 && strcmp(s->name, p->name_4_10) == 0;
	return field_prom_field_value(p, is_4_10 ? FIELD_NAMES_DCGM_4_10 : FIELD_NAMES_LEGACY, s->value);
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return a ? -1 : b ? 1 : 0; /* absent last */
	return strcmp(a, b);
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c = cmp_str(a->s->host, b->s->host);
	if (c)
		return c;
	if (a->idx != b->idx)
		return a->idx < b->idx ? -1 : 1;
	if ((c = cmp_str(a->s->gpu, b->s->gpu)))
		return c;
	if ((c = cmp_str(a->s->uuid, b->s->uuid)))
		return c;
	if (a->m != b->m)
		return (int)a->m - (int)b->m;
	/* A metric's series are in one answer: keep its order. */
	return (a->s > b->s) - (a->s < b->s);
}

static bool same_gpu(const struct entry *a, const struct entry *b)
{
	return cmp_str(a->s->host, b->s->host) == 0 && cmp_str(a->s->gpu, b->s->gpu) == 0 &&
	       cmp_str(a->s->uuid, b->s->uuid) == 0;
}

static unsigned long gpu_index(const char *s)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return ULONG_MAX;
	unsigned long v = strtoul(s, &end, 10);
	return *end ? ULONG_MAX : v;
}

/* A GPU's device_id from one of its series or a process series on it: its
 * UUID, else its host and gpu label, made safe. */
static void device_id(char *out, size_t n, const char *host, const struct prom_series *s)
{
	char raw[700];

	if (s->uuid)
		snprintf(raw, sizeof(raw), "%s", s->uuid);
	else
		snprintf(raw, sizeof(raw), "prometheus:%s/%s", host, s->gpu ? s->gpu : "?");
	fleet_safe_name(out, n < FLEET_NAME_MAX + 1 ? n : FLEET_NAME_MAX + 1, raw);
}

/* One GPU from the entries e[0..n), its series sorted by metric. */
static void fill_gpu(struct gpu *g, struct frame *f, const struct entry *e, size_t n)
{
	const struct prom_series *s0 = e[0].s;
	const char *host = s0->host, *model = NULL;
	bool have[PROM_M__COUNT] = {false}, any = false;
	double v[PROM_M__COUNT] = {0};
	char tmp[700];

	for (size_t i = 0; i < n; i++) {
		if (!model && e[i].s->model)
			model = e[i].s->model;
		if (e[i].s->known && !have[e[i].m]) {
			have[e[i].m] = true;
			v[e[i].m] = e[i].v;
		}
	}
	if (model) {
		fleet_safe_name(tmp, sizeof(tmp), model);
		g->name = frame_str(f, tmp);
	}
	else {
		snprintf(tmp, sizeof(tmp), "GPU %s", s0->gpu ? s0->gpu : "?");
		g->name = frame_str(f, tmp);
	}
	gpu_set(g, GPU_F_NAME);
	device_id(tmp, sizeof(tmp), host, s0);
	g->device_id = frame_str(f, tmp);
	gpu_set(g, GPU_F_DEVICE_ID);
	if (have[PROM_M_UTIL]) {
		g->util_pct = v[PROM_M_UTIL];
		gpu_set(g, GPU_F_UTIL);
		any = true;
	}
	if (have[PROM_M_FB_USED]) {
		g->mem_used_bytes = v[PROM_M_FB_USED];
		gpu_set(g, GPU_F_MEM_USED);
		any = true;
		if (have[PROM_M_FB_FREE]) {
			g->mem_total_bytes = (long double)v[PROM_M_FB_USED] + v[PROM_M_FB_FREE];
			gpu_set(g, GPU_F_MEM_TOTAL);
		}
	}
	if (have[PROM_M_TEMP]) {
		g->temp_c = v[PROM_M_TEMP];
		gpu_set(g, GPU_F_TEMP);
		any = true;
	}
	if (have[PROM_M_POWER]) {
		g->power_w = v[PROM_M_POWER];
		gpu_set(g, GPU_F_POWER);
		any = true;
	}
	/* The profiling families are ratios 0-1, from gpur's GPM or DCGM's
	 * profiling, here as percentages; a value outside them is not
	 * believed. */
	if (have[PROM_M_SM] && v[PROM_M_SM] >= 0 && v[PROM_M_SM] <= 100) {
		g->act.sm_pct = v[PROM_M_SM];
		gpu_set(g, GPU_F_SM_ACTIVE);
	}
	if (have[PROM_M_TENSOR] && v[PROM_M_TENSOR] >= 0 && v[PROM_M_TENSOR] <= 100) {
		g->act.tensor_pct = v[PROM_M_TENSOR];
		gpu_set(g, GPU_F_TENSOR_ACTIVE);
	}
	if (have[PROM_M_LOST] && v[PROM_M_LOST] == 1) {
		g->state = GPU_STATE_LOST;
		gpu_set(g, GPU_F_STATE);
	} else if (have[PROM_M_SUSPENDED] && v[PROM_M_SUSPENDED] == 1) {
		g->state = GPU_STATE_SUSPENDED;
		gpu_set(g, GPU_F_STATE);
	} else if (any || have[PROM_M_LOST] || have[PROM_M_SUSPENDED]) {
		g->state = GPU_STATE_OK;
		gpu_set(g, GPU_F_STATE);
	}
}

static struct frame *host_frame(const char *host, const char *url, uint64_t ts_ms)
{
	struct frame *f = frame_new();

	f->ts_ms = ts_ms;
	f->host = frame_str(f, host);
	f->backend = frame_str(f, "prometheus");
	f->driver = frame_str(f, url);
	f->valid = UINT64_C(1) << FRAME_F_TS | UINT64_C(1) << FRAME_F_HOST | UINT64_C(1) << FRAME_F_BACKEND |
		   UINT64_C(1) << FRAME_F_DRIVER;
	return f;
}

static int cmp_host(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* Each host's busiest container, which is the largest of its series. */
static void add_containers(struct fleet *fl, const char **raw, const struct prom_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct prom_series *s = &r->s[i];
		if (!s->host || !s->container || !s->known)
			continue;
		const char **at = bsearch(s->host, raw, fl->nhosts, sizeof(*raw), cmp_host);
		if (!at)
			continue;
		struct fleet_host *h = &fl->hosts[at - raw];
		if (!h->top_container || s->value > h->top_container_mem_bytes) {
			h->top_container = fleet_str(fl, s->container);
			h->top_container_mem_bytes = s->value;
		}
	}
}

static uint64_t parse_pid(const char *s)
{
	char *end;
	if (!s || *s < '0' || *s > '9' || strlen(s) > 10)
		return 0;
	unsigned long long v = strtoull(s, &end, 10);
	return *end || v > UINT32_MAX ? 0 : (uint64_t)v;
}

static int cmp_proc_key(const struct prom_series *a, const struct prom_series *b)
{
	int c;
	if ((c = cmp_str(a->host, b->host)) || (c = cmp_str(a->uuid, b->uuid)) || (c = cmp_str(a->gpu, b->gpu)))
		return c;
	return cmp_str(a->pid, b->pid);
}

static int cmp_proc_ptr(const void *pa, const void *pb)
{
	return cmp_proc_key(*(const struct prom_series *const *)pa, *(const struct prom_series *const *)pb);
}

/* The same, and then in the answer's order. */
static int cmp_proc_place(const void *pa, const void *pb)
{
	const struct prom_series *a = *(const struct prom_series *const *)pa, *b = *(const struct prom_series *const *)pb;
	int c = cmp_proc_key(a, b);
	return c ? c : (a > b) - (a < b);
}

/* Marks in dup[i] each series of r after the first with the same host, GPU
 * and pid, as when two exporters of one host serve the same process. The
 * caller frees the result. */
static bool *proc_duplicates(const struct prom_result *r)
{
	const struct prom_series **p = xreallocarray(NULL, r->n ? r->n : 1, sizeof(*p));
	bool *dup = xcalloc(r->n ? r->n : 1, sizeof(*dup));

	for (size_t i = 0; i < r->n; i++)
		p[i] = &r->s[i];
	qsort(p, r->n, sizeof(*p), cmp_proc_place);
	for (size_t i = 1; i < r->n; i++)
		if (cmp_proc_key(p[i - 1], p[i]) == 0)
			dup[p[i] - r->s] = true;
	free(p);
	return dup;
}

static const char *safe_str(struct frame *f, const char *s)
{
	char tmp[FLEET_NAME_MAX + 1];
	if (!s || !*s)
		return NULL;
	fleet_safe_name(tmp, sizeof(tmp), s);
	return frame_str(f, tmp);
}

/* Process rows from gpur's per-process series. GPU memory makes the row, and
 * utilisation, matched by host, GPU and pid, joins it. */
static void add_processes(struct fleet *fl, const char **raw, const struct prom_result *mem,
			  const struct prom_result *util, struct prom_fleet_info *info)
{
	const struct prom_series **u = xreallocarray(NULL, util->n ? util->n : 1, sizeof(*u));
	bool *dup = proc_duplicates(mem);
	char id[FLEET_NAME_MAX + 1];

	for (size_t i = 0; i < util->n; i++)
		u[i] = &util->s[i];
	qsort(u, util->n, sizeof(*u), cmp_proc_ptr);
	for (size_t i = 0; i < mem->n; i++) {
		const struct prom_series *s = &mem->s[i];
		uint64_t pid = parse_pid(s->pid);
		if (!s->host || !pid || dup[i])
			continue;
		const char **at = bsearch(s->host, raw, fl->nhosts, sizeof(*raw), cmp_host);
		if (!at)
			continue;
		struct frame *f = fl->hosts[at - raw].frame;
		device_id(id, sizeof(id), s->host, s);
		size_t g = 0;
		while (g < f->ngpus && strcmp(f->gpus[g].device_id, id) != 0)
			g++;
		if (g == f->ngpus)
			continue; /* the stray-row rule allows no row against a GPU not read */
		struct gpu_process *p = frame_add_process(f);
		if (!p) {
			info->procs_left_out++;
			continue;
		}
		info->procs++;
		p->pid = pid;
		p->gpu_index = g;
		process_set(p, PROC_F_PID);
		process_set(p, PROC_F_GPU_INDEX);
		if (s->known) {
			p->gpu_mem_bytes = s->value;
			process_set(p, PROC_F_GPU_MEM);
		}
		if ((p->name = safe_str(f, s->comm)))
			process_set(p, PROC_F_NAME);
		if ((p->user = safe_str(f, s->user)))
			process_set(p, PROC_F_USER);
		if ((p->container_name = safe_str(f, s->container)))
			process_set(p, PROC_F_CONTAINER_NAME);
		if ((p->pod_name = safe_str(f, s->pod)))
			process_set(p, PROC_F_POD_NAME);
		if ((p->pod_namespace = safe_str(f, s->ns)))
			process_set(p, PROC_F_POD_NAMESPACE);
		const struct prom_series *key = s, **hit = bsearch(&key, u, util->n, sizeof(*u), cmp_proc_ptr);
		if (hit && (*hit)->known) {
			p->gpu_util_pct = (*hit)->value;
			process_set(p, PROC_F_GPU_UTIL);
		}
	}
	free(dup);
	free(u);
}

struct fleet *prom_fleet_build(const struct prom_result *r, const char *url, uint64_t ts_ms,
			       struct prom_fleet_info *info)
{
	struct fleet *fl = fleet_new(url);
	size_t total = 0, k = 0;

	memset(info, 0, sizeof(*info));
	for (int m = 0; m < PROM_M_CONTAINER; m++)
		total += r[m].n;
	struct entry *e = xreallocarray(NULL, total ? total : 1, sizeof(*e));
	for (int m = 0; m < PROM_M_CONTAINER; m++)
		for (size_t i = 0; i < r[m].n; i++)
			if (r[m].s[i].host) /* Prometheus gives every scraped series an instance */
				e[k++] = (struct entry){&r[m].s[i], (enum prom_metric)m, gpu_index(r[m].s[i].gpu),
							field_value((enum prom_metric)m, &r[m].s[i])};
	qsort(e, k, sizeof(*e), cmp_entry);
	/* raw[i] is host i's name as Prometheus spelled it, sorted, to find
	 * hosts by the labels of other answers. */
	const char **raw = xreallocarray(NULL, k ? k : 1, sizeof(*raw));
	struct frame *hf = NULL;
	for (size_t i = 0; i < k;) {
		const char *host = e[i].s->host;
		if (!hf || strcmp(raw[fl->nhosts - 1], host) != 0) {
			char safe[FLEET_NAME_MAX + 1];
			/* The record says what the screen shows, bounded and
			 * without control characters. */
			fleet_safe_name(safe, sizeof(safe), host);
			hf = host_frame(safe, url, ts_ms);
			bool kept = fleet_add_host(fl, host, hf) != NULL;
			frame_unref(hf); /* the fleet holds it */
			if (!kept) {
				hf = NULL;
				while (i < k && strcmp(e[i].s->host, host) == 0)
					i++;
				continue;
			}
			raw[fl->nhosts - 1] = host;
		}
		size_t j = i + 1;
		while (j < k && same_gpu(&e[i], &e[j]))
			j++;
		struct gpu *g = frame_add_gpu(hf);
		if (g) {
			fill_gpu(g, hf, &e[i], j - i);
			info->gpus++;
		} else {
			info->gpus_left_out++;
		}
		i = j;
	}
	add_containers(fl, raw, &r[PROM_M_CONTAINER]);
	add_processes(fl, raw, &r[PROM_M_PROC_MEM], &r[PROM_M_PROC_UTIL], info);
	free(raw);
	free(e);
	return fl;
}
