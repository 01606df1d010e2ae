/* nvml: the NVIDIA backend. Every field NVML can give, each one unknown on
 * its own when its getter is missing or unsupported; GPU_IS_LOST and
 * RESET_REQUIRED are per device; a failing library is reported as lost so
 * the sampler re-detects it. PCIe throughput (a ~20 ms blocking call) is
 * read by a thread of its own every few seconds, off the poll's path. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/nvml.h"
#include "backend/nvml_lib.h"
#include "backend/nvml_priv.h"
#include "gpusel.h"
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

/* Whether a getter for field may be called now. */
bool nvml_may(const struct rd *rd, const void *fn, enum gpu_field field)
{
	return fn && rd->fatal == NV_OK && !(rd->d->unsupported >> field & 1u);
}

/* Records a getter's answer; true on success. */
bool nvml_took(struct rd *rd, nvmlReturn_t r, enum gpu_field field)
{
	enum outcome o = nvml_classify(r);

	if (o == NV_OK)
		return true;
	if (o == NV_GPU_LOST || o == NV_LIB_LOST) {
		if (rd->fatal == NV_OK || o == NV_LIB_LOST) {
			rd->fatal = o;
			rd->fatal_code = r;
		}
	} else if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND) {
		rd->d->unsupported |= UINT64_C(1) << field;
	}
	return false;
}


static void set_str(struct frame *f, struct gpu *g, enum gpu_field b, const char *s)
{
	const struct field *fd = &GPU_FIELDS[b];
	*(const char **)field_ptr(g, fd) = frame_str(f, s);
	gpu_set(g, b);
}

/* Name, UUID, PCI address and the fields that do not change. */
static void read_identity(struct nvml *n, struct nvml_dev *d, enum outcome *fatal)
{
	struct rd rd = {.n = n, .d = d, .h = d->h};
	const struct nvml_lib *L = &n->lib;
	struct gpu *s = &d->statics;
	unsigned v, cur, pend;
	nvmlPciInfo_t pci;

	memset(s, 0, sizeof(*s));
	/* Strings from the library end where the buffer ends, whatever it wrote. */
	if (nvml_may(&rd, L->get_name, GPU_F_NAME) &&
	    nvml_took(&rd, L->get_name(d->h, d->name, sizeof(d->name)), GPU_F_NAME)) {
		d->name[sizeof(d->name) - 1] = '\0';
		d->have_name = true;
	}
	if (nvml_may(&rd, L->get_uuid, GPU_F_DEVICE_ID) &&
	    nvml_took(&rd, L->get_uuid(d->h, d->uuid, sizeof(d->uuid)), GPU_F_DEVICE_ID)) {
		d->uuid[sizeof(d->uuid) - 1] = '\0';
		d->have_uuid = d->uuid[0] != '\0';
	}
	if (nvml_may(&rd, L->get_pci_info, GPU_F_PCI_BUS_ID) && nvml_took(&rd, L->get_pci_info(d->h, &pci), GPU_F_PCI_BUS_ID)) {
		pci.busId[sizeof(pci.busId) - 1] = '\0';
		d->have_pci = gpusel_pci_normalise(pci.busId, d->pci);
	}
	d->mig = false;
	if (nvml_may(&rd, L->get_mig_mode, GPU_F_MIG_MODE) &&
	    nvml_took(&rd, L->get_mig_mode(d->h, &cur, &pend), GPU_F_MIG_MODE)) {
		s->mig_mode = d->mig = cur == NVML_DEVICE_MIG_ENABLE;
		gpu_set(s, GPU_F_MIG_MODE);
	}
	if (nvml_may(&rd, L->get_temperature_threshold, GPU_F_TEMP_SLOWDOWN) &&
	    nvml_took(&rd, L->get_temperature_threshold(d->h, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v), GPU_F_TEMP_SLOWDOWN)) {
		s->temp_slowdown_c = v;
		gpu_set(s, GPU_F_TEMP_SLOWDOWN);
	}
	if (nvml_may(&rd, L->get_temperature_threshold, GPU_F_TEMP_SHUTDOWN) &&
	    nvml_took(&rd, L->get_temperature_threshold(d->h, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &v), GPU_F_TEMP_SHUTDOWN)) {
		s->temp_shutdown_c = v;
		gpu_set(s, GPU_F_TEMP_SHUTDOWN);
	}
	if (nvml_may(&rd, L->get_max_clock_info, GPU_F_CLOCK_GFX_MAX) &&
	    nvml_took(&rd, L->get_max_clock_info(d->h, NVML_CLOCK_GRAPHICS, &v), GPU_F_CLOCK_GFX_MAX)) {
		s->clock_gfx_max_mhz = v;
		gpu_set(s, GPU_F_CLOCK_GFX_MAX);
	}
	if (nvml_may(&rd, L->get_max_clock_info, GPU_F_CLOCK_MEM_MAX) &&
	    nvml_took(&rd, L->get_max_clock_info(d->h, NVML_CLOCK_MEM, &v), GPU_F_CLOCK_MEM_MAX)) {
		s->clock_mem_max_mhz = v;
		gpu_set(s, GPU_F_CLOCK_MEM_MAX);
	}
	if (nvml_may(&rd, L->get_max_pcie_link_generation, GPU_F_PCIE_GEN_MAX) &&
	    nvml_took(&rd, L->get_max_pcie_link_generation(d->h, &v), GPU_F_PCIE_GEN_MAX)) {
		s->pcie_gen_max = v;
		gpu_set(s, GPU_F_PCIE_GEN_MAX);
	}
	if (nvml_may(&rd, L->get_max_pcie_link_width, GPU_F_PCIE_WIDTH_MAX) &&
	    nvml_took(&rd, L->get_max_pcie_link_width(d->h, &v), GPU_F_PCIE_WIDTH_MAX)) {
		s->pcie_width_max = v;
		gpu_set(s, GPU_F_PCIE_WIDTH_MAX);
	}
	*fatal = rd.fatal;
}

