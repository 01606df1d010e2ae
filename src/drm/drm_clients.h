/* drm_clients: the process rows of one DRM GPU from the fdinfo engine's
 * clients, following the driver's descriptor. Memory comes from the region
 * that a process's GPU memory lives in, and utilisation and codecs from the
 * engine classes that count for them. It also makes the device-wide sums for
 * drivers whose sysfs has no utilisation file (i915, xe, generic). Unknown
 * engines stay unknown. */
#ifndef GPUR_DRM_CLIENTS_H
#define GPUR_DRM_CLIENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "drm/drm_desc.h"
#include "drm/fdinfo.h"
#include "model/frame.h"

struct drm_clients_sum {
	size_t nclients;
	bool util_known; /* some client had a rate for an engine that counts */
	long double util_pct;       /* the busiest engine class with clients summed, at most 100 */
	bool vram_known;
	long double vram_bytes;     /* clients' resident memory in desc's first region */
	bool enc_known, dec_known;
	long double enc_pct, dec_pct;
};

/* Appends one row per process for the clients c[0..n) of the GPU at
 * gpu_index in f, and fills *sum. A process with two clients on this GPU is
 * one row with its figures summed. Rows carry the GPU side only: pid, kind,
 * memory, utilisation and codecs. */
void drm_clients_rows(const struct drm_desc *d, const struct fdinfo_client *c, size_t n, size_t gpu_index,
		      struct frame *f, struct drm_clients_sum *sum);

#endif
