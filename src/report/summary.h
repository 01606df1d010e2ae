/* summary: a recording folded, one record at a time, into what a report
 * shows. That is the span (records, gaps), every GPU (means and peaks,
 * energy, time lost and throttled, downsampled timelines), every process
 * (pid, start time, GPU), every group (container, pod, Slurm job, user), and
 * the events. Memory is bounded whatever the recording's length, because
 * counts and strings are capped (SUMMARY_MAX_*) and the plots have a fixed
 * width.
 *
 * The definitions follow docs/report.md. Means are over the records where
 * the value is known. A record's values hold until the next record of the
 * recording, for at most SUMMARY_GAP_MS; a longer stretch is a gap and
 * counts as that long. The energy over a stretch is the energy_j difference
 * when energy_j is known at both ends and does not go backwards, and else the
 * mean known power_w at its ends times its capped duration. GPU-memory hours
 * are gpu_mem_bytes times that duration. Time lost is the duration of the
 * stretches that start in state lost. */
#ifndef GPUR_SUMMARY_H
#define GPUR_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"
#include "model/idle.h"
#include "report/downsample.h"

#define SUMMARY_GAP_MS 5000
#define SUMMARY_MAX_GPUS 1024       /* distinct GPUs by device_id; more are not summed */
#define SUMMARY_MAX_PLOTTED 64      /* GPUs with timelines; the others are only in the table */
#define SUMMARY_MAX_TRACKED 32768   /* process entries held while reading */
#define SUMMARY_TOP_ROWS 1000       /* process and group rows shown; the rest is one row */
#define SUMMARY_MAX_GROUPS 4096     /* groups held; later ones are summed as others */
#define SUMMARY_MAX_EVENTS 1000     /* events kept, while all are counted */
#define SUMMARY_MAX_GAPS 1000       /* gaps kept for the plots, while all are counted */
#define SUMMARY_STR_MAX 256         /* bytes kept of any string from the recording */

/* The plotted metrics. SM and tensor activity come from NVML's GPM
 * (sm_active_pct, tensor_active_pct) and are unknown on GPUs without it. */
enum summary_metric {
	SUMMARY_UTIL, SUMMARY_MEM, SUMMARY_POWER, SUMMARY_TEMP, SUMMARY_CLOCK, SUMMARY_SM, SUMMARY_TENSOR,
	SUMMARY__METRICS
};

/* The flag bits of a plot column: the GPU's state, and throttle reasons at
 * bit SUMMARY_FLAG_REASON0 + enum gpu_throttle. */
#define SUMMARY_FLAG_LOST 0x1u
#define SUMMARY_FLAG_SUSPENDED 0x2u
#define SUMMARY_FLAG_THROTTLED 0x4u
#define SUMMARY_FLAG_REASON0 8
/* The throttle reasons that hold a busy GPU back and count as throttled:
 * power capping, slowdowns, thermal limits and the power brake. Idle clocks,
 * application and display clock settings and sync boost do not count. */
extern const uint32_t SUMMARY_SLOWING_REASONS;

struct summary_stat {
	double sum, max;
	uint64_t n; /* records where known, 0 when never known */
};

struct summary_plot {
	struct downsample_series m[SUMMARY__METRICS];
	struct downsample_flags flags;
};

struct summary_gpu {
	char *device_id, *name;      /* name NULL when never known */
	uint64_t index;              /* its position in the latest record, as recorded */
	struct summary_stat util, mem, temp, power, clock;
	struct summary_stat sm, tensor; /* GPM's SM and tensor activity, n 0 without GPM */
	double energy_j;
	bool energy_known;
	uint64_t lost_ms, suspended_ms, throttled_ms;
	bool state_known, throttle_known;
	/* Thresholds and scales as last known; bit i of `known` says which are. */
	double temp_slowdown_c, power_limit_w, mem_total_bytes, clock_gfx_max_mhz;
	unsigned known;
	struct summary_plot *plot;   /* NULL past SUMMARY_MAX_PLOTTED */
	/* Where it is in the record being read; pos is valid when seq matches. */
	uint64_t next_seq;
	size_t next_pos;
};
enum { SUMMARY_K_SLOWDOWN = 1, SUMMARY_K_PLIMIT = 2, SUMMARY_K_MEMTOTAL = 4, SUMMARY_K_CLOCKMAX = 8 };

