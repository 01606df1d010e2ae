/* prom: a frame in Prometheus text exposition format 0.0.4. The GPU fields
 * come first under dcgm-exporter's names, units and labels, its legacy ones
 * or those of 4.10, driven by the field tables (struct field_prom), and then
 * gpur's own families, the same under both: GPU state,
 * throttle reasons, processes, containers and gpur's health. Unknown values
 * give no sample, label values are escaped and stripped of control
 * characters, and process and container series are capped
 * (docs/exporter.md). */
#ifndef GPUR_PROM_H
#define GPUR_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"
#include "util/buf.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* Series caps per scrape, for each family on its own. What is left out is
 * counted in gpur_exporter_series_left_out{family}. */
#define PROM_MAX_PROCESS_ROWS 2000
#define PROM_MAX_CONTAINERS 2000
/* A label value longer than this is cut on a character boundary. */
#define PROM_MAX_LABEL_BYTES 256
#define PROM_MAX_BACKENDS 8
/* XID errors are kept for this many GPUs, each with this many distinct
 * XIDs; more are not counted (docs/exporter.md). */
#define PROM_MAX_XID_GPUS 64
#define PROM_MAX_XIDS 16

struct prom_opts {
	const char *hostname; /* the Hostname label, or NULL for the frame's host */
	/* The names of dcgm-exporter's metrics and labels (--serve-names).
	 * gpur's own families are the same under both. */
	enum field_names names;
	bool processes;       /* per-process series (--serve-processes) */
	bool live;            /* a live source, whose poll duration is known */
	size_t max_process_rows, max_containers; /* 0 for the PROM_MAX_ defaults */
};

/* What gpur knows of itself. The caller, the feed's thread, keeps it across
 * frames and updates it with prom_health_update() before each render. */
struct prom_health {
	uint64_t frames;              /* frames rendered, this one included */
	uint64_t left_out_total[2];   /* process rows and containers left out so far */
	bool have_records;            /* --log or --json is on */
	uint64_t records_dropped;
	double render_seconds;        /* the previous render, < 0 when none yet */
	double cpu_seconds;           /* gpur's own CPU time, < 0 when unknown */
	double rss_bytes;             /* < 0 when unknown */
	size_t nbackends;
	struct {
		char name[64];
		bool up;
		uint64_t errors; /* backend_lost events seen */
	} backends[PROM_MAX_BACKENDS];
	/* The XID errors seen, per GPU by device_id: the last, and how many
	 * of each. */
	size_t nxid_gpus;
	struct prom_xid_gpu {
		char device_id[128];
		uint64_t last;
		size_t nxids;
		struct {
			uint64_t xid, count;
		} xids[PROM_MAX_XIDS];
	} xid_gpus[PROM_MAX_XID_GPUS];
};

void prom_health_init(struct prom_health *h);
/* Takes f's backends, backend_lost/backend_back events and xid events into
 * h. */
void prom_health_update(struct prom_health *h, const struct frame *f);

/* Appends f's exposition to out, without the families that gpur adds per
 * scrape (the scrape counter, prom_render_tail). Updates h's left_out_total.
 * It never fails, because out grows as needed. */
void prom_render(struct buf *out, const struct frame *f, const struct prom_opts *o, struct prom_health *h);
/* Writes the per-scrape families, gpur_exporter_scrapes_total being scrapes,
 * into buf of size n. Returns the length, which is < n, or 0 when n is too
 * small. */
size_t prom_render_tail(char *buf, size_t n, uint64_t scrapes);
/* Appends value as a label value, escaped (\\, \", \n), with other control
 * characters dropped, invalid UTF-8 as U+FFFD, and at most
 * PROM_MAX_LABEL_BYTES of input. */
void prom_put_label_value(struct buf *out, const char *value);

#endif
