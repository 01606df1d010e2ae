/* nvml_gpm: what the chip's units are doing, from NVML's GPM (Hopper and
 * newer, driver R520+). Each GPU and each MIG instance has two sample
 * buffers: every poll takes a sample into the free one, and when it is more
 * than 100 ms newer than the other (NVIDIA's minimum between two samples),
 * the metrics of that window are computed and the new sample becomes the
 * base of the next window. At a shorter interval the last window's values
 * stand until a window is long enough. A window that fails leaves the
 * metrics unknown for that poll, never the old values. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend/nvml_priv.h"
#include "util/clock.h"
#include "util/xalloc.h"

/* NVIDIA asks for more than 100 ms between two samples. */
#define GPM_MIN_WINDOW_NS (100u * 1000000u)

/* The metrics asked for, with where each one goes. */
static const struct {
	unsigned id;
	enum gpu_field field;
	size_t offset; /* in struct gpu, of a long double */
	double scale;  /* into the field's unit */
} METRICS[] = {
	{NVML_GPM_METRIC_GRAPHICS_UTIL, GPU_F_GR_ACTIVE, offsetof(struct gpu, act.gr_pct), 1},
	{NVML_GPM_METRIC_SM_UTIL, GPU_F_SM_ACTIVE, offsetof(struct gpu, act.sm_pct), 1},
	{NVML_GPM_METRIC_SM_OCCUPANCY, GPU_F_SM_OCCUPANCY, offsetof(struct gpu, act.sm_occupancy_pct), 1},
	{NVML_GPM_METRIC_ANY_TENSOR_UTIL, GPU_F_TENSOR_ACTIVE, offsetof(struct gpu, act.tensor_pct), 1},
	{NVML_GPM_METRIC_DRAM_BW_UTIL, GPU_F_DRAM_ACTIVE, offsetof(struct gpu, act.dram_pct), 1},
	{NVML_GPM_METRIC_FP64_UTIL, GPU_F_FP64_ACTIVE, offsetof(struct gpu, act.fp64_pct), 1},
	{NVML_GPM_METRIC_FP32_UTIL, GPU_F_FP32_ACTIVE, offsetof(struct gpu, act.fp32_pct), 1},
	{NVML_GPM_METRIC_FP16_UTIL, GPU_F_FP16_ACTIVE, offsetof(struct gpu, act.fp16_pct), 1},
	{NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, GPU_F_NVLINK_RX, offsetof(struct gpu, act.nvlink_rx_bytes_per_s),
	 1048576},
	{NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, GPU_F_NVLINK_TX, offsetof(struct gpu, act.nvlink_tx_bytes_per_s),
	 1048576},
	{NVML_GPM_METRIC_PCIE_RX_PER_SEC, GPU_F_PCIE_RX, offsetof(struct gpu, pcie_rx_bytes_per_s), 1048576},
	{NVML_GPM_METRIC_PCIE_TX_PER_SEC, GPU_F_PCIE_TX, offsetof(struct gpu, pcie_tx_bytes_per_s), 1048576},
};
#define NMETRICS (sizeof(METRICS) / sizeof(METRICS[0]))

/* One GPU's or MIG instance's GPM state. */
struct nvml_gpm {
	size_t dev;          /* the device's position */
	int slot;            /* its MIG slot, or -1 for the GPU itself */
	nvmlDevice_t h;      /* the handle the state belongs to */
	unsigned gi;         /* a MIG instance's GPU instance id */
	bool dead;           /* no GPM here, for the backend's life */
	bool have_base;      /* s[base] holds a sample */
	nvmlGpmSample_t s[2];
	unsigned base;
	uint64_t base_ns;    /* when s[base] was taken, CLOCK_MONOTONIC */
	struct gpu last;     /* the last window's metrics, numbers only */
};

bool nvml_gpm_available(const struct nvml_lib *L)
{
	return L->gpm_query_device_support && L->gpm_sample_alloc && L->gpm_sample_free && L->gpm_sample_get &&
	       L->gpm_metrics_get;
}