enum summary_group_kind { SUMMARY_G_CONTAINER, SUMMARY_G_POD, SUMMARY_G_SLURM, SUMMARY_G_USER, SUMMARY_G__COUNT };
extern const char *const SUMMARY_GROUP_KIND_NAMES[SUMMARY_G__COUNT];

struct summary_proc {
	uint64_t pid, start_ms;
	bool start_known;
	uint32_t gpu;                /* index into gpus */
	char *user, *name, *container, *pod; /* NULL when never known */
	char *cmdline;               /* the whole command line (up to PROCESS_CMDLINE_MAX), or NULL */
	uint64_t first_ms, last_ms;
	bool ts_known;
	double mem_max, mem_byte_ms; /* gpu_mem_bytes peak, and bytes × ms */
	bool mem_known;
	struct summary_stat util;
	/* GPU memory held while idle (model/idle.h), in byte·ms: the whole
	 * quiet stretch that ended idle, from when it became quiet; pending is
	 * the stretch not yet idle. idle_since_ms: the first idle stretch's
	 * start, 0 when never idle. */
	double idle_byte_ms, idle_pending;
	uint64_t idle_since_ms;
	double energy_j;             /* its share of its GPU's energy */
	uint64_t seq;                /* the last record that credited it */
	int32_t groups[SUMMARY_G__COUNT]; /* index into groups, or -1 for none */
};

/* Processes or groups past the rows shown, summed. */
struct summary_rest {
	uint64_t count;
	double mem_max, mem_byte_ms, energy_j, gpu_ms;
	bool mem_known;
};

struct summary_group {
	uint8_t kind;                /* enum summary_group_kind */
	char *id, *name;             /* a container's or pod's name for people, or NULL */
	double gpu_ms;               /* time any of its processes was on a GPU, per GPU */
	double mem_byte_ms, energy_j;
	bool mem_known;
	double idle_byte_ms; /* its processes' GPU memory held while idle */
};

struct summary_event {
	struct event e;              /* strings owned here; gpu_index is the recorded index */
	uint64_t ts_ms;
	bool ts_known;
};

struct summary_gap {
	uint64_t from_ms, to_ms;
};

struct summary {
	/* The span. */
	uint64_t records, first_ms, last_ms;
	bool ts_known;
	uint64_t gaps, gap_ms;
	struct summary_gap gap[SUMMARY_MAX_GAPS];
	size_t ngap;
	char *host, *backend, *driver; /* the first known, or NULL when never */
	uint64_t gpus_dropped;       /* GPUs past SUMMARY_MAX_GPUS */
	struct summary_gpu *gpus;
	size_t ngpus;
	struct downsample_grid grid;
	struct summary_proc *procs;
	size_t nprocs;
	struct summary_rest proc_rest;   /* evicted while reading, then past the top rows */
	struct summary_group *groups;
	size_t ngroups;
	struct summary_group group_others; /* past SUMMARY_MAX_GROUPS while reading */
	struct summary_rest group_rest;    /* past the top rows at the end */
	struct summary_event *events;
	size_t nevents;
	uint64_t events_total;
	double energy_total_j;
	bool finished;
	/* What idle is (the run's --idle-mem and --idle-after): set before the
	 * first summary_add; the records come marked by idle_update. */
	struct idle_opts idle;
	/* The reading state, used by summary.c. */
	struct summary_priv *priv;
};

/* Returns a new, empty summary. Free it with summary_free. */
struct summary *summary_new(void);
void summary_free(struct summary *s);
/* Adds one record. orig gives the recorded position of each of f's GPUs,
 * since f may have been narrowed by --gpus, and is NULL when f is as
 * recorded. The summary keeps a reference to f until the next add or
 * summary_finish. */
void summary_add(struct summary *s, struct frame *f, const uint32_t *orig);
/* Ends the input. It credits the last record, sorts GPUs by index, keeps the
 * top SUMMARY_TOP_ROWS processes and groups by GPU-memory hours with the
 * rest in proc_rest and group_rest, and computes energy_total_j. */
void summary_finish(struct summary *s);

/* The statistics of metric m of GPU g. */
static inline const struct summary_stat *summary_stat_of(const struct summary_gpu *g, enum summary_metric m)
{
	const struct summary_stat *st[SUMMARY__METRICS] = {&g->util, &g->mem, &g->power, &g->temp,
							   &g->clock, &g->sm, &g->tensor};

	return st[m];
}

static inline double summary_gib_h(double byte_ms)
{
	return byte_ms / (1073741824.0 * 3600000.0);
}

#endif
