/* nvml: the NVIDIA backend. It reads every field NVML can give, and each one
 * is unknown on its own when its getter is missing or unsupported.
 * GPU_IS_LOST and RESET_REQUIRED are per device, and a failing library is
 * reported as lost so that the sampler re-detects it. PCIe throughput, a
 * ~20 ms blocking call, is read by a thread of its own every few seconds, off
 * the poll's path. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/nvml.h"
#include "backend/nvml_lib.h"
#include "backend/nvml_priv.h"
#include "util/pciaddr.h"
#include "util/xalloc.h"

enum outcome nvml_classify(nvmlReturn_t r)
{
	switch (r) {
	case NVML_SUCCESS:
		return NV_OK;
	case NVML_ERROR_GPU_IS_LOST:
	case NVML_ERROR_RESET_REQUIRED:
		return NV_GPU_LOST;
	case NVML_ERROR_UNINITIALIZED:
	case NVML_ERROR_DRIVER_NOT_LOADED:
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
		return NV_LIB_LOST;
	default:
		return NV_UNKNOWN;
	}
}

bool nvml_took(struct rd *rd, nvmlReturn_t r)
{
	enum outcome o = nvml_classify(r);

	if (o == NV_OK)
		return true;
	if ((o == NV_GPU_LOST && rd->fatal == NV_OK) || o == NV_LIB_LOST) {
		rd->fatal = o;
		rd->fatal_code = r;
	}
	return false;
}

void nvml_note(struct nvml *n, const char *fmt, ...)
{
	va_list ap;

	if (n->nnotes >= sizeof(n->notes) / sizeof(n->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(n->notes[n->nnotes++], sizeof(n->notes[0]), fmt, ap);
	va_end(ap);
}

static void flush_notes(struct nvml *n, struct frame *f)
{
	for (size_t i = 0; i < n->nnotes; i++) {
		struct event *e = frame_note(f, EVENT_NOTE, "%s", n->notes[i]);
		if (e) {
			e->backend = frame_str(f, "nvml");
			e->valid |= UINT64_C(1) << EVENT_F_BACKEND;
		}
	}
	n->nnotes = 0;
}

static void set_str(struct frame *f, struct gpu *g, enum gpu_field b, const char *s)
{
	const struct field *fd = &GPU_FIELDS[b];
	*(const char **)field_ptr(g, fd) = frame_str(f, s);
	gpu_set(g, b);
}

/* The PCI address from what the resolved entry point filled. _v3 fills the
 * current layout, with busId at offset 36. _v2 and the plain one fill the
 * old layout, whose 16-byte bus id sits at offset 0, where busIdLegacy is
 * now. */
static bool read_pci(const struct nvml_lib *L, struct rd *rd, char out[16])
{
	nvmlPciInfo_t pci;
	char id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];

	memset(&pci, 0, sizeof(pci));
	if (!nvml_took(rd, L->get_pci_info(rd->h, &pci)))
		return false;
	if (L->pci_old_layout)
		memcpy(id, pci.busIdLegacy, sizeof(pci.busIdLegacy));
	else
		memcpy(id, pci.busId, sizeof(pci.busId));
	id[(L->pci_old_layout ? sizeof(pci.busIdLegacy) : sizeof(pci.busId)) - 1] = '\0';
	return pciaddr_normalise(id, out);
}

