/* fake_nvml_procs: the fake NVML's process lists (with NVIDIA's sizing
 * protocol and the strides of each entry point), per-process utilisation
 * samples, and MIG instances. */
#include <stdlib.h>
#include <string.h>

#include "fake_nvml_priv.h"

#ifdef HAVE_GETTERS
/* Process lists: 1 compute, 2 graphics, 4 MPS; stride per entry point. */
static nvmlReturn_t do_procs(nvmlDevice_t h, unsigned int *count, void *infos, int want, size_t stride)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!count || (*count && !infos))
		return NVML_ERROR_INVALID_ARGUMENT;
	struct fdev *d = dev_of(h);
	if ((r = refusal(d, "processes")))
		return r;
	size_t n = 0;
	for (size_t i = 0; i < d->nprocs; i++)
		n += FPROC_LISTED(&d->procs[i]) && ((d->procs[i].type & want) || (want == 1 && d->procs[i].type == 3) ||
		     (want == 2 && d->procs[i].type == 3));
	if (n > *count) {
		*count = (unsigned)n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	size_t k = 0;
	for (size_t i = 0; i < d->nprocs; i++) {
		struct fproc *p = &d->procs[i];
		bool match = want == 4 ? p->type == 4 : (p->type & want) != 0 && p->type != 4;
		if (!match || !FPROC_LISTED(p))
			continue;
		unsigned long long mem = NVML_VALUE_NOT_AVAILABLE;
		if (p->mem && !json_is_null(p->mem))
			value_at(p->mem, &mem);
		char *e = (char *)infos + k * stride;
		memset(e, 0, stride);
		nvmlProcessDetail_v1_t full = {
			.pid = p->pid,
			.usedGpuMemory = mem,
			.gpuInstanceId = d->mig >= 0 ? (unsigned)jint(d->j, "gi", 1) : 0xFFFFFFFFu,
			.computeInstanceId = d->mig >= 0 ? (unsigned)jint(d->j, "ci", 0) : 0xFFFFFFFFu,
		};
		memcpy(e, &full, stride < sizeof(full) ? stride : sizeof(full));
		k++;
	}
	*count = (unsigned)k;
	return NVML_SUCCESS;
}
#ifdef V3_WRITES_32
#define V3_STRIDE sizeof(nvmlProcessDetail_v1_t)
#else
#define V3_STRIDE sizeof(nvmlProcessInfo_t)
#endif
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t h, unsigned int *c, nvmlProcessInfo_v1_t *p) { LOCKED(do_procs(h, c, p, 1, sizeof(*p))); }
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t h, unsigned int *c, nvmlProcessInfo_v1_t *p) { LOCKED(do_procs(h, c, p, 2, sizeof(*p))); }
EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(nvmlDevice_t h, unsigned int *c, nvmlProcessInfo_v1_t *p) { LOCKED(do_procs(h, c, p, 4, sizeof(*p))); }
#ifdef HAVE_NEW
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t h, unsigned int *c, nvmlProcessInfo_t *p) { LOCKED(do_procs(h, c, p, 1, sizeof(*p))); }
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t h, unsigned int *c, nvmlProcessInfo_t *p) { LOCKED(do_procs(h, c, p, 2, sizeof(*p))); }
EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(nvmlDevice_t h, unsigned int *c, nvmlProcessInfo_t *p) { LOCKED(do_procs(h, c, p, 4, sizeof(*p))); }
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t h, unsigned int *c, nvmlProcessInfo_t *p) { LOCKED(do_procs(h, c, p, 1, V3_STRIDE)); }
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t h, unsigned int *c, nvmlProcessInfo_t *p) { LOCKED(do_procs(h, c, p, 2, V3_STRIDE)); }
EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t h, unsigned int *c, nvmlProcessInfo_t *p) { LOCKED(do_procs(h, c, p, 4, V3_STRIDE)); }
#endif
#ifdef FAKE_CC32
/* The drivers with the 32-byte _v3 stride have this and lack the next
 * (FAKE_WRONG32 has both: the heuristic guesses 24 and is wrong). */
EXPORT nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t h, void *info) { (void)h; (void)info; return NVML_ERROR_NOT_SUPPORTED; }
#elif defined(HAVE_NEW)
EXPORT nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t h, void *info) { (void)h; (void)info; return NVML_ERROR_NOT_SUPPORTED; }
EXPORT nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t h, void *list) { (void)h; (void)list; return NVML_ERROR_NOT_SUPPORTED; }
#endif

/* Per-process utilisation: one sample per process with a value, newer than
 * lastSeen; timestamps advance one second per poll. The old call can be
 * made to fail as Blackwell's drivers do under load ("process_util_old":
 * "not_found" answers NOT_FOUND every time, "zeros" gives every process a
 * sample of 0). fill(k, sample) writes entry k of the caller's buffer. */
struct psample {
	unsigned pid;
	unsigned long long ts;
	unsigned sm, mem, enc, dec;
};

