/* gpu: the GPU field table. Order here is the order of keys in records. */
#include "model/gpu.h"

#include "model/frame.h"
#include "util/fmt.h"

#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *const GPU_STATE_NAMES[GPU_STATE__COUNT] = {"ok", "lost", "suspended"};

const char *const GPU_THROTTLE_NAMES[GPU_THROTTLE__COUNT] = {
	"gpu_idle", "applications_clocks", "sw_power_cap", "hw_slowdown", "sync_boost",
	"sw_thermal", "hw_thermal", "hw_power_brake", "display_clock", "thermal", "power_cap",
};

#define R FIELD_READING
#define STR(k, m, b, len, fl, h) {k, FIELD_STR, b, offsetof(struct gpu, m), 0, 0, len, NULL, 0, fl, NULL, h}
#define U64(k, m, b, lo, hi, fl, p, h) {k, FIELD_U64, b, offsetof(struct gpu, m), lo, hi, 0, NULL, 0, fl, p, h}
#define NUM(k, m, b, lo, hi, fl, p, h) {k, FIELD_NUM, b, offsetof(struct gpu, m), lo, hi, 0, NULL, 0, fl, p, h}
#define PCT(k, m, b, p, h) NUM(k, m, b, 0, 100, R, p, h)
/* Fields are exported as dcgm-exporter exports them: gauges in the field's
 * unit, memory in MiB and energy in mJ under its legacy names, and under
 * dcgm-exporter 4.10's names (--serve-names dcgm-4.10) with percentages as
 * ratios 0-1, memory in bytes, clocks in Hz and energy in J.
 * docs/exporter.md lists every metric under both. */
#define G(name) FIELD_PROM(name, 1, GAUGE)
#define RATIO(name) FIELD_PROM(name, 0.01, GAUGE)
#define MIB (1.0 / 1048576.0)
/* A gauge in the field's unit under both names. */
#define G2(name, name_4_10) FIELD_PROM_4_10(name, 1, GAUGE, name_4_10, 1, 1, NULL)
/* A percentage, which dcgm-exporter 4.10 serves as a ratio 0-1. */
#define PCT2(name, name_4_10, help) FIELD_PROM_4_10(name, 1, GAUGE, name_4_10, 1, 100, help)
/* GPM's activities, ratios 0-1 under both names. */
#define RATIO2(name, name_4_10) FIELD_PROM_4_10(name, 0.01, GAUGE, name_4_10, 1, 100, NULL)
/* A clock in MHz, which dcgm-exporter 4.10 serves in Hz. */
#define MHZ2(name, name_4_10, help) FIELD_PROM_4_10(name, 1, GAUGE, name_4_10, 1000000, 1, help)