/* Name, UUID, PCI address and the fields that do not change. */
static void read_identity(struct nvml *n, struct nvml_dev *d, enum outcome *fatal)
{
	struct rd rd = {.n = n, .d = d, .h = d->h, .now_ms = clock_mono(n->clock)};
	const struct nvml_lib *L = &n->lib;
	struct gpu *s = &d->statics;
	unsigned cur, pend;

	memset(s, 0, sizeof(*s));
	/* Strings from the library end where the buffer ends, whatever it
	 * wrote. */
	if (L->get_name && nvml_took(&rd, L->get_name(d->h, d->name, sizeof(d->name)))) {
		d->name[sizeof(d->name) - 1] = '\0';
		d->have_name = true;
	}
	if (rd.fatal == NV_OK && L->get_uuid && nvml_took(&rd, L->get_uuid(d->h, d->uuid, sizeof(d->uuid)))) {
		d->uuid[sizeof(d->uuid) - 1] = '\0';
		d->have_uuid = d->uuid[0] != '\0';
	}
	if (rd.fatal == NV_OK && L->get_pci_info)
		d->have_pci = read_pci(L, &rd, d->pci);
	d->mig = false;
	if (rd.fatal == NV_OK && L->get_mig_mode && nvml_took(&rd, L->get_mig_mode(d->h, &cur, &pend))) {
		s->mig_mode = d->mig = cur == NVML_DEVICE_MIG_ENABLE;
		gpu_set(s, GPU_F_MIG_MODE);
	}
	nvml_getters_read(&rd, s, NVML_READ_STATIC);
	*fatal = rd.fatal;
}

/* The identity part of a GPU entry. When NVML gives no UUID, device_id falls
 * back to the PCI address and then to the index. */
static struct gpu *put_identity(struct frame *f, struct nvml_dev *d, size_t index)
{
	struct gpu *g = frame_add_gpu(f);

	if (!g)
		return NULL;
	*g = d->statics;
	g->name = g->device_id = g->parent_device_id = g->vendor = g->pci_bus_id = NULL;
	set_str(f, g, GPU_F_VENDOR, "nvidia");
	if (d->have_name)
		set_str(f, g, GPU_F_NAME, d->name);
	if (d->have_pci)
		set_str(f, g, GPU_F_PCI_BUS_ID, d->pci);
	/* The id first reported stays for the backend's life, so a GPU that
	 * was lost before its UUID could be read keeps its position. */
	if (!d->id[0]) {
		if (d->have_uuid)
			snprintf(d->id, sizeof(d->id), "%s", d->uuid);
		else if (d->have_pci)
			snprintf(d->id, sizeof(d->id), "pci:%s", d->pci);
		else
			snprintf(d->id, sizeof(d->id), "nvml:%zu", index);
	}
	set_str(f, g, GPU_F_DEVICE_ID, d->id);
	g->state = d->lost ? GPU_STATE_LOST : GPU_STATE_OK;
	gpu_set(g, GPU_F_STATE);
	return g;
}

/* A GPU whose driver gives the energy counter but no power reading gets its
 * power from the counter, over a window that carries a rate, by the rule
 * DRM's hwmon counters follow. */
static void power_from_energy(const struct nvml *n, struct nvml_dev *d, struct gpu *g, uint64_t now_ms)
{
	long double w;

	if (gpu_has(g, GPU_F_POWER) || !gpu_has(g, GPU_F_ENERGY) || !(g->energy_j >= 0)) {
		d->energy.known = false;
		return;
	}
	uint64_t uj = (uint64_t)(g->energy_j * 1e6L + 0.5L);
	if (drm_energy_sample(&d->energy, uj, now_ms * UINT64_C(1000000), n->rate_window_ns, &w) &&
	    field_set_number(g, &GPU_FIELDS[GPU_F_POWER], w))
		gpu_set(g, GPU_F_POWER);
}

static void read_gpu(struct nvml *n, struct nvml_dev *d, struct gpu *g, struct rd *rd)
{
	/* The limit kept in the statics is for a GPU that gets lost; a GPU
	 * that answers carries the held one, or none when its read failed. */
	field_set_valid(g, &GPU_FIELDS[GPU_F_POWER_LIMIT], false);
	nvml_getters_read(rd, g, NVML_READ_POLL);
	power_from_energy(n, d, g, rd->now_ms);
	/* Sizes and limits stay known for a GPU that gets lost later. */
	if (gpu_has(g, GPU_F_MEM_TOTAL)) {
		d->statics.mem_total_bytes = g->mem_total_bytes;
		gpu_set(&d->statics, GPU_F_MEM_TOTAL);
	}
	if (gpu_has(g, GPU_F_POWER_LIMIT)) {
		d->statics.power_limit_w = g->power_limit_w;
		gpu_set(&d->statics, GPU_F_POWER_LIMIT);
	}
	size_t i = (size_t)(d - n->dev);
	bool by_gpm = nvml_gpm_read(rd, i, -1, d->h, d->h, g, d->have_name ? d->name : NULL);
	nvml_slow_get(n, i, g, by_gpm);
}

