/* drm_desc: one small const descriptor per DRM driver family. It says which
 * sysfs and hwmon files the family has, how its fdinfo engines map to
 * utilisation and codecs, and which memory region is a process's GPU memory.
 * The shared code in drm_sysfs.c and backend/drm.c reads whatever a
 * descriptor names, so adding a driver is adding a descriptor here. */
#ifndef GPUR_DRM_DESC_H
#define GPUR_DRM_DESC_H

#include <stdbool.h>
#include <stddef.h>

/* What an fdinfo engine class counts for. */
enum drm_role {
	DRM_ROLE_GRAPHICS = 1u << 0, /* utilisation, and a process using it is "graphics" */
	DRM_ROLE_COMPUTE = 1u << 1,  /* utilisation, and a process using it is "compute" */
	DRM_ROLE_BUSY = 1u << 2,     /* utilisation only */
	DRM_ROLE_ENC = 1u << 3,
	DRM_ROLE_DEC = 1u << 4,
};
#define DRM_ROLE_UTIL (DRM_ROLE_GRAPHICS | DRM_ROLE_COMPUTE | DRM_ROLE_BUSY)

struct drm_engine_map {
	const char *name; /* engine class as fdinfo prints it, or "*" for any other */
	unsigned roles;
};

enum drm_temp_target { DRM_TEMP_GPU, DRM_TEMP_JUNCTION, DRM_TEMP_MEM };

/* A hwmon temperature channel, found by its label where the driver labels
 * channels, else by number. The GPU channel's crit and emergency are the
 * slowdown and shutdown thresholds. */
struct drm_temp_map {
	const char *label;
	unsigned channel;
	enum drm_temp_target target;
};

enum drm_power {
	DRM_POWER_NONE,
	DRM_POWER_UW,     /* power1_average or power1_input in µW (amdgpu) */
	DRM_POWER_ENERGY, /* Δ energyN_input (µJ) over time (i915, xe) */
};

#define DRM_DESC_MAX_ENGINES 10
#define DRM_DESC_MAX_TEMPS 4

struct drm_desc {
	const char *family;          /* "amdgpu", "i915", "xe", "drm" */
	const char *const *drivers;  /* kernel driver names covered, NULL-terminated */
	const char *vendor;          /* record vendor, or NULL for the driver's name */
	const char *module;          /* the module whose sysfs module/<m>/version names the driver version, or NULL */
	/* Files under the card's device/ directory, NULL where the driver has none. */
	const char *util, *mem_util;                  /* % */
	const char *vram_used, *vram_total;           /* bytes */
	const char *gtt_used, *gtt_total;             /* bytes */
	const char *dpm_gfx, *dpm_mem;                /* pp_dpm_* levels */
	/* Files under the card's own directory (class/drm/cardN/). */
	const char *freq_act, *freq_max;              /* MHz */
	/* hwmon (device/hwmon/hwmonN/). */
	enum drm_power power;
	const char *const *energy;                    /* candidate energy files, of which the first present wins */
	const char *power_cap;                        /* µW, where 0 reads as no cap */
	const char *voltage;                          /* core voltage in mV (in0_input, labelled vddgfx if at all) */
	/* Files under device/ read as settings or static facts. */
	const char *perf_level;                       /* a forced performance level, where "auto" is none */
	const char *metrics;                          /* gpu_metrics; its format revision says dGPU (1) or APU (2, 3) */
	struct drm_temp_map temps[DRM_DESC_MAX_TEMPS]; /* label NULL ends the list */
	/* fdinfo. */
	struct drm_engine_map engines[DRM_DESC_MAX_ENGINES]; /* name NULL ends */
	const char *const *mem_regions;               /* a process's GPU memory, the first region it has */
	bool util_from_clients;                       /* device util and VRAM used are summed over clients */
};

extern const struct drm_desc DRM_DESC_AMDGPU, DRM_DESC_I915, DRM_DESC_XE, DRM_DESC_GENERIC;

/* Whether d covers kernel driver `driver`. */
bool drm_desc_covers(const struct drm_desc *d, const char *driver);
/* The roles of engine class `name` under d, or 0 when it counts for nothing. */
unsigned drm_desc_engine_roles(const struct drm_desc *d, const char *name);

#endif
