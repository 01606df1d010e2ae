/* drm_desc: the driver descriptors, with each driver's sysfs, hwmon and
 * fdinfo names, as README's DRM section and docs/drm-fdinfo.md describe
 * them. */
#include "drm/drm_desc.h"

#include <string.h>

static const char *const AMDGPU_DRIVERS[] = {"amdgpu", NULL};
static const char *const I915_DRIVERS[] = {"i915", NULL};
static const char *const XE_DRIVERS[] = {"xe", NULL};
/* DRM drivers of render GPUs that print client usage stats. Display-only
 * drivers (simpledrm, efidrm, vkms, bochs and the like) are not GPUs to
 * monitor. */
static const char *const GENERIC_DRIVERS[] = {"msm", "panfrost", "panthor", "v3d", "etnaviv", "lima",
					      "nouveau", "powervr", "asahi", "radeon", NULL};

static const char *const AMDGPU_REGIONS[] = {"vram", NULL};
static const char *const I915_REGIONS[] = {"local0", "system0", NULL};
static const char *const XE_REGIONS[] = {"vram0", "system", NULL};
static const char *const GENERIC_REGIONS[] = {"vram", "memory", NULL};
static const char *const INTEL_ENERGY[] = {"energy1_input", "energy2_input", NULL};

const struct drm_desc DRM_DESC_AMDGPU = {
	.family = "amdgpu",
	.drivers = AMDGPU_DRIVERS,
	.vendor = "amd",
	.module = "amdgpu",
	.util = "gpu_busy_percent",
	.mem_util = "mem_busy_percent",
	.vram_used = "mem_info_vram_used",
	.vram_total = "mem_info_vram_total",
	.gtt_used = "mem_info_gtt_used",
	.gtt_total = "mem_info_gtt_total",
	.dpm_gfx = "pp_dpm_sclk",
	.dpm_mem = "pp_dpm_mclk",
	.power = DRM_POWER_UW,
	.power_cap = "power1_cap",
	.voltage = "in0_input",
	.perf_level = "power_dpm_force_performance_level",
	.metrics = "gpu_metrics",
	.temps = {{"edge", 1, DRM_TEMP_GPU}, {"junction", 2, DRM_TEMP_JUNCTION}, {"mem", 3, DRM_TEMP_MEM}},
	.engines = {{"gfx", DRM_ROLE_GRAPHICS}, {"compute", DRM_ROLE_COMPUTE}, {"enc", DRM_ROLE_ENC},
		    {"enc_1", DRM_ROLE_ENC}, {"dec", DRM_ROLE_DEC}, {"jpeg", DRM_ROLE_DEC}},
	.mem_regions = AMDGPU_REGIONS,
};

/* i915 has one integer MHz file per frequency in the card directory, and its
 * hwmon, on dGPUs only, gives energy rather than power. The video engine
 * class does both decode and encode, and it is reported as decode. */
const struct drm_desc DRM_DESC_I915 = {
	.family = "i915",
	.drivers = I915_DRIVERS,
	.vendor = "intel",
	.freq_act = "gt_act_freq_mhz",
	.freq_max = "gt_max_freq_mhz",
	.power = DRM_POWER_ENERGY,
	.energy = INTEL_ENERGY,
	.power_cap = "power1_max",
	.temps = {{"", 1, DRM_TEMP_GPU}},
	.engines = {{"render", DRM_ROLE_GRAPHICS}, {"compute", DRM_ROLE_COMPUTE}, {"video", DRM_ROLE_DEC}},
	.mem_regions = I915_REGIONS,
	.util_from_clients = true,
};

/* xe has frequencies per tile and GT, of which tile0/gt0 is reported. hwmon
 * channel 1 is the card and 2 the package, and temp3 is the VRAM. */
const struct drm_desc DRM_DESC_XE = {
	.family = "xe",
	.drivers = XE_DRIVERS,
	.vendor = "intel",
	.vram_total = "tile0/physical_vram_size_bytes",
	.freq_act = "device/tile0/gt0/freq0/act_freq",
	.freq_max = "device/tile0/gt0/freq0/max_freq",
	.power = DRM_POWER_ENERGY,
	.energy = INTEL_ENERGY,
	.power_cap = "power1_max",
	.temps = {{"pkg", 2, DRM_TEMP_GPU}, {"vram", 3, DRM_TEMP_MEM}},
	.engines = {{"rcs", DRM_ROLE_GRAPHICS}, {"ccs", DRM_ROLE_COMPUTE}, {"vcs", DRM_ROLE_DEC}},
	.mem_regions = XE_REGIONS,
	.util_from_clients = true,
};

/* Any other driver gets what fdinfo gives, with every engine counting as
 * busy. */
const struct drm_desc DRM_DESC_GENERIC = {
	.family = "drm",
	.drivers = GENERIC_DRIVERS,
	.engines = {{"*", DRM_ROLE_BUSY}},
	.mem_regions = GENERIC_REGIONS,
	.util_from_clients = true,
};

bool drm_desc_covers(const struct drm_desc *d, const char *driver)
{
	for (const char *const *p = d->drivers; *p; p++)
		if (strcmp(*p, driver) == 0)
			return true;
	return false;
}

unsigned drm_desc_engine_roles(const struct drm_desc *d, const char *name)
{
	unsigned any = 0;

	for (size_t i = 0; i < DRM_DESC_MAX_ENGINES && d->engines[i].name; i++) {
		if (strcmp(d->engines[i].name, name) == 0)
			return d->engines[i].roles;
		if (strcmp(d->engines[i].name, "*") == 0)
			any = d->engines[i].roles;
	}
	return any;
}