/* The MIG instances of d, each a GPU of its own after its parent. */
static void read_mig(struct nvml *n, struct nvml_dev *d, struct frame *f, struct rd *prd)
{
	const struct nvml_lib *L = &n->lib;
	unsigned max = 0;

	if (!L->get_max_mig_device_count || !L->get_mig_device_handle_by_index ||
	    !nvml_took(prd, L->get_max_mig_device_count(d->h, &max)))
		return;
	for (unsigned i = 0; i < max && i < NVML_MIG_SLOTS && prd->fatal == NV_OK; i++) {
		nvmlDevice_t mh;
		nvmlReturn_t r = L->get_mig_device_handle_by_index(d->h, i, &mh);
		if (r == NVML_ERROR_NOT_FOUND)
			continue; /* an empty slot */
		if (!nvml_took(prd, r))
			continue;
		struct nvml_dev mig = {.h = mh, .never = d->mig_never[i], .plist_never = d->mig_plist_never[i]};
		struct rd rd = {.n = n, .d = &mig, .h = mh, .now_ms = prd->now_ms};
		struct gpu *g = frame_add_gpu(f);
		if (!g)
			return;
		if (L->get_name && nvml_took(&rd, L->get_name(mh, mig.name, sizeof(mig.name)))) {
			mig.name[sizeof(mig.name) - 1] = '\0';
			set_str(f, g, GPU_F_NAME, mig.name);
		}
		bool have_uuid = L->get_uuid && nvml_took(&rd, L->get_uuid(mh, mig.uuid, sizeof(mig.uuid)));
		mig.uuid[sizeof(mig.uuid) - 1] = '\0';
		if (have_uuid && mig.uuid[0]) {
			set_str(f, g, GPU_F_DEVICE_ID, mig.uuid);
		} else {
			char id[160];
			snprintf(id, sizeof(id), "%s/mig%u", d->have_uuid ? d->uuid : "nvml", i);
			set_str(f, g, GPU_F_DEVICE_ID, id);
		}
		if (d->have_uuid)
			set_str(f, g, GPU_F_PARENT_DEVICE_ID, d->uuid);
		if (d->have_pci)
			set_str(f, g, GPU_F_PCI_BUS_ID, d->pci);
		set_str(f, g, GPU_F_VENDOR, "nvidia");
		g->state = GPU_STATE_OK;
		gpu_set(g, GPU_F_STATE);
		nvml_getters_read(&rd, g, NVML_READ_MEMORY);
		(void)nvml_gpm_read(&rd, (size_t)(d - n->dev), (int)i, d->h, mh, g, d->have_name ? d->name : NULL);
		size_t index = f->ngpus - 1;
		nvml_device_processes(&rd, f, index, false);
		d->mig_never[i] = mig.never;
		d->mig_plist_never[i] = mig.plist_never;
		if (rd.fatal != NV_OK) {
			prd->fatal = rd.fatal;
			prd->fatal_code = rd.fatal_code;
		}
	}
}