/* The identity part of a GPU entry; device_id falls back to the PCI address
 * and then the index when NVML gives no UUID. */
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

static void read_memory(struct rd *rd, struct gpu *g)
{
	const struct nvml_lib *L = &rd->n->lib;

	if (nvml_may(rd, L->get_memory_info_v2, GPU_F_MEM_USED)) {
		nvmlMemory_v2_t m = {.version = nvmlMemory_v2};
		nvmlReturn_t r = L->get_memory_info_v2(rd->h, &m);
		if (r == NVML_SUCCESS) {
			g->mem_total_bytes = m.total;
			g->mem_used_bytes = m.used; /* reserved excluded */
			g->valid |= UINT64_C(1) << GPU_F_MEM_TOTAL | UINT64_C(1) << GPU_F_MEM_USED;
			return;
		}
		if (r != NVML_ERROR_ARGUMENT_VERSION_MISMATCH && r != NVML_ERROR_NOT_SUPPORTED &&
		    r != NVML_ERROR_FUNCTION_NOT_FOUND && !nvml_took(rd, r, GPU_F_MEM_USED))
			return;
	}
	if (rd->fatal == NV_OK && L->get_memory_info) {
		nvmlMemory_t m;
		if (nvml_took(rd, L->get_memory_info(rd->h, &m), GPU_F_MEM_TOTAL)) {
			g->mem_total_bytes = m.total;
			g->mem_used_bytes = m.used;
			g->valid |= UINT64_C(1) << GPU_F_MEM_TOTAL | UINT64_C(1) << GPU_F_MEM_USED;
		}
	}
}

