/* json_out: a finished summary as one JSON object (docs/report.md) with span,
 * gpus, processes, groups and events. A value never known is left out. */
#ifndef GPUR_REPORT_JSON_OUT_H
#define GPUR_REPORT_JSON_OUT_H

#include "report/out.h"
#include "report/summary.h"

void json_out_write(struct report_out *o, const struct summary *s);

#endif
