/* prom_health: gpur's own health across frames (struct prom_health and its
 * updates are declared in prom.h), and the families that serve it. */
#ifndef GPUR_PROM_HEALTH_H
#define GPUR_PROM_HEALTH_H

#include <stdint.h>

#include "serve/prom.h"
#include "util/buf.h"

/* The XID errors seen on the GPU of device_id, or NULL when none was. */
const struct prom_xid_gpu *prom_health_xid(const struct prom_health *h, const char *device_id);
/* Appends gpur's health families for the served frame f: its time and
 * size, the series left out in it (left: process rows, containers) and in
 * all, the backends, dropped records and gpur's own cost. host is the
 * Hostname label, or NULL. */
void prom_health_render(struct buf *b, const struct frame *f, const struct prom_opts *o, const struct prom_health *h,
			const char *host, const uint64_t left[2]);

#endif
