/* drm: the amdgpu, intel and drm backends, one implementation over the DRM
 * core (drm/drm_card, drm_sysfs, drm_clients) and a descriptor per driver.
 * The backends differ only in which descriptors they serve. A
 * runtime-suspended device is never woken; it is shown `suspended` with the
 * identity and totals read while it was awake. */
#include "backend/drm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drm/drm_card.h"
#include "drm/drm_clients.h"
#include "drm/drm_desc.h"
#include "drm/drm_sysfs.h"
#include "drm/fdinfo.h"
#include "util/xalloc.h"

struct drm_kind {
	const struct drm_desc *const *descs; /* NULL-terminated */
	const char *what;                    /* "amdgpu", the driver named when no card is found */
};

struct drm_gpu {
	struct drm_card card;
	const struct drm_desc *desc;
	struct drm_sysfs_state st;
	struct gpu statics; /* totals, limits, maxima and thresholds of the last awake read */
	bool lost;
};

struct drm_be {
	const struct drm_kind *kind;
	int sysfs_fd;
	char *procfs, *sysfs;
	const struct clock *clock;
	uint64_t rate_window_ns; /* the shortest window of a power or an engine's rate */
	struct fdinfo *fdi;
	struct drm_gpu *gpus;
	size_t ngpus;
	uint64_t last_ns;
	struct fdinfo_client *clients;
	size_t nclients_cap;
	char driver[64], label[64];
};

static const struct drm_desc *kind_desc(const struct drm_kind *k, const char *driver)
{
	for (const struct drm_desc *const *d = k->descs; *d; d++)
		if (drm_desc_covers(*d, driver))
			return *d;
	return NULL;
}

static bool kind_wants(const char *driver, const void *ctx)
{
	return kind_desc(ctx, driver) != NULL;
}

/* Keeps g's static fields, the totals, limits, maxima and thresholds that are
 * not readings, for the polls in which the device sleeps. */
static void keep_statics(struct gpu *statics, const struct gpu *g)
{
	for (size_t i = 0; i < GPU_NFIELDS; i++) {
		const struct field *fd = &GPU_FIELDS[i];
		if ((fd->flags & FIELD_READING) || !field_valid(g, fd) || (fd->type != FIELD_NUM && fd->type != FIELD_U64))
			continue;
		size_t size = fd->type == FIELD_NUM ? sizeof(long double) : sizeof(uint64_t);
		memcpy(field_ptr(statics, fd), field_cptr(g, fd), size);
		field_set_valid(statics, fd, true);
	}
}

static void set_str(struct frame *f, struct gpu *g, enum gpu_field b, const char *s)
{
	*(const char **)field_ptr(g, &GPU_FIELDS[b]) = frame_str(f, s);
	gpu_set(g, b);
}

/* The drivers of the cards found, each once, as in "amdgpu" or "i915/xe". */
static void make_label(struct drm_be *d)
{
	size_t at = 0;

	d->label[0] = '\0';
	for (size_t i = 0; i < d->ngpus; i++) {
		const char *drv = d->gpus[i].card.driver;
		bool dup = false;
		for (size_t k = 0; k < i; k++)
			dup |= strcmp(d->gpus[k].card.driver, drv) == 0;
		if (dup)
			continue;
		int w = snprintf(d->label + at, sizeof(d->label) - at, "%s%s", at ? "/" : "", drv);
		if (w < 0 || (size_t)w >= sizeof(d->label) - at)
			break;
		at += (size_t)w;
	}
}

/* Finds the cards again. Known ones keep their positions by device_id, new
 * ones are appended, and vanished ones are lost. */
static int scan(struct backend *b, struct drm_be *d)
{
	struct drm_card *found = xcalloc(DRM_CARD_MAX, sizeof(*found));
	int n = drm_card_scan(d->sysfs_fd, kind_wants, d->kind, found, DRM_CARD_MAX);

	if (n <= 0) {
		free(found);
		if (d->ngpus == 0) {
			backend_fail(b, "no DRM card bound to %s under %s/class/drm", d->kind->what, d->sysfs);
			return -ENODEV;
		}
		for (size_t i = 0; i < d->ngpus; i++)
			d->gpus[i].lost = true;
		return 0;
	}
	for (size_t i = 0; i < d->ngpus; i++)
		d->gpus[i].lost = true;
	for (int k = 0; k < n; k++) {
		struct drm_gpu *g = NULL;
		for (size_t i = 0; i < d->ngpus && !g; i++)
			if (strcmp(d->gpus[i].card.device_id, found[k].device_id) == 0)
				g = &d->gpus[i];
		if (!g) {
			d->gpus = xreallocarray(d->gpus, d->ngpus + 1, sizeof(*d->gpus));
			g = &d->gpus[d->ngpus++];
			memset(g, 0, sizeof(*g));
		}
		g->card = found[k]; /* card numbers can change across a rebind */
		g->desc = kind_desc(d->kind, g->card.driver);
		g->lost = false;
	}
	free(found);
	make_label(d);
	return 0;
}

