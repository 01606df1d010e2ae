/* nvml_abi: the parts of NVIDIA's NVML ABI that gpur uses, declared once with
 * NVIDIA's own type names, since NVML is dlopen()ed and never linked. Layouts
 * and constants follow NVIDIA's public nvml.h, as docs/nvml.md describes. The
 * fake NVML of the tests includes this header too, so its sizes are pinned
 * below. */
#ifndef GPUR_NVML_ABI_H
#define GPUR_NVML_ABI_H

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_ALREADY_INITIALIZED 5
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_INSUFFICIENT_POWER 8
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_TIMEOUT 10
#define NVML_ERROR_IRQ_ISSUE 11
#define NVML_ERROR_LIBRARY_NOT_FOUND 12
#define NVML_ERROR_FUNCTION_NOT_FOUND 13
#define NVML_ERROR_CORRUPTED_INFOROM 14
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_RESET_REQUIRED 16
#define NVML_ERROR_OPERATING_SYSTEM 17
#define NVML_ERROR_LIB_RM_VERSION_MISMATCH 18
#define NVML_ERROR_IN_USE 19
#define NVML_ERROR_MEMORY 20
#define NVML_ERROR_NO_DATA 21
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define NVML_ERROR_UNKNOWN 999

#define NVML_VALUE_NOT_AVAILABLE (~0ULL)
#define NVML_STRUCT_VERSION(size, ver) ((unsigned int)(size) | ((unsigned int)(ver) << 24))

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

/* nvmlTemperatureSensors_t, nvmlTemperatureThresholds_t */
#define NVML_TEMPERATURE_GPU 0
#define NVML_TEMPERATURE_THRESHOLD_SHUTDOWN 0
#define NVML_TEMPERATURE_THRESHOLD_SLOWDOWN 1
/* nvmlClockType_t */
#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
/* nvmlPcieUtilCounter_t */
#define NVML_PCIE_UTIL_TX_BYTES 0
#define NVML_PCIE_UTIL_RX_BYTES 1
/* nvmlMemoryErrorType_t, nvmlEccCounterType_t */
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVML_VOLATILE_ECC 0
/* nvmlPstates_t */
#define NVML_PSTATE_UNKNOWN 32
/* MIG */
#define NVML_DEVICE_MIG_DISABLE 0
#define NVML_DEVICE_MIG_ENABLE 1
/* nvmlFieldValue_t field ids */
#define NVML_FI_DEV_ECC_DBE_VOL_TOTAL 4 /* uncorrected (double-bit) volatile ECC errors */
#define NVML_FI_DEV_MEMORY_TEMP 82
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION 83 /* mJ since the driver loaded */
#define NVML_FI_DEV_POWER_AVERAGE 185           /* mW over 1 s, Ampere (not GA100) and later */
#define NVML_FI_DEV_POWER_CURRENT_LIMIT 190     /* the enforced limit, mW */

/* Clock event (throttle) reasons, nvmlDeviceGetCurrentClocksEventReasons. */
#define nvmlClocksEventReasonGpuIdle 0x1ULL
#define nvmlClocksEventReasonApplicationsClocksSetting 0x2ULL
#define nvmlClocksEventReasonSwPowerCap 0x4ULL
#define nvmlClocksThrottleReasonHwSlowdown 0x8ULL
#define nvmlClocksEventReasonSyncBoost 0x10ULL
#define nvmlClocksEventReasonSwThermalSlowdown 0x20ULL
#define nvmlClocksThrottleReasonHwThermalSlowdown 0x40ULL
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown 0x80ULL
#define nvmlClocksEventReasonDisplayClockSetting 0x100ULL

