/* prom: a frame as Prometheus text exposition format 0.0.4: the GPU
 * fields under dcgm-exporter's names, units and labels, driven by the field
 * tables (struct field_prom), then gpur's own families — GPU state, throttle
 * reasons, processes, containers and gpur's health. Unknown values give no
 * sample; label values are escaped and stripped of control characters;
 * process and container series are capped (docs/exporter.md). */
#ifndef GPUR_PROM_H
#define GPUR_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"
#include "util/buf.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* Series caps per scrape, each family on its own; what is left out is
 * counted in gpur_exporter_series_left_out{family}. */
#define PROM_MAX_PROCESS_ROWS 2000
#define PROM_MAX_CONTAINERS 2000
/* A label value longer than this is cut (on a character boundary). */
#define PROM_MAX_LABEL_BYTES 256
#define PROM_MAX_BACKENDS 8

struct prom_opts {
	const char *hostname; /* the Hostname label; NULL: the frame's host */
	bool processes;       /* per-process series (--serve-processes) */
	bool live;            /* a live source: the poll's duration is known */
	size_t max_process_rows, max_containers; /* 0: the PROM_MAX_ defaults */
};

/* What gpur knows of itself, kept across frames by the caller (the feed's
 * thread) and updated with prom_health_update() before each render. */
struct prom_health {
	uint64_t frames;              /* frames rendered, this one included */
	uint64_t left_out_total[2];   /* process rows, containers left out so far */
	bool have_records;            /* --log or --json is on */
	uint64_t records_dropped;
	double render_seconds;        /* the previous render; < 0: none yet */
	double cpu_seconds;           /* gpur's own CPU time; < 0: unknown */
	double rss_bytes;             /* < 0: unknown */
	size_t nbackends;
	struct {
		char name[64];
		bool up;
		uint64_t errors; /* backend_lost events seen */
	} backends[PROM_MAX_BACKENDS];
};

void prom_health_init(struct prom_health *h);
/* Takes f's backends and backend_lost/backend_back events into h. */
void prom_health_update(struct prom_health *h, const struct frame *f);

/* Appends f's exposition to out; the families gpur adds per scrape (the
 * scrape counter, prom_render_tail) are not in it. Updates h's
 * left_out_total. Never fails (out grows as needed). */
void prom_render(struct buf *out, const struct frame *f, const struct prom_opts *o, struct prom_health *h);
/* Writes the per-scrape families (gpur_exporter_scrapes_total = scrapes)
 * into buf (size n); returns the length (< n), 0 when n is too small. */
size_t prom_render_tail(char *buf, size_t n, uint64_t scrapes);
/* Appends value as a label value: escaped (\\, \", \n), other control
 * characters dropped, invalid UTF-8 as U+FFFD, at most
 * PROM_MAX_LABEL_BYTES of input. */
void prom_put_label_value(struct buf *out, const char *value);

#endif