/* Reads every GPU's handle and identity into a new list. */
static int enumerate_fresh(struct nvml *n, struct nvml_dev **out, size_t *nout, char *err, size_t errlen)
{
	const struct nvml_lib *L = &n->lib;
	unsigned count = 0;
	char msg[160];
	nvmlReturn_t r = L->get_count(&count);

	*out = NULL;
	*nout = 0;
	if (r != NVML_SUCCESS) {
		snprintf(err, errlen, "nvmlDeviceGetCount failed: %s", nvml_lib_strerror(L, r, msg, sizeof(msg)));
		return -ENODEV;
	}
	if (count > FRAME_MAX_GPUS)
		count = FRAME_MAX_GPUS;
	struct nvml_dev *fresh = xcalloc(count ? count : 1, sizeof(*fresh));
	size_t nfresh = 0;
	for (unsigned i = 0; i < count; i++) {
		struct nvml_dev *d = &fresh[nfresh];
		enum outcome fatal = NV_OK;
		memset(d, 0, sizeof(*d));
		r = L->get_handle_by_index(i, &d->h);
		if (nvml_classify(r) == NV_LIB_LOST) {
			snprintf(err, errlen, "nvmlDeviceGetHandleByIndex(%u) failed: %s", i,
				 nvml_lib_strerror(L, r, msg, sizeof(msg)));
			free(fresh);
			return -ENODEV;
		}
		if (r == NVML_ERROR_NO_PERMISSION) {
			/* The GPU is counted but not ours to open, because of cgroup
			 * device rules or a container given other GPUs. It is left
			 * out rather than lost. */
			if (!(n->refused_said >> (i < 63 ? i : 63) & 1u))
				nvml_note(n, "nvml: GPU %u is not accessible to this process (%s); left out", i,
					  nvml_lib_strerror(L, r, msg, sizeof(msg)));
			n->refused_said |= UINT64_C(1) << (i < 63 ? i : 63);
			continue;
		}
		if (r == NVML_SUCCESS)
			read_identity(n, d, &fatal);
		if (fatal == NV_LIB_LOST) {
			snprintf(err, errlen, "NVML failed while reading GPU %u", i);
			free(fresh);
			return -ENODEV;
		}
		d->lost = r != NVML_SUCCESS || fatal == NV_GPU_LOST;
		nfresh++;
	}
	n->counted = count;
	*out = fresh;
	*nout = nfresh;
	return 0;
}

/* Enumerates the GPUs. On re-initialisation each GPU found is matched at most
 * once to a known one, by UUID or else by position, so identities and
 * positions survive and two GPUs are never merged. The caller holds the slow
 * thread meanwhile. */
static int enumerate(struct nvml *n, char *err, size_t errlen)
{
	struct nvml_dev *fresh;
	size_t nfresh;

	if (enumerate_fresh(n, &fresh, &nfresh, err, errlen) != 0)
		return -ENODEV;
	size_t old = n->ndev;
	bool *claimed = xcalloc(old ? old : 1, sizeof(*claimed));
	struct nvml_dev *next = xcalloc(nfresh + old ? nfresh + old : 1, sizeof(*next));
	size_t nnext = old;
	/* Known GPUs keep their entries, lost until they are found again. */
	for (size_t k = 0; k < old; k++) {
		next[k] = n->dev[k];
		next[k].lost = true;
	}
	for (size_t i = 0; i < nfresh; i++) {
		struct nvml_dev *f = &fresh[i];
		size_t match = SIZE_MAX;
		for (size_t k = 0; k < old && f->have_uuid && match == SIZE_MAX; k++)
			if (!claimed[k] && n->dev[k].have_uuid && strcmp(n->dev[k].uuid, f->uuid) == 0)
				match = k;
		if (match == SIZE_MAX && i < old && !claimed[i] && (!f->have_uuid || !n->dev[i].have_uuid))
			match = i;
		if (match == SIZE_MAX) {
			next[nnext++] = *f; /* a new GPU is appended */
			continue;
		}
		claimed[match] = true;
		struct nvml_dev *k = &next[match];
		if (f->lost) {
			k->h = f->h;
			continue;
		}
		/* A GPU found again gets a fresh identity and keeps its history and
		 * its reported id. */
		f->last_seen = k->last_seen;
		if (!f->statics.valid)
			f->statics = k->statics;
		memcpy(f->id, k->id, sizeof(f->id));
		*k = *f;
	}
	free(claimed);
	free(fresh);
	free(n->dev);
	n->dev = next;
	n->ndev = nnext;
	return 0;
}

