/* gpu: one device in a frame (a physical GPU or a MIG instance) with a
 * validity bit per field: a zeroed struct gpu means "all unknown". */
#ifndef GPUR_GPU_H
#define GPUR_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/field.h"

enum gpu_state {
	GPU_STATE_OK,
	GPU_STATE_LOST,      /* fell off the bus, or needs a reset */
	GPU_STATE_SUSPENDED, /* runtime-suspended, not read */
	GPU_STATE__COUNT
};

enum gpu_throttle {
	GPU_THROTTLE_GPU_IDLE,
	GPU_THROTTLE_APPLICATIONS_CLOCKS,
	GPU_THROTTLE_SW_POWER_CAP,
	GPU_THROTTLE_HW_SLOWDOWN,
	GPU_THROTTLE_SYNC_BOOST,
	GPU_THROTTLE_SW_THERMAL,
	GPU_THROTTLE_HW_THERMAL,
	GPU_THROTTLE_HW_POWER_BRAKE,
	GPU_THROTTLE_DISPLAY_CLOCK,
	/* Generic reasons, a thermal one or a power cap, from sources that do
	 * not say more (AMD's heuristic, the original gpur's records). */
	GPU_THROTTLE_THERMAL,
	GPU_THROTTLE_POWER_CAP,
	GPU_THROTTLE__COUNT
};
/* The reasons NVML's bitmask has, bit for bit (nvmlClocksEventReason*). */
#define GPU_THROTTLE_NVML_MASK ((1u << (GPU_THROTTLE_DISPLAY_CLOCK + 1)) - 1)

enum gpu_field {
	GPU_F_NAME, GPU_F_DEVICE_ID, GPU_F_PARENT_DEVICE_ID, GPU_F_VENDOR, GPU_F_PCI_BUS_ID,
	GPU_F_STATE, GPU_F_PSTATE, GPU_F_MIG_MODE, GPU_F_UTIL, GPU_F_MEM_UTIL,
	GPU_F_MEM_USED, GPU_F_MEM_TOTAL, GPU_F_GTT_USED, GPU_F_GTT_TOTAL, GPU_F_TEMP, GPU_F_TEMP_MEM,
	GPU_F_TEMP_JUNCTION, GPU_F_TEMP_SLOWDOWN,
	GPU_F_TEMP_SHUTDOWN, GPU_F_POWER, GPU_F_POWER_LIMIT, GPU_F_ENERGY, GPU_F_FAN_PCT,
	GPU_F_FAN_RPM, GPU_F_CLOCK_GFX, GPU_F_CLOCK_GFX_MAX, GPU_F_CLOCK_MEM, GPU_F_CLOCK_MEM_MAX,
	GPU_F_ENC, GPU_F_DEC, GPU_F_PCIE_GEN, GPU_F_PCIE_WIDTH, GPU_F_PCIE_GEN_MAX,
	GPU_F_PCIE_WIDTH_MAX, GPU_F_PCIE_RX, GPU_F_PCIE_TX, GPU_F_ECC_UNCORRECTED, GPU_F_THROTTLE,
	GPU_F_INTEGRATED, GPU_F_VIDEO, GPU_F_VOLTAGE, GPU_F_PERF_LEVEL,
	/* What the chip's units are doing (NVML's GPM, Hopper and newer). */
	GPU_F_GR_ACTIVE, GPU_F_SM_ACTIVE, GPU_F_SM_OCCUPANCY, GPU_F_TENSOR_ACTIVE, GPU_F_DRAM_ACTIVE,
	GPU_F_FP64_ACTIVE, GPU_F_FP32_ACTIVE, GPU_F_FP16_ACTIVE, GPU_F_NVLINK_RX, GPU_F_NVLINK_TX,
	/* The process list could not be read in this poll. */
	GPU_F_PROCS_UNKNOWN,
	GPU_F__COUNT
};

/* What the engines and units are doing, each a share of the time or of
 * the maximum over the poll's window. Where an engine or unit is not
 * measured, its field is unknown: util_pct says any kernel ran, not how
 * much of the chip worked. */
struct gpu_activity {
	long double video_pct;       /* a unified video engine's busy % (AMD VCN, Intel's video class) */
	long double gr_pct;          /* graphics or compute engine active (GPM GRAPHICS_UTIL) */
	long double sm_pct;          /* SMs busy (GPM SM_UTIL) */
	long double sm_occupancy_pct; /* resident warps of the maximum (GPM SM_OCCUPANCY) */
	long double tensor_pct;      /* tensor pipes active (GPM ANY_TENSOR_UTIL) */
	long double dram_pct;        /* DRAM bandwidth of the maximum (GPM DRAM_BW_UTIL) */
	long double fp64_pct, fp32_pct, fp16_pct; /* non-tensor FP pipes active */
	long double nvlink_rx_bytes_per_s, nvlink_tx_bytes_per_s; /* all links */
};

/* A PCIe link: generation and lanes, now and at most. */
struct gpu_link {
	uint64_t gen, width, gen_max, width_max;
};

