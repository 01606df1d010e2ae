/* nvml_priv: state shared by the NVIDIA backend's files (nvml.c reads
 * devices, nvml_procs.c reads their processes). */
#ifndef GPUR_NVML_PRIV_H
#define GPUR_NVML_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend/nvml_lib.h"
#include "model/frame.h"
#include "proc/procinfo.h"

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
	unsigned long long last_seen; /* newest process-utilisation sample */
	/* Written by the slow thread under n->mu. */
	uint64_t rx, tx;
	bool have_rx, have_tx;
};

struct nvml {
	struct nvml_lib lib;
	struct nvml_dev *dev;
	size_t ndev;
	char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	char cuda[16];
	struct procinfo *pi;
	/* Slow reads. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t slow;
	bool slow_running, stop;
	uint64_t gen; /* bumps on re-initialisation: stale slow results are dropped */
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
/* Reads the processes of one device handle (all three lists, merged per
 * pid) into f as rows of GPU `index`; util: also per-process utilisation. */
void nvml_device_processes(struct rd *rd, struct frame *f, size_t index, bool util);

#endif