static int init_library(struct nvml *n, char *err, size_t errlen)
{
	char msg[160];
	nvmlReturn_t r = n->lib.init();

	if (r != NVML_SUCCESS) {
		snprintf(err, errlen, "nvmlInit failed: %s", nvml_lib_strerror(&n->lib, r, msg, sizeof(msg)));
		return -ENODEV;
	}
	return 0;
}

static void read_versions(struct nvml *n)
{
	int cuda = 0;

	n->driver[0] = n->cuda[0] = '\0';
	if (n->lib.system_get_driver_version &&
	    n->lib.system_get_driver_version(n->driver, sizeof(n->driver)) != NVML_SUCCESS)
		n->driver[0] = '\0';
	n->driver[sizeof(n->driver) - 1] = '\0';
	if (n->lib.system_get_cuda_driver_version && n->lib.system_get_cuda_driver_version(&cuda) == NVML_SUCCESS &&
	    cuda > 0)
		snprintf(n->cuda, sizeof(n->cuda), "%d.%d", cuda / 1000, (cuda % 1000) / 10);
}

static void nvml_close(struct backend *b)
{
	struct nvml *n = b->priv;

	if (!n)
		return;
	nvml_slow_stop(n);
	nvml_xid_stop(n);
	if (n->lib.dl)
		nvml_gpm_free(n);
	if (n->lib.dl)
		n->lib.shutdown();
	nvml_lib_close(&n->lib);
	pthread_mutex_destroy(&n->mu);
	pthread_cond_destroy(&n->cv);
	free(n->dev);
	free(n->slow_dev);
	free(n->xid_dev);
	free(n->pbuf);
	free(n);
	b->priv = NULL;
}

/* Reports a failure after the library loaded. When GPUR_NVML_LIBRARY chose
 * the library, the message names the file that was loaded. */
static void fail_open(struct backend *b, const struct nvml *n, const char *why)
{
	const char *env = getenv("GPUR_NVML_LIBRARY");

	if (env && *env)
		backend_fail(b, "%s: %s", n->lib.path, why);
	else
		backend_fail(b, "%s", why);
}

static int nvml_open(struct backend *b, const struct backend_env *env)
{
	struct nvml *n = xcalloc(1, sizeof(*n));
	char err[BACKEND_ERRLEN] = "";
	pthread_condattr_t ca;

	/* The sampler reads /proc for NVML's rows; the backend takes only the
	 * clock, for its cadences. */
	n->clock = env && env->clock ? env->clock : &CLOCK_SYSTEM;
	n->rate_window_ns = env ? env->rate_window_ns : 0;
	n->no_gpm = env && env->no_gpm;
	pthread_mutex_init(&n->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&n->cv, &ca);
	pthread_condattr_destroy(&ca);
	b->priv = n;
	if (nvml_lib_open(&n->lib, err, sizeof(err)) != 0) {
		backend_fail(b, "%s", err);
		nvml_close(b);
		return -ENOENT;
	}
	if (init_library(n, err, sizeof(err)) != 0) {
		fail_open(b, n, err);
		n->lib.shutdown = NULL;
		nvml_lib_close(&n->lib);
		nvml_close(b);
		return -ENODEV;
	}
	if (enumerate(n, err, sizeof(err)) != 0 || n->ndev == 0) {
		if (n->ndev == 0 && !err[0] && n->counted)
			snprintf(err, sizeof(err), "none of the %u NVIDIA GPUs is accessible to this process", n->counted);
		fail_open(b, n, n->ndev == 0 && !err[0] ? "no NVIDIA GPU (NVML reports 0 devices)" : err);
		nvml_close(b);
		return -ENODEV;
	}
	read_versions(n);
	nvml_slow_start(n);
	nvml_xid_start(n);
	return 0;
}

