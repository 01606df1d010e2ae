/* svg_plot: one GPU's timelines as inline SVG: util, memory used, power,
 * temperature and graphics clock on the summary's shared time axis, each
 * column's min-max band and mean line (a gap where nothing was known), lost
 * and suspended stretches shaded, gaps in the recording hatched, the
 * slowdown temperature and power limit as dashed lines, throttling as a
 * band, and every event as a mark with its text in a <title>. */
#ifndef GPUR_SVG_PLOT_H
#define GPUR_SVG_PLOT_H

#include "report/out.h"
#include "report/summary.h"

void svg_plot_write(struct report_out *o, const struct summary *s, const struct summary_gpu *g);

#endif
