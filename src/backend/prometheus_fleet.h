/* prometheus_fleet: the answers of one fleet poll's queries grouped by host
 * (Hostname, else instance) and GPU into a fleet of per-host frames. */
#ifndef GPUR_PROMETHEUS_FLEET_H
#define GPUR_PROMETHEUS_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "backend/prometheus_parse.h"
#include "model/fleet.h"

/* The queries of one poll, in this order: the GPUs' series, each host's
 * busiest container (one series per target, chosen by the server), and the
 * per-process series of gpur exporters (their GPU memory and utilisation). */
enum prom_metric {
	PROM_M_UTIL, PROM_M_FB_USED, PROM_M_FB_FREE, PROM_M_TEMP, PROM_M_POWER, PROM_M_LOST, PROM_M_SUSPENDED,
	PROM_M_CONTAINER, PROM_M_PROC_MEM, PROM_M_PROC_UTIL, PROM_M__COUNT
};
extern const char *const PROM_METRICS[PROM_M__COUNT];

/* The PromQL of query m narrowed by match (a selector with or without its
 * braces; NULL or "": none) into out (n bytes). */
void prom_fleet_query(char *out, size_t n, enum prom_metric m, const char *match);

struct prom_fleet_info {
	size_t gpus, gpus_left_out; /* GPUs kept; past FRAME_MAX_GPUS on one host */
	size_t procs, procs_left_out; /* process rows kept; past FRAME_MAX_PROCESSES on one host */
};

/* A new fleet (caller unrefs) from the answers r[0..PROM_M__COUNT): one
 * host frame per host with ts_ms, host, backend "prometheus" and driver url,
 * hosts in name order, GPUs by their gpu label, process rows on the GPU
 * their UUID (else gpu label) names. Every string is made safe (model/fleet.h). */
struct fleet *prom_fleet_build(const struct prom_result *r, const char *url, uint64_t ts_ms,
			       struct prom_fleet_info *info);

#endif