static nvmlReturn_t samples(struct fdev *d, unsigned long long last, bool old, size_t *count,
			    void (*fill)(void *buf, size_t k, const struct psample *p), void *buf, size_t room)
{
	const char *quirk = json_string_value(json_object_get(S.gpus[d->gpu].j, "process_util_old"));
	unsigned long long ts = 1700000000000000ULL + (unsigned long long)S.polls * 1000000ULL;
	size_t k = 0;

	if (json_object_get(d->j, "mig"))
		return NVML_ERROR_NOT_SUPPORTED;
	if (ts <= last || (old && quirk && !strcmp(quirk, "not_found")))
		return NVML_ERROR_NOT_FOUND;
	bool zeros = old && quirk && !strcmp(quirk, "zeros");
	for (size_t i = 0; i < d->nprocs; i++) {
		unsigned long long sm, m = 0, e = 0, dd = 0;
		if (!FPROC_LISTED(&d->procs[i]) || !value_at(d->procs[i].sm, &sm))
			continue;
		value_at(d->procs[i].memutil, &m);
		value_at(d->procs[i].enc, &e);
		value_at(d->procs[i].dec, &dd);
		struct psample p = {d->procs[i].pid, ts, (unsigned)sm, (unsigned)m, (unsigned)e, (unsigned)dd};
		if (zeros)
			p.sm = p.mem = p.enc = p.dec = 0;
		if (buf && k < room)
			fill(buf, k, &p);
		k++;
	}
	*count = k;
	return k ? NVML_SUCCESS : NVML_ERROR_NOT_FOUND;
}

static void fill_old(void *buf, size_t k, const struct psample *p)
{
	((nvmlProcessUtilizationSample_t *)buf)[k] =
		(nvmlProcessUtilizationSample_t){p->pid, p->ts, p->sm, p->mem, p->enc, p->dec};
}

static nvmlReturn_t do_putil(nvmlDevice_t h, nvmlProcessUtilizationSample_t *s, unsigned int *n, unsigned long long last)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!n)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct fdev *d = dev_of(h);
	if ((r = refusal(d, "process_util")))
		return r;
	size_t k = 0;
	if ((r = samples(d, last, true, &k, fill_old, s, s ? *n : 0)))
		return r;
	if (!s || k > *n) {
		*n = (unsigned)k;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*n = (unsigned)k;
	return NVML_SUCCESS;
}
#ifndef FAKE_NOOLD
EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t h, nvmlProcessUtilizationSample_t *s, unsigned int *n,
						    unsigned long long last)
{
	LOCKED(do_putil(h, s, n, last));
}
#endif

#if defined(HAVE_NEW) && !defined(FAKE_CC32)
/* The newer call (driver 550 and later), as nvml.h documents it: a strict
 * struct version, INSUFFICIENT_SIZE with the count needed when the array is
 * NULL or too small, NOT_FOUND when no process has a sample, NOT_SUPPORTED
 * in MIG mode. "process_util" in "not_supported" removes both calls;
 * "process_util_info" only this one. */
static void fill_info(void *buf, size_t k, const struct psample *p)
{
	((nvmlProcessUtilizationInfo_v1_t *)buf)[k] =
		(nvmlProcessUtilizationInfo_v1_t){p->ts, p->pid, p->sm, p->mem, p->enc, p->dec, 0, 0};
}

static nvmlReturn_t do_putil_info(nvmlDevice_t h, nvmlProcessesUtilizationInfo_v1_t *info)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!info)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (info->version != nvmlProcessesUtilizationInfo_v1)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	struct fdev *d = dev_of(h);
	if ((r = refusal(d, "process_util")) || (r = refusal(d, "process_util_info")))
		return r;
	size_t k = 0;
	unsigned room = info->procUtilArray ? info->processSamplesCount : 0;
	if ((r = samples(d, info->lastSeenTimeStamp, false, &k, fill_info, info->procUtilArray, room)))
		return r;
	if (!info->procUtilArray || k > room) {
		info->processSamplesCount = (unsigned)k;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	info->processSamplesCount = (unsigned)k;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t h, nvmlProcessesUtilizationInfo_v1_t *info)
{
	LOCKED(do_putil_info(h, info));
}
#endif

/* MIG */
static nvmlReturn_t do_migmode(nvmlDevice_t h, unsigned int *cur, unsigned int *pend)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!cur || !pend)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!json_object_get(dev_of(h)->j, "mig")) {
		if (unsupported(dev_of(h), "mig"))
			return NVML_ERROR_NOT_SUPPORTED;
		*cur = *pend = NVML_DEVICE_MIG_DISABLE;
		return NVML_SUCCESS;
	}
	*cur = *pend = NVML_DEVICE_MIG_ENABLE;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t h, unsigned int *c, unsigned int *p) { LOCKED(do_migmode(h, c, p)); }

static nvmlReturn_t do_maxmig(nvmlDevice_t h, unsigned int *n)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!n)
		return NVML_ERROR_INVALID_ARGUMENT;
	*n = json_object_get(dev_of(h)->j, "mig") ? 7 : 0;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t h, unsigned int *n) { LOCKED(do_maxmig(h, n)); }

static nvmlReturn_t do_mighandle(nvmlDevice_t h, unsigned int i, nvmlDevice_t *m)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!m || i >= 7)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct fdev *d = dev_of(h);
	/* Instances sit in sparse slots 0, 2, 4... so empty slots are exercised. */
	if (i % 2 || i / 2 >= S.nmig[d->gpu])
		return NVML_ERROR_NOT_FOUND;
	*m = (nvmlDevice_t)&S.migs[d->gpu][i / 2];
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t h, unsigned int i, nvmlDevice_t *m) { LOCKED(do_mighandle(h, i, m)); }

static nvmlReturn_t do_instance_id(nvmlDevice_t h, const char *key, unsigned int *id)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!id)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (dev_of(h)->mig < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*id = (unsigned)jint(dev_of(h)->j, key, 0);
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t h, unsigned int *id) { LOCKED(do_instance_id(h, "gi", id)); }
EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t h, unsigned int *id) { LOCKED(do_instance_id(h, "ci", id)); }
#endif /* HAVE_GETTERS */
