/* record_foreign: what the original gpur (the Rust program gpur began as)
 * writes differently from us, read as ours. Its keys that name one of our
 * fields by another name are the alias rows of the model's tables
 * (GPU_ALIASES, PROCESS_ALIASES). This module reads the values it writes in
 * its own way: a throttle string, NVML P-states as a performance level, "-"
 * and "?" for unknown, and device ids prefixed with its backend's name. These
 * are pure functions over a decoded object, with no allocation and no I/O. */
#ifndef GPUR_RECORD_FOREIGN_H
#define GPUR_RECORD_FOREIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/field.h"
#include "model/gpu.h"
#include "model/process.h"

/* Sets *out to the flags of FLAGS field f that s[0..len) names, a '+'-joined
 * string of reasons as the original writes them ("thermal+power-limit").
 * Both its names (power-limit is our power_cap, hw-slowdown our hw_slowdown)
 * and ours are read, and a name that neither knows is left out. Returns false
 * when no name is known; the value is then unknown, never "none active". */
bool record_foreign_flags(const struct field *f, const char *s, size_t len, uint32_t *out);

/* Reads a decoded GPU's values the original's way. own is the mask of fields
 * whose own key, not an alias, the record had; those win. A perf_level of
 * "P0".."P15" is an NVML P-state and goes into pstate, unless the record had
 * its own pstate key. A perf_level of "auto" means no forced level, so it is
 * left absent. A device_id or parent_device_id prefixed with the original's
 * backend name ("nvml:GPU-…", "amdgpu:pci:0000:03:00.0", "nvml#1:…") loses
 * the prefix. */
void record_foreign_gpu(struct gpu *g, uint64_t own);

/* Reads a decoded process row's values the original's way. via is the mask
 * of fields that came under an alias. A user of "-" is unknown, since no user
 * name is "-", and so is a command line of "?" from the original's
 * `command`. */
void record_foreign_process(struct gpu_process *p, uint64_t via);

/* Returns a pointer into id past the prefixes that the original's composite
 * backend puts before a device id. Each is "<backend>:" or "<backend>#<n>:"
 * for one of its backends (nvml, amdgpu, intel, nouveau, ioaccel, pdh); all
 * of them are skipped, as long as something follows. */
const char *record_foreign_device_id(const char *id);

#endif