struct gpu {
	uint64_t valid; /* bit (1 << enum gpu_field) set = known */
	const char *name, *device_id, *parent_device_id, *vendor, *pci_bus_id;
	uint8_t state;  /* enum gpu_state */
	bool mig_mode;
	uint64_t pstate;
	/* Measured quantities are FIELD_NUM, so any finite number is kept
	 * exactly (41.5 degrees, 2^53 + 1 bytes). Readers round for display. */
	long double util_pct, mem_util_pct;
	long double mem_used_bytes, mem_total_bytes;
	long double gtt_used_bytes, gtt_total_bytes; /* AMD's system memory mapped for the GPU */
	long double temp_c, temp_mem_c, temp_junction_c, temp_slowdown_c, temp_shutdown_c;
	long double power_w, power_limit_w, energy_j;
	long double fan_pct;
	long double fan_rpm;
	long double clock_gfx_mhz, clock_gfx_max_mhz, clock_mem_mhz, clock_mem_max_mhz;
	long double enc_pct, dec_pct;
	struct gpu_link link; /* the PCIe link now and at most */
	long double pcie_rx_bytes_per_s, pcie_tx_bytes_per_s;
	long double ecc_errors_uncorrected;
	uint32_t throttle; /* bit (1 << enum gpu_throttle) = active */
	bool integrated;            /* an integrated GPU or APU, sharing host memory */
	struct gpu_activity act;    /* engines and units */
	long double voltage_mv;     /* core voltage (amdgpu hwmon in0_input) */
	const char *perf_level;     /* AMD's forced DPM level ("manual", "high"...); "auto" is absent */
	/* True when the driver failed to list the GPU's processes in this poll
	 * (an error that is not "not supported"): the frame's rows for it are
	 * missing, not gone, and whatever is judged from their absence (an
	 * idle process that exited, a GPU free of other users) is unknown. */
	bool procs_unknown;
};

/* In the order of enum gpu_field, so GPU_FIELDS[f] is field f's row. */
extern const struct field GPU_FIELDS[];
extern const size_t GPU_NFIELDS;
extern const struct field_alias GPU_ALIASES[];
extern const size_t GPU_NALIASES;
extern const char *const GPU_STATE_NAMES[GPU_STATE__COUNT];
extern const char *const GPU_THROTTLE_NAMES[GPU_THROTTLE__COUNT];

/* An exported family that is not a field of the table: its metric under
 * both names, and its legacy help. */
struct gpu_metric {
	const struct field_prom *prom;
	const char *help;
};
/* Free memory (total minus used) and the last XID error of a GPU. */
extern const struct gpu_metric GPU_METRIC_FB_FREE, GPU_METRIC_XID;

static inline bool gpu_has(const struct gpu *g, enum gpu_field f)
{
	return (g->valid >> f) & 1u;
}
static inline void gpu_set(struct gpu *g, enum gpu_field f)
{
	g->valid |= UINT64_C(1) << f;
}
/* The GPU's state, or GPU_STATE__COUNT when it is unknown. */
static inline unsigned gpu_state(const struct gpu *g)
{
	return gpu_has(g, GPU_F_STATE) ? g->state : GPU_STATE__COUNT;
}
/* True for lost and suspended devices, whose readings are not taken. */
bool gpu_is_unread(const struct gpu *g);
/* True when g's process list failed in this poll (processes_unknown). */
static inline bool gpu_list_failed(const struct gpu *g)
{
	return gpu_has(g, GPU_F_PROCS_UNKNOWN) && g->procs_unknown;
}
/* True when the frame's process rows of g are not the whole list: g is lost
 * or suspended, or its process list failed in this poll. */
bool gpu_procs_unknown(const struct gpu *g);
/* True when GPU i of frame f is idle: its utilisation is 0 or unknown and
 * no process of the frame uses it. The dashboard hides such GPUs (key i). */
struct frame;
bool gpu_is_idle(const struct frame *f, size_t i);
/* Clears every reading (FIELD_READING) of g, keeping identity and limits. */
void gpu_drop_readings(struct gpu *g);
/* Copies into dst every number, flag or bit set of src that is valid there
 * and in `mask` (bit f for field f), replacing what dst held. It carries
 * values a backend reads on a slower cadence into each poll's GPU. Strings
 * are not copied: they live in a frame's arena. */
void gpu_copy_numbers(struct gpu *dst, const struct gpu *src, uint64_t mask);
/* Writes the PCIe link as "4x16" into buf of n bytes, or "" when its current
 * generation or width is unknown. When the link runs below its maxima they
 * follow, as in "3x8 (max 5x16)". A maximum that is not known is not
 * mentioned, so with only one known the text is "3x8 (max gen 5)" or
 * "3x8 (max x16)". Returns whether the link is known to run below a maximum,
 * which means a slot, a riser or power saving is holding it back. */
bool gpu_pcie_link(const struct gpu *g, char *buf, size_t n);

#endif
