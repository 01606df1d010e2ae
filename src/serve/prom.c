/* prom: the exposition text of a frame, as docs/exporter.md describes it. */
#include "serve/prom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/group.h"
#include "serve/prom_health.h"
#include "serve/prom_write.h"
#include "util/xalloc.h"

/* The label sets of each GPU of the frame, in a shared text buffer. */
struct gmeta {
	size_t full_off, full_len;   /* dcgm-exporter's labels, under the names served, and vendor */
	size_t own_off, own_len;     /* the same under the legacy names, for gpur's own families */
	size_t short_off, short_len; /* gpu, UUID, GPU_I_ID and Hostname, for process series */
};

/* The labels whose names differ between the two sets of names, in the
 * order of enum field_names. */
static const char *const HOST_LABEL[FIELD_NAMES__COUNT] = {"Hostname", "hostname"};
static const char *const DRIVER_LABEL[FIELD_NAMES__COUNT] = {"DCGM_FI_DRIVER_VERSION", "DCGM_FI_SYSTEM_DRIVER_VERSION"};

/* Whether a family is gpur's own, whose name and labels are the same under
 * both sets of names. */
static bool own_family(const char *name)
{
	return strncmp(name, "gpur_", 5) == 0;
}

static const char *str_of(const struct gpu *g, enum gpu_field f, const char *s)
{
	return gpu_has(g, f) && s && *s ? s : NULL;
}

/* The driver of g's backend. It is the frame's driver when the frame has one
 * backend, and for a composite ("nvml+amdgpu", "550.54.15+6.8.0") the part
 * of the backend that serves g's vendor. Returns NULL when it is unknown
 * ("?"). */
static const char *driver_of(const struct frame *f, const struct gpu *g, char *out, size_t n)
{
	static const struct { const char *vendor, *backend; } MAP[] = {
		{"nvidia", "nvml"}, {"amd", "amdgpu"}, {"intel", "intel"},
	};
	if (!frame_has(f, FRAME_F_DRIVER) || !f->driver)
		return NULL;
	const char *want = "drm", *vendor = str_of(g, GPU_F_VENDOR, g->vendor);
	for (size_t i = 0; vendor && i < sizeof(MAP) / sizeof(MAP[0]); i++)
		if (strcmp(vendor, MAP[i].vendor) == 0)
			want = MAP[i].backend;
	const char *names = frame_has(f, FRAME_F_BACKEND) && f->backend ? f->backend : "";
	bool single = !strchr(f->driver, '+');
	const char *d = f->driver;
	for (const char *b = names; !single;) {
		size_t bl = strcspn(b, "+"), dl = strcspn(d, "+");
		if (bl == strlen(want) && strncmp(b, want, bl) == 0) {
			snprintf(out, n, "%.*s", (int)dl, d);
			return strcmp(out, "?") == 0 ? NULL : out;
		}
		if (!b[bl] || !d[dl])
			return NULL;
		b += bl + 1;
		d += dl + 1;
	}
	snprintf(out, n, "%s", d);
	return strcmp(out, "?") == 0 || !*out ? NULL : out;
}

/* Appends one GPU's dcgm-exporter labels under names n: gpu, UUID,
 * pci_bus_id, device, modelName, GPU_I_PROFILE, GPU_I_ID, Hostname (4.10:
 * hostname) and DCGM_FI_DRIVER_VERSION (4.10: DCGM_FI_SYSTEM_DRIVER_VERSION),
 * to which gpur adds vendor. gi is the MIG instance's number, and id the
 * GPU whose identity it carries. */
static void gpu_labels(struct buf *lb, enum field_names n, uint64_t ordinal, const struct gpu *g, const struct gpu *id,
		       bool instance, uint64_t gi, const char *host, const char *driver)
{
	const char *vendor = str_of(g, GPU_F_VENDOR, g->vendor);
	const char *name = str_of(g, GPU_F_NAME, g->name);
	const char *profile = NULL;
	if (instance && name && (profile = strstr(name, " MIG ")))
		profile += 5;
	char device[32];
	snprintf(device, sizeof(device), "nvidia%llu", (unsigned long long)ordinal);
	bool first = true;

	prom_label_u64(lb, &first, "gpu", ordinal);
	prom_label(lb, &first, "UUID", str_of(id, GPU_F_DEVICE_ID, id->device_id));
	prom_label(lb, &first, "pci_bus_id", str_of(g, GPU_F_PCI_BUS_ID, g->pci_bus_id));
	prom_label(lb, &first, "device", vendor && strcmp(vendor, "nvidia") == 0 ? device : NULL);
	prom_label(lb, &first, "modelName", str_of(id, GPU_F_NAME, id->name));
	if (instance) {
		prom_label(lb, &first, "GPU_I_PROFILE", profile);
		prom_label_u64(lb, &first, "GPU_I_ID", gi);
	}
	prom_label(lb, &first, HOST_LABEL[n], host);
	prom_label(lb, &first, DRIVER_LABEL[n], driver);
	prom_label(lb, &first, "vendor", vendor);
}

