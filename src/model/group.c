/* group: owners' keys and labels, the one-pass aggregation of a
 * view's rows into groups (a hash index over the groups), and their order.
 * A sum over rows some of which are unknown is unknown, never a part. */
#include "model/group.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"
#include "util/xalloc.h"

static const char *const GROUP_NAMES[GROUP_BY__COUNT] = {
	[GROUP_BY_NONE] = "none", [GROUP_BY_CONTAINER] = "container", [GROUP_BY_POD] = "pod",
	[GROUP_BY_JOB] = "job", [GROUP_BY_USER] = "user",
};

void group_init(struct grouping *g)
{
	memset(g, 0, sizeof(*g));
}

void group_fini(struct grouping *g)
{
	free(g->groups);
	free(g->index);
	memset(g, 0, sizeof(*g));
}

const char *group_name(enum group_by by)
{
	return (unsigned)by < GROUP_BY__COUNT ? GROUP_NAMES[by] : "?";
}

int group_by_name(const char *name, size_t len)
{
	if (!name)
		return -1;
	for (int i = 0; i < GROUP_BY__COUNT; i++)
		if (strlen(GROUP_NAMES[i]) == len && memcmp(GROUP_NAMES[i], name, len) == 0)
			return i;
	return -1;
}

static const char *known(const struct gpu_process *p, enum process_field b, const char *s)
{
	return process_has(p, b) && s && *s ? s : NULL;
}

/* Copies a then b (either may be NULL) into buf, never splitting a UTF-8
 * sequence. */
static void put2(char *buf, size_t n, const char *a, const char *b)
{
	size_t at = 0;

	if (n == 0)
		return;
	for (const char *s = a; s; s = s == a ? b : NULL) {
		size_t len = utf8_trim(s, strlen(s), n - 1 - at);
		memcpy(buf + at, s, len);
		at += len;
	}
	buf[at] = '\0';
}

static const char *slurm_job(const struct gpu_process *p)
{
	const char *c = known(p, PROC_F_CONTAINER, p->container);

	return c && strncmp(c, "slurm:", 6) == 0 ? c : NULL;
}

/* The key parts of p under by: a one-byte kind prefix, so that a container id
 * never equals a pod uid, and up to two strings, which the key joins with a
 * "/". */
static bool key_parts(const struct gpu_process *p, enum group_by by, const char **pre, const char **a,
		      const char **b)
{
	const char *ns = known(p, PROC_F_POD_NAMESPACE, p->pod_namespace), *name = known(p, PROC_F_POD_NAME, p->pod_name);

	*a = *b = NULL;
	switch (by) {
	case GROUP_BY_CONTAINER:
		if ((*a = known(p, PROC_F_CONTAINER, p->container)))
			*pre = "c";
		else if ((*a = known(p, PROC_F_POD, p->pod)))
			*pre = "p";
		else if (name) {
			*pre = "n";
			*a = ns ? ns : "";
			*b = name;
		}
		/* A systemd unit alone is no container, since it may be a plain
		 * service or a login session. Nor is it an identity, because
		 * "init.scope" is in every user's manager too. */
		break;
	case GROUP_BY_POD:
		if ((*a = known(p, PROC_F_POD, p->pod)))
			*pre = "p";
		else if (name) {
			*pre = "n";
			*a = ns ? ns : "";
			*b = name;
		}
		break;
	case GROUP_BY_JOB:
		if ((*a = slurm_job(p)))
			*pre = "j";
		break;
	case GROUP_BY_USER:
		if ((*a = known(p, PROC_F_USER, p->user)))
			*pre = "U";
		break;
	case GROUP_BY_NONE:
	case GROUP_BY__COUNT:
		break;
	}
	return *a != NULL;
}

bool group_key(const struct gpu_process *p, enum group_by by, char *key)
{
	const char *pre = "", *a, *b;
	char mid[GROUP_KEY_MAX];

	if (!key_parts(p, by, &pre, &a, &b)) {
		key[0] = '\0';
		return false;
	}
	put2(mid, sizeof(mid), pre, a);
	if (b) {
		size_t at = strlen(mid);
		put2(mid + at, sizeof(mid) - at, "/", b);
	}
	memcpy(key, mid, strlen(mid) + 1);
	return true;
}

