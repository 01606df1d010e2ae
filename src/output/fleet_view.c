/* fleet_view: per-host figures, filter, order and cell text of the fleet
 * summary. */
#include "output/fleet_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

const struct fleet_col_info FLEET_COLS[FLEET__COUNT] = {
	/* Each width leaves room for the title and the sort arrow. */
	[FLEET_HOST] = {"HOST", 24, false, false},
	[FLEET_GPUS] = {"GPUS", 5, true, true},
	[FLEET_UTIL] = {"UTIL%", 6, true, true},
	[FLEET_MEM] = {"MEMORY", 14, true, true},
	[FLEET_POWER] = {"POWER", 8, true, true},
	[FLEET_BAD] = {"LOST/SUSP", 10, true, true},
	[FLEET_CONTAINER] = {"BUSIEST CONTAINER", 0, false, false},
};

void fleet_row_compute(const struct fleet *fl, size_t host, struct fleet_row *r)
{
	const struct frame *f = fl->hosts[host].frame;
	double util = 0;
	size_t nutil = 0;

	memset(r, 0, sizeof(*r));
	r->host = host;
	r->gpus = f->ngpus;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		unsigned st = gpu_state(g);
		r->lost += st == GPU_STATE_LOST;
		r->suspended += st == GPU_STATE_SUSPENDED;
		if (gpu_has(g, GPU_F_UTIL)) {
			util += (double)g->util_pct;
			nutil++;
		}
		if (gpu_has(g, GPU_F_MEM_USED)) {
			r->mem_used += g->mem_used_bytes;
			r->mem_known = true;
		}
		if (gpu_has(g, GPU_F_MEM_TOTAL)) {
			r->mem_total += g->mem_total_bytes;
			r->total_known = true;
		}
		if (gpu_has(g, GPU_F_POWER)) {
			r->power_w += g->power_w;
			r->power_known = true;
		}
	}
	r->util_known = nutil > 0;
	r->util_mean = nutil ? util / (double)nutil : 0;
}

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; hay && *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i]) {
			char a = hay[i], b = needle[i];
			if (a >= 'A' && a <= 'Z')
				a = (char)(a - 'A' + 'a');
			if (b >= 'A' && b <= 'Z')
				b = (char)(b - 'A' + 'a');
			if (a != b)
				break;
			i++;
		}
		if (i == n)
			return true;
	}
	return false;
}

struct sort_ctx {
	const struct fleet *fl;
	enum fleet_col col;
	bool reverse;
};

/* The row's value in a numeric column, or false when it is unknown. */
static bool number(const struct fleet *fl, const struct fleet_row *r, enum fleet_col c, long double *v)
{
	switch (c) {
	case FLEET_GPUS: *v = (long double)r->gpus; return true;
	case FLEET_UTIL: *v = r->util_mean; return r->util_known;
	case FLEET_MEM: *v = r->mem_used; return r->mem_known;
	case FLEET_POWER: *v = r->power_w; return r->power_known;
	case FLEET_BAD: *v = (long double)(r->lost + r->suspended); return true;
	case FLEET_CONTAINER:
		*v = fl->hosts[r->host].top_container_mem_bytes;
		return fl->hosts[r->host].top_container != NULL;
	default: return false;
	}
}

static int cmp_row(const void *pa, const void *pb, void *pc)
{
	const struct sort_ctx *c = pc;
	const struct fleet_row *a = pa, *b = pb;
	const char *na = c->fl->hosts[a->host].name, *nb = c->fl->hosts[b->host].name;
	int d = 0;

	if (c->col == FLEET_HOST) {
		d = strcmp(na, nb);
		return c->reverse ? -d : d;
	}
	if (c->col == FLEET_CONTAINER) {
		/* Text sorts as text, and the container's memory orders nothing here. */
		const char *ca = c->fl->hosts[a->host].top_container, *cb = c->fl->hosts[b->host].top_container;
		if (!ca || !cb)
			d = ca ? -1 : cb ? 1 : 0;
		else
			d = c->reverse ? -strcmp(ca, cb) : strcmp(ca, cb);
	} else {
		long double va = 0, vb = 0;
		bool ka = number(c->fl, a, c->col, &va), kb = number(c->fl, b, c->col, &vb);
		if (!ka || !kb)
			d = ka ? -1 : kb ? 1 : 0; /* unknown last either way */
		else if (va != vb)
			d = (va > vb) != c->reverse ? -1 : 1;
	}
	return d ? d : strcmp(na, nb);
}

