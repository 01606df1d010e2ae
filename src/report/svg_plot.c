/* svg_plot: a GPU's timelines. */
#include "report/svg_plot.h"

#include <math.h>
#include <string.h>
#include <time.h>

#define PL 64.0  /* left margin, for lane labels */
#define PW 640.0 /* plot width, one column a pixel */
#define PR 12.0
#define LANE_H 54.0
#define LANE_GAP 18.0
#define TOP 16.0
#define BAND_H 8.0

struct lane {
	const char *label, *unit, *colour;
	double scale; /* the unit's size in the recorded unit (bytes in a GiB) */
};

static const struct lane LANES[SUMMARY__METRICS] = {
	[SUMMARY_UTIL] = {"util", "%", "#1f77b4", 1},
	[SUMMARY_MEM] = {"memory used", "GiB", "#9467bd", 1073741824.0},
	[SUMMARY_POWER] = {"power", "W", "#d62728", 1},
	[SUMMARY_TEMP] = {"temperature", "\xC2\xB0" "C", "#ff7f0e", 1},
	[SUMMARY_CLOCK] = {"graphics clock", "MHz", "#2ca02c", 1},
	[SUMMARY_SM] = {"SM active", "%", "#17becf", 1},
	[SUMMARY_TENSOR] = {"tensor active", "%", "#8c564b", 1},
};

/* The lanes from the top. SM and tensor activity follow util, both being
 * shares of the time, and are drawn only for a GPU that had them (GPM), so
 * a GPU without GPM has the five lanes it always had. */
static const enum summary_metric ORDER[SUMMARY__METRICS] = {SUMMARY_UTIL, SUMMARY_SM, SUMMARY_TENSOR, SUMMARY_MEM,
							     SUMMARY_POWER, SUMMARY_TEMP, SUMMARY_CLOCK};

static bool lane_shown(const struct summary_gpu *g, enum summary_metric m)
{
	return (m != SUMMARY_SM && m != SUMMARY_TENSOR) || summary_stat_of(g, m)->n;
}

struct geo {
	uint64_t t0, span_ms; /* the axis, from t0 to t0 + span_ms */
	double bottom;        /* below the last lane */
};

static double xt(const struct geo *g, uint64_t t)
{
	if (t < g->t0)
		return PL;
	double f = (double)(t - g->t0) / (double)g->span_ms;
	return PL + (f > 1 ? 1 : f) * PW;
}

/* The top of the lane in row `row` from the top. */
static double lane_top(int row)
{
	return TOP + row * (LANE_H + LANE_GAP);
}

static double ymap(double v, double top, int row)
{
	double f = top > 0 ? v / top : 0;
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return lane_top(row) + LANE_H * (1 - f);
}

/* The value at the top of lane m: a threshold or total when known, else the
 * peak. */
static double lane_scale(const struct summary_gpu *g, enum summary_metric m)
{
	double top = 0;
	const struct summary_stat *st = summary_stat_of(g, m);

	if (st->n)
		top = st->max;
	switch (m) {
	case SUMMARY_UTIL:
	case SUMMARY_SM:
	case SUMMARY_TENSOR: top = top > 100 ? top : 100; break;
	case SUMMARY_MEM:
		if (g->known & SUMMARY_K_MEMTOTAL && g->mem_total_bytes > top)
			top = g->mem_total_bytes;
		break;
	case SUMMARY_POWER:
		if (g->known & SUMMARY_K_PLIMIT && g->power_limit_w > top)
			top = g->power_limit_w;
		top *= 1.05;
		break;
	case SUMMARY_TEMP:
		if (g->known & SUMMARY_K_SLOWDOWN && g->temp_slowdown_c > top)
			top = g->temp_slowdown_c;
		top += 5;
		break;
	case SUMMARY_CLOCK:
		if (g->known & SUMMARY_K_CLOCKMAX && g->clock_gfx_max_mhz > top)
			top = g->clock_gfx_max_mhz;
		break;
	case SUMMARY__METRICS: break;
	}
	return isfinite(top) && top > 0 ? top : 1;
}

