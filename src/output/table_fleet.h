/* table_fleet: the --once snapshot of a fleet (--prometheus), with one line
 * per host and then each host's ordinary table. */
#ifndef GPUR_TABLE_FLEET_H
#define GPUR_TABLE_FLEET_H

#include <stdint.h>

#include "model/fleet.h"
#include "output/table.h"
#include "util/buf.h"

/* Appends the summary of fl, with hosts in name order, and every host's table
 * to out. now_ms is the wall clock, for a stale source's age. */
void table_render_fleet(struct buf *out, const struct fleet *fl, uint64_t now_ms, const struct table_opts *o);

#endif
