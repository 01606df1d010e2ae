/* fake_nvml_gpm: GPM (GPU performance monitoring) of the fake NVML, as
 * NVIDIA's nvml.h documents it. A sample is an opaque buffer that the fake
 * allocates and tracks; nvmlGpmSampleGet stamps it with the device, the
 * monotonic time and the poll; nvmlGpmMetricsGet turns two samples of one
 * device into metrics, each with its own answer. The values are the
 * scenario's "gpm" values at the second sample's poll. Two samples taken
 * 100 ms apart or less give NaN, as the real driver's refresh rate does.
 * The metrics array the driver knows has 333 entries (98 in the wrong32
 * variant, 210 in cc32, or the scenario's "gpm_metrics_max"). */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_nvml_priv.h"

#ifdef HAVE_GPM
#define SAMPLE_MAGIC 0x47504d53u
#define SHORT_WINDOW_NS 100000000LL
/* What a metric that did not succeed holds in its value: nonsense that a
 * caller who reads it anyway shows, rather than a plausible 0. */
#define POISON 1e30

struct nvmlGpmSample_st {
	unsigned magic;
	struct nvmlGpmSample_st *next;
	bool filled;
	const struct fdev *d;     /* the GPU or the MIG instance sampled */
	unsigned gi;              /* the instance's gi, or 0xFFFFFFFF for a GPU */
	long long mono_ns;        /* CLOCK_MONOTONIC when it was taken */
	unsigned long poll;       /* the fake's poll then */
	unsigned long long index; /* the index values showed then */
};

static struct nvmlGpmSample_st *live;
static unsigned long nlive;

/* The metrics the scenario can give, by their "gpm" key. The names are the
 * fake's own. */
static const struct {
	unsigned id;
	const char *key, *name, *desc, *unit;
} METRICS[] = {
	{NVML_GPM_METRIC_GRAPHICS_UTIL, "gr", "gr_util", "Graphics engine activity", "%"},
	{NVML_GPM_METRIC_SM_UTIL, "sm", "sm_util", "SM activity", "%"},
	{NVML_GPM_METRIC_SM_OCCUPANCY, "occupancy", "sm_occupancy", "SM warp occupancy", "%"},
	{NVML_GPM_METRIC_ANY_TENSOR_UTIL, "tensor", "tensor_util", "Tensor pipe activity (any)", "%"},
	{NVML_GPM_METRIC_DRAM_BW_UTIL, "dram", "dram_bw_util", "DRAM bandwidth use", "%"},
	{NVML_GPM_METRIC_FP64_UTIL, "fp64", "fp64_util", "FP64 pipe activity", "%"},
	{NVML_GPM_METRIC_FP32_UTIL, "fp32", "fp32_util", "FP32 pipe activity", "%"},
	{NVML_GPM_METRIC_FP16_UTIL, "fp16", "fp16_util", "FP16 pipe activity", "%"},
	{NVML_GPM_METRIC_PCIE_TX_PER_SEC, "pcie_tx_mibs", "pcie_tx", "PCIe transmitted", "MiB/s"},
	{NVML_GPM_METRIC_PCIE_RX_PER_SEC, "pcie_rx_mibs", "pcie_rx", "PCIe received", "MiB/s"},
	{NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, "nvlink_rx_mibs", "nvlink_rx", "NVLink received, all links", "MiB/s"},
	{NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, "nvlink_tx_mibs", "nvlink_tx", "NVLink transmitted, all links", "MiB/s"},
};

/* The metric ids that NVIDIA's nvml.h defines, as ranges [first, last]. An
 * id outside them is one the driver does not know. */
static const unsigned KNOWN[][2] = {{1, 13}, {20, 21}, {30, 37}, {40, 47}, {50, 51}, {60, 97}, {100, 209}, {212, 332}};

static bool known_id(unsigned id)
{
	for (size_t i = 0; i < sizeof(KNOWN) / sizeof(KNOWN[0]); i++)
		if (id >= KNOWN[i][0] && id <= KNOWN[i][1])
			return true;
	return false;
}