static void read_temperature(struct rd *rd, struct gpu *g)
{
	const struct nvml_lib *L = &rd->n->lib;
	unsigned v;

	/* TemperatureV first; where it is missing, unsupported or wants another
	 * struct version, the older getter (as for the memory getters). */
	bool have = false;
	if (L->get_temperature_v && !rd->d->tempv_unsupported && rd->fatal == NV_OK) {
		nvmlTemperature_t t = {.version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU};
		nvmlReturn_t r = L->get_temperature_v(rd->h, &t);
		if (r == NVML_SUCCESS) {
			g->temp_c = t.temperature;
			gpu_set(g, GPU_F_TEMP);
			have = true;
		} else if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND ||
			   r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
			rd->d->tempv_unsupported = true;
		} else {
			nvml_took(rd, r, GPU_F__COUNT);
		}
	}
	if (!have && nvml_may(rd, L->get_temperature, GPU_F_TEMP) &&
	    nvml_took(rd, L->get_temperature(rd->h, NVML_TEMPERATURE_GPU, &v), GPU_F_TEMP)) {
		g->temp_c = v;
		gpu_set(g, GPU_F_TEMP);
	}
	if (nvml_may(rd, L->get_field_values, GPU_F_TEMP_MEM)) {
		nvmlFieldValue_t fv;
		memset(&fv, 0, sizeof(fv));
		fv.fieldId = NVML_FI_DEV_MEMORY_TEMP;
		if (nvml_took(rd, L->get_field_values(rd->h, 1, &fv), GPU_F_TEMP_MEM)) {
			long long t = 0;
			bool ok = fv.nvmlReturn == NVML_SUCCESS;
			switch (fv.valueType) {
			case NVML_VALUE_TYPE_UNSIGNED_INT: t = fv.value.uiVal; break;
			case NVML_VALUE_TYPE_SIGNED_INT: t = fv.value.siVal; break;
			case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: t = (long long)fv.value.ullVal; break;
			case NVML_VALUE_TYPE_SIGNED_LONG_LONG: t = fv.value.sllVal; break;
			default: ok = false;
			}
			if (ok && t > -273 && t < 1000) {
				g->temp_mem_c = t;
				gpu_set(g, GPU_F_TEMP_MEM);
			} else if (fv.nvmlReturn == NVML_ERROR_NOT_SUPPORTED) {
				rd->d->unsupported |= UINT64_C(1) << GPU_F_TEMP_MEM;
			}
		}
	}
}