/* Draws series sr of metric m in the lane of row `row`. */
static void series(struct report_out *o, const struct summary *s, const struct downsample_series *sr,
		   enum summary_metric m, int row, double top)
{
	const struct downsample_col *c = sr->col;
	size_t used = s->grid.used;
	double cw = PW / (double)(used ? used : 1);

	/* The band runs along each run of known columns at its max and back along
	 * its min. */
	buf_printf(&o->b, "<path class=\"band\" fill=\"%s\" stroke=\"%s\" d=\"", LANES[m].colour, LANES[m].colour);
	for (size_t i = 0; i < used; i++) {
		if (!c[i].n)
			continue;
		size_t j = i;
		while (j + 1 < used && c[j + 1].n)
			j++;
		for (size_t k = i; k <= j; k++)
			buf_printf(&o->b, "%s%.1f %.1f", k == i ? "M" : "L", PL + (k + 0.5) * cw, ymap(c[k].max, top, row));
		for (size_t k = j + 1; k-- > i;)
			buf_printf(&o->b, "L%.1f %.1f", PL + (k + 0.5) * cw, ymap(c[k].min, top, row));
		buf_puts(&o->b, "Z");
		i = j;
	}
	buf_printf(&o->b, "\"/><path class=\"mean\" stroke=\"%s\" d=\"", LANES[m].colour);
	for (size_t i = 0; i < used; i++) {
		if (!c[i].n)
			continue;
		bool start = i == 0 || !c[i - 1].n;
		buf_printf(&o->b, "%s%.1f %.1f", start ? "M" : "L", PL + (i + 0.5) * cw,
			   ymap(c[i].sum / c[i].n, top, row));
	}
	buf_puts(&o->b, "\"/>");
	report_out_flush(o, false);
}

/* Draws the runs of columns whose flags have any of bits as rectangles from y
 * to y+h. */
static void flag_runs(struct report_out *o, const struct summary *s, const struct downsample_flags *f, uint32_t bits,
		      const char *cls, double y, double h, const char *what)
{
	size_t used = s->grid.used;
	double cw = PW / (double)(used ? used : 1);

	for (size_t i = 0; i < used; i++) {
		if (!(f->bits[i] & bits))
			continue;
		size_t j = i;
		uint32_t all = 0;
		while (j + 1 < used && (f->bits[j + 1] & bits))
			j++;
		for (size_t k = i; k <= j; k++)
			all |= f->bits[k];
		buf_printf(&o->b, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%s ", cls,
			   PL + i * cw, y, (j - i + 1) * cw, h, what);
		report_out_time(o, downsample_col_start(&s->grid, i));
		buf_puts(&o->b, " \xE2\x80\x93 ");
		report_out_time(o, downsample_col_start(&s->grid, j + 1));
		if (bits & SUMMARY_FLAG_THROTTLED) {
			for (unsigned r = 0; r < GPU_THROTTLE__COUNT; r++)
				if (all >> (SUMMARY_FLAG_REASON0 + r) & 1u && SUMMARY_SLOWING_REASONS >> r & 1u)
					buf_printf(&o->b, " %s", GPU_THROTTLE_NAMES[r]);
		}
		buf_puts(&o->b, "</title></rect>");
		i = j;
	}
}

static const char *event_class(const char *kind)
{
	if (!kind)
		return "ev-other";
	if (!strcmp(kind, EVENT_GPU_LOST) || !strcmp(kind, EVENT_BACKEND_LOST))
		return "ev-lost";
	if (!strcmp(kind, EVENT_GPU_BACK) || !strcmp(kind, EVENT_BACKEND_BACK))
		return "ev-back";
	if (!strcmp(kind, EVENT_SIGNAL))
		return "ev-signal";
	if (!strcmp(kind, EVENT_XID))
		return "ev-xid";
	return "ev-other";
}

