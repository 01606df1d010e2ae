/* nvml_lib: finds and opens NVML with dlopen and resolves every entry point
 * gpur uses from one table, with versioned fallbacks (_v3 -> _v2 -> plain).
 * Only init, shutdown, the error string, the device count and the handle by
 * index are required. Any other symbol may be missing, and its field is then
 * unknown. */
#ifndef GPUR_NVML_LIB_H
#define GPUR_NVML_LIB_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/nvml_abi.h"

enum nvml_plist { NVML_PLIST_COMPUTE, NVML_PLIST_GRAPHICS, NVML_PLIST_MPS, NVML_PLIST__COUNT };

struct nvml_lib {
	void *dl;
	char path[4096]; /* the file actually loaded */
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	const char *(*error_string)(nvmlReturn_t);
	nvmlReturn_t (*get_count)(unsigned int *);
	nvmlReturn_t (*get_handle_by_index)(unsigned int, nvmlDevice_t *);
	/* Optional. */
	nvmlReturn_t (*system_get_driver_version)(char *, unsigned int);
	nvmlReturn_t (*system_get_cuda_driver_version)(int *);
	nvmlReturn_t (*get_name)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*get_uuid)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*get_pci_info)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*get_performance_state)(nvmlDevice_t, int *);
	nvmlReturn_t (*get_mig_mode)(nvmlDevice_t, unsigned int *, unsigned int *);
	nvmlReturn_t (*get_max_mig_device_count)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*get_mig_device_handle_by_index)(nvmlDevice_t, unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*get_utilization_rates)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*get_memory_info_v2)(nvmlDevice_t, nvmlMemory_v2_t *);
	nvmlReturn_t (*get_memory_info)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*get_temperature_v)(nvmlDevice_t, nvmlTemperature_t *);
	nvmlReturn_t (*get_temperature)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*get_temperature_threshold)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*get_field_values)(nvmlDevice_t, int, nvmlFieldValue_t *);
	nvmlReturn_t (*get_power_usage)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*get_enforced_power_limit)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*get_total_energy_consumption)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*get_fan_speed)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*get_fan_speed_rpm)(nvmlDevice_t, nvmlFanSpeedInfo_t *);
	nvmlReturn_t (*get_clock_info)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*get_max_clock_info)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*get_encoder_utilization)(nvmlDevice_t, unsigned int *, unsigned int *);
	nvmlReturn_t (*get_decoder_utilization)(nvmlDevice_t, unsigned int *, unsigned int *);
	nvmlReturn_t (*get_curr_pcie_link_generation)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*get_curr_pcie_link_width)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*get_max_pcie_link_generation)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*get_max_pcie_link_width)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*get_pcie_throughput)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*get_total_ecc_errors)(nvmlDevice_t, int, int, unsigned long long *);
	nvmlReturn_t (*get_clocks_event_reasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*get_process_utilization)(nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned int *,
						unsigned long long);
	nvmlReturn_t (*get_processes_utilization_info)(nvmlDevice_t, nvmlProcessesUtilizationInfo_v1_t *);
	/* GPM; all of them or none is used (nvml_gpm.c). */
	nvmlReturn_t (*gpm_query_device_support)(nvmlDevice_t, nvmlGpmSupport_t *);
	nvmlReturn_t (*gpm_sample_alloc)(nvmlGpmSample_t *);
	nvmlReturn_t (*gpm_sample_free)(nvmlGpmSample_t);
	nvmlReturn_t (*gpm_sample_get)(nvmlDevice_t, nvmlGpmSample_t);
	nvmlReturn_t (*gpm_mig_sample_get)(nvmlDevice_t, unsigned int, nvmlGpmSample_t);
	nvmlReturn_t (*gpm_metrics_get)(nvmlGpmMetricsGet_t *);
	nvmlReturn_t (*get_gpu_instance_id)(nvmlDevice_t, unsigned int *);
	/* Events (nvml_xid.c). event_set_wait is _v2 where the library has
	 * it; the older call fills only the first 24 bytes (no instance ids). */
	nvmlReturn_t (*event_set_create)(nvmlEventSet_t *);
	nvmlReturn_t (*event_set_free)(nvmlEventSet_t);
	nvmlReturn_t (*get_supported_event_types)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*register_events)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
	nvmlReturn_t (*event_set_wait)(nvmlEventSet_t, nvmlEventData_t *, unsigned int);
	/* Process lists; plist_stride is the entry size of the resolved symbol. */
	nvmlReturn_t (*plist[NVML_PLIST__COUNT])(nvmlDevice_t, unsigned int *, void *);
	size_t plist_stride[NVML_PLIST__COUNT];
	/* get_pci_info is _v2 or plain, with the old layout and the bus id at
	 * offset 0. */
	bool pci_old_layout;
};

/* Loads NVML from $GPUR_NVML_LIBRARY, with no fallback when it is set, or
 * else through the loader's search for libnvidia-ml.so.1 and then
 * libnvidia-ml.so, never in the current directory. Returns 0, or -errno with
 * a one-line reason in err. */
int nvml_lib_open(struct nvml_lib *lib, char *err, size_t errlen);
void nvml_lib_close(struct nvml_lib *lib);
/* Describes an NVML error, as in "Driver Not Loaded (NVML error 9)". */
const char *nvml_lib_strerror(const struct nvml_lib *lib, nvmlReturn_t r, char *buf, size_t n);

#endif