static void read_gpu(struct nvml *n, struct nvml_dev *d, struct gpu *g, struct rd *rd)
{
	const struct nvml_lib *L = &n->lib;
	unsigned v, v2;
	unsigned long long u64;
	int ps;

	if (nvml_may(rd, L->get_performance_state, GPU_F_PSTATE) &&
	    nvml_took(rd, L->get_performance_state(d->h, &ps), GPU_F_PSTATE) && ps >= 0 && ps <= 15) {
		g->pstate = (uint64_t)ps;
		gpu_set(g, GPU_F_PSTATE);
	}
	/* Utilisation and the codecs are not available in MIG mode. */
	if (!d->mig && nvml_may(rd, L->get_utilization_rates, GPU_F_UTIL)) {
		nvmlUtilization_t u;
		if (nvml_took(rd, L->get_utilization_rates(d->h, &u), GPU_F_UTIL) && u.gpu <= 100 && u.memory <= 100) {
			g->util_pct = u.gpu;
			g->mem_util_pct = u.memory;
			g->valid |= UINT64_C(1) << GPU_F_UTIL | UINT64_C(1) << GPU_F_MEM_UTIL;
		}
	}
	read_memory(rd, g);
	read_temperature(rd, g);
	if (nvml_may(rd, L->get_power_usage, GPU_F_POWER) && nvml_took(rd, L->get_power_usage(d->h, &v), GPU_F_POWER)) {
		g->power_w = v / 1000.0;
		gpu_set(g, GPU_F_POWER);
	}
	if (nvml_may(rd, L->get_enforced_power_limit, GPU_F_POWER_LIMIT) &&
	    nvml_took(rd, L->get_enforced_power_limit(d->h, &v), GPU_F_POWER_LIMIT)) {
		g->power_limit_w = v / 1000.0;
		gpu_set(g, GPU_F_POWER_LIMIT);
	}
	if (nvml_may(rd, L->get_total_energy_consumption, GPU_F_ENERGY) &&
	    nvml_took(rd, L->get_total_energy_consumption(d->h, &u64), GPU_F_ENERGY)) {
		g->energy_j = (double)u64 / 1000.0;
		gpu_set(g, GPU_F_ENERGY);
	}
	if (nvml_may(rd, L->get_fan_speed, GPU_F_FAN_PCT) && nvml_took(rd, L->get_fan_speed(d->h, &v), GPU_F_FAN_PCT) && v <= 100) {
		g->fan_pct = v;
		gpu_set(g, GPU_F_FAN_PCT);
	}
	if (nvml_may(rd, L->get_fan_speed_rpm, GPU_F_FAN_RPM)) {
		nvmlFanSpeedInfo_t fs = {.version = nvmlFanSpeedInfo_v1, .fan = 0};
		if (nvml_took(rd, L->get_fan_speed_rpm(d->h, &fs), GPU_F_FAN_RPM)) {
			g->fan_rpm = fs.speed;
			gpu_set(g, GPU_F_FAN_RPM);
		}
	}
	if (nvml_may(rd, L->get_clock_info, GPU_F_CLOCK_GFX) &&
	    nvml_took(rd, L->get_clock_info(d->h, NVML_CLOCK_GRAPHICS, &v), GPU_F_CLOCK_GFX)) {
		g->clock_gfx_mhz = v;
		gpu_set(g, GPU_F_CLOCK_GFX);
	}
	if (nvml_may(rd, L->get_clock_info, GPU_F_CLOCK_MEM) &&
	    nvml_took(rd, L->get_clock_info(d->h, NVML_CLOCK_MEM, &v), GPU_F_CLOCK_MEM)) {
		g->clock_mem_mhz = v;
		gpu_set(g, GPU_F_CLOCK_MEM);
	}
	if (!d->mig && nvml_may(rd, L->get_encoder_utilization, GPU_F_ENC) &&
	    nvml_took(rd, L->get_encoder_utilization(d->h, &v, &v2), GPU_F_ENC) && v <= 100) {
		g->enc_pct = v;
		gpu_set(g, GPU_F_ENC);
	}
	if (!d->mig && nvml_may(rd, L->get_decoder_utilization, GPU_F_DEC) &&
	    nvml_took(rd, L->get_decoder_utilization(d->h, &v, &v2), GPU_F_DEC) && v <= 100) {
		g->dec_pct = v;
		gpu_set(g, GPU_F_DEC);
	}
	if (nvml_may(rd, L->get_curr_pcie_link_generation, GPU_F_PCIE_GEN) &&
	    nvml_took(rd, L->get_curr_pcie_link_generation(d->h, &v), GPU_F_PCIE_GEN)) {
		g->pcie_gen = v;
		gpu_set(g, GPU_F_PCIE_GEN);
	}
	if (nvml_may(rd, L->get_curr_pcie_link_width, GPU_F_PCIE_WIDTH) &&
	    nvml_took(rd, L->get_curr_pcie_link_width(d->h, &v), GPU_F_PCIE_WIDTH)) {
		g->pcie_width = v;
		gpu_set(g, GPU_F_PCIE_WIDTH);
	}
	if (nvml_may(rd, L->get_total_ecc_errors, GPU_F_ECC_UNCORRECTED) &&
	    nvml_took(rd, L->get_total_ecc_errors(d->h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &u64),
		 GPU_F_ECC_UNCORRECTED) &&
	    u64 < (UINT64_C(1) << 62)) {
		g->ecc_errors_uncorrected = u64;
		gpu_set(g, GPU_F_ECC_UNCORRECTED);
	}
	if (nvml_may(rd, L->get_clocks_event_reasons, GPU_F_THROTTLE) &&
	    nvml_took(rd, L->get_clocks_event_reasons(d->h, &u64), GPU_F_THROTTLE)) {
		/* NVML's reason bits 0x1..0x100 are gpur's names in order. */
		g->throttle = (uint32_t)(u64 & ((1u << GPU_THROTTLE__COUNT) - 1));
		gpu_set(g, GPU_F_THROTTLE);
	}
	/* Sizes and limits stay known for a GPU that gets lost later. */
	if (gpu_has(g, GPU_F_MEM_TOTAL)) {
		d->statics.mem_total_bytes = g->mem_total_bytes;
		gpu_set(&d->statics, GPU_F_MEM_TOTAL);
	}
	if (gpu_has(g, GPU_F_POWER_LIMIT)) {
		d->statics.power_limit_w = g->power_limit_w;
		gpu_set(&d->statics, GPU_F_POWER_LIMIT);
	}
	nvml_slow_get(n, (size_t)(d - n->dev), g);
}