static void event_marks(struct report_out *o, const struct summary *s, const struct geo *ge,
			const struct summary_gpu *g)
{
	/* One mark per pixel column and kind of mark, so a storm of events stays
	 * small. */
	static const char *const classes[] = {"ev-lost", "ev-back", "ev-signal", "ev-xid", "ev-other"};
	uint8_t drawn[641]; /* PW + 1 */

	memset(drawn, 0, sizeof(drawn));
	for (size_t i = 0; i < s->nevents; i++) {
		const struct summary_event *se = &s->events[i];
		const struct event *e = &se->e;
		if (!se->ts_known)
			continue;
		if (event_has(e, EVENT_F_GPU_INDEX) && e->gpu_index != g->index)
			continue;
		const char *cls = event_class(event_has(e, EVENT_F_KIND) ? e->kind : NULL);
		unsigned bit = 0;
		while (strcmp(classes[bit], cls))
			bit++;
		double x = xt(ge, se->ts_ms);
		size_t px = (size_t)(x - PL);
		if (px > (size_t)PW || drawn[px] & (1u << bit))
			continue;
		drawn[px] |= (uint8_t)(1u << bit);
		buf_printf(&o->b, "<line class=\"ev %s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>", cls, x, x,
			   TOP - 6, ge->bottom);
		report_out_time(o, se->ts_ms);
		buf_puts(&o->b, " ");
		report_out_event(o, e);
		buf_puts(&o->b, "</title></line>");
	}
}

