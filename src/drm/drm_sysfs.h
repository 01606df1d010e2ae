/* drm_sysfs: the readings of one DRM card from sysfs and hwmon, driven by
 * its driver's descriptor — utilisation, memory, clocks, PCIe link,
 * temperatures, power, fan — and the runtime-PM check that keeps a
 * sleeping device asleep. */
#ifndef GPUR_DRM_SYSFS_H
#define GPUR_DRM_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drm/drm_card.h"
#include "drm/drm_desc.h"
#include "model/gpu.h"

#define DRM_SYSFS_MAX_TEMPS 8

/* What a card's reader keeps between polls (zeroed at first). */
struct drm_sysfs_state {
	bool labels_read; /* hwmon temperature labels, read once while awake */
	bool label_known[DRM_SYSFS_MAX_TEMPS + 1];
	char labels[DRM_SYSFS_MAX_TEMPS + 1][16];
	char hwmon[24];   /* "hwmon4" of the last read, "" when none */
	bool energy_known;
	uint64_t energy_uj, energy_ns;
	bool volt_ok;        /* in0 is the core voltage (labelled vddgfx, or not labelled) */
	/* The forced performance level of the last read ("manual"; "" for
	 * none or auto): the caller copies it into its frame. */
	char perf_level[32];
	/* Integrated (an APU): -1 unknown, else 0 or 1; read once, awake. */
	signed char integrated;
	bool integrated_read;
};

/* True when the card's device is runtime-suspended: only
 * device/power/runtime_status is read, which does not wake it. A missing
 * file (no runtime PM) reads as awake. */
bool drm_sysfs_suspended(int sysfs_fd, const struct drm_card *c);

/* True while class/drm/<card>/device still resolves to the card's device. */
bool drm_sysfs_present(int sysfs_fd, const struct drm_card *c);

/* Reads every file desc names for card c into g (fields it could not read
 * stay unknown; the performance level goes into st->perf_level, and whether
 * the GPU is integrated into st->integrated, not into g); now_ns: monotonic
 * time of the poll, for energy rates.
 * Opens files that wake a suspended device: call only when
 * drm_sysfs_suspended() said no. */
void drm_sysfs_read(int sysfs_fd, const struct drm_card *c, const struct drm_desc *desc, struct drm_sysfs_state *st,
		    uint64_t now_ns, struct gpu *g);

/* The driver's version for the record's driver string: sysfs
 * module/<module>/version when desc has a module and the file exists, else
 * the version number of the kernel release (procfs sys/kernel/osrelease:
 * "6.8.0" of "6.8.0-45-generic"); "" when neither reads. */
void drm_sysfs_driver_version(int sysfs_fd, const char *procfs, const struct drm_desc *desc, char *out, size_t n);

#endif
