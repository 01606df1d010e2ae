/* nvml_priv: state shared by the NVIDIA backend's files. nvml.c reads
 * devices, and nvml_procs.c reads their processes. */
#ifndef GPUR_NVML_PRIV_H
#define GPUR_NVML_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend/nvml_lib.h"
#include "drm/drm_parse.h"
#include "model/frame.h"
#include "util/clock.h"

#define NVML_SLOW_PERIOD_MS 5000
#define NVML_PID_MAX 4194304u

/* How often the getters of the slower cadences are read (docs/nvml.md has
 * the table). Fans move over seconds; the enforced power limit, the PCIe
 * link, the memory clock and the ECC count change rarely, and the link and
 * the memory clock are also read again whenever the P-state changes. */
#define NVML_FAN_MS 5000
#define NVML_RARE_MS 10000
/* An MPS process list that listed nobody is asked again after this long, or
 * as soon as the compute list changes (the MPS server appears there when its
 * first client connects). */
#define NVML_MPS_IDLE_MS 10000
/* The getters of nvml_getters.c, at most. */
#define NVML_GETTERS_MAX 64

#define NVML_MIG_SLOTS 64 /* instances read per MIG GPU */

struct nvml_dev {
	nvmlDevice_t h;
	bool lost;
	bool mig; /* MIG mode enabled */
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE], name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], pci[16];
	bool have_uuid, have_name, have_pci;
	struct gpu statics;     /* thresholds and maxima, read once */
	/* The values of the slower cadences, held between their reads and
	 * copied into every poll's GPU. */
	struct gpu held;
	uint64_t next_ms[NVML_GETTERS_MAX]; /* when getter k is due again; 0 is now */
	int pstate_seen;                    /* the last P-state read plus one; 0 before any */
	uint64_t never;         /* bit k is set when getter k of nvml_getters.c answered "never" */
	unsigned plist_never;   /* bit (1 << nvml_plist) is set when that list answered "never" */
	uint64_t mps_next_ms;   /* when an MPS list that listed nobody is asked again */
	uint64_t compute_sig;   /* a digest of the compute list's pids, to see it change */
	bool mps_busy;          /* the MPS list listed somebody at its last read */
	bool putil_unsupported;      /* nvmlDeviceGetProcessUtilization answered "never" */
	bool putil_info_unsupported; /* nvmlDeviceGetProcessesUtilizationInfo answered "never" */
	/* Polls in a row in which the GPU was busy and the old call gave no
	 * process any SM share: past NVML_PUTIL_QUIET_POLLS its zeros are not
	 * believed. */
	unsigned putil_quiet;
	bool putil_quiet_said;
	bool plist_failed_said; /* a failed process list was noted */
	bool putil_shared;       /* some sample gave a process an SM share ... */
	uint64_t putil_share_ms; /* ... last at this time */
	unsigned long long last_seen; /* newest process-utilisation sample */
	struct drm_energy energy;     /* the baseline of a power from the energy counter */
	char id[128];           /* the device_id first reported, kept for the backend's life */
	/* A MIG GPU's instances are read through a nvml_dev of one poll, so
	 * which of their getters answered "never" is kept here, per slot. */
	uint64_t mig_never[NVML_MIG_SLOTS];
	unsigned mig_plist_never[NVML_MIG_SLOTS];
};

/* What the slow thread reads and owns, one per device, guarded by n->mu. */
struct nvml_slow_dev {
	nvmlDevice_t h;
	bool skip;        /* lost, and not read */
	bool unsupported; /* both counters answered NOT_SUPPORTED */
	bool have_rx, have_tx;
	uint64_t rx, tx;  /* bytes/s */
	bool gpm;         /* GPM gives its PCIe rates, so it is not sampled here */
};

#define NVML_PUTIL_QUIET_POLLS 3
/* A GPU at this utilisation or more is busy: some process has a share. */
#define NVML_PUTIL_BUSY_PCT 10
/* How long the old call may give no process a share on a busy GPU before
 * its zeros are not believed: more than a driver's sample period. */
#define NVML_PUTIL_SILENT_MS 1000

struct nvml {
	struct nvml_lib lib;
	const struct clock *clock; /* the cadences' time */
	uint64_t rate_window_ns;   /* the shortest window a rate is taken from (util/ratewin.h) */
	struct nvml_dev *dev;
	size_t ndev;
	unsigned counted;    /* nvmlDeviceGetCount at enumeration, refused GPUs included */
	uint64_t refused_said; /* bit i is set once GPU i's NO_PERMISSION was noted */
	/* Notes for the next frame, such as a refused GPU or a corrected stride, each given once. */
	char notes[4][200];
	size_t nnotes;
	bool stride_fixed[NVML_PLIST__COUNT]; /* the list's stride was corrected */
	bool stride_verified[NVML_PLIST__COUNT]; /* judged once with the pids' liveness */
	char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	char cuda[16];
	/* Slow reads. The thread touches only slow_dev, under mu, and leaves
	 * NVML alone while it is held for re-initialisation. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t slow;
	bool slow_running, stop, hold, busy;
	/* The poll asks for a round (kick) once slow_due_ns, on CLOCK_MONOTONIC,
	 * has passed, so the thread is woken by a running thread and never by
	 * a timer of its own. */
	bool kick;
	uint64_t slow_due_ns;
	uint64_t gen; /* bumps when slow_dev is rebuilt, so that stale results are dropped */
	struct nvml_slow_dev *slow_dev;
	size_t nslow;
	/* GPM (nvml_gpm.c): a state per GPU and MIG instance that used it,
	 * the metrics request, which is large, and whether the note saying why
	 * there is none was given. */
	bool no_gpm; /* --no-gpm */
	struct nvml_gpm *gpm;
	size_t ngpm;
	nvmlGpmMetricsGet_t *gpm_get;
	bool gpm_said;
	/* XID events (nvml_xid.c): the event set, the handles registered by
	 * device position (NULL where none), and the backing off of a set
	 * whose waits fail. */
	nvmlEventSet_t xid_set;
	nvmlDevice_t *xid_dev;
	size_t nxid_dev;
	bool xid_said;
	unsigned xid_backoff_ms;
	uint64_t xid_next_ns; /* polls before this (CLOCK_MONOTONIC) leave the set alone */
	unsigned long xid_failures; /* waits that failed, for the curious */
	/* Scratch. */
	unsigned char *pbuf;
	size_t pbuf_cap;
};

