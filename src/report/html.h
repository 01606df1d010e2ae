/* html: a finished summary as one self-contained HTML page, with inline CSS
 * and SVG and no external resource. It is readable without script, though a
 * few lines of inline script add hover values, and fit for printing. Its
 * tables are #gpus, #processes, #groups and #events; #processes and #groups
 * have one row per entry, plus one row for the rest when capped. */
#ifndef GPUR_REPORT_HTML_H
#define GPUR_REPORT_HTML_H

#include "report/out.h"
#include "report/summary.h"

/* source names what was read (the --replay PATH), shown in the header. */
void html_write(struct report_out *o, const struct summary *s, const char *source);

#endif