/* The size of the metrics array this driver knows. */
static unsigned metrics_max(void)
{
#if defined(FAKE_WRONG32)
	long long n = NVML_GPM_METRIC_MAX_R520;
#elif defined(FAKE_CC32)
	long long n = NVML_GPM_METRIC_MAX_R535;
#else
	long long n = NVML_GPM_METRIC_MAX;
#endif
	n = jint(S.root, "gpm_metrics_max", n);
	return n < 1 ? 1 : n > NVML_GPM_METRIC_MAX ? NVML_GPM_METRIC_MAX : (unsigned)n;
}

static long long mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* "short NS" or "window NS" appended to $FAKE_NVML_GPM_LOG. */
static void gpm_log(const char *what, long long ns)
{
	const char *path = getenv("FAKE_NVML_GPM_LOG");
	char line[80];

	if (!path)
		return;
	int n = snprintf(line, sizeof(line), "%s %lld\n", what, ns);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (n > 0 && write(fd, line, (size_t)n) != n) {
		/* a test that reads the log says what is missing */
	}
	close(fd);
}

/* A GPM value at sample index idx: a number, an array indexed by sample
 * (cycling), a counter {"start": S, "step": D}, or "nan". False when v is
 * none of these. */
static bool gpm_value(json_t *v, unsigned long long idx, double *out)
{
	if (json_is_object(v)) {
		json_t *start = json_object_get(v, "start"), *step = json_object_get(v, "step");
		*out = (json_is_number(start) ? json_number_value(start) : 0) +
		       (json_is_number(step) ? json_number_value(step) : 0) * (double)idx;
		return true;
	}
	if (json_is_array(v) && json_array_size(v))
		v = json_array_get(v, idx % json_array_size(v));
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return true;
	}
	if (json_is_string(v) && !strcmp(json_string_value(v), "nan")) {
		*out = NAN;
		return true;
	}
	return false;
}

/* The live sample at pointer s, found by its address alone (an unknown
 * pointer is never read), or NULL. */
static struct nvmlGpmSample_st *find(nvmlGpmSample_t s)
{
	for (struct nvmlGpmSample_st *p = live; p; p = p->next)
		if (p == s)
			return p;
	return NULL;
}

void gpm_calls_write(FILE *f)
{
	fprintf(f, "gpm_samples_live - %lu\n", nlive);
}

/* Samples that are never freed stay on the list: still reachable, so a
 * leak shows in the calls file, not as a leak report of the fake. */

static nvmlReturn_t do_support(nvmlDevice_t h, nvmlGpmSupport_t *s)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!s)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (s->version != NVML_GPM_SUPPORT_VERSION)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if ((r = refusal(dev_of(h), "gpm_support")))
		return r;
	s->isSupportedDevice = json_object_get(dev_of(h)->j, "gpm") != NULL;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t h, nvmlGpmSupport_t *s) { LOCKED(do_support(h, s)); }

static nvmlReturn_t do_alloc(nvmlGpmSample_t *out)
{
	nvmlReturn_t r = lib_state();
	if (r)
		return r;
	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct nvmlGpmSample_st *p = calloc(1, sizeof(*p));
	if (!p)
		return NVML_ERROR_MEMORY;
	p->magic = SAMPLE_MAGIC;
	p->next = live;
	live = p;
	nlive++;
	*out = p;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *s) { LOCKED(do_alloc(s)); }

/* Freeing needs no initialised library (nvml.h names no UNINITIALIZED
 * here), so a caller may free its samples after nvmlShutdown. */
static nvmlReturn_t do_free(nvmlGpmSample_t s)
{
	for (struct nvmlGpmSample_st **pp = &live; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			struct nvmlGpmSample_st *p = *pp;
			*pp = p->next;
			p->magic = 0;
			free(p);
			nlive--;
			return NVML_SUCCESS;
		}
	return NVML_ERROR_INVALID_ARGUMENT;
}
EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t s) { LOCKED(do_free(s)); }

/* Stamps sample p with device d (a GPU or a MIG instance) and now. */
static nvmlReturn_t take(struct nvmlGpmSample_st *p, const struct fdev *d)
{
	if (!json_object_get(d->j, "gpm"))
		return NVML_ERROR_NOT_SUPPORTED;
	p->filled = true;
	p->d = d;
	p->gi = d->mig >= 0 ? (unsigned)jint(d->j, "gi", 0) : 0xFFFFFFFFu;
	p->mono_ns = mono_ns();
	p->poll = S.polls;
	p->index = sample_index();
	return NVML_SUCCESS;
}