static int nvml_reinit(struct backend *b)
{
	struct nvml *n = b->priv;
	char err[BACKEND_ERRLEN];

	/* No call into NVML from the slow thread across shutdown and init. */
	nvml_slow_hold(n);
	nvml_xid_stop(n);
	nvml_gpm_reset(n);
	n->lib.shutdown();
	int rc = 0;
	if (init_library(n, err, sizeof(err)) != 0 || enumerate(n, err, sizeof(err)) != 0) {
		backend_fail(b, "%s", err);
		rc = -ENODEV;
	} else {
		read_versions(n);
		nvml_xid_start(n);
	}
	nvml_slow_release(n);
	return rc;
}

static int nvml_poll(struct backend *b, struct frame *f)
{
	struct nvml *n = b->priv;
	const struct nvml_lib *L = &n->lib;
	unsigned count;
	char msg[160];
	nvmlReturn_t r = L->get_count(&count);
	uint64_t now_ms = clock_mono(n->clock);

	if (r != NVML_SUCCESS) {
		backend_fail(b, "nvmlDeviceGetCount failed: %s", nvml_lib_strerror(L, r, msg, sizeof(msg)));
		return -ENODEV;
	}
	nvml_slow_tick(n);
	/* Where each device went in the frame, for its XID events, when any
	 * GPU is registered for them. */
	size_t *at = n->xid_set ? xreallocarray(NULL, n->ndev ? n->ndev : 1, sizeof(*at)) : NULL;
	for (size_t i = 0; at && i < n->ndev; i++)
		at[i] = SIZE_MAX;
	for (size_t i = 0; i < n->ndev; i++) {
		struct nvml_dev *d = &n->dev[i];
		struct gpu *g = put_identity(f, d, i);
		if (!g)
			break;
		if (at)
			at[i] = f->ngpus - 1;
		if (d->lost)
			continue; /* not polled until re-initialisation */
		struct rd rd = {.n = n, .d = d, .h = d->h, .now_ms = now_ms};
		size_t index = f->ngpus - 1;
		read_gpu(n, d, g, &rd);
		if (d->mig)
			read_mig(n, d, f, &rd);
		else
			nvml_device_processes(&rd, f, index, true);
		if (rd.fatal == NV_LIB_LOST) {
			backend_fail(b, "NVML failed: %s", nvml_lib_strerror(L, rd.fatal_code, msg, sizeof(msg)));
			free(at);
			return -ENODEV;
		}
		if (rd.fatal == NV_GPU_LOST) {
			/* The GPU was lost mid-poll, so keep its identity and drop what was
			 * read. */
			d->lost = true;
			nvml_slow_skip(n, i);
			g = &f->gpus[index];
			g->state = GPU_STATE_LOST;
			gpu_drop_readings(g);
			f->ngpus = index + 1;
			frame_drop_rows_from(f, index);
		}
	}
	if (at)
		nvml_xid_poll(n, f, at);
	free(at);
	if (n->driver[0]) {
		f->driver = frame_str(f, n->driver);
		frame_set(f, FRAME_F_DRIVER);
	}
	if (n->cuda[0])
		f->cuda = frame_str(f, n->cuda);
	flush_notes(n, f);
	if ((count > FRAME_MAX_GPUS ? FRAME_MAX_GPUS : count) != n->counted) {
		backend_fail(b, "the GPU count changed from %u to %u", n->counted, count);
		return -ENODEV;
	}
	return 0;
}

static bool nvml_can_signal(const struct backend *b)
{
	(void)b;
	return true;
}

const struct backend_ops BACKEND_NVML = {
	.name = "nvml",
	.open = nvml_open,
	.poll = nvml_poll,
	.reinit = nvml_reinit,
	.can_signal = nvml_can_signal,
	.close = nvml_close,
};
