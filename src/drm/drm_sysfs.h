/* drm_sysfs: the readings of one DRM card from sysfs and hwmon, driven by its
 * driver's descriptor (utilisation, memory, clocks, PCIe link, temperatures,
 * power, fan), and the runtime-PM check that keeps a sleeping device
 * asleep. */
#ifndef GPUR_DRM_SYSFS_H
#define GPUR_DRM_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drm/drm_card.h"
#include "drm/drm_desc.h"
#include "drm/drm_parse.h"
#include "model/gpu.h"

#define DRM_SYSFS_MAX_TEMPS 8

/* The cadences of the files that change over seconds or rarely, as for NVML
 * (README, "AMD, Intel and other DRM GPUs"): the fan every 5 s; the memory
 * and GTT totals, the maximum frequency, the PCIe link, the power cap, the
 * temperature limits and the forced performance level every 10 s. What they
 * read is held between reads and carried into every poll's GPU. */
#define DRM_SYSFS_FAN_NS 5000000000ull
#define DRM_SYSFS_RARE_NS 10000000000ull

/* What a card's reader keeps between polls, zeroed at first. */
struct drm_sysfs_state {
	bool labels_read; /* hwmon temperature labels, read once while awake */
	bool label_known[DRM_SYSFS_MAX_TEMPS + 1];
	char labels[DRM_SYSFS_MAX_TEMPS + 1][16];
	char hwmon[24];   /* "hwmon4" of the last read, or "" when none */
	struct drm_energy energy; /* the baseline of the power */
	bool volt_ok;        /* in0 is the core voltage, labelled vddgfx or not labelled */
	/* The forced performance level of the last read, such as "manual", or
	 * "" for none or auto. The caller copies it into its frame. */
	char perf_level[32];
	/* Whether it is integrated (an APU): -1 when unknown, else 0 or 1. It
	 * is read once, while awake. */
	signed char integrated;
	bool integrated_read;
	/* The values of the slower cadences, and when each is due again. */
	struct gpu held;
	uint64_t fan_next_ns, rare_next_ns;
};

/* True when the card's device is runtime-suspended. Only
 * device/power/runtime_status is read, which does not wake it. A missing file,
 * meaning no runtime PM, reads as awake. */
bool drm_sysfs_suspended(int sysfs_fd, const struct drm_card *c);

/* True while class/drm/<card>/device still resolves to the card's device. */
bool drm_sysfs_present(int sysfs_fd, const struct drm_card *c);

/* Reads every file that desc names for card c into g, and the fields it could
 * not read stay unknown. The performance level goes into st->perf_level and
 * whether the GPU is integrated into st->integrated, not into g. now_ns is
 * the monotonic time of the poll, for energy rates, and min_ns the shortest
 * window a power is taken from (util/ratewin.h): until the energy counter has
 * been read that long ago, power is unknown and the older reading is kept. It
 * opens files that wake a suspended device, so call it only when
 * drm_sysfs_suspended() said no. */
void drm_sysfs_read(int sysfs_fd, const struct drm_card *c, const struct drm_desc *desc, struct drm_sysfs_state *st,
		    uint64_t now_ns, uint64_t min_ns, struct gpu *g);

/* The driver's version for the record's driver string. It is sysfs
 * module/<module>/version when desc has a module and the file exists, else
 * the version number of the kernel release from procfs sys/kernel/osrelease
 * ("6.8.0" of "6.8.0-45-generic"), or "" when neither reads. */
void drm_sysfs_driver_version(int sysfs_fd, const char *procfs, const struct drm_desc *desc, char *out, size_t n);

#endif