typedef struct {
	char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain, bus, device;
	unsigned int pciDeviceId, pciSubSystemId;
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct {
	unsigned int gpu, memory;
} nvmlUtilization_t;

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
	unsigned int version;
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 NVML_STRUCT_VERSION(sizeof(nvmlMemory_v2_t), 2)

typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t; /* the v2 layout, which the _v3 entry points take too */

/* The 32-byte entries that some drivers' _v3 entry points wrote instead. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
	unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessDetail_v1_t;

typedef struct {
	unsigned int pid;
	unsigned long long timeStamp; /* CPU clock in µs */
	unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

/* nvmlDeviceGetProcessesUtilizationInfo (driver 550 and later): one entry
 * per process with some utilisation in the last sample period. */
typedef struct {
	unsigned long long timeStamp; /* CPU clock in µs */
	unsigned int pid;
	unsigned int smUtil, memUtil, encUtil, decUtil, jpgUtil, ofaUtil;
} nvmlProcessUtilizationInfo_v1_t;

typedef struct {
	unsigned int version;
	unsigned int processSamplesCount; /* in: entries passed; out: entries written, or needed */
	unsigned long long lastSeenTimeStamp;
	nvmlProcessUtilizationInfo_v1_t *procUtilArray;
} nvmlProcessesUtilizationInfo_v1_t;
#define nvmlProcessesUtilizationInfo_v1 NVML_STRUCT_VERSION(sizeof(nvmlProcessesUtilizationInfo_v1_t), 1)

typedef struct {
	unsigned int version;
	int sensorType;
	int temperature;
} nvmlTemperature_t;
#define nvmlTemperature_v1 NVML_STRUCT_VERSION(sizeof(nvmlTemperature_t), 1)

typedef struct {
	unsigned int version;
	unsigned int fan;
	unsigned int speed;
} nvmlFanSpeedInfo_t;
#define nvmlFanSpeedInfo_v1 NVML_STRUCT_VERSION(sizeof(nvmlFanSpeedInfo_t), 1)

typedef union {
	double dVal;
	int siVal;
	unsigned int uiVal;
	unsigned long ulVal;
	unsigned long long ullVal;
	signed long long sllVal;
	unsigned short usVal;
} nvmlValue_t;

/* nvmlValueType_t */
#define NVML_VALUE_TYPE_DOUBLE 0
#define NVML_VALUE_TYPE_UNSIGNED_INT 1
#define NVML_VALUE_TYPE_UNSIGNED_LONG 2
#define NVML_VALUE_TYPE_UNSIGNED_LONG_LONG 3
#define NVML_VALUE_TYPE_SIGNED_LONG_LONG 4
#define NVML_VALUE_TYPE_SIGNED_INT 5
#define NVML_VALUE_TYPE_UNSIGNED_SHORT 6

typedef struct {
	unsigned int fieldId;
	unsigned int scopeId;
	long long timestamp;
	long long latencyUsec;
	int valueType;
	nvmlReturn_t nvmlReturn;
	nvmlValue_t value;
} nvmlFieldValue_t;

/* GPM (GPU performance monitoring, Hopper and newer, driver R520+). A
 * sample is an opaque buffer from nvmlGpmSampleAlloc(); nvmlGpmMetricsGet()
 * computes metrics over two samples of one device taken more than 100 ms
 * apart. The metrics array grew from 98 to 210 to 333 entries across driver
 * releases while NVML_GPM_METRICS_GET_VERSION stayed 1: a caller sizes it
 * for the largest and asks for numMetrics of them, and a driver writes only
 * those. */
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

#define NVML_GPM_METRIC_GRAPHICS_UTIL 1
#define NVML_GPM_METRIC_SM_UTIL 2
#define NVML_GPM_METRIC_SM_OCCUPANCY 3
#define NVML_GPM_METRIC_ANY_TENSOR_UTIL 5
#define NVML_GPM_METRIC_DRAM_BW_UTIL 10
#define NVML_GPM_METRIC_FP64_UTIL 11
#define NVML_GPM_METRIC_FP32_UTIL 12
#define NVML_GPM_METRIC_FP16_UTIL 13
#define NVML_GPM_METRIC_PCIE_TX_PER_SEC 20 /* MiB/s */
#define NVML_GPM_METRIC_PCIE_RX_PER_SEC 21
#define NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC 60 /* MiB/s, all links */
#define NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC 61
/* The array sizes of nvmlGpmMetricsGet_t.metrics that drivers have used. */
#define NVML_GPM_METRIC_MAX_R520 98
#define NVML_GPM_METRIC_MAX_R535 210
#define NVML_GPM_METRIC_MAX 333

typedef struct {
	unsigned int metricId;   /* in */
	nvmlReturn_t nvmlReturn; /* out: this metric's own answer */
	double value;            /* out: valid only when nvmlReturn is NVML_SUCCESS */
	struct {
		char *shortName, *longName, *unit; /* out: the driver's, or NULL */
	} metricInfo;
} nvmlGpmMetric_t;

typedef struct {
	unsigned int version;    /* NVML_GPM_METRICS_GET_VERSION */
	unsigned int numMetrics; /* how many of metrics[] to compute */
	nvmlGpmSample_t sample1, sample2;
	nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;
#define NVML_GPM_METRICS_GET_VERSION 1

typedef struct {
	unsigned int version; /* NVML_GPM_SUPPORT_VERSION */
	unsigned int isSupportedDevice;
} nvmlGpmSupport_t;
#define NVML_GPM_SUPPORT_VERSION 1

/* Events. XID errors arrive through an event set on which a thread waits;
 * eventData is the XID (999 for one the driver does not know), and the
 * instance ids are 0xFFFFFFFF when the error is not a MIG instance's. */
typedef struct nvmlEventSet_st *nvmlEventSet_t;
#define nvmlEventTypeXidCriticalError 0x0000000000000008ULL
#define NVML_EVENT_NO_INSTANCE 0xFFFFFFFFu
typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType;
	unsigned long long eventData;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlEventData_t;

_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t is 40 bytes");
_Static_assert(sizeof(nvmlGpmMetric_t) == 40, "nvmlGpmMetric_t is 40 bytes");
_Static_assert(sizeof(nvmlGpmMetricsGet_t) == 24 + 40 * NVML_GPM_METRIC_MAX, "nvmlGpmMetricsGet_t");
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t is 32 bytes");
_Static_assert(sizeof(nvmlTemperature_t) == 12 && nvmlTemperature_v1 == 0x0100000C, "nvmlTemperature_v1");
_Static_assert(sizeof(nvmlFanSpeedInfo_t) == 12 && nvmlFanSpeedInfo_v1 == 0x0100000C, "nvmlFanSpeedInfo_v1");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t is 68 bytes");
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t is 8 bytes");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t is 24 bytes");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t is 40 bytes");
_Static_assert(nvmlMemory_v2 == 0x02000028, "nvmlMemory_v2 version");
_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "v1 process info is 16 bytes");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "v2 process info is 24 bytes");
_Static_assert(sizeof(nvmlProcessDetail_v1_t) == 32, "the 32-byte _v3 stride");
_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "utilization sample is 32 bytes");
_Static_assert(sizeof(nvmlProcessUtilizationInfo_v1_t) == 40, "a process utilisation entry is 40 bytes");
_Static_assert(sizeof(nvmlProcessesUtilizationInfo_v1_t) == 24 && nvmlProcessesUtilizationInfo_v1 == 0x01000018,
	       "nvmlProcessesUtilizationInfo_v1");

#endif