enum outcome { NV_OK, NV_UNKNOWN, NV_GPU_LOST, NV_LIB_LOST };


/* One device's reading pass, which the first lost or library outcome stops. */
struct rd {
	struct nvml *n;
	struct nvml_dev *d;
	nvmlDevice_t h;
	enum outcome fatal;
	nvmlReturn_t fatal_code;
	uint64_t now_ms; /* the poll's monotonic time, for the cadences */
};

/* Sorts an NVML answer into what it means for the poll. */
enum outcome nvml_classify(nvmlReturn_t r);
/* Records in rd an answer that means a lost GPU or a failed library, and
 * returns true on success. */
bool nvml_took(struct rd *rd, nvmlReturn_t r);
/* Whether an answer means "never on this device", which NOT_SUPPORTED,
 * INVALID_ARGUMENT, FUNCTION_NOT_FOUND and ARGUMENT_VERSION_MISMATCH do. */
bool nvml_never(nvmlReturn_t r);
/* Queues a one-line note for the next frame; it is dropped when 4 are
 * waiting. */
__attribute__((format(printf, 2, 3))) void nvml_note(struct nvml *n, const char *fmt, ...);

/* In nvml_getters.c. Reads into g every table getter flagged in `which` for
 * rd's device, skipping those remembered as "never" for it.
 * NVML_READ_STATIC reads thresholds and maxima, once per enumeration;
 * NVML_READ_POLL reads the readings; and NVML_READ_MEMORY reads memory only,
 * for MIG instances. */
#define NVML_READ_POLL 1u
#define NVML_READ_STATIC 2u
#define NVML_READ_MEMORY 4u
void nvml_getters_read(struct rd *rd, struct gpu *g, unsigned which);
/* In nvml_slow.c: PCIe throughput, at ~20 ms a call, on a thread of its own. */
/* Reads a first round now, so that the first frames have it, and then one
 * on a thread whenever a poll calls nvml_slow_tick() at least
 * NVML_SLOW_PERIOD_MS after the last round ended. */
void nvml_slow_start(struct nvml *n);
void nvml_slow_stop(struct nvml *n);
/* Waits until the thread is outside NVML and keeps it out, as is needed
 * before nvmlShutdown. nvml_slow_release() lets it go on with the current
 * devices. */
void nvml_slow_hold(struct nvml *n);
void nvml_slow_release(struct nvml *n);
/* Device i got lost, and is not read again until re-initialisation. */
void nvml_slow_skip(struct nvml *n, size_t i);
/* Called once per poll: starts a round when one is due. */
void nvml_slow_tick(struct nvml *n);
/* Copies device i's latest throughput into g, unless GPM gives device i's
 * PCIe rates (by_gpm, then and from then on): the thread samples it no
 * more. */
void nvml_slow_get(struct nvml *n, size_t i, struct gpu *g, bool by_gpm);

/* Reads the processes of one device handle, all three lists merged per pid,
 * into f as rows of GPU `index`. With util set it also reads per-process
 * utilisation, judged against the GPU's own utilisation in f. */
void nvml_device_processes(struct rd *rd, struct frame *f, size_t index, bool util);

/* In nvml_gpm.c. Whether the library has GPM's calls. */
bool nvml_gpm_available(const struct nvml_lib *L);
/* Reads the GPM metrics of device dev (slot -1, handle h) or of its MIG
 * slot (handle h of the instance, parent the GPU) into out, where GPM
 * works; the note said once when it does not names the device by its
 * position and name. Returns true when the PCIe rates came with them. */
bool nvml_gpm_read(struct rd *rd, size_t dev, int slot, nvmlDevice_t parent, nvmlDevice_t h, struct gpu *out,
		   const char *name);
/* Frees every sample, as must be done before nvmlShutdown; the devices'
 * last values stay for after the re-initialisation. */
void nvml_gpm_reset(struct nvml *n);
/* Frees everything, at close. */
void nvml_gpm_free(struct nvml *n);
/* In nvml_xid.c. Whether the library has the event calls. */
bool nvml_xid_available(const struct nvml_lib *L);
/* Registers the devices for XID events; says once when the library or a GPU
 * cannot. */
void nvml_xid_start(struct nvml *n);
/* Frees the event set, as must be done before nvmlShutdown. */
void nvml_xid_stop(struct nvml *n);
/* Takes the XIDs waiting on the set into f as xid events; device i is GPU
 * frame_index[i] of f, or SIZE_MAX when it is not there. */
void nvml_xid_poll(struct nvml *n, struct frame *f, const size_t *frame_index);

#endif