/* Builds every GPU's label sets, in dcgm-exporter's order. A MIG instance
 * carries its GPU's gpu, UUID and modelName and its own profile and instance
 * number, as dcgm-exporter labels instances. `gpu` counts physical GPUs, so
 * it is NVML's index on an NVIDIA machine. */
static void build_labels(const struct frame *f, const char *host, enum field_names names, struct buf *lb,
			 struct gmeta *m)
{
	uint64_t *ordinal = xcalloc(f->ngpus ? f->ngpus : 1, sizeof(*ordinal));
	uint64_t *instances = xcalloc(f->ngpus ? f->ngpus : 1, sizeof(*instances));
	uint64_t next = 0;

	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		const char *parent_id = str_of(g, GPU_F_PARENT_DEVICE_ID, g->parent_device_id);
		const struct gpu *parent = NULL;
		size_t pi = 0;
		for (size_t j = 0; parent_id && j < i; j++) {
			const struct gpu *c = &f->gpus[j];
			if (!str_of(c, GPU_F_PARENT_DEVICE_ID, c->parent_device_id) &&
			    str_of(c, GPU_F_DEVICE_ID, c->device_id) && strcmp(c->device_id, parent_id) == 0) {
				parent = c;
				pi = j;
			}
		}
		const struct gpu *id = parent ? parent : g;
		uint64_t gi = 0;
		if (parent) {
			ordinal[i] = ordinal[pi];
			gi = instances[pi]++;
		} else {
			ordinal[i] = next++;
		}
		char drv[128];
		const char *driver = driver_of(f, g, drv, sizeof(drv));

		m[i].full_off = lb->len;
		gpu_labels(lb, names, ordinal[i], g, id, parent != NULL, gi, host, driver);
		m[i].full_len = lb->len - m[i].full_off;
		m[i].own_off = m[i].full_off;
		m[i].own_len = m[i].full_len;
		if (names != FIELD_NAMES_LEGACY) {
			m[i].own_off = lb->len;
			gpu_labels(lb, FIELD_NAMES_LEGACY, ordinal[i], g, id, parent != NULL, gi, host, driver);
			m[i].own_len = lb->len - m[i].own_off;
		}

		bool first = true;
		m[i].short_off = lb->len;
		prom_label_u64(lb, &first, "gpu", ordinal[i]);
		prom_label(lb, &first, "UUID", str_of(id, GPU_F_DEVICE_ID, id->device_id));
		if (parent)
			prom_label_u64(lb, &first, "GPU_I_ID", gi);
		prom_label(lb, &first, "Hostname", host);
		m[i].short_len = lb->len - m[i].short_off;
	}
	free(ordinal);
	free(instances);
}

/* The value of obj's field fd as its metric under names n. */
static bool field_number(const void *obj, const struct field *fd, enum field_names n, double *v)
{
	if (!field_valid(obj, fd))
		return false;
	switch (fd->type) {
	case FIELD_NUM:
		*v = field_prom_value(fd->prom, n, *(const long double *)field_cptr(obj, fd));
		return isfinite(*v);
	case FIELD_U64:
		*v = field_prom_value(fd->prom, n, *(const uint64_t *)field_cptr(obj, fd));
		return true;
	case FIELD_BOOL:
		*v = *(const bool *)field_cptr(obj, fd) ? 1 : 0;
		return true;
	default:
		return false;
	}
}

/* Opens a family of p under names n, whose help is the metric's own or else
 * help, and says which labels its GPU series take: gpur's own families keep
 * the legacy ones. */
