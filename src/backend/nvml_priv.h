/* nvml_priv: state shared by the NVIDIA backend's files (nvml.c reads
 * devices, nvml_procs.c reads their processes). */
#ifndef GPUR_NVML_PRIV_H
#define GPUR_NVML_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend/nvml_lib.h"
#include "model/frame.h"

#define NVML_SLOW_PERIOD_MS 3000
#define NVML_PID_MAX 4194304u

struct nvml_dev {
	nvmlDevice_t h;
	bool lost;
	bool mig; /* MIG mode enabled */
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE], name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], pci[16];
	bool have_uuid, have_name, have_pci;
	struct gpu statics;     /* thresholds, maxima: read once */
	uint64_t unsupported;   /* bit (1 << gpu_field): the getter said NOT_SUPPORTED */
	bool putil_unsupported;
	bool tempv_unsupported;  /* nvmlDeviceGetTemperatureV refused: use the old getter */
	unsigned long long last_seen; /* newest process-utilisation sample */
	char id[128];           /* the device_id first reported: kept for the backend's life */
};

/* What the slow thread reads and owns, one per device, guarded by n->mu. */
struct nvml_slow_dev {
	nvmlDevice_t h;
	bool skip;        /* lost: not read */
	bool unsupported; /* both counters answered NOT_SUPPORTED */
	bool have_rx, have_tx;
	uint64_t rx, tx;  /* bytes/s */
};

struct nvml {
	struct nvml_lib lib;
	struct nvml_dev *dev;
	size_t ndev;
	char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	char cuda[16];
	/* Slow reads: the thread touches only slow_dev, under mu, and leaves
	 * NVML alone while held (re-initialisation). */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t slow;
	bool slow_running, stop, hold, busy;
	uint64_t gen; /* bumps when slow_dev is rebuilt: stale results are dropped */
	struct nvml_slow_dev *slow_dev;
	size_t nslow;
	/* Scratch. */
	unsigned char *pbuf;
	size_t pbuf_cap;
};

enum outcome { NV_OK, NV_UNKNOWN, NV_GPU_LOST, NV_LIB_LOST };


/* One device's reading pass: the first lost/library outcome stops it. */
struct rd {
	struct nvml *n;
	struct nvml_dev *d;
	nvmlDevice_t h;
	enum outcome fatal;
	nvmlReturn_t fatal_code;
};

/* Sorts an NVML answer into what it means for the poll. */
enum outcome nvml_classify(nvmlReturn_t r);
/* Whether a getter for field may be called now. */
bool nvml_may(const struct rd *rd, const void *fn, enum gpu_field field);
/* Records a getter's answer (a lost GPU, a failed library, an unsupported
 * getter); true on success. */
bool nvml_took(struct rd *rd, nvmlReturn_t r, enum gpu_field field);
/* nvml_slow.c: PCIe throughput (~20 ms a call) on a thread of its own. */
/* First round now (so the first frames have it), then one every
 * NVML_SLOW_PERIOD_MS on a thread. */
void nvml_slow_start(struct nvml *n);
void nvml_slow_stop(struct nvml *n);
/* Waits until the thread is outside NVML and keeps it out (before
 * nvmlShutdown); nvml_slow_release() lets it go on with the current devices. */
void nvml_slow_hold(struct nvml *n);
void nvml_slow_release(struct nvml *n);
/* Device i got lost: not read again until re-initialisation. */
void nvml_slow_skip(struct nvml *n, size_t i);
/* Copies device i's latest throughput into g. */
void nvml_slow_get(struct nvml *n, size_t i, struct gpu *g);

/* Reads the processes of one device handle (all three lists, merged per
 * pid) into f as rows of GPU `index`; util: also per-process utilisation. */
void nvml_device_processes(struct rd *rd, struct frame *f, size_t index, bool util);

#endif