static void drop_samples(const struct nvml_lib *L, struct nvml_gpm *g)
{
	for (int i = 0; i < 2; i++)
		if (g->s[i]) {
			(void)L->gpm_sample_free(g->s[i]);
			g->s[i] = NULL;
		}
	g->have_base = false;
}

void nvml_gpm_reset(struct nvml *n)
{
	/* The samples die with the library; what the last windows measured is
	 * kept, to stand until the first new window (a re-initialisation for
	 * a lost GPU must not blank the others' activity for a poll). */
	for (size_t i = 0; i < n->ngpm; i++) {
		drop_samples(&n->lib, &n->gpm[i]);
		n->gpm[i].h = NULL;
	}
}

void nvml_gpm_free(struct nvml *n)
{
	nvml_gpm_reset(n);
	free(n->gpm);
	n->gpm = NULL;
	n->ngpm = 0;
	free(n->gpm_get);
	n->gpm_get = NULL;
}

/* The state of device dev (slot -1) or of its MIG slot, made on first use
 * and again when the handle there changed. */
static struct nvml_gpm *state(struct nvml *n, size_t dev, int slot, nvmlDevice_t h)
{
	for (size_t i = 0; i < n->ngpm; i++) {
		struct nvml_gpm *g = &n->gpm[i];
		if (g->dev != dev || g->slot != slot)
			continue;
		if (!g->h) {
			g->h = h; /* the same device after a re-initialisation */
		} else if (g->h != h) {
			/* Another MIG instance in the slot: nothing carries over. */
			drop_samples(&n->lib, g);
			*g = (struct nvml_gpm){.dev = dev, .slot = slot, .h = h};
		}
		return g;
	}
	n->gpm = xreallocarray(n->gpm, n->ngpm + 1, sizeof(*n->gpm));
	struct nvml_gpm *g = &n->gpm[n->ngpm++];
	*g = (struct nvml_gpm){.dev = dev, .slot = slot, .h = h};
	return g;
}

/* Says once per backend why there is no SM and tensor activity. */
static void say_why(struct nvml *n, const char *why)
{
	if (n->gpm_said)
		return;
	n->gpm_said = true;
	nvml_note(n, "nvml: no SM and tensor activity on %s: it needs a Hopper or newer GPU and driver 520+ (GPM)",
		  why);
}

/* Whether GPM works for g, asking the driver the first time. */
static bool ready(struct rd *rd, struct nvml_gpm *g, nvmlDevice_t support_h, const char *name)
{
	const struct nvml_lib *L = &rd->n->lib;

	if (g->dead)
		return false;
	if (g->s[0] && g->s[1])
		return true;
	nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
	nvmlReturn_t r = L->gpm_query_device_support(support_h, &sup);
	if (!nvml_took(rd, r) || !sup.isSupportedDevice) {
		if (r == NVML_SUCCESS || nvml_never(r)) {
			g->dead = true;
			if (!rd->n->gpm_said) {
				char who[200];
				if (g->slot >= 0)
					snprintf(who, sizeof(who), "MIG instance %d of GPU %zu", g->slot, g->dev);
				else
					snprintf(who, sizeof(who), "GPU %zu (%s)", g->dev, name ? name : "NVIDIA");
				say_why(rd->n, who);
			}
		}
		return false;
	}
	for (int i = 0; i < 2; i++)
		if (!g->s[i] && L->gpm_sample_alloc(&g->s[i]) != NVML_SUCCESS) {
			g->s[i] = NULL;
			drop_samples(L, g);
			return false; /* out of memory, tried again next poll */
		}
	return true;
}

/* Computes the metrics of the window from s[base] to s[base ^ 1] into
 * g->last. Returns false when the call failed as a whole. */