/* The MIG instances of d, each a GPU of its own after its parent. */
static void read_mig(struct nvml *n, struct nvml_dev *d, struct frame *f, struct rd *prd)
{
	const struct nvml_lib *L = &n->lib;
	unsigned max = 0;

	if (!L->get_max_mig_device_count || !L->get_mig_device_handle_by_index ||
	    !nvml_took(prd, L->get_max_mig_device_count(d->h, &max), GPU_F__COUNT))
		return;
	for (unsigned i = 0; i < max && i < 64 && prd->fatal == NV_OK; i++) {
		nvmlDevice_t mh;
		nvmlReturn_t r = L->get_mig_device_handle_by_index(d->h, i, &mh);
		if (r == NVML_ERROR_NOT_FOUND)
			continue; /* an empty slot */
		if (!nvml_took(prd, r, GPU_F__COUNT))
			continue;
		struct nvml_dev mig = {.h = mh};
		struct rd rd = {.n = n, .d = &mig, .h = mh};
		struct gpu *g = frame_add_gpu(f);
		if (!g)
			return;
		if (L->get_name && nvml_took(&rd, L->get_name(mh, mig.name, sizeof(mig.name)), GPU_F__COUNT)) {
			mig.name[sizeof(mig.name) - 1] = '\0';
			set_str(f, g, GPU_F_NAME, mig.name);
		}
		bool have_uuid = L->get_uuid && nvml_took(&rd, L->get_uuid(mh, mig.uuid, sizeof(mig.uuid)), GPU_F__COUNT);
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
		read_memory(&rd, g);
		size_t index = f->ngpus - 1;
		nvml_device_processes(&rd, f, index, false);
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
	for (unsigned i = 0; i < count; i++) {
		struct nvml_dev *d = &fresh[i];
		enum outcome fatal = NV_OK;
		r = L->get_handle_by_index(i, &d->h);
		if (nvml_classify(r) == NV_LIB_LOST) {
			snprintf(err, errlen, "nvmlDeviceGetHandleByIndex(%u) failed: %s", i,
				 nvml_lib_strerror(L, r, msg, sizeof(msg)));
			free(fresh);
			return -ENODEV;
		}
		if (r == NVML_SUCCESS)
			read_identity(n, d, &fatal);
		if (fatal == NV_LIB_LOST) {
			snprintf(err, errlen, "NVML failed while reading GPU %u", i);
			free(fresh);
			return -ENODEV;
		}
		d->lost = r != NVML_SUCCESS || fatal == NV_GPU_LOST;
	}
	*out = fresh;
	*nout = count;
	return 0;
}

/* Enumerates the GPUs. On re-initialisation each GPU found is matched to a
 * known one (by UUID, else by position) at most once, so identities and
 * positions survive and two GPUs are never merged; the slow thread is held
 * meanwhile by the caller. */
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
	/* Known GPUs keep their entries (lost until found again). */
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
			next[nnext++] = *f; /* a new GPU: appended */
			continue;
		}
		claimed[match] = true;
		struct nvml_dev *k = &next[match];
		if (f->lost) {
			k->h = f->h;
			continue;
		}
		/* Found again: fresh identity, kept history and reported id. */
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
	if (n->lib.dl)
		n->lib.shutdown();
	nvml_lib_close(&n->lib);
	pthread_mutex_destroy(&n->mu);
	pthread_cond_destroy(&n->cv);
	free(n->dev);
	free(n->slow_dev);
	free(n->pbuf);
	free(n);
	b->priv = NULL;
}

