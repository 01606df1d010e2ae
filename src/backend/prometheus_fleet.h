/* prometheus_fleet: the answers of one fleet poll's queries, grouped by host
 * (Hostname, else hostname, else instance) and GPU into a fleet of per-host
 * frames. A GPU metric is asked for under dcgm-exporter's legacy name and
 * its 4.10 name at once, and each series is read in its own name's unit. */
#ifndef GPUR_PROMETHEUS_FLEET_H
#define GPUR_PROMETHEUS_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "backend/prometheus_parse.h"
#include "model/fleet.h"

/* The queries of one poll, in this order: the GPUs' series, each host's
 * busiest container (one series per target, which the server chooses), and
 * the per-process series of gpur exporters with their GPU memory and
 * utilisation. */
enum prom_metric {
	PROM_M_UTIL, PROM_M_FB_USED, PROM_M_FB_FREE, PROM_M_TEMP, PROM_M_POWER, PROM_M_LOST, PROM_M_SUSPENDED,
	PROM_M_SM, PROM_M_TENSOR, /* the profiling ratios 0-1 (GPM or DCGM) */
	PROM_M_CONTAINER, PROM_M_PROC_MEM, PROM_M_PROC_UTIL, PROM_M__COUNT
};
/* The name query m is known by in messages: a GPU metric's legacy name, or
 * the gpur family's. */
const char *prom_fleet_metric(enum prom_metric m);

/* Writes the PromQL of query m, narrowed by match, into out of n bytes. match
 * is a selector with or without its braces, or NULL or "" for none. A GPU
 * metric is the selector {__name__=~"LEGACY|NEW",match}. */
void prom_fleet_query(char *out, size_t n, enum prom_metric m, const char *match);

struct prom_fleet_info {
	size_t gpus, gpus_left_out; /* GPUs kept, and those left out past FRAME_MAX_GPUS on one host */
	size_t procs, procs_left_out; /* rows kept, and those left out past FRAME_MAX_PROCESSES on one host */
};

/* Returns a new fleet, which the caller unrefs, from the answers
 * r[0..PROM_M__COUNT). It has one host frame per host, with ts_ms, host,
 * backend "prometheus" and driver url. Hosts are in name order, GPUs are
 * ordered by their gpu label, and each process row is on the GPU that its
 * UUID, or else its gpu label, names. A GPU or a process that two exporters
 * of one host serve, under either names, is one: the first series of each
 * metric counts. Every string is made safe (model/fleet.h). */
struct fleet *prom_fleet_build(const struct prom_result *r, const char *url, uint64_t ts_ms,
			       struct prom_fleet_info *info);

#endif