static void axis(struct report_out *o, const struct geo *ge, double y)
{
	static const uint64_t steps[] = {1000, 5000, 10000, 30000, 60000, 300000, 600000, 1800000, 3600000,
					 3 * 3600000ull, 6 * 3600000ull, 12 * 3600000ull, 86400000ull};
	uint64_t step = steps[sizeof(steps) / sizeof(steps[0]) - 1];

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (ge->span_ms / steps[i] <= 7) {
			step = steps[i];
			break;
		}
	while (ge->span_ms / step > 7)
		step *= 2;
	buf_printf(&o->b, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", PL, PL + PW, y, y);
	for (uint64_t t = (ge->t0 + step - 1) / step * step; t <= ge->t0 + ge->span_ms; t += step) {
		double x = xt(ge, t);
		char s[32];
		time_t tt = (time_t)(t / 1000);
		struct tm tm;
		if (!gmtime_r(&tt, &tm))
			break;
		strftime(s, sizeof(s), step >= 86400000ull ? "%m-%d" : step % 60000 ? "%H:%M:%S" : "%H:%M", &tm);
		buf_printf(&o->b, "<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
				  "<text class=\"tl\" x=\"%.1f\" y=\"%.1f\">%s</text>", x, x, y, y + 4, x, y + 15, s);
	}
}

static void lane_data(struct report_out *o, const struct summary *s, const struct downsample_series *sr, double scale)
{
	buf_puts(&o->b, " data-v=\"");
	for (size_t i = 0; i < s->grid.used; i++) {
		if (i)
			buf_putc(&o->b, ',');
		if (sr->col[i].n)
			buf_printf(&o->b, "%.4g", sr->col[i].sum / sr->col[i].n / scale);
	}
	buf_puts(&o->b, "\"");
}

/* Draws lane m of GPU g in row `row`: its frame, label and scale, the band
 * and mean line, and the slowdown temperature or power limit where known. */
static void lane(struct report_out *o, const struct summary *s, const struct summary_gpu *g, enum summary_metric m,
		 int row)
{
	double top = lane_scale(g, m), y0 = lane_top(row);

	buf_printf(&o->b, "<g class=\"lane\" data-label=\"%s\" data-unit=\"%s\"", LANES[m].label, LANES[m].unit);
	lane_data(o, s, &g->plot->m[m], LANES[m].scale);
	buf_printf(&o->b, "><rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
			  "<text class=\"ll\" x=\"%.1f\" y=\"%.1f\">%s (%s)</text>"
			  "<text class=\"lv\" x=\"%.1f\" y=\"%.1f\">%.4g</text>"
			  "<text class=\"lv\" x=\"%.1f\" y=\"%.1f\">0</text>",
		   PL, y0, PW, LANE_H, PL, y0 - 4, LANES[m].label, LANES[m].unit, PL - 3, y0 + 8,
		   top / LANES[m].scale, PL - 3, y0 + LANE_H);
	series(o, s, &g->plot->m[m], m, row, top);
	double th = m == SUMMARY_TEMP && g->known & SUMMARY_K_SLOWDOWN   ? g->temp_slowdown_c
		    : m == SUMMARY_POWER && g->known & SUMMARY_K_PLIMIT ? g->power_limit_w
									: NAN;
	if (isfinite(th)) {
		double y = ymap(th, top, row);
		buf_printf(&o->b, "<line class=\"threshold\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\">"
				  "<title>%s %.4g %s</title></line>",
			   PL, PL + PW, y, y, m == SUMMARY_TEMP ? "slowdown temperature" : "power limit", th,
			   LANES[m].unit);
	}
	buf_puts(&o->b, "</g>");
}

void svg_plot_write(struct report_out *o, const struct summary *s, const struct summary_gpu *g)
{
	const struct summary_plot *p = g->plot;
	struct geo ge = {.t0 = s->grid.t0_ms, .span_ms = (uint64_t)(s->grid.used ? s->grid.used : 1) * s->grid.width_ms};
	int rows = 0;
	for (int m = 0; m < SUMMARY__METRICS; m++)
		rows += lane_shown(g, (enum summary_metric)m);
	double band_y = lane_top(rows) - 6;
	double axis_y = band_y + BAND_H + 6;
	double height = axis_y + 22;

	ge.bottom = band_y + BAND_H;
	buf_printf(&o->b, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
			  "role=\"img\" data-t0=\"%llu\" data-w=\"%llu\" data-n=\"%zu\"><title>GPU %llu timelines</title>",
		   PL + PW + PR, height, (unsigned long long)s->grid.t0_ms, (unsigned long long)s->grid.width_ms,
		   s->grid.used, (unsigned long long)g->index);
	/* Gaps in the recording and lost or suspended stretches, behind the lines. */
	for (size_t i = 0; i < s->ngap; i++) {
		double x0 = xt(&ge, s->gap[i].from_ms), x1 = xt(&ge, s->gap[i].to_ms);
		buf_printf(&o->b, "<rect class=\"gap\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>no records ",
			   x0, TOP, x1 - x0 > 0.5 ? x1 - x0 : 0.5, ge.bottom - TOP);
		report_out_time(o, s->gap[i].from_ms);
		buf_puts(&o->b, " \xE2\x80\x93 ");
		report_out_time(o, s->gap[i].to_ms);
		buf_puts(&o->b, "</title></rect>");
	}
	flag_runs(o, s, &p->flags, SUMMARY_FLAG_LOST, "lost", TOP, ge.bottom - TOP, "lost");
	flag_runs(o, s, &p->flags, SUMMARY_FLAG_SUSPENDED, "suspended", TOP, ge.bottom - TOP, "suspended");
	for (int i = 0, row = 0; i < SUMMARY__METRICS; i++)
		if (lane_shown(g, ORDER[i]))
			lane(o, s, g, ORDER[i], row++);
	buf_printf(&o->b, "<text class=\"lv\" x=\"%.1f\" y=\"%.1f\">throttled</text>"
			  "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
		   PL - 3, band_y + BAND_H, PL, band_y, PW, BAND_H);
	flag_runs(o, s, &p->flags, SUMMARY_FLAG_THROTTLED, "throttle", band_y, BAND_H, "throttled");
	axis(o, &ge, axis_y);
	event_marks(o, s, &ge, g);
	buf_puts(&o->b, "</svg>\n");
	report_out_flush(o, false);
}