static bool compute(struct rd *rd, struct nvml_gpm *g)
{
	struct nvml *n = rd->n;

	if (!n->gpm_get)
		n->gpm_get = xmalloc(sizeof(*n->gpm_get));
	nvmlGpmMetricsGet_t *m = n->gpm_get;
	/* Only the head and the metrics asked for are written, as a driver
	 * with a shorter array writes only those. */
	memset(m, 0, offsetof(nvmlGpmMetricsGet_t, metrics) + NMETRICS * sizeof(m->metrics[0]));
	m->version = NVML_GPM_METRICS_GET_VERSION;
	m->numMetrics = NMETRICS;
	m->sample1 = g->s[g->base];
	m->sample2 = g->s[g->base ^ 1];
	for (size_t i = 0; i < NMETRICS; i++)
		m->metrics[i].metricId = METRICS[i].id;
	nvmlReturn_t r = n->lib.gpm_metrics_get(m);
	if (!nvml_took(rd, r)) {
		if (nvml_never(r))
			g->dead = true;
		return false;
	}
	memset(&g->last, 0, sizeof(g->last));
	for (size_t i = 0; i < NMETRICS; i++) {
		const nvmlGpmMetric_t *x = &m->metrics[i];
		const struct field *fd = &GPU_FIELDS[METRICS[i].field];
		double v = x->value * METRICS[i].scale;
		/* A metric's own answer counts, and NaN is unknown. A reading a
		 * hair past its range is rounding; further out it is wrong. */
		if (x->metricId != METRICS[i].id || x->nvmlReturn != NVML_SUCCESS || !isfinite(v) || v < -0.5 ||
		    v > fd->max * 1.005 + 0.5)
			continue;
		v = v < 0 ? 0 : v > fd->max ? fd->max : v;
		*(long double *)((char *)&g->last + METRICS[i].offset) = (long double)v;
		gpu_set(&g->last, METRICS[i].field);
	}
	return true;
}

/* The mask of the fields GPM fills. */
static uint64_t gpm_mask(void)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < NMETRICS; i++)
		mask |= UINT64_C(1) << METRICS[i].field;
	return mask;
}

bool nvml_gpm_read(struct rd *rd, size_t dev, int slot, nvmlDevice_t parent, nvmlDevice_t h, struct gpu *out,
		   const char *name)
{
	struct nvml *n = rd->n;
	const struct nvml_lib *L = &n->lib;

	if (n->no_gpm)
		return false;
	if (!nvml_gpm_available(L)) {
		say_why(n, "this NVML library (it has no nvmlGpm* calls)");
		return false;
	}
	if (slot >= 0 && (!L->gpm_mig_sample_get || !L->get_gpu_instance_id))
		return false;
	struct nvml_gpm *g = state(n, dev, slot, h);
	if (!ready(rd, g, h, name))
		return false;
	if (slot >= 0 && !g->have_base && !nvml_took(rd, L->get_gpu_instance_id(h, &g->gi)))
		return false;
	unsigned next = g->have_base ? g->base ^ 1 : g->base;
	nvmlReturn_t r = slot >= 0 ? L->gpm_mig_sample_get(parent, g->gi, g->s[next]) : L->gpm_sample_get(h, g->s[next]);
	uint64_t now = clock_mono_ns();
	if (!nvml_took(rd, r)) {
		if (nvml_never(r)) {
			g->dead = true;
			drop_samples(L, g);
		}
		g->have_base = false; /* the next window starts afresh */
		memset(&g->last, 0, sizeof(g->last));
		return false;
	}
	if (!g->have_base) {
		g->have_base = true;
		g->base_ns = now;
		/* A window needs a second sample. After a re-initialisation the
		 * last window's values stand meanwhile; at the start there are
		 * none. */
		gpu_copy_numbers(out, &g->last, gpm_mask());
		return false;
	}
	if (now - g->base_ns > GPM_MIN_WINDOW_NS) {
		bool ok = compute(rd, g);
		g->base ^= 1;
		g->base_ns = now;
		if (!ok) {
			memset(&g->last, 0, sizeof(g->last));
			return false;
		}
	}
	gpu_copy_numbers(out, &g->last, gpm_mask());
	return (g->last.valid >> GPU_F_PCIE_RX & 1) || (g->last.valid >> GPU_F_PCIE_TX & 1);
}