static void drm_close(struct backend *b)
{
	struct drm_be *d = b->priv;

	if (!d)
		return;
	if (d->sysfs_fd >= 0)
		close(d->sysfs_fd);
	fdinfo_release(d->fdi);
	free(d->gpus);
	free(d->clients);
	free(d->procfs);
	free(d->sysfs);
	free(d);
	b->priv = NULL;
}

static char *dup_root(const char *s, const char *dflt)
{
	char *r = xstrdup(s && *s ? s : dflt);
	size_t n = strlen(r);

	while (n > 1 && r[n - 1] == '/')
		r[--n] = '\0';
	return r;
}

static int drm_open(struct backend *b, const struct backend_env *env, const struct drm_kind *kind)
{
	struct drm_be *d = xcalloc(1, sizeof(*d));

	b->priv = d;
	d->kind = kind;
	d->sysfs = dup_root(env->sysfs, "/sys");
	d->procfs = dup_root(env->procfs, "/proc");
	d->clock = env->clock ? env->clock : &CLOCK_SYSTEM;
	d->rate_window_ns = env->rate_window_ns;
	d->sysfs_fd = open(d->sysfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d->sysfs_fd < 0) {
		backend_fail(b, "no DRM card bound to %s under %s/class/drm", kind->what, d->sysfs);
		drm_close(b);
		return -ENODEV;
	}
	int rc = scan(b, d);
	if (rc < 0) {
		drm_close(b);
		return rc;
	}
	/* The driver string, which is the first card's driver, since a backend has
	 * one version. */
	drm_sysfs_driver_version(d->sysfs_fd, d->procfs, d->gpus[0].desc, d->driver, sizeof(d->driver));
	d->fdi = fdinfo_acquire(d->procfs);
	fdinfo_set_rate_window(d->fdi, d->rate_window_ns);
	return 0;
}

static int drm_reinit(struct backend *b)
{
	return scan(b, b->priv);
}

/* Puts the clients of g from the last sweep into d->clients and returns how
 * many there are. */
static size_t gpu_clients(struct drm_be *d, const struct drm_gpu *g)
{
	const char *pdev = g->card.pci ? g->card.pci_bus_id : "";

	for (;;) {
		size_t n = fdinfo_clients(d->fdi, g->card.driver, pdev, d->clients, d->nclients_cap);
		if (n <= d->nclients_cap)
			return n;
		d->nclients_cap = n + 16;
		d->clients = xreallocarray(d->clients, d->nclients_cap, sizeof(*d->clients));
	}
}

/* Device figures summed from clients, for drivers whose sysfs has none. They
 * are known when some client had a rate, or when there is no client at all
 * and gpur runs as root, so that every process's fdinfo was readable. */
static void apply_sums(const struct drm_desc *desc, const struct drm_clients_sum *s, struct gpu *g)
{
	bool none_seen = s->nclients == 0 && geteuid() == 0;

	if (!desc->util_from_clients)
		return;
	if (!gpu_has(g, GPU_F_UTIL) && (s->util_known || none_seen)) {
		g->util_pct = s->util_known ? s->util_pct : 0;
		gpu_set(g, GPU_F_UTIL);
	}
	if (!gpu_has(g, GPU_F_MEM_USED) && gpu_has(g, GPU_F_MEM_TOTAL) && (s->vram_known || none_seen)) {
		g->mem_used_bytes = s->vram_known ? s->vram_bytes : 0;
		gpu_set(g, GPU_F_MEM_USED);
	}
	if (!gpu_has(g, GPU_F_ENC) && s->enc_known) {
		g->enc_pct = s->enc_pct;
		gpu_set(g, GPU_F_ENC);
	}
	if (!gpu_has(g, GPU_F_DEC) && s->dec_known) {
		g->dec_pct = s->dec_pct;
		gpu_set(g, GPU_F_DEC);
	}
}