void group_label(const struct gpu_process *p, enum group_by by, char *buf, size_t n)
{
	const char *ns = known(p, PROC_F_POD_NAMESPACE, p->pod_namespace), *name = known(p, PROC_F_POD_NAME, p->pod_name);
	const char *pre = "", *a, *b;

	if (n == 0)
		return;
	if (!key_parts(p, by, &pre, &a, &b)) {
		put2(buf, n, GROUP_NONE_LABEL, NULL);
		return;
	}
	switch (by) {
	case GROUP_BY_CONTAINER:
		if (*pre == 'c') {
			const char *cn = known(p, PROC_F_CONTAINER_NAME, p->container_name);
			put2(buf, n, cn ? cn : a, NULL);
			return;
		}
		if (*pre == 'p' || *pre == 'n') {
			char pod[GROUP_KEY_MAX];
			if (name && ns) {
				put2(pod, sizeof(pod), ns, "/");
				size_t at = strlen(pod);
				put2(pod + at, sizeof(pod) - at, name, NULL);
			} else {
				put2(pod, sizeof(pod), name ? name : a, NULL);
			}
			put2(buf, n, "pod ", pod);
			return;
		}
		break;
	case GROUP_BY_POD:
		if (name && ns) {
			put2(buf, n, ns, "/");
			size_t at = strlen(buf);
			put2(buf + at, n - at, name, NULL);
			return;
		}
		put2(buf, n, name ? name : a, NULL);
		return;
	default:
		break;
	}
	put2(buf, n, a, NULL);
}

static uint64_t hash_key(const char *s)
{
	uint64_t x = 1469598103934665603u; /* FNV-1a */

	for (; *s; s++)
		x = (x ^ (unsigned char)*s) * 1099511628211u;
	return x;
}

/* Grows the index to a power of two of at least twice want slots, and
 * empties it. */
static void index_reset(struct grouping *g, size_t want)
{
	size_t cap = 16;

	while (cap < 2 * want)
		cap *= 2;
	if (cap > g->index_cap) {
		free(g->index);
		g->index = xcalloc(cap, sizeof(*g->index));
		g->index_cap = cap;
	} else {
		memset(g->index, 0, g->index_cap * sizeof(*g->index));
	}
}

struct group_sort_ctx {
	const struct frame *f;
	enum group_by by;
	enum group_sort sort;
	bool reverse;
};

static int text_cmp(const char *a, const char *b)
{
	int d = strcmp(a, b);
	return d < 0 ? -1 : d > 0;
}

/* Puts the group's number for sort in *v and returns whether it is known,
 * which it is not when the group's sum is unknown. Sorting by label sets
 * *text instead. */
static bool group_num(const struct group *grp, enum group_sort sort, long double *v, bool *text)
{
	*text = false;
	switch (sort) {
	case GROUP_SORT_MEM:
		*v = grp->mem_bytes;
		return grp->mem_known;
	case GROUP_SORT_UTIL:
		*v = grp->util_pct;
		return grp->util_known;
	case GROUP_SORT_GPUS:
		*v = (long double)grp->ngpus;
		return true;
	case GROUP_SORT_LABEL:
		*text = true;
		return true;
	case GROUP_SORT_PROCS:
		break;
	}
	*v = (long double)grp->nprocs;
	return true;
}

static int group_cmp(const void *pa, const void *pb, void *arg)
{
	const struct group_sort_ctx *ctx = arg;
	const struct group *a = pa, *b = pb;
	const struct gpu_process *ra = &ctx->f->procs[a->first], *rb = &ctx->f->procs[b->first];
	char la[GROUP_KEY_MAX], lb[GROUP_KEY_MAX];
	long double va = 0, vb = 0;
	bool text, ka = group_num(a, ctx->sort, &va, &text), kb = group_num(b, ctx->sort, &vb, &text);
	int d = 0;

	/* "(none)" last, like an unknown value. */
	bool oa = group_key(ra, ctx->by, la), ob = group_key(rb, ctx->by, lb);
	if (oa != ob)
		return oa ? -1 : 1;
	if (ka != kb)
		return ka ? -1 : 1;
	group_label(ra, ctx->by, la, sizeof(la));
	group_label(rb, ctx->by, lb, sizeof(lb));
	if (text)
		d = text_cmp(la, lb);
	else if (ka)
		d = va > vb ? -1 : va < vb; /* numbers descend */
	if (ctx->reverse)
		d = -d;
	if (d)
		return d;
	if ((d = text_cmp(la, lb)))
		return d;
	group_key(ra, ctx->by, la);
	group_key(rb, ctx->by, lb);
	if ((d = text_cmp(la, lb)))
		return d;
	return a->first < b->first ? -1 : a->first > b->first;
}

