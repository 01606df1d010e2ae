/* drm_clients: DRM clients → process rows and device sums. */
#include "drm/drm_clients.h"

#include <string.h>

#define MAX_CLASSES 16

/* One engine class summed over clients. */
struct class_sum {
	const char *name;
	unsigned roles;
	long double pct;
};

struct client_view {
	bool util_known, enc_known, dec_known, mem_known;
	long double util, enc, dec, mem;
	unsigned kinds; /* the DRM_ROLE_GRAPHICS and DRM_ROLE_COMPUTE roles seen */
};

static long double cap100(long double v)
{
	return v > 100 ? 100 : v;
}

static void add_class(struct class_sum *cs, size_t *ncs, const char *name, unsigned roles, long double pct)
{
	for (size_t i = 0; i < *ncs; i++) {
		if (strcmp(cs[i].name, name) == 0) {
			cs[i].pct += pct;
			return;
		}
	}
	if (*ncs < MAX_CLASSES)
		cs[(*ncs)++] = (struct class_sum){name, roles, pct};
}

static void view_client(const struct drm_desc *d, const struct fdinfo_client *c, struct client_view *v,
			struct class_sum *cs, size_t *ncs)
{
	bool any_known = false, any_util = false;
	size_t ne = c->nengines < FDINFO_MAX_ENGINES ? c->nengines : FDINFO_MAX_ENGINES;
	size_t nr = c->nregions < FDINFO_MAX_REGIONS ? c->nregions : FDINFO_MAX_REGIONS;

	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < ne; i++) {
		const struct fdinfo_engine *e = &c->engines[i];
		unsigned roles = drm_desc_engine_roles(d, e->name);
		long double pct = e->pct < 0 ? 0 : cap100(e->pct);
		any_known |= e->known;
		v->kinds |= roles & (DRM_ROLE_GRAPHICS | DRM_ROLE_COMPUTE);
		any_util |= (roles & DRM_ROLE_UTIL) != 0;
		if (!e->known || !roles)
			continue;
		add_class(cs, ncs, e->name, roles, pct);
		if (roles & DRM_ROLE_UTIL) {
			v->util = v->util_known && v->util > pct ? v->util : pct;
			v->util_known = true;
		}
		if (roles & DRM_ROLE_ENC) {
			v->enc = v->enc_known && v->enc > pct ? v->enc : pct;
			v->enc_known = true;
		}
		if (roles & DRM_ROLE_DEC) {
			v->dec = v->dec_known && v->dec > pct ? v->dec : pct;
			v->dec_known = true;
		}
	}
	/* amdgpu prints an engine only once its counter is non-zero, so a
	 * client with rates for other engines and none for one that counts
	 * has used none. */
	if (!v->util_known && !any_util && any_known) {
		v->util = 0;
		v->util_known = true;
	}
	for (const char *const *r = d->mem_regions; r && *r && !v->mem_known; r++) {
		for (size_t i = 0; i < nr; i++) {
			const struct fdinfo_region *g = &c->regions[i];
			if (strcmp(g->name, *r) != 0)
				continue;
			if (g->resident_known || g->total_known) {
				v->mem = g->resident_known ? g->resident_bytes : g->total_bytes;
				v->mem_known = true;
			}
			break;
		}
	}
}

/* The row of pid among f's rows from `first`, or a new one. */
static struct gpu_process *row_for(struct frame *f, size_t first, unsigned pid, bool *fresh)
{
	for (size_t i = first; i < f->nprocs; i++) {
		if (f->procs[i].pid == pid) {
			*fresh = false;
			return &f->procs[i];
		}
	}
	*fresh = true;
	return frame_add_process(f);
}

static void merge(struct gpu_process *p, enum process_field b, long double *dst, bool known, long double v,
		  bool fresh, bool is_pct)
{
	if (!known) {
		/* One unknown part makes a sum unknown. */
		if (!fresh)
			p->valid &= ~(UINT64_C(1) << b);
		return;
	}
	if (fresh) {
		*dst = v;
		process_set(p, b);
	} else if (process_has(p, b)) {
		*dst = is_pct ? cap100(*dst + v) : *dst + v;
	}
}

void drm_clients_rows(const struct drm_desc *d, const struct fdinfo_client *c, size_t n, size_t gpu_index,
		      struct frame *f, struct drm_clients_sum *sum)
{
	struct class_sum cs[MAX_CLASSES];
	size_t ncs = 0, first = f->nprocs;

	memset(sum, 0, sizeof(*sum));
	sum->nclients = n;
	for (size_t i = 0; i < n; i++) {
		struct client_view v;
		bool fresh;
		view_client(d, &c[i], &v, cs, &ncs);
		if (v.mem_known && d->mem_regions && d->mem_regions[0]) {
			/* Device VRAM sums the first region only, which is the VRAM one. */
			for (size_t r = 0; r < c[i].nregions && r < FDINFO_MAX_REGIONS; r++)
				if (strcmp(c[i].regions[r].name, d->mem_regions[0]) == 0) {
					sum->vram_bytes += v.mem;
					sum->vram_known = true;
				}
		}
		if (c[i].pid == 0)
			continue;
		struct gpu_process *p = row_for(f, first, c[i].pid, &fresh);
		if (!p)
			break;
		if (fresh) {
			p->pid = c[i].pid;
			p->gpu_index = gpu_index;
			process_set(p, PROC_F_PID);
			process_set(p, PROC_F_GPU_INDEX);
			p->start_ticks = c[i].start_ticks;
		}
		merge(p, PROC_F_GPU_MEM, &p->gpu_mem_bytes, v.mem_known, v.mem, fresh, false);
		merge(p, PROC_F_GPU_UTIL, &p->gpu_util_pct, v.util_known, v.util, fresh, true);
		merge(p, PROC_F_ENC, &p->enc_pct, v.enc_known, v.enc, fresh, true);
		merge(p, PROC_F_DEC, &p->dec_pct, v.dec_known, v.dec, fresh, true);
		unsigned kinds = v.kinds;
		if (!fresh && process_has(p, PROC_F_KIND))
			kinds |= p->kind == PROCESS_BOTH ? DRM_ROLE_GRAPHICS | DRM_ROLE_COMPUTE
				 : p->kind == PROCESS_COMPUTE ? DRM_ROLE_COMPUTE : DRM_ROLE_GRAPHICS;
		if (kinds) {
			p->kind = kinds == (DRM_ROLE_GRAPHICS | DRM_ROLE_COMPUTE) ? PROCESS_BOTH
				  : kinds == DRM_ROLE_COMPUTE ? PROCESS_COMPUTE : PROCESS_GRAPHICS;
			process_set(p, PROC_F_KIND);
		}
	}
	for (size_t k = 0; k < ncs; k++) {
		long double pct = cap100(cs[k].pct);
		if (cs[k].roles & DRM_ROLE_UTIL) {
			sum->util_pct = sum->util_known && sum->util_pct > pct ? sum->util_pct : pct;
			sum->util_known = true;
		}
		if (cs[k].roles & DRM_ROLE_ENC) {
			sum->enc_pct = sum->enc_known && sum->enc_pct > pct ? sum->enc_pct : pct;
			sum->enc_known = true;
		}
		if (cs[k].roles & DRM_ROLE_DEC) {
			sum->dec_pct = sum->dec_known && sum->dec_pct > pct ? sum->dec_pct : pct;
			sum->dec_known = true;
		}
	}
}