static size_t begin_metric(struct buf *b, const struct field_prom *p, enum field_names n, const char *help,
			   struct field_metric *mt, bool *own)
{
	*mt = field_prom_metric(p, n);
	*own = own_family(mt->name);
	return prom_begin(b, mt->name, mt->type == FIELD_PROM_COUNTER ? "counter" : "gauge", mt->help ? mt->help : help);
}

/* A GPU's labels for a family, the legacy ones for gpur's own, and their
 * length. */
static const char *gpu_ls(const struct buf *lb, const struct gmeta *m, bool own, size_t *len)
{
	*len = own ? m->own_len : m->full_len;
	return lb->data + (own ? m->own_off : m->full_off);
}

/* The GPU memory idle processes hold (model/idle.h), per GPU read
 * normally whose process list answered: 0 is known when none is idle,
 * and unknown while the list failed. */
static void render_idle_memory(struct buf *b, const struct frame *f, const struct buf *lb, const struct gmeta *m)
{
	long double *idle = xcalloc(f->ngpus ? f->ngpus : 1, sizeof(*idle));
	for (size_t i = 0; i < f->nprocs; i++) {
		const struct gpu_process *p = &f->procs[i];
		if (p->idle_since_ms && p->gpu_index < f->ngpus && process_has(p, PROC_F_GPU_MEM))
			idle[p->gpu_index] += p->gpu_mem_bytes;
	}
	size_t mark = prom_begin(b, "gpur_idle_memory_bytes", "gauge",
				 "GPU memory held by idle processes (at 0% GPU for --idle-after, holding --idle-mem or more)");
	bool any = false;
	for (size_t i = 0; i < f->ngpus; i++)
		if (gpu_state(&f->gpus[i]) == GPU_STATE_OK && !gpu_procs_unknown(&f->gpus[i]))
			any |= prom_sample(b, "gpur_idle_memory_bytes", lb->data + m[i].own_off, m[i].own_len, NULL,
					   (double)idle[i]);
	prom_end(b, mark, any);
	free(idle);
}

static void render_gpu_fields(struct buf *b, const struct frame *f, enum field_names names, const struct buf *lb,
			      const struct gmeta *m)
{
	struct field_metric mt;
	bool own;
	size_t ll;

	for (size_t k = 0; k < GPU_NFIELDS; k++) {
		const struct field *fd = &GPU_FIELDS[k];
		if (!fd->prom)
			continue;
		size_t mark = begin_metric(b, fd->prom, names, fd->help, &mt, &own);
		bool any = false;
		for (size_t i = 0; i < f->ngpus; i++) {
			const struct gpu *g = &f->gpus[i];
			const char *ls = gpu_ls(lb, &m[i], own, &ll);
			if (fd->type == FIELD_FLAGS) {
				if (!field_valid(g, fd))
					continue;
				uint32_t bits = *(const uint32_t *)field_cptr(g, fd);
				for (unsigned r = 0; r < fd->nnames; r++) {
					char extra[96];
					snprintf(extra, sizeof(extra), "reason=\"%s\"", fd->names[r]);
					any |= prom_sample(b, mt.name, ls, ll, extra, (bits >> r & 1u) ? 1 : 0);
				}
				continue;
			}
			double v;
			if (field_number(g, fd, names, &v))
				any |= prom_sample(b, mt.name, ls, ll, NULL, v);
		}
		prom_end(b, mark, any);
	}

	const struct gpu_metric *free_mem = &GPU_METRIC_FB_FREE;
	size_t mark = begin_metric(b, free_mem->prom, names, free_mem->help, &mt, &own);
	bool any = false;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		const char *ls = gpu_ls(lb, &m[i], own, &ll);
		if (gpu_has(g, GPU_F_MEM_TOTAL) && gpu_has(g, GPU_F_MEM_USED))
			any |= prom_sample(b, mt.name, ls, ll, NULL,
					   field_prom_value(free_mem->prom, names, g->mem_total_bytes - g->mem_used_bytes));
	}
	prom_end(b, mark, any);

	static const struct { const char *name, *help; unsigned state; } STATES[] = {
		{"gpur_gpu_up", "1 while the GPU is read normally (state ok)", GPU_STATE_OK},
		{"gpur_gpu_lost", "1 while the GPU has fallen off the bus or needs a reset", GPU_STATE_LOST},
		{"gpur_gpu_suspended", "1 while the GPU is runtime-suspended (not woken to be read)", GPU_STATE_SUSPENDED},
	};
	for (size_t s = 0; s < sizeof(STATES) / sizeof(STATES[0]); s++) {
		mark = prom_begin(b, STATES[s].name, "gauge", STATES[s].help);
		any = false;
		for (size_t i = 0; i < f->ngpus; i++) {
			unsigned st = gpu_state(&f->gpus[i]);
			if (st != GPU_STATE__COUNT)
				any |= prom_sample(b, STATES[s].name, lb->data + m[i].own_off, m[i].own_len, NULL,
						   st == STATES[s].state ? 1 : 0);
		}
		prom_end(b, mark, any);
	}

	render_idle_memory(b, f, lb, m);
}


