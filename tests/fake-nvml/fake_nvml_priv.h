/* fake_nvml_priv: the fake NVML's state and helpers, shared by its files
 * (fake_nvml.c: loading, init and device getters; fake_nvml_scenario.c:
 * reading the scenario; fake_nvml_fields.c: field values; fake_nvml_procs.c:
 * process lists, utilisation samples and MIG; fake_nvml_world.c: the machine
 * around the GPUs; fake_nvml_gpm.c: GPM samples and metrics;
 * fake_nvml_events.c: event sets and XID events). */
#ifndef GPUR_FAKE_NVML_PRIV_H
#define GPUR_FAKE_NVML_PRIV_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "backend/nvml_abi.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_GPUS 1024
#define MAX_MIG 8

#if !defined(FAKE_MODERN) && !defined(FAKE_CUDA13) && !defined(FAKE_LEGACY) && !defined(FAKE_CC32) && \
	!defined(FAKE_MINIMAL) && !defined(FAKE_WRONG32) && !defined(FAKE_NOOLD)
#define FAKE_MODERN 1
#endif
/* FAKE_NOOLD is modern without nvmlDeviceGetProcessUtilization: only the
 * newer nvmlDeviceGetProcessesUtilizationInfo answers per-process
 * utilisation. */
#if defined(FAKE_MODERN) || defined(FAKE_CUDA13) || defined(FAKE_CC32) || defined(FAKE_WRONG32) || defined(FAKE_NOOLD)
#define HAVE_NEW 1 /* _v2/_v3 entry points, MemoryInfo_v2, versioned structs */
#endif
#if defined(FAKE_CC32) || defined(FAKE_WRONG32)
#define V3_WRITES_32 1 /* the _v3 process lists write 32-byte entries */
#endif
#if defined(FAKE_MODERN) || defined(FAKE_LEGACY) || defined(FAKE_CC32) || defined(FAKE_WRONG32) || defined(FAKE_NOOLD)
#define HAVE_DEPRECATED 1 /* GetTemperature, ThrottleReasons */
#endif
#if !defined(FAKE_MINIMAL)
#define HAVE_GETTERS 1
#endif
/* GPM (R520 and later): the drivers with the versioned entry points. The
 * legacy and minimal variants lack its symbols. */
#if defined(HAVE_NEW)
#define HAVE_GPM 1
#endif

struct fproc {
	unsigned pid;
	int type; /* 1 compute, 2 graphics, 3 both, 4 mps */
	json_t *mem, *sm, *memutil, *enc, *dec;
	/* "polls": [FROM, TO]: listed only at polls FROM <= poll < TO (absent: always). */
	unsigned long from_poll, to_poll;
};
/* Whether the current poll is within process p's "polls". */
#define FPROC_IN_POLLS(p) (S.polls >= (p)->from_poll && S.polls < (p)->to_poll)
/* Whether process p is listed at the current poll: within its "polls" and,
 * with $FAKE_NVML_LIVE_PROCFS, while its pid is alive there. */
#define FPROC_LISTED(p) (FPROC_IN_POLLS(p) && world_alive((p)->pid))

struct fdev {
	int gpu;  /* index of the physical GPU */
	int mig;  /* -1 for the GPU itself */
	json_t *j;
	struct fproc *procs;
	size_t nprocs;
};

struct fake_state {
	pthread_mutex_t mu;
	bool loaded;
	json_t *root;
	int inits;          /* reference count */
	unsigned long polls; /* nvmlDeviceGetCount calls while initialised */
	long long loaded_ms; /* CLOCK_MONOTONIC when the scenario was loaded */
	unsigned long successful_inits;
	size_t ngpus;
	struct fdev gpus[MAX_GPUS];
	struct fdev migs[MAX_GPUS][MAX_MIG];
	size_t nmig[MAX_GPUS];
	unsigned long lost_since_init[MAX_GPUS]; /* init count when it got lost, +1 */
	unsigned long lib_fail_since_init;        /* likewise for the whole library */
	bool hang_done;
};

#define HIDDEN __attribute__((visibility("hidden")))
extern struct fake_state S HIDDEN;

/* Scenario helpers (called with S.mu held). */
long long jint(json_t *o, const char *key, long long dflt) HIDDEN;
/* Element i of array a as an integer, 0 when it is not one. */
long long jint_at(json_t *a, size_t i) HIDDEN;
bool value_at(json_t *v, unsigned long long *out) HIDDEN;
/* The index that values show now: the poll, or the time step with
 * "cycle_ms". */
unsigned long long sample_index(void) HIDDEN;
bool unsupported(const struct fdev *d, const char *key) HIDDEN;
/* What the scenario makes getter `key` answer for d: NOT_SUPPORTED when it
 * is in "not_supported", the code in "errors": {key: code}, else SUCCESS. */
nvmlReturn_t refusal(const struct fdev *d, const char *key) HIDDEN;
/* Counts the running entry point once, for device d (NULL: no device). */
void calls_count(const struct fdev *d) HIDDEN;
void calls_begin(const char *fn) HIDDEN;
void calls_end(void) HIDDEN;
nvmlReturn_t dev_state(nvmlDevice_t h) HIDDEN;
/* UNINITIALIZED, a scripted whole-library failure, or SUCCESS. */
nvmlReturn_t lib_state(void) HIDDEN;
/* Scenario key `key` of device h (a MIG instance's own key first), refused
 * through getter key `ns` (fake_nvml.c). */
nvmlReturn_t get_u64(nvmlDevice_t h, const char *key, const char *ns, unsigned long long *out) HIDDEN;
struct fdev *dev_of(nvmlDevice_t h) HIDDEN;
/* The scenario's machine around the GPUs, moved on one poll (fake_nvml_world.c). */
void world_tick(void) HIDDEN;
/* False when $FAKE_NVML_LIVE_PROCFS is set and PID there is gone or a
 * zombie (the driver tears an exited process's context down); else true. */
bool world_alive(unsigned pid) HIDDEN;
/* The memory of d's processes that have exited (world_alive false), which
 * the driver has given back: taken off the scenario's used memory. */
unsigned long long world_freed(const struct fdev *d) HIDDEN;
/* Lines of their own for the $FAKE_NVML_CALLS file: the live GPM samples
 * and event sets, so that a test sees a leak (fake_nvml_gpm.c and
 * fake_nvml_events.c). */
void gpm_calls_write(FILE *f) HIDDEN;
void events_calls_write(FILE *f) HIDDEN;
/* Called at every poll: wakes the threads blocked in nvmlEventSetWait,
 * which look again at what is due. events_shutdown, called at every
 * nvmlShutdown, wakes them too, and those that waited when the library was
 * left uninitialised answer UNINITIALIZED. */
void events_wake(void) HIDDEN;
void events_shutdown(void) HIDDEN;

#define LOCKED(body)                                                                                        \
	do {                                                                                                \
		pthread_mutex_lock(&S.mu);                                                                  \
		calls_begin(__func__);                                                                      \
		nvmlReturn_t r_ = (body);                                                                  \
		calls_end();                                                                                \
		pthread_mutex_unlock(&S.mu);                                                                \
		return r_;                                                                                  \
	} while (0)

#endif