static nvmlReturn_t do_sample(nvmlDevice_t h, nvmlGpmSample_t s)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	struct nvmlGpmSample_st *p = find(s);
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = refusal(dev_of(h), "gpm_sample")))
		return r;
	return take(p, dev_of(h));
}
EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t h, nvmlGpmSample_t s) { LOCKED(do_sample(h, s)); }

/* A GPU instance's sample through its parent GPU. A GPU instance with
 * several compute instances is the first "mig" entry with that "gi". A MIG
 * device handle is no parent: INVALID_ARGUMENT. */
static nvmlReturn_t do_mig_sample(nvmlDevice_t h, unsigned gi, nvmlGpmSample_t s)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	struct nvmlGpmSample_st *p = find(s);
	struct fdev *d = dev_of(h);
	if (!p || d->mig >= 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = refusal(d, "gpm_sample")))
		return r;
	if (!json_object_get(d->j, "mig"))
		return NVML_ERROR_NOT_SUPPORTED;
	for (size_t m = 0; m < S.nmig[d->gpu]; m++)
		if (jint(S.migs[d->gpu][m].j, "gi", 0) == (long long)gi)
			return take(p, &S.migs[d->gpu][m]);
	return NVML_ERROR_NOT_FOUND;
}
EXPORT nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t h, unsigned int gi, nvmlGpmSample_t s)
{
	LOCKED(do_mig_sample(h, gi, s));
}

/* One requested metric of device d at sample index idx. */
static void metric(const struct fdev *d, nvmlGpmMetric_t *x, unsigned max, unsigned long long idx, bool short_window)
{
	char key[32];
	double v;

	x->value = POISON;
	x->metricInfo.shortName = x->metricInfo.longName = x->metricInfo.unit = NULL;
	if (!known_id(x->metricId) || x->metricId >= max) {
		x->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
		return;
	}
	snprintf(key, sizeof(key), "gpm:%u", x->metricId);
	nvmlReturn_t r = refusal(d, key);
	x->nvmlReturn = r ? r : NVML_ERROR_NOT_SUPPORTED;
	for (size_t k = 0; k < sizeof(METRICS) / sizeof(METRICS[0]); k++) {
		if (METRICS[k].id != x->metricId)
			continue;
		x->metricInfo.shortName = (char *)METRICS[k].name;
		x->metricInfo.longName = (char *)METRICS[k].desc;
		x->metricInfo.unit = (char *)METRICS[k].unit;
		if (r || !gpm_value(json_object_get(json_object_get(d->j, "gpm"), METRICS[k].key), idx, &v))
			return;
		x->nvmlReturn = NVML_SUCCESS;
		x->value = short_window ? NAN : v;
		return;
	}
}

static nvmlReturn_t do_metrics(nvmlGpmMetricsGet_t *m)
{
	nvmlReturn_t r = lib_state();
	if (r)
		return r;
	if (!m)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (m->version != NVML_GPM_METRICS_GET_VERSION)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	unsigned max = metrics_max();
	if (!m->numMetrics || m->numMetrics > max)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct nvmlGpmSample_st *a = find(m->sample1), *b = find(m->sample2);
	if (!a || !b || !a->filled || !b->filled || a->d != b->d || b->mono_ns <= a->mono_ns)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = dev_state((nvmlDevice_t)b->d)))
		return r;
	if ((r = refusal(b->d, "gpm_metrics")))
		return r;
	long long window = b->mono_ns - a->mono_ns;
	bool short_window = window <= SHORT_WINDOW_NS;
	gpm_log(short_window ? "short" : "window", window);
	for (unsigned i = 0; i < m->numMetrics; i++)
		metric(b->d, &m->metrics[i], max, b->index, short_window);
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *m) { LOCKED(do_metrics(m)); }

#else /* !HAVE_GPM: a driver without GPM has no samples to report. */
void gpm_calls_write(FILE *f)
{
	(void)f;
}
#endif