/* XID errors, for the GPUs of f that had any since gpur started: the last
 * one as dcgm-exporter serves it, and a counter per XID. A GPU without an
 * XID has no series, since gpur cannot tell "none" from "not reported". */
static void render_xids(struct buf *b, const struct frame *f, enum field_names names, const struct buf *lb,
			const struct gmeta *m, const struct prom_health *h)
{
	struct field_metric mt;
	bool own;
	size_t ll;
	size_t mark = begin_metric(b, GPU_METRIC_XID.prom, names, GPU_METRIC_XID.help, &mt, &own);
	bool any = false;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		const struct prom_xid_gpu *x = gpu_has(g, GPU_F_DEVICE_ID) && g->device_id ? prom_health_xid(h, g->device_id)
											   : NULL;
		const char *ls = gpu_ls(lb, &m[i], own, &ll);
		if (x)
			any |= prom_sample(b, mt.name, ls, ll, NULL, field_prom_value(GPU_METRIC_XID.prom, names, x->last));
	}
	prom_end(b, mark, any);
	mark = prom_begin(b, "gpur_xid_errors_total", "counter", "XID errors of the GPU since gpur started, by XID");
	any = false;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		const struct prom_xid_gpu *x = gpu_has(g, GPU_F_DEVICE_ID) && g->device_id ? prom_health_xid(h, g->device_id)
											   : NULL;
		for (size_t k = 0; x && k < x->nxids; k++) {
			char extra[48];
			snprintf(extra, sizeof(extra), "xid=\"%llu\"", (unsigned long long)x->xids[k].xid);
			any |= prom_sample(b, "gpur_xid_errors_total", lb->data + m[i].short_off, m[i].short_len, extra,
					   (double)x->xids[k].count);
		}
	}
	prom_end(b, mark, any);
}

