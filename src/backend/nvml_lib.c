/* nvml_lib: dlopen, and one table of symbols with versioned fallbacks. */
#include "backend/nvml_lib.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nvml_sym {
	size_t off;
	bool required;
	const char *names[3]; /* tried in order */
};

#define SYM(field, req, ...) {offsetof(struct nvml_lib, field), req, {__VA_ARGS__}}

static const struct nvml_sym SYMS[] = {
	SYM(init, true, "nvmlInit_v2", "nvmlInit"),
	SYM(shutdown, true, "nvmlShutdown"),
	SYM(error_string, true, "nvmlErrorString"),
	SYM(get_count, true, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"),
	SYM(get_handle_by_index, true, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"),
	SYM(system_get_driver_version, false, "nvmlSystemGetDriverVersion"),
	SYM(system_get_cuda_driver_version, false, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"),
	SYM(get_name, false, "nvmlDeviceGetName"),
	SYM(get_uuid, false, "nvmlDeviceGetUUID"),
	SYM(get_pci_info, false, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"),
	SYM(get_performance_state, false, "nvmlDeviceGetPerformanceState"),
	SYM(get_mig_mode, false, "nvmlDeviceGetMigMode"),
	SYM(get_max_mig_device_count, false, "nvmlDeviceGetMaxMigDeviceCount"),
	SYM(get_mig_device_handle_by_index, false, "nvmlDeviceGetMigDeviceHandleByIndex"),
	SYM(get_utilization_rates, false, "nvmlDeviceGetUtilizationRates"),
	SYM(get_memory_info_v2, false, "nvmlDeviceGetMemoryInfo_v2"),
	SYM(get_memory_info, false, "nvmlDeviceGetMemoryInfo"),
	SYM(get_temperature_v, false, "nvmlDeviceGetTemperatureV"),
	SYM(get_temperature, false, "nvmlDeviceGetTemperature"),
	SYM(get_temperature_threshold, false, "nvmlDeviceGetTemperatureThreshold"),
	SYM(get_field_values, false, "nvmlDeviceGetFieldValues"),
	SYM(get_power_usage, false, "nvmlDeviceGetPowerUsage"),
	SYM(get_enforced_power_limit, false, "nvmlDeviceGetEnforcedPowerLimit"),
	SYM(get_total_energy_consumption, false, "nvmlDeviceGetTotalEnergyConsumption"),
	SYM(get_fan_speed, false, "nvmlDeviceGetFanSpeed"),
	SYM(get_fan_speed_rpm, false, "nvmlDeviceGetFanSpeedRPM"),
	SYM(get_clock_info, false, "nvmlDeviceGetClockInfo"),
	SYM(get_max_clock_info, false, "nvmlDeviceGetMaxClockInfo"),
	SYM(get_encoder_utilization, false, "nvmlDeviceGetEncoderUtilization"),
	SYM(get_decoder_utilization, false, "nvmlDeviceGetDecoderUtilization"),
	SYM(get_curr_pcie_link_generation, false, "nvmlDeviceGetCurrPcieLinkGeneration"),
	SYM(get_curr_pcie_link_width, false, "nvmlDeviceGetCurrPcieLinkWidth"),
	SYM(get_max_pcie_link_generation, false, "nvmlDeviceGetMaxPcieLinkGeneration"),
	SYM(get_max_pcie_link_width, false, "nvmlDeviceGetMaxPcieLinkWidth"),
	SYM(get_pcie_throughput, false, "nvmlDeviceGetPcieThroughput"),
	SYM(get_total_ecc_errors, false, "nvmlDeviceGetTotalEccErrors"),
	SYM(get_clocks_event_reasons, false, "nvmlDeviceGetCurrentClocksEventReasons",
	    "nvmlDeviceGetCurrentClocksThrottleReasons"),
	SYM(get_process_utilization, false, "nvmlDeviceGetProcessUtilization"),
	SYM(get_processes_utilization_info, false, "nvmlDeviceGetProcessesUtilizationInfo"),
	SYM(gpm_query_device_support, false, "nvmlGpmQueryDeviceSupport"),
	SYM(gpm_sample_alloc, false, "nvmlGpmSampleAlloc"),
	SYM(gpm_sample_free, false, "nvmlGpmSampleFree"),
	SYM(gpm_sample_get, false, "nvmlGpmSampleGet"),
	SYM(gpm_mig_sample_get, false, "nvmlGpmMigSampleGet"),
	SYM(gpm_metrics_get, false, "nvmlGpmMetricsGet"),
	SYM(get_gpu_instance_id, false, "nvmlDeviceGetGpuInstanceId"),
	SYM(event_set_create, false, "nvmlEventSetCreate"),
	SYM(event_set_free, false, "nvmlEventSetFree"),
	SYM(get_supported_event_types, false, "nvmlDeviceGetSupportedEventTypes"),
	SYM(register_events, false, "nvmlDeviceRegisterEvents"),
	SYM(event_set_wait, false, "nvmlEventSetWait_v2", "nvmlEventSetWait"),
};

/* For the process lists, the entry size depends on which symbol
 * resolved. */
static const char *const PLIST_NAMES[NVML_PLIST__COUNT] = {
	"nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses",
	"nvmlDeviceGetMPSComputeRunningProcesses",
};

static void *sym(void *dl, const char *name)
{
	dlerror();
	return dlsym(dl, name);
}

static void resolve_plists(struct nvml_lib *lib)
{
	/* Drivers whose _v3 wrote 32-byte entries are the ones that have
	 * nvmlDeviceGetConfComputeMemSizeInfo but not
	 * nvmlDeviceGetRunningProcessDetailList. */
	bool cc32 = sym(lib->dl, "nvmlDeviceGetConfComputeMemSizeInfo") &&
		    !sym(lib->dl, "nvmlDeviceGetRunningProcessDetailList");
	static const char *const suffix[] = {"_v3", "_v2", ""};
	const size_t stride[] = {cc32 ? sizeof(nvmlProcessDetail_v1_t) : sizeof(nvmlProcessInfo_t),
				 sizeof(nvmlProcessInfo_t), sizeof(nvmlProcessInfo_v1_t)};

	for (int l = 0; l < NVML_PLIST__COUNT; l++) {
		for (int v = 0; v < 3; v++) {
			char name[96];
			snprintf(name, sizeof(name), "%s%s", PLIST_NAMES[l], suffix[v]);
			void *p = sym(lib->dl, name);
			if (p) {
				memcpy(&lib->plist[l], &p, sizeof(p));
				lib->plist_stride[l] = stride[v];
				break;
			}
		}
	}
}

static bool not_found(const char *dlerr)
{
	return dlerr && strstr(dlerr, "No such file or directory");
}

int nvml_lib_open(struct nvml_lib *lib, char *err, size_t errlen)
{
	const char *env = getenv("GPUR_NVML_LIBRARY");

	memset(lib, 0, sizeof(*lib));
	if (env && *env) {
		char resolved[PATH_MAX];
		if (!realpath(env, resolved)) {
			snprintf(err, errlen, "GPUR_NVML_LIBRARY=%s: %s", env, strerror(errno));
			return -ENOENT;
		}
		lib->dl = dlopen(resolved, RTLD_NOW | RTLD_LOCAL);
		if (!lib->dl) {
			snprintf(err, errlen, "GPUR_NVML_LIBRARY=%s: cannot load %s: %s", env, resolved, dlerror());
			return -ENOENT;
		}
		snprintf(lib->path, sizeof(lib->path), "%s", resolved);
	} else {
		/* For a bare name the loader searches LD_LIBRARY_PATH, its cache
		 * and the system directories, never the current directory. */
		lib->dl = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!lib->dl) {
			char first[512];
			snprintf(first, sizeof(first), "%s", dlerror());
			lib->dl = dlopen("libnvidia-ml.so", RTLD_NOW | RTLD_LOCAL);
			if (!lib->dl) {
				if (not_found(first))
					snprintf(err, errlen,
						 "libnvidia-ml.so.1 not found (is the NVIDIA driver installed?); "
						 "searched LD_LIBRARY_PATH, the ld.so cache and the system library "
						 "directories; GPUR_NVML_LIBRARY=PATH names another file");
				else
					snprintf(err, errlen, "cannot load libnvidia-ml.so.1: %s", first);
				return -ENOENT;
			}
		}
		struct link_map *lm = NULL;
		if (dlinfo(lib->dl, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
			snprintf(lib->path, sizeof(lib->path), "%s", lm->l_name);
		else
			snprintf(lib->path, sizeof(lib->path), "libnvidia-ml.so.1");
	}
	for (size_t i = 0; i < sizeof(SYMS) / sizeof(SYMS[0]); i++) {
		const struct nvml_sym *s = &SYMS[i];
		void *p = NULL;
		for (int k = 0; k < 3 && s->names[k] && !p; k++)
			p = sym(lib->dl, s->names[k]);
		if (!p && s->required) {
			snprintf(err, errlen, "%s: missing symbol %s (not an NVML library, or too old)", lib->path,
				 s->names[0]);
			nvml_lib_close(lib);
			return -ENOENT;
		}
		memcpy((char *)lib + s->off, &p, sizeof(p));
	}
	resolve_plists(lib);
	lib->pci_old_layout = lib->get_pci_info && !sym(lib->dl, "nvmlDeviceGetPciInfo_v3");
	return 0;
}

void nvml_lib_close(struct nvml_lib *lib)
{
	if (lib->dl)
		dlclose(lib->dl);
	lib->dl = NULL;
}

const char *nvml_lib_strerror(const struct nvml_lib *lib, nvmlReturn_t r, char *buf, size_t n)
{
	const char *s = lib->error_string ? lib->error_string(r) : NULL;

	snprintf(buf, n, "%s (NVML error %d)", s ? s : "unknown error", r);
	return buf;
}