static void put_identity(struct frame *f, struct gpu *out, const struct drm_gpu *g)
{
	*out = g->statics;
	out->name = out->device_id = out->parent_device_id = out->vendor = out->pci_bus_id = NULL;
	set_str(f, out, GPU_F_NAME, g->card.name);
	set_str(f, out, GPU_F_DEVICE_ID, g->card.device_id);
	set_str(f, out, GPU_F_VENDOR, g->desc->vendor ? g->desc->vendor : g->card.driver);
	if (g->card.pci)
		set_str(f, out, GPU_F_PCI_BUS_ID, g->card.pci_bus_id);
	/* A static fact, kept while the GPU sleeps or is gone. */
	if (g->st.integrated_read && g->st.integrated >= 0) {
		out->integrated = g->st.integrated;
		gpu_set(out, GPU_F_INTEGRATED);
	}
}

static int drm_poll(struct backend *b, struct frame *f)
{
	struct drm_be *d = b->priv;
	uint64_t now_ns = clock_mono(d->clock) * 1000000u;
	/* Backends polled together share one sweep, so reuse one that is
	 * younger than half the time since this backend's last poll, and at
	 * most 1 s old. */
	uint64_t since = d->last_ns && now_ns > d->last_ns ? now_ns - d->last_ns : 40000000u;
	uint64_t reuse = since / 2 < 1000000000u ? since / 2 : 1000000000u;
	bool swept = fdinfo_sweep(d->fdi, now_ns, reuse) == 0;

	d->last_ns = now_ns;
	for (size_t i = 0; i < d->ngpus; i++) {
		struct drm_gpu *g = &d->gpus[i];
		struct gpu *out = frame_add_gpu(f);
		if (!out)
			break;
		put_identity(f, out, g);
		size_t index = f->ngpus - 1;
		if (g->lost || !drm_sysfs_present(d->sysfs_fd, &g->card)) {
			g->lost = true;
			out->state = GPU_STATE_LOST;
			gpu_set(out, GPU_F_STATE);
			continue;
		}
		if (drm_sysfs_suspended(d->sysfs_fd, &g->card)) {
			out->state = GPU_STATE_SUSPENDED;
			gpu_set(out, GPU_F_STATE);
			g->st.energy.known = false; /* no rate across a sleep */
			continue;
		}
		out->state = GPU_STATE_OK;
		gpu_set(out, GPU_F_STATE);
		drm_sysfs_read(d->sysfs_fd, &g->card, g->desc, &g->st, now_ns, d->rate_window_ns, out);
		if (g->st.perf_level[0])
			set_str(f, out, GPU_F_PERF_LEVEL, g->st.perf_level);
		if (g->st.integrated >= 0) {
			out->integrated = g->st.integrated;
			gpu_set(out, GPU_F_INTEGRATED);
		}
		keep_statics(&g->statics, out);
		if (swept) {
			struct drm_clients_sum sum;
			size_t n = gpu_clients(d, g);
			drm_clients_rows(g->desc, d->clients, n, index, f, &sum);
			apply_sums(g->desc, &sum, out);
		}
	}
	if (d->driver[0]) {
		f->driver = frame_str(f, d->driver);
		frame_set(f, FRAME_F_DRIVER);
	}
	if (d->label[0])
		f->driver_label = frame_str(f, d->label);
	return 0;
}

static bool drm_can_signal(const struct backend *b)
{
	(void)b;
	return true;
}

static const struct drm_desc *const AMDGPU_DESCS[] = {&DRM_DESC_AMDGPU, NULL};
static const struct drm_desc *const INTEL_DESCS[] = {&DRM_DESC_I915, &DRM_DESC_XE, NULL};
static const struct drm_desc *const GENERIC_DESCS[] = {&DRM_DESC_GENERIC, NULL};
static const struct drm_kind KIND_AMDGPU = {AMDGPU_DESCS, "amdgpu"};
static const struct drm_kind KIND_INTEL = {INTEL_DESCS, "i915 or xe"};
static const struct drm_kind KIND_DRM = {GENERIC_DESCS, "a render driver with client stats (msm, panfrost, v3d, ...)"};

static int amdgpu_open(struct backend *b, const struct backend_env *env)
{
	return drm_open(b, env, &KIND_AMDGPU);
}
static int intel_open(struct backend *b, const struct backend_env *env)
{
	return drm_open(b, env, &KIND_INTEL);
}
static int generic_open(struct backend *b, const struct backend_env *env)
{
	return drm_open(b, env, &KIND_DRM);
}

#define DRM_OPS(n, o) \
	{.name = n, .open = o, .poll = drm_poll, .reinit = drm_reinit, .can_signal = drm_can_signal, .close = drm_close}
const struct backend_ops BACKEND_AMDGPU = DRM_OPS("amdgpu", amdgpu_open);
const struct backend_ops BACKEND_INTEL = DRM_OPS("intel", intel_open);
const struct backend_ops BACKEND_DRM = DRM_OPS("drm", generic_open);
