/* html: a finished summary as one self-contained HTML page: inline CSS and
 * SVG, no external resource, readable without script (a few lines of inline
 * script add hover values), fit for printing. Tables: #gpus, #processes,
 * #groups (one row per entry, plus one row for the rest when capped), and
 * #events. */
#ifndef GPUR_REPORT_HTML_H
#define GPUR_REPORT_HTML_H

#include "report/out.h"
#include "report/summary.h"

/* source: what was read (the --replay PATH), shown in the header. */
void html_write(struct report_out *o, const struct summary *s, const char *source);

#endif
