/* svg_plot: one GPU's timelines as inline SVG. Util, SM and tensor activity
 * (only for a GPU that had them, from GPM), memory used, power, temperature
 * and graphics clock share the summary's time axis, each drawn as a min-max
 * band and a mean line per column, with a gap where nothing was known. Lost
 * and suspended stretches are shaded, gaps in the recording are hatched, the
 * slowdown temperature and power limit are dashed lines, throttling is a
 * band, and every event is a mark with its text in a <title>, XIDs in a
 * colour of their own. */
#ifndef GPUR_SVG_PLOT_H
#define GPUR_SVG_PLOT_H

#include "report/out.h"
#include "report/summary.h"

void svg_plot_write(struct report_out *o, const struct summary *s, const struct summary_gpu *g);

#endif