static int by_mem_desc(const void *a, const void *b, void *ctx)
{
	const struct gpu_process *procs = ctx;
	const struct gpu_process *x = &procs[*(const size_t *)a], *y = &procs[*(const size_t *)b];
	bool kx = process_has(x, PROC_F_GPU_MEM), ky = process_has(y, PROC_F_GPU_MEM);
	if (kx != ky)
		return kx ? -1 : 1;
	if (kx && x->gpu_mem_bytes != y->gpu_mem_bytes)
		return x->gpu_mem_bytes > y->gpu_mem_bytes ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int by_gpu_pid(const void *a, const void *b, void *ctx)
{
	const struct gpu_process *procs = ctx;
	const struct gpu_process *x = &procs[*(const size_t *)a], *y = &procs[*(const size_t *)b];
	if (x->gpu_index != y->gpu_index)
		return x->gpu_index < y->gpu_index ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : (*(const size_t *)a > *(const size_t *)b);
}

static const char *pstr(const struct gpu_process *p, enum process_field f, const char *s)
{
	return process_has(p, f) && s && *s ? s : NULL;
}

/* Per-process series, for at most max rows, those with the most GPU memory
 * first. A (GPU, pid) pair that comes twice in a frame, as in a hand-made
 * recording, is one series. Returns the number of rows left out. */
static size_t render_processes(struct buf *b, const struct frame *f, const struct buf *lb, const struct gmeta *m,
			       size_t max)
{
	size_t n = f->nprocs, keep = n < max ? n : max, left = 0;
	size_t *rows = xcalloc(n ? n : 1, sizeof(*rows));
	struct buf ls;

	for (size_t i = 0; i < n; i++)
		rows[i] = i;
	if (n > keep)
		qsort_r(rows, n, sizeof(*rows), by_mem_desc, f->procs);
	left = n - keep;
	qsort_r(rows, keep, sizeof(*rows), by_gpu_pid, f->procs);
	size_t *label_off = xcalloc(keep ? keep : 1, sizeof(*label_off) * 2);
	buf_init(&ls);
	size_t uniq = 0;
	for (size_t k = 0; k < keep; k++) {
		const struct gpu_process *p = &f->procs[rows[k]];
		if (!process_has(p, PROC_F_PID) || p->gpu_index >= f->ngpus ||
		    (uniq && f->procs[rows[uniq - 1]].gpu_index == p->gpu_index && f->procs[rows[uniq - 1]].pid == p->pid)) {
			left++;
			continue;
		}
		rows[uniq] = rows[k];
		const struct gmeta *gm = &m[p->gpu_index];
		char podbuf[PROCESS_POD_NAME_MAX + 1];
		label_off[2 * uniq] = ls.len;
		prom_put(&ls, lb->data + gm->short_off, gm->short_len);
		bool first = gm->short_len == 0;
		prom_label_u64(&ls, &first, "pid", p->pid);
		prom_label(&ls, &first, "comm", pstr(p, PROC_F_NAME, p->name));
		prom_label(&ls, &first, "user", pstr(p, PROC_F_USER, p->user));
		const char *ctr = pstr(p, PROC_F_CONTAINER_NAME, p->container_name);
		prom_label(&ls, &first, "container", ctr ? ctr : pstr(p, PROC_F_CONTAINER, p->container));
		const char *pod = pstr(p, PROC_F_POD_NAME, p->pod_name);
		snprintf(podbuf, sizeof(podbuf), "%s", pod ? pod : pstr(p, PROC_F_POD, p->pod) ? p->pod : "");
		prom_label(&ls, &first, "pod", podbuf);
		prom_label(&ls, &first, "namespace", pstr(p, PROC_F_POD_NAMESPACE, p->pod_namespace));
		label_off[2 * uniq + 1] = ls.len - label_off[2 * uniq];
		uniq++;
	}
	for (size_t k = 0; k < PROCESS_NFIELDS; k++) {
		const struct field *fd = &PROCESS_FIELDS[k];
		if (!fd->prom)
			continue;
		size_t mark = prom_begin(b, fd->prom->name, fd->prom->type == FIELD_PROM_COUNTER ? "counter" : "gauge",
					 fd->help);
		bool any = false;
		for (size_t r = 0; r < uniq; r++) {
			double v;
			if (field_number(&f->procs[rows[r]], fd, FIELD_NAMES_LEGACY, &v))
				any |= prom_sample(b, fd->prom->name, ls.data + label_off[2 * r], label_off[2 * r + 1], NULL, v);
		}
		prom_end(b, mark, any);
	}
	/* How long each idle process has been idle (model/idle.h); the others
	 * have no series. */
	size_t mark = prom_begin(b, "gpur_process_idle_seconds", "gauge",
				 "how long the process has held its GPU memory at 0% GPU, while it is idle (--idle-mem, --idle-after)");
	bool any = false;
	for (size_t r = 0; r < uniq; r++) {
		const struct gpu_process *p = &f->procs[rows[r]];
		if (p->idle_since_ms && frame_has(f, FRAME_F_TS))
			any |= prom_sample(b, "gpur_process_idle_seconds", ls.data + label_off[2 * r], label_off[2 * r + 1], NULL,
					   f->ts_ms > p->idle_since_ms ? (double)(f->ts_ms - p->idle_since_ms) / 1000.0 : 0);
	}
	prom_end(b, mark, any);
	buf_fini(&ls);
	free(label_off);
	free(rows);
	return left;
}

/* Sums per container or pod, grouped as the dashboard's `g` groups by
 * container, so the rows of one container id, or else of one pod uid, are
 * one group. Rows without a container or pod are not a container's. A sum
 * that any row lacks is unknown and gives no sample. Returns the number of
 * groups left out. */
static size_t render_containers(struct buf *b, const struct frame *f, const char *host, size_t max)
{
	struct grouping g;
	size_t *rows = xcalloc(f->nprocs ? f->nprocs : 1, sizeof(*rows));
	struct buf ls;
	size_t left = 0, n = 0;

	for (size_t i = 0; i < f->nprocs; i++)
		rows[i] = i;
	group_init(&g);
	group_build(&g, f, rows, f->nprocs, GROUP_BY_CONTAINER, GROUP_SORT_MEM, false);
	size_t *off = xcalloc(g.ngroups ? g.ngroups : 1, 2 * sizeof(*off));
	const struct group **grp = xcalloc(g.ngroups ? g.ngroups : 1, sizeof(*grp));
	buf_init(&ls);
	for (size_t i = 0; i < g.ngroups; i++) {
		const struct group *gr = &g.groups[i];
		const struct gpu_process *p = &f->procs[gr->first];
		const char *cid = pstr(p, PROC_F_CONTAINER, p->container), *puid = pstr(p, PROC_F_POD, p->pod);
		if (!cid && !puid)
			continue; /* the rows of a unit or of nobody */
		if (n == max) {
			left++;
			continue;
		}
		bool first = true;
		off[2 * n] = ls.len;
		const char *name = pstr(p, PROC_F_CONTAINER_NAME, p->container_name);
		prom_label(&ls, &first, "container", name ? name : cid);
		prom_label(&ls, &first, "container_id", cid);
		prom_label(&ls, &first, "pod", pstr(p, PROC_F_POD_NAME, p->pod_name));
		prom_label(&ls, &first, "namespace", pstr(p, PROC_F_POD_NAMESPACE, p->pod_namespace));
		prom_label(&ls, &first, "pod_uid", cid ? NULL : puid);
		prom_label(&ls, &first, "Hostname", host);
		off[2 * n + 1] = ls.len - off[2 * n];
		grp[n++] = gr;
	}
	static const struct { const char *name, *help; int what; } FAM[] = {
		{"gpur_container_gpu_memory_bytes", "GPU memory of the container's processes, all GPUs (bytes)", 0},
		{"gpur_container_gpu_util_percent", "sum of the container's per-process GPU utilisation, all GPUs (%)", 1},
		{"gpur_container_processes", "GPU process rows of the container (a process on two GPUs counts twice)", 2},
		{"gpur_container_gpus", "GPUs the container's processes use", 3},
	};
	for (size_t k = 0; k < sizeof(FAM) / sizeof(FAM[0]); k++) {
		size_t mark = prom_begin(b, FAM[k].name, "gauge", FAM[k].help);
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			const struct group *gr = grp[i];
			double v = NAN;
			if (FAM[k].what == 0 && gr->mem_known)
				v = (double)gr->mem_bytes;
			else if (FAM[k].what == 1 && gr->util_known)
				v = (double)gr->util_pct;
			else if (FAM[k].what == 2)
				v = (double)gr->nprocs;
			else if (FAM[k].what == 3)
				v = (double)gr->ngpus;
			any |= prom_sample(b, FAM[k].name, ls.data + off[2 * i], off[2 * i + 1], NULL, v);
		}
		prom_end(b, mark, any);
	}
	buf_fini(&ls);
	free(grp);
	free(off);
	free(rows);
	group_fini(&g);
	return left;
}