/* A failure after the library loaded; when GPUR_NVML_LIBRARY chose it, the
 * message names the file that was loaded. */
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

	(void)env; /* the sampler reads /proc for NVML's rows */
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
		fail_open(b, n, n->ndev == 0 && !err[0] ? "no NVIDIA GPU (NVML reports 0 devices)" : err);
		nvml_close(b);
		return -ENODEV;
	}
	read_versions(n);
	nvml_slow_start(n);
	return 0;
}

static int nvml_reinit(struct backend *b)
{
	struct nvml *n = b->priv;
	char err[BACKEND_ERRLEN];

	/* No call into NVML from the slow thread across shutdown and init. */
	nvml_slow_hold(n);
	n->lib.shutdown();
	int rc = 0;
	if (init_library(n, err, sizeof(err)) != 0 || enumerate(n, err, sizeof(err)) != 0) {
		backend_fail(b, "%s", err);
		rc = -ENODEV;
	} else {
		read_versions(n);
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

	if (r != NVML_SUCCESS) {
		backend_fail(b, "nvmlDeviceGetCount failed: %s", nvml_lib_strerror(L, r, msg, sizeof(msg)));
		return -ENODEV;
	}
	for (size_t i = 0; i < n->ndev; i++) {
		struct nvml_dev *d = &n->dev[i];
		struct gpu *g = put_identity(f, d, i);
		if (!g)
			break;
		if (d->lost)
			continue; /* not polled until re-initialisation */
		struct rd rd = {.n = n, .d = d, .h = d->h};
		size_t index = f->ngpus - 1;
		read_gpu(n, d, g, &rd);
		if (d->mig)
			read_mig(n, d, f, &rd);
		else
			nvml_device_processes(&rd, f, index, true);
		if (rd.fatal == NV_LIB_LOST) {
			backend_fail(b, "NVML failed: %s", nvml_lib_strerror(L, rd.fatal_code, msg, sizeof(msg)));
			return -ENODEV;
		}
		if (rd.fatal == NV_GPU_LOST) {
			/* Lost mid-poll: keep identity, drop what was read. */
			d->lost = true;
			nvml_slow_skip(n, i);
			g = &f->gpus[index];
			g->state = GPU_STATE_LOST;
			gpu_drop_readings(g);
			f->ngpus = index + 1;
			size_t keep = 0;
			for (size_t p = 0; p < f->nprocs; p++)
				if (f->procs[p].gpu_index < index + 1 && f->procs[p].gpu_index != index)
					f->procs[keep++] = f->procs[p];
			f->nprocs = keep;
		}
	}
	if (n->driver[0]) {
		f->driver = frame_str(f, n->driver);
		frame_set(f, FRAME_F_DRIVER);
	}
	if (n->cuda[0])
		f->cuda = frame_str(f, n->cuda);
	if ((count > FRAME_MAX_GPUS ? FRAME_MAX_GPUS : count) != n->ndev) {
		backend_fail(b, "the GPU count changed from %zu to %u", n->ndev, count);
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