const struct field GPU_FIELDS[] = {
	STR("name", name, GPU_F_NAME, 256, 0, "product name"),
	STR("device_id", device_id, GPU_F_DEVICE_ID, 128, 0, "stable identity (NVML UUID, pci:BUS)"),
	STR("parent_device_id", parent_device_id, GPU_F_PARENT_DEVICE_ID, 128, 0, "the GPU of a MIG instance"),
	STR("vendor", vendor, GPU_F_VENDOR, 64, 0, "nvidia, amd, intel or the driver name"),
	STR("pci_bus_id", pci_bus_id, GPU_F_PCI_BUS_ID, 64, 0, "PCI address, lowercase"),
	{"state", FIELD_ENUM, GPU_F_STATE, offsetof(struct gpu, state), 0, 0, 0, GPU_STATE_NAMES,
	 GPU_STATE__COUNT, 0, NULL, "ok, lost or suspended"},
	U64("pstate", pstate, GPU_F_PSTATE, 0, 15, R, G("DCGM_FI_DEV_PSTATE"), "performance state P0-P15"),
	{"mig_mode", FIELD_BOOL, GPU_F_MIG_MODE, offsetof(struct gpu, mig_mode), 0, 0, 0, NULL, 0, 0,
	 G("gpur_gpu_mig_mode"), "MIG mode enabled"},
	PCT("util_pct", util_pct, GPU_F_UTIL,
	    PCT2("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_GPU_UTIL_RATIO", "GPU utilisation (ratio 0-1)"),
	    "GPU utilisation (%)"),
	PCT("mem_util_pct", mem_util_pct, GPU_F_MEM_UTIL,
	    PCT2("DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_MEMORY_UTIL_RATIO", "memory controller busy (ratio 0-1)"),
	    "memory controller busy (%)"),
	NUM("mem_used_bytes", mem_used_bytes, GPU_F_MEM_USED, 0, FIELD_U64_MAX, R,
	    FIELD_PROM_4_10("DCGM_FI_DEV_FB_USED", MIB, GAUGE, "DCGM_FI_DEV_FB_USED_BYTES", 1, 1, "memory used (bytes)"),
	    "memory used (bytes; exported in MiB)"),
	NUM("mem_total_bytes", mem_total_bytes, GPU_F_MEM_TOTAL, 0, FIELD_U64_MAX, 0,
	    FIELD_PROM_4_10("DCGM_FI_DEV_FB_TOTAL", MIB, GAUGE, "DCGM_FI_DEV_FB_CAPACITY_BYTES", 1, 1, "memory total (bytes)"),
	    "memory total (bytes; exported in MiB)"),
	NUM("gtt_used_bytes", gtt_used_bytes, GPU_F_GTT_USED, 0, FIELD_U64_MAX, R, G("gpur_gpu_gtt_used_bytes"),
	    "GTT used: system memory mapped for the GPU (bytes)"),
	NUM("gtt_total_bytes", gtt_total_bytes, GPU_F_GTT_TOTAL, 0, FIELD_U64_MAX, 0, G("gpur_gpu_gtt_total_bytes"),
	    "GTT size (bytes)"),
	NUM("temp_c", temp_c, GPU_F_TEMP, -273, 1000, R, G2("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_GPU_TEMP_CELSIUS"), "GPU temperature (C)"),
	NUM("temp_mem_c", temp_mem_c, GPU_F_TEMP_MEM, -273, 1000, R, G2("DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_MEMORY_TEMP_CELSIUS"),
	    "memory temperature (C)"),
	NUM("temp_junction_c", temp_junction_c, GPU_F_TEMP_JUNCTION, -273, 1000, R, G("gpur_gpu_temp_junction_celsius"),
	    "junction (hotspot) temperature (C)"),
	NUM("temp_slowdown_c", temp_slowdown_c, GPU_F_TEMP_SLOWDOWN, -273, 1000, 0, G("DCGM_FI_DEV_SLOWDOWN_TEMP"),
	    "slowdown threshold (C)"),
	NUM("temp_shutdown_c", temp_shutdown_c, GPU_F_TEMP_SHUTDOWN, -273, 1000, 0, G("DCGM_FI_DEV_SHUTDOWN_TEMP"),
	    "shutdown threshold (C)"),
	NUM("power_w", power_w, GPU_F_POWER, 0, 1e6, R, G2("DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_BOARD_POWER_WATTS"), "power draw (W)"),
	NUM("power_limit_w", power_limit_w, GPU_F_POWER_LIMIT, 0, 1e6, 0, G("DCGM_FI_DEV_POWER_MGMT_LIMIT"),
	    "power limit (W)"),
	NUM("energy_j", energy_j, GPU_F_ENERGY, 0, DBL_MAX, R,
	    FIELD_PROM_4_10("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 1000, COUNTER, "DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL", 1, 1,
			    "energy since driver load (J)"),
	    "energy since driver load (J; exported in mJ)"),
	NUM("fan_pct", fan_pct, GPU_F_FAN_PCT, 0, 1000, R, G("DCGM_FI_DEV_FAN_SPEED"),
	    "fan 0 speed (%; NVIDIA allows over 100)"),
	NUM("fan_rpm", fan_rpm, GPU_F_FAN_RPM, 0, 1e6, R, G("gpur_gpu_fan_rpm"), "fan 0 speed (RPM)"),
	NUM("clock_gfx_mhz", clock_gfx_mhz, GPU_F_CLOCK_GFX, 0, 1e6, R, MHZ2("DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_SM_CLOCK_HERTZ", "graphics clock (Hz)"),
	    "graphics clock (MHz)"),
	NUM("clock_gfx_max_mhz", clock_gfx_max_mhz, GPU_F_CLOCK_GFX_MAX, 0, 1e6, 0, G("DCGM_FI_DEV_MAX_SM_CLOCK"),
	    "graphics clock maximum (MHz)"),
	NUM("clock_mem_mhz", clock_mem_mhz, GPU_F_CLOCK_MEM, 0, 1e6, R, MHZ2("DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_MEMORY_CLOCK_HERTZ", "memory clock (Hz)"),
	    "memory clock (MHz)"),
	NUM("clock_mem_max_mhz", clock_mem_max_mhz, GPU_F_CLOCK_MEM_MAX, 0, 1e6, 0, G("DCGM_FI_DEV_MAX_MEM_CLOCK"),
	    "memory clock maximum (MHz)"),
	PCT("enc_pct", enc_pct, GPU_F_ENC,
	    PCT2("DCGM_FI_DEV_ENC_UTIL", "DCGM_FI_DEV_ENC_UTIL_RATIO", "encoder utilisation (ratio 0-1)"),
	    "encoder utilisation (%)"),
	PCT("dec_pct", dec_pct, GPU_F_DEC,
	    PCT2("DCGM_FI_DEV_DEC_UTIL", "DCGM_FI_DEV_DEC_UTIL_RATIO", "decoder utilisation (ratio 0-1)"),
	    "decoder utilisation (%)"),
	U64("pcie_gen", link.gen, GPU_F_PCIE_GEN, 0, 64, R, G("DCGM_FI_DEV_PCIE_LINK_GEN"), "PCIe generation now"),
	U64("pcie_width", link.width, GPU_F_PCIE_WIDTH, 0, 64, R, G("DCGM_FI_DEV_PCIE_LINK_WIDTH"), "PCIe lanes now"),
	U64("pcie_gen_max", link.gen_max, GPU_F_PCIE_GEN_MAX, 0, 64, 0, G("DCGM_FI_DEV_PCIE_MAX_LINK_GEN"),
	    "PCIe generation maximum"),
	U64("pcie_width_max", link.width_max, GPU_F_PCIE_WIDTH_MAX, 0, 64, 0, G("DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH"),
	    "PCIe lanes maximum"),
	NUM("pcie_rx_bytes_per_s", pcie_rx_bytes_per_s, GPU_F_PCIE_RX, 0, FIELD_U64_MAX, R,
	    G2("DCGM_FI_PROF_PCIE_RX_BYTES", "DCGM_FI_PROF_PCIE_RX_BYTES_PER_SECOND"), "PCIe receive (bytes/s)"),
	NUM("pcie_tx_bytes_per_s", pcie_tx_bytes_per_s, GPU_F_PCIE_TX, 0, FIELD_U64_MAX, R,
	    G2("DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PCIE_TX_BYTES_PER_SECOND"), "PCIe transmit (bytes/s)"),
	NUM("ecc_errors_uncorrected", ecc_errors_uncorrected, GPU_F_ECC_UNCORRECTED, 0, FIELD_U64_MAX, R,
	     FIELD_PROM("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1, COUNTER), "volatile uncorrected ECC errors"),
	{"throttle", FIELD_FLAGS, GPU_F_THROTTLE, offsetof(struct gpu, throttle), 0, 0, 0,
	 GPU_THROTTLE_NAMES, GPU_THROTTLE__COUNT, R, G("gpur_throttle"), "active clock throttle reasons"},
	{"integrated", FIELD_BOOL, GPU_F_INTEGRATED, offsetof(struct gpu, integrated), 0, 0, 0, NULL, 0, 0,
	 G("gpur_gpu_integrated"), "an integrated GPU or APU sharing host memory"},
	PCT("video_pct", act.video_pct, GPU_F_VIDEO, G("gpur_gpu_video_util_percent"),
	    "unified video engine utilisation (%)"),
	NUM("voltage_mv", voltage_mv, GPU_F_VOLTAGE, 0, 1e6, R, G("gpur_gpu_voltage_millivolts"), "core voltage (mV)"),
	STR("perf_level", perf_level, GPU_F_PERF_LEVEL, 64, R, "forced performance level (AMD DPM; auto is absent)"),
	/* GPM's profiling metrics, exported as dcgm-exporter's DCGM_FI_PROF_*
	 * families: activities as ratios 0-1, NVLink in bytes/s. */
	PCT("gr_active_pct", act.gr_pct, GPU_F_GR_ACTIVE, RATIO2("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO"),
	    "graphics or compute engine active (%; exported as a ratio 0-1)"),
	PCT("sm_active_pct", act.sm_pct, GPU_F_SM_ACTIVE, RATIO2("DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_UTIL_RATIO"),
	    "SMs busy (%; exported as a ratio 0-1)"),
	PCT("sm_occupancy_pct", act.sm_occupancy_pct, GPU_F_SM_OCCUPANCY, RATIO2("DCGM_FI_PROF_SM_OCCUPANCY", "DCGM_FI_PROF_SM_OCCUPANCY_RATIO"),
	    "resident warps of the SMs' maximum (%; exported as a ratio 0-1)"),
	PCT("tensor_active_pct", act.tensor_pct, GPU_F_TENSOR_ACTIVE, RATIO2("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_TENSOR_UTIL_RATIO"),
	    "tensor pipes active (%; exported as a ratio 0-1)"),
	PCT("dram_active_pct", act.dram_pct, GPU_F_DRAM_ACTIVE, RATIO2("DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_DRAM_UTIL_RATIO"),
	    "DRAM bandwidth used of the maximum (%; exported as a ratio 0-1)"),
	PCT("fp64_active_pct", act.fp64_pct, GPU_F_FP64_ACTIVE, RATIO2("DCGM_FI_PROF_PIPE_FP64_ACTIVE", "DCGM_FI_PROF_FP64_UTIL_RATIO"),
	    "FP64 pipes active, not tensor (%; exported as a ratio 0-1)"),
	PCT("fp32_active_pct", act.fp32_pct, GPU_F_FP32_ACTIVE, RATIO2("DCGM_FI_PROF_PIPE_FP32_ACTIVE", "DCGM_FI_PROF_FP32_UTIL_RATIO"),
	    "FP32 pipes active, not tensor (%; exported as a ratio 0-1)"),
	PCT("fp16_active_pct", act.fp16_pct, GPU_F_FP16_ACTIVE, RATIO2("DCGM_FI_PROF_PIPE_FP16_ACTIVE", "DCGM_FI_PROF_FP16_UTIL_RATIO"),
	    "FP16 pipes active, not tensor (%; exported as a ratio 0-1)"),
	NUM("nvlink_rx_bytes_per_s", act.nvlink_rx_bytes_per_s, GPU_F_NVLINK_RX, 0, FIELD_U64_MAX, R,
	    G2("DCGM_FI_PROF_NVLINK_RX_BYTES", "DCGM_FI_PROF_NVLINK_RX_BYTES_PER_SECOND"), "NVLink receive, all links (bytes/s)"),
	NUM("nvlink_tx_bytes_per_s", act.nvlink_tx_bytes_per_s, GPU_F_NVLINK_TX, 0, FIELD_U64_MAX, R,
	    G2("DCGM_FI_PROF_NVLINK_TX_BYTES", "DCGM_FI_PROF_NVLINK_TX_BYTES_PER_SECOND"), "NVLink transmit, all links (bytes/s)"),
	/* Written only as true, in the polls whose process list failed. */
	{"processes_unknown", FIELD_BOOL, GPU_F_PROCS_UNKNOWN, offsetof(struct gpu, procs_unknown), 0, 0, 0, NULL, 0, R,
	 NULL, "the process list could not be read in this poll: its processes are missing, not gone"},
};
const size_t GPU_NFIELDS = sizeof(GPU_FIELDS) / sizeof(GPU_FIELDS[0]);

/* Free memory is total minus used, not a field: gpur's used memory excludes
 * the driver's reserved memory (NVML v2), so reserved memory counts as free
 * here. */
const struct gpu_metric GPU_METRIC_FB_FREE = {
	FIELD_PROM_4_10("DCGM_FI_DEV_FB_FREE", MIB, GAUGE, "DCGM_FI_DEV_FB_FREE_BYTES", 1, 1,
			"memory free (bytes): total minus used; reserved memory counts as free"),
	"memory free (MiB): total minus used; reserved memory counts as free",
};
const struct gpu_metric GPU_METRIC_XID = {
	FIELD_PROM_4_10("DCGM_FI_DEV_XID_ERRORS", 1, GAUGE, "DCGM_FI_DEV_XID_ERROR", 1, 1, NULL),
	"the last XID error of the GPU",
};

/* The original gpur's names (from its GpuSnapshot) for fields of ours. Its
 * keys that are ours too need no row: name, device_id, integrated,
 * temp_mem_c, temp_slowdown_c, temp_junction_c, power_w, power_limit_w,
 * fan_pct, fan_rpm, pcie_gen, pcie_width, gtt_used_bytes, gtt_total_bytes,
 * mem_util_pct, throttle and perf_level. Where it writes their values
 * differently, record_foreign.c reads them. */
const struct field_alias GPU_ALIASES[] = {
	{"utilization_pct", GPU_F_UTIL, 1},
	{"vram_used_bytes", GPU_F_MEM_USED, 1},
	{"vram_total_bytes", GPU_F_MEM_TOTAL, 1},
	{"temperature_c", GPU_F_TEMP, 1},
	{"clock_mhz", GPU_F_CLOCK_GFX, 1},
	{"mem_clock_mhz", GPU_F_CLOCK_MEM, 1},
	{"enc_util_pct", GPU_F_ENC, 1},
	{"dec_util_pct", GPU_F_DEC, 1},
	{"video_util_pct", GPU_F_VIDEO, 1},
	{"pcie_max_gen", GPU_F_PCIE_GEN_MAX, 1},
	{"pcie_max_width", GPU_F_PCIE_WIDTH_MAX, 1},
	{"pcie_rx_kbs", GPU_F_PCIE_RX, 1024}, /* KiB/s */
	{"pcie_tx_kbs", GPU_F_PCIE_TX, 1024},
	{"volt_mv", GPU_F_VOLTAGE, 1},
};
const size_t GPU_NALIASES = sizeof(GPU_ALIASES) / sizeof(GPU_ALIASES[0]);

bool gpu_is_unread(const struct gpu *g)
{
	unsigned s = gpu_state(g);
	return s == GPU_STATE_LOST || s == GPU_STATE_SUSPENDED;
}

bool gpu_procs_unknown(const struct gpu *g)
{
	return gpu_is_unread(g) || gpu_list_failed(g);
}

bool gpu_is_idle(const struct frame *f, size_t i)
{
	const struct gpu *g = &f->gpus[i];

	if (gpu_has(g, GPU_F_UTIL) && g->util_pct > 0)
		return false;
	if (gpu_list_failed(g))
		return false; /* somebody may be on it */
	for (size_t p = 0; p < f->nprocs; p++)
		if (f->procs[p].gpu_index == i)
			return false;
	return true;
}

void gpu_drop_readings(struct gpu *g)
{
	for (size_t i = 0; i < GPU_NFIELDS; i++)
		if (GPU_FIELDS[i].flags & FIELD_READING)
			field_set_valid(g, &GPU_FIELDS[i], false);
}

void gpu_copy_numbers(struct gpu *dst, const struct gpu *src, uint64_t mask)
{
	for (size_t i = 0; i < GPU_NFIELDS; i++) {
		const struct field *f = &GPU_FIELDS[i];
		size_t n = 0;
		if (!(mask >> f->bit & 1u) || !field_valid(src, f))
			continue;
		switch (f->type) {
		case FIELD_U64: n = sizeof(uint64_t); break;
		case FIELD_NUM: n = sizeof(long double); break;
		case FIELD_BOOL: n = sizeof(bool); break;
		case FIELD_ENUM: n = sizeof(uint8_t); break;
		case FIELD_FLAGS: n = sizeof(uint32_t); break;
		case FIELD_STR: continue;
		}
		memcpy(field_ptr(dst, f), field_cptr(src, f), n);
		field_set_valid(dst, f, true);
	}
}

/* Appends v in decimal to the text of at characters in t, of size n. */
static size_t cat_u64(char *t, size_t n, size_t at, uint64_t v)
{
	return at + fmt_u64(t + at, n - at, v, 0, ' ');
}

bool gpu_pcie_link(const struct gpu *g, char *buf, size_t n)
{
	bool gen_max = gpu_has(g, GPU_F_PCIE_GEN_MAX), width_max = gpu_has(g, GPU_F_PCIE_WIDTH_MAX);
	bool gen_below = gen_max && g->link.gen < g->link.gen_max;
	bool width_below = width_max && g->link.width < g->link.width_max;
	/* Made without printf, because the dashboard asks for every GPU's link
	 * on every frame. Four numbers and the words fit in 128 bytes. */
	char t[128];
	size_t len, at;
	bool below = true;

	if (!n)
		return false;
	buf[0] = '\0';
	if (!gpu_has(g, GPU_F_PCIE_GEN) || !gpu_has(g, GPU_F_PCIE_WIDTH))
		return false;
	at = cat_u64(t, sizeof(t), 0, g->link.gen);
	len = at = cat_u64(t, sizeof(t), fmt_cat(t, sizeof(t), at, "x"), g->link.width);
	if (gen_max && width_max && (gen_below || width_below)) {
		at = cat_u64(t, sizeof(t), fmt_cat(t, sizeof(t), at, " (max "), g->link.gen_max);
		at = cat_u64(t, sizeof(t), fmt_cat(t, sizeof(t), at, "x"), g->link.width_max);
	} else if (gen_below && !width_max) {
		at = cat_u64(t, sizeof(t), fmt_cat(t, sizeof(t), at, " (max gen "), g->link.gen_max);
	} else if (width_below && !gen_max) {
		at = cat_u64(t, sizeof(t), fmt_cat(t, sizeof(t), at, " (max x"), g->link.width_max);
	} else {
		below = false;
	}
	if (below)
		at = fmt_cat(t, sizeof(t), at, ")");
	/* As snprintf would: what does not fit is cut, and a link that does
	 * not fit at all is not given. */
	if (at >= n)
		at = n - 1;
	memcpy(buf, t, at);
	buf[at] = '\0';
	return len < n && below;
}