static void add_row(struct group *grp, const struct gpu_process *p, size_t row, bool first)
{
	if (first) {
		memset(grp, 0, sizeof(*grp));
		grp->first = row;
		grp->mem_known = grp->util_known = true;
	}
	grp->nprocs++;
	if (process_has(p, PROC_F_GPU_MEM) && isfinite((double)p->gpu_mem_bytes)) {
		grp->mem_bytes += p->gpu_mem_bytes;
		if (p->idle_since_ms) {
			grp->idle_bytes += p->gpu_mem_bytes;
			grp->nidle++;
		}
	} else {
		grp->mem_known = false;
		grp->nmem_unknown++;
	}
	if (process_has(p, PROC_F_GPU_UTIL) && isfinite((double)p->gpu_util_pct)) {
		grp->util_pct += p->gpu_util_pct;
	} else {
		grp->util_known = false;
		grp->nutil_unknown++;
	}
	if (process_has(p, PROC_F_GPU_INDEX) && p->gpu_index < FRAME_MAX_GPUS) {
		uint32_t bit = UINT32_C(1) << (p->gpu_index % 32);
		if (!(grp->gpus[p->gpu_index / 32] & bit)) {
			grp->gpus[p->gpu_index / 32] |= bit;
			grp->ngpus++;
		}
	}
}

void group_build(struct grouping *g, const struct frame *f, const size_t *rows, size_t nrows, enum group_by by,
		 enum group_sort sort, bool reverse)
{
	char key[GROUP_KEY_MAX], other[GROUP_KEY_MAX];
	uint64_t *hashes = NULL;

	g->ngroups = 0;
	if (by == GROUP_BY_NONE || (unsigned)by >= GROUP_BY__COUNT || !f || !nrows)
		return;
	if (g->cap < nrows) {
		g->cap = nrows;
		g->groups = xreallocarray(g->groups, g->cap, sizeof(*g->groups));
	}
	index_reset(g, nrows);
	hashes = xreallocarray(NULL, nrows, sizeof(*hashes));
	for (size_t i = 0; i < nrows; i++) {
		const struct gpu_process *p = &f->procs[rows[i]];
		group_key(p, by, key);
		uint64_t h = hash_key(key);
		size_t mask = g->index_cap - 1, slot = (size_t)h & mask;
		struct group *grp = NULL;
		for (;; slot = (slot + 1) & mask) {
			size_t v = g->index[slot];
			if (!v)
				break;
			if (hashes[v - 1] == h) {
				group_key(&f->procs[g->groups[v - 1].first], by, other);
				if (strcmp(other, key) == 0) {
					grp = &g->groups[v - 1];
					break;
				}
			}
		}
		if (!grp) {
			grp = &g->groups[g->ngroups];
			hashes[g->ngroups] = h;
			g->index[slot] = ++g->ngroups;
			add_row(grp, p, rows[i], true);
		} else {
			add_row(grp, p, rows[i], false);
		}
	}
	free(hashes);
	struct group_sort_ctx ctx = {f, by, sort, reverse};
	qsort_r(g->groups, g->ngroups, sizeof(*g->groups), group_cmp, &ctx);
}

void group_gpus(const struct group *grp, char *buf, size_t n)
{
	size_t at = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < FRAME_MAX_GPUS; i++) {
		if (!(grp->gpus[i / 32] >> (i % 32) & 1u))
			continue;
		size_t j = i;
		while (j + 1 < FRAME_MAX_GPUS && (grp->gpus[(j + 1) / 32] >> ((j + 1) % 32) & 1u))
			j++;
		char part[32];
		int len = j == i ? snprintf(part, sizeof(part), "%s%zu", at ? "," : "", i)
				 : snprintf(part, sizeof(part), "%s%zu%s%zu", at ? "," : "", i, j == i + 1 ? "," : "-", j);
		if (at + (size_t)len + 2 > n) { /* room for "+" and the NUL */
			if (at + 2 <= n) {
				buf[at++] = '+';
				buf[at] = '\0';
			}
			return;
		}
		memcpy(buf + at, part, (size_t)len + 1);
		at += (size_t)len;
		i = j;
	}
	if (!at)
		put2(buf, n, "--", NULL);
}

size_t group_filter(const struct frame *f, size_t *rows, size_t nrows, enum group_by by, const char *key)
{
	char k[GROUP_KEY_MAX];
	size_t n = 0;

	for (size_t i = 0; i < nrows; i++) {
		group_key(&f->procs[rows[i]], by, k);
		if (strcmp(k, key) == 0)
			rows[n++] = rows[i];
	}
	return n;
}
