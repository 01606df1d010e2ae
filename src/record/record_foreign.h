/* record_foreign: what the original gpur (the Rust program gpur began as)
 * writes differently from us, read as ours. Its keys that name one of our
 * fields otherwise are the alias rows of the model's tables (GPU_ALIASES,
 * PROCESS_ALIASES); this module reads the values it writes in its own way:
 * a throttle string, NVML P-states as a performance level, "-" and "?" for
 * unknown, device ids prefixed with its backend's name. Pure functions over
 * a decoded object: no allocation, no I/O. */
#ifndef GPUR_RECORD_FOREIGN_H
#define GPUR_RECORD_FOREIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/field.h"
#include "model/gpu.h"
#include "model/process.h"

/* The flags of FLAGS field f named by s[0..len), a '+'-joined string of
 * reasons as the original writes them ("thermal+power-limit"), into *out:
 * its names (power-limit is our power_cap, hw-slowdown our hw_slowdown) and
 * ours are both read, and a name neither knows is left out. Returns false
 * when no name is known (the value is then unknown, never "none active"). */
bool record_foreign_flags(const struct field *f, const char *s, size_t len, uint32_t *out);

/* Reads a decoded GPU's values the original's way. own: the mask of fields
 * whose own key (not an alias) the record had, which win. A perf_level of
 * "P0".."P15" is an NVML P-state (into pstate unless the record had its own
 * pstate key); "auto" is no forced level, so absent. A device_id or
 * parent_device_id prefixed with the original's backend name ("nvml:GPU-…",
 * "amdgpu:pci:0000:03:00.0", "nvml#1:…") loses the prefix. */
void record_foreign_gpu(struct gpu *g, uint64_t own);

/* Reads a decoded process row's values the original's way. via: the mask of
 * fields that came under an alias. A user "-" is unknown (no user name is
 * "-"); a command line "?" from the original's `command` is unknown. */
void record_foreign_process(struct gpu_process *p, uint64_t via);

/* id without the prefixes the original's composite backend puts before a
 * device id: "<backend>:" or "<backend>#<n>:" for the backends it has
 * (nvml, amdgpu, intel, nouveau, ioaccel, pdh), as many as there are, as
 * long as something follows. A pointer into id. */
const char *record_foreign_device_id(const char *id);

#endif