void prom_render(struct buf *out, const struct frame *f, const struct prom_opts *o, struct prom_health *h)
{
	const char *host = o->hostname ? o->hostname : frame_has(f, FRAME_F_HOST) ? f->host : NULL;
	struct gmeta *m = xcalloc(f->ngpus ? f->ngpus : 1, sizeof(*m));
	struct buf lb;
	uint64_t left[2] = {0, 0};

	buf_init(&lb);
	buf_reserve(&lb, 256);
	build_labels(f, host, o->names, &lb, m);
	render_gpu_fields(out, f, o->names, &lb, m);
	render_xids(out, f, o->names, &lb, m, h);
	if (o->processes)
		left[0] = render_processes(out, f, &lb, m, o->max_process_rows ? o->max_process_rows : PROM_MAX_PROCESS_ROWS);
	left[1] = render_containers(out, f, host, o->max_containers ? o->max_containers : PROM_MAX_CONTAINERS);
	h->left_out_total[0] += left[0];
	h->left_out_total[1] += left[1];
	prom_health_render(out, f, o, h, host, left);
	buf_fini(&lb);
	free(m);
}

size_t prom_render_tail(char *buf, size_t n, uint64_t scrapes)
{
	int len = snprintf(buf, n,
			   "# HELP gpur_exporter_scrapes_total scrapes of /metrics answered, this one included\n"
			   "# TYPE gpur_exporter_scrapes_total counter\n"
			   "gpur_exporter_scrapes_total %llu\n",
			   (unsigned long long)scrapes);
	return len > 0 && (size_t)len < n ? (size_t)len : 0;
}