size_t fleet_view(const struct fleet *fl, const struct fleet_view_opts *o, struct fleet_row *rows)
{
	size_t n = 0;
	struct sort_ctx c = {fl, o->sort < FLEET__COUNT ? o->sort : FLEET_HOST, o->reverse};

	for (size_t i = 0; fl && i < fl->nhosts; i++) {
		const struct fleet_host *h = &fl->hosts[i];
		if (o->filter && *o->filter && !contains_ci(h->name, o->filter) &&
		    !contains_ci(h->top_container, o->filter))
			continue;
		fleet_row_compute(fl, i, &rows[n++]);
	}
	if (n > 1) /* rows may be NULL when no host passes */
		qsort_r(rows, n, sizeof(*rows), cmp_row, &c);
	return n;
}

/* Sizes in the "12.3G" style, as the process table writes them. */
static void size_text(char *buf, size_t n, long double bytes)
{
	static const char units[] = "KMGTPE";
	long double v = bytes / 1024.0L;
	int u = 0;

	while (v >= 1000.0L && u < 5) {
		v /= 1024.0L;
		u++;
	}
	snprintf(buf, n, v < 10.0L ? "%.1Lf%c" : "%.0Lf%c", v, units[u]);
}

void fleet_cell(const struct fleet *fl, const struct fleet_row *r, enum fleet_col c, char *buf, size_t n)
{
	const struct fleet_host *h = &fl->hosts[r->host];
	char a[16], b[16];

	switch (c) {
	case FLEET_HOST: snprintf(buf, n, "%s", h->name); break;
	case FLEET_GPUS: snprintf(buf, n, "%zu", r->gpus); break;
	case FLEET_UTIL:
		if (r->util_known)
			snprintf(buf, n, "%.0f", r->util_mean);
		else
			snprintf(buf, n, "--");
		break;
	case FLEET_MEM:
		if (r->mem_known)
			size_text(a, sizeof(a), r->mem_used);
		if (r->total_known)
			size_text(b, sizeof(b), r->mem_total);
		snprintf(buf, n, "%s/%s", r->mem_known ? a : "--", r->total_known ? b : "--");
		break;
	case FLEET_POWER:
		if (r->power_known)
			snprintf(buf, n, "%.0fW", (double)r->power_w);
		else
			snprintf(buf, n, "--");
		break;
	case FLEET_BAD: snprintf(buf, n, "%zu/%zu", r->lost, r->suspended); break;
	case FLEET_CONTAINER:
		if (h->top_container) {
			size_text(a, sizeof(a), h->top_container_mem_bytes);
			snprintf(buf, n, "%s (%s)", h->top_container, a);
		} else {
			snprintf(buf, n, "--");
		}
		break;
	default: snprintf(buf, n, "--"); break;
	}
}

void fleet_status(const struct fleet *fl, uint64_t now_ms, char *buf, size_t n)
{
	size_t gpus = 0, lost = 0;
	int off;

	for (size_t i = 0; i < fl->nhosts; i++) {
		const struct frame *f = fl->hosts[i].frame;
		gpus += f->ngpus;
		for (size_t g = 0; g < f->ngpus; g++)
			lost += gpu_state(&f->gpus[g]) == GPU_STATE_LOST;
	}
	off = snprintf(buf, n, "%zu host%s, %zu GPU%s, %zu lost", fl->nhosts, fl->nhosts == 1 ? "" : "s", gpus,
		       gpus == 1 ? "" : "s", lost);
	if (off < 0 || (size_t)off >= n)
		return;
	if (fl->hosts_left_out)
		off += snprintf(buf + off, n - (size_t)off, " (%zu more left out)", fl->hosts_left_out);
	if (fl->read_ms && (size_t)off < n)
		off += snprintf(buf + off, n - (size_t)off, ", read in %llu ms", (unsigned long long)fl->read_ms);
	if (!fl->error || (size_t)off >= n)
		return;
	uint64_t retry = fl->retry_ms > now_ms ? (fl->retry_ms - now_ms + 999) / 1000 : 0;
	if (fl->good_ts_ms)
		snprintf(buf + off, n - (size_t)off, " - STALE (data from %llu s ago, retry in %llu s): %s",
			 (unsigned long long)(now_ms > fl->good_ts_ms ? (now_ms - fl->good_ts_ms) / 1000 : 0),
			 (unsigned long long)retry, fl->error);
	else
		snprintf(buf + off, n - (size_t)off, " - retry in %llu s: %s", (unsigned long long)retry, fl->error);
}
