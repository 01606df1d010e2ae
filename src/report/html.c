/* html: the report page. */
#include "report/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg_plot.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* Bytes of a command line shown in #processes; the cell's title has it
 * whole. */
#define REPORT_CMD_SHOWN 120

static const char CSS[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}"
	"h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.15em;margin:1.4em 0 .3em}"
	"dl.head{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;margin:0}dt{color:#666}dd{margin:0}"
	"table{border-collapse:collapse;margin:.4em 0 1em;font-variant-numeric:tabular-nums}"
	"th,td{border-bottom:1px solid #ddd;padding:.2em .6em;text-align:left;vertical-align:top}"
	"th{background:#f3f3f3}td.n{text-align:right}tr.rest td{font-style:italic;color:#555}"
	"svg.plot{width:100%;max-width:1100px;height:auto;display:block;font:10px sans-serif}"
	"svg .frame{fill:none;stroke:#ccc}svg .band{fill-opacity:.25;stroke-opacity:.35;stroke-width:.6}"
	"svg .mean{fill:none;stroke-width:1.2}svg .ll{fill:#333}svg .lv{fill:#666;text-anchor:end}"
	"svg .tl{fill:#444;text-anchor:middle}svg .axis,svg .tick{stroke:#888}"
	"svg .lost{fill:#e33;fill-opacity:.15}svg .suspended{fill:#88c;fill-opacity:.15}"
	"svg .gap{fill:#999;fill-opacity:.18}svg .throttle{fill:#e60}"
	"svg .threshold{stroke:#b00;stroke-dasharray:4 3;stroke-width:.8}"
	"svg .ev{stroke-width:1}svg .ev-lost{stroke:#d00}svg .ev-back{stroke:#080}svg .ev-signal{stroke:#80c}"
	"svg .ev-xid{stroke:#e7298a;stroke-width:1.5}tr.xid td{color:#a01060}"
	"svg .ev-other{stroke:#777;stroke-dasharray:2 2}svg .cursor{stroke:#000;stroke-width:.5}"
	".hover{font:12px monospace;min-height:1.3em;color:#333}.legend span{margin-right:1em}"
	"@media print{body{margin:0;font-size:10pt}section.gpu{break-inside:avoid}.hover{display:none}"
	"table{font-size:9pt}tr{break-inside:avoid}}";

/* On hover, the script shows the time and each lane's mean under the
 * pointer, from the columns' data-v values. The page reads the same without
 * it. */
static const char SCRIPT[] =
	"document.querySelectorAll('svg.plot').forEach(function(s){"
	"var out=s.parentNode.querySelector('.hover'),n=+s.dataset.n,t0=+s.dataset.t0,w=+s.dataset.w,"
	"lanes=[].map.call(s.querySelectorAll('g.lane'),function(g){return[g.dataset.label,g.dataset.unit,"
	"g.dataset.v.split(',')]}),c=document.createElementNS('http://www.w3.org/2000/svg','line');"
	"c.setAttribute('class','cursor');s.appendChild(c);"
	"s.addEventListener('mousemove',function(e){var r=s.getBoundingClientRect(),vb=s.viewBox.baseVal,"
	"x=(e.clientX-r.left)*vb.width/r.width,i=Math.floor((x-64)/640*n);if(i<0||i>=n)return;"
	"c.setAttribute('x1',x);c.setAttribute('x2',x);c.setAttribute('y1',10);c.setAttribute('y2',vb.height-22);"
	"var t=new Date(t0+i*w).toISOString().replace('T',' ').replace(/\\.\\d+Z/,'Z');"
	"out.textContent=t+'  '+lanes.map(function(l){var v=l[2][i];return l[0]+' '+(v===''?'--':v+' '+l[1])})"
	".join('  ')})});";

static void cell_text(struct report_out *o, const char *s)
{
	buf_puts(&o->b, "<td>");
	if (s)
		report_out_text(o, s);
	else
		buf_puts(&o->b, "--");
	buf_puts(&o->b, "</td>");
}

/* A command line cut to REPORT_CMD_SHOWN bytes (on a character boundary,
 * with an ellipsis), the whole line in the cell's title; both escaped. */
static void cell_command(struct report_out *o, const char *s)
{
	if (!s) {
		buf_puts(&o->b, "<td>--</td>");
		return;
	}
	size_t n = strlen(s), cut = utf8_trim(s, n, REPORT_CMD_SHOWN);
	buf_puts(&o->b, "<td class=\"cmd\" title=\"");
	report_out_text(o, s);
	buf_puts(&o->b, "\">");
	char *shown = xmalloc(cut + 1);
	memcpy(shown, s, cut);
	shown[cut] = '\0';
	report_out_text(o, shown);
	free(shown);
	if (cut < n)
		buf_puts(&o->b, "\xE2\x80\xA6");
	buf_puts(&o->b, "</td>");
}

static void cell_num(struct report_out *o, bool known, int decimals, double v)
{
	buf_puts(&o->b, "<td class=\"n\">");
	if (known && isfinite(v))
		buf_printf(&o->b, "%.*f", decimals, v);
	else
		buf_puts(&o->b, "--");
	buf_puts(&o->b, "</td>");
}

static void cell_time(struct report_out *o, bool known, uint64_t ms)
{
	buf_puts(&o->b, "<td>");
	if (known)
		report_out_time(o, ms);
	else
		buf_puts(&o->b, "--");
	buf_puts(&o->b, "</td>");
}

static void cell_duration(struct report_out *o, bool known, double ms)
{
	buf_puts(&o->b, "<td class=\"n\">");
	if (known)
		report_out_duration(o, ms);
	else
		buf_puts(&o->b, "--");
	buf_puts(&o->b, "</td>");
}

static void header(struct report_out *o, const struct summary *s, const char *source)
{
	buf_puts(&o->b, "<h1>gpur report");
	if (s->host) {
		buf_puts(&o->b, ": ");
		report_out_text(o, s->host);
	}
	buf_puts(&o->b, "</h1>\n<dl class=\"head\"><dt>recording</dt><dd>");
	report_out_text(o, source);
	buf_puts(&o->b, "</dd><dt>backend</dt><dd>");
	report_out_text(o, s->backend ? s->backend : "--");
	buf_puts(&o->b, "</dd><dt>driver</dt><dd>");
	report_out_text(o, s->driver ? s->driver : "--");
	buf_puts(&o->b, "</dd><dt>span</dt><dd>");
	if (s->ts_known) {
		report_out_time(o, s->first_ms);
		buf_puts(&o->b, " \xE2\x80\x93 ");
		report_out_time(o, s->last_ms);
		buf_puts(&o->b, " (");
		report_out_duration(o, (double)(s->last_ms - s->first_ms));
		buf_puts(&o->b, ")");
	} else {
		buf_puts(&o->b, "-- (no record has a time)");
	}
	buf_printf(&o->b, "</dd><dt>records</dt><dd>%llu</dd><dt>gaps</dt><dd>%llu",
		   (unsigned long long)s->records, (unsigned long long)s->gaps);
	if (s->gaps) {
		buf_puts(&o->b, " (over 5 s without a record; ");
		report_out_duration(o, (double)s->gap_ms);
		buf_puts(&o->b, " in all)");
	}
	buf_printf(&o->b, "</dd><dt>events</dt><dd>%llu</dd>", (unsigned long long)s->events_total);
	if (s->gpus_dropped)
		buf_printf(&o->b, "<dt>not summed</dt><dd>GPUs past the first %d</dd>", SUMMARY_MAX_GPUS);
	buf_puts(&o->b, "</dl>\n");
}

/* The mean and the peak of st, each a cell with `decimals` decimals, "--"
 * when never known. */
static void cells_mean_peak(struct report_out *o, const struct summary_stat *st, int decimals)
{
	cell_num(o, st->n, decimals, st->n ? st->sum / (double)st->n : 0);
	cell_num(o, st->n, decimals, st->max);
}

/* Whether any GPU had SM or tensor activity (GPM), so that the table has
 * their columns. */
static bool any_gpm(const struct summary *s)
{
	for (size_t i = 0; i < s->ngpus; i++)
		if (s->gpus[i].sm.n || s->gpus[i].tensor.n)
			return true;
	return false;
}

static void gpu_table(struct report_out *o, const struct summary *s)
{
	bool gpm = any_gpm(s);

	buf_puts(&o->b, "<h2>GPUs</h2>\n<table id=\"gpus\"><thead><tr><th>GPU</th><th>name</th><th>device id</th>"
			"<th>util mean %</th><th>util peak %</th>");
	if (gpm)
		buf_puts(&o->b, "<th>SM active mean %</th><th>SM active peak %</th><th>tensor active mean %</th>"
				"<th>tensor active peak %</th>");
	buf_puts(&o->b, "<th>memory mean GiB</th><th>memory peak GiB</th>"
			"<th>temp peak \xC2\xB0" "C</th><th>energy kWh</th><th>time lost</th><th>time throttled</th>"
			"</tr></thead><tbody>\n");
	for (size_t i = 0; i < s->ngpus; i++) {
		const struct summary_gpu *g = &s->gpus[i];
		buf_printf(&o->b, "<tr><td class=\"n\">%llu</td>", (unsigned long long)g->index);
		cell_text(o, g->name);
		cell_text(o, g->device_id);
		cells_mean_peak(o, &g->util, 1);
		if (gpm) {
			cells_mean_peak(o, &g->sm, 1);
			cells_mean_peak(o, &g->tensor, 1);
		}
		cell_num(o, g->mem.n, 2, g->mem.n ? g->mem.sum / (double)g->mem.n / 1073741824.0 : 0);
		cell_num(o, g->mem.n, 2, g->mem.max / 1073741824.0);
		cell_num(o, g->temp.n, 1, g->temp.max);
		cell_num(o, g->energy_known, 3, g->energy_j / 3.6e6);
		cell_duration(o, g->state_known, (double)g->lost_ms);
		cell_duration(o, g->throttle_known, (double)g->throttled_ms);
		buf_puts(&o->b, "</tr>\n");
		report_out_flush(o, false);
	}
	buf_puts(&o->b, "</tbody></table>\n");
}

static void proc_table(struct report_out *o, const struct summary *s)
{
	buf_puts(&o->b, "<h2>Processes</h2>\n<table id=\"processes\"><thead><tr><th>pid</th><th>user</th><th>name</th>"
			"<th>command</th><th>container / pod</th><th>GPU</th><th>first seen</th><th>last seen</th>"
			"<th>peak GPU memory GiB</th><th>GPU memory GiB\xC2\xB7h</th><th>mean GPU util %</th>"
			"</tr></thead><tbody>\n");
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct summary_proc *p = &s->procs[i];
		buf_printf(&o->b, "<tr><td class=\"n\">%llu</td>", (unsigned long long)p->pid);
		cell_text(o, p->user);
		cell_text(o, p->name);
		cell_command(o, p->cmdline);
		cell_text(o, p->pod ? p->pod : p->container);
		buf_printf(&o->b, "<td class=\"n\">%llu</td>", (unsigned long long)s->gpus[p->gpu].index);
		cell_time(o, p->ts_known, p->first_ms);
		cell_time(o, p->ts_known, p->last_ms);
		cell_num(o, p->mem_known, 2, p->mem_max / 1073741824.0);
		cell_num(o, p->mem_known, 3, summary_gib_h(p->mem_byte_ms));
		cell_num(o, p->util.n, 1, p->util.n ? p->util.sum / (double)p->util.n : 0);
		buf_puts(&o->b, "</tr>\n");
		report_out_flush(o, false);
	}
	if (s->proc_rest.count) {
		const struct summary_rest *r = &s->proc_rest;
		buf_printf(&o->b, "<tr class=\"rest\"><td colspan=\"8\">%llu other processes</td>",
			   (unsigned long long)r->count);
		cell_num(o, r->mem_known, 2, r->mem_max / 1073741824.0);
		cell_num(o, r->mem_known, 3, summary_gib_h(r->mem_byte_ms));
		buf_puts(&o->b, "<td class=\"n\">--</td></tr>\n");
	}
	buf_puts(&o->b, "</tbody></table>\n");
}

/* Processes or groups by GPU memory held while idle, most first. */
static const struct summary *idle_sort_s;

static int cmp_idle_procs(const void *a, const void *b)
{
	double x = idle_sort_s->procs[*(const size_t *)a].idle_byte_ms, y = idle_sort_s->procs[*(const size_t *)b].idle_byte_ms;
	return x > y ? -1 : x < y;
}

static int cmp_idle_groups(const void *a, const void *b)
{
	double x = idle_sort_s->groups[*(const size_t *)a].idle_byte_ms;
	double y = idle_sort_s->groups[*(const size_t *)b].idle_byte_ms;
	return x > y ? -1 : x < y;
}

/* #idle: who held GPU memory without using it (docs/report.md), by process
 * and by user, container, pod and job. */
static void idle_table(struct report_out *o, const struct summary *s)
{
	size_t *pi = xcalloc(s->nprocs + 1, sizeof(*pi)), *gi = xcalloc(s->ngroups + 1, sizeof(*gi)), np = 0, ng = 0;

	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].idle_since_ms)
			pi[np++] = i;
	for (size_t i = 0; i < s->ngroups; i++)
		if (s->groups[i].idle_byte_ms > 0)
			gi[ng++] = i;
	idle_sort_s = s;
	qsort(pi, np, sizeof(*pi), cmp_idle_procs);
	qsort(gi, ng, sizeof(*gi), cmp_idle_groups);
	buf_printf(&o->b, "<h2>Idle GPU memory</h2>\n<p>Held by processes at 0%% GPU for %.0f min or more, "
			  "holding %.2f GiB or more; GiB\xC2\xB7h from when each became quiet.</p>\n",
		   (double)s->idle.after_ms / 60000.0, (double)s->idle.mem_bytes / 1073741824.0);
	buf_puts(&o->b, "<table id=\"idle\"><thead><tr><th>pid</th><th>user</th><th>name</th><th>container / pod</th>"
			"<th>GPU</th><th>idle since</th><th>idle GiB\xC2\xB7h</th></tr></thead><tbody>\n");
	for (size_t k = 0; k < np; k++) {
		const struct summary_proc *p = &s->procs[pi[k]];
		buf_printf(&o->b, "<tr><td class=\"n\">%llu</td>", (unsigned long long)p->pid);
		cell_text(o, p->user);
		cell_text(o, p->name);
		cell_text(o, p->pod ? p->pod : p->container);
		buf_printf(&o->b, "<td class=\"n\">%llu</td>", (unsigned long long)s->gpus[p->gpu].index);
		cell_time(o, true, p->idle_since_ms);
		cell_num(o, true, 3, summary_gib_h(p->idle_byte_ms));
		buf_puts(&o->b, "</tr>\n");
		report_out_flush(o, false);
	}
	if (!np)
		buf_puts(&o->b, "<tr class=\"rest\"><td colspan=\"7\">no process was idle</td></tr>\n");
	buf_puts(&o->b, "</tbody></table>\n<table id=\"idle-groups\"><thead><tr><th>kind</th><th>who</th>"
			"<th>idle GiB\xC2\xB7h</th></tr></thead><tbody>\n");
	for (size_t k = 0; k < ng; k++) {
		const struct summary_group *g = &s->groups[gi[k]];
		buf_puts(&o->b, "<tr>");
		cell_text(o, SUMMARY_GROUP_KIND_NAMES[g->kind]);
		cell_text(o, g->name ? g->name : g->id);
		cell_num(o, true, 3, summary_gib_h(g->idle_byte_ms));
		buf_puts(&o->b, "</tr>\n");
		report_out_flush(o, false);
	}
	buf_puts(&o->b, "</tbody></table>\n");
	free(pi);
	free(gi);
}

static void group_cells(struct report_out *o, const struct summary *s, double gpu_ms, double mem_ms, bool mk,
			double e)
{
	cell_num(o, true, 3, gpu_ms / 3600000.0);
	cell_num(o, mk, 3, summary_gib_h(mem_ms));
	cell_num(o, s->energy_total_j > 0, 3, e / 3.6e6);
	cell_num(o, s->energy_total_j > 0, 1, s->energy_total_j > 0 ? 100.0 * e / s->energy_total_j : 0);
}

static void group_table(struct report_out *o, const struct summary *s)
{
	buf_puts(&o->b, "<h2>Who used the GPUs</h2>\n<table id=\"groups\"><thead><tr><th>kind</th><th>id</th>"
			"<th>name</th><th>GPU-hours</th><th>GPU memory GiB\xC2\xB7h</th><th>energy kWh</th>"
			"<th>energy share %</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < s->ngroups; i++) {
		const struct summary_group *g = &s->groups[i];
		buf_puts(&o->b, "<tr>");
		cell_text(o, SUMMARY_GROUP_KIND_NAMES[g->kind]);
		cell_text(o, g->id);
		cell_text(o, g->name);
		group_cells(o, s, g->gpu_ms, g->mem_byte_ms, g->mem_known, g->energy_j);
		buf_puts(&o->b, "</tr>\n");
		report_out_flush(o, false);
	}
	if (s->group_rest.count) {
		const struct summary_rest *r = &s->group_rest;
		buf_printf(&o->b, "<tr class=\"rest\"><td colspan=\"3\">%llu other groups</td>",
			   (unsigned long long)r->count);
		group_cells(o, s, r->gpu_ms, r->mem_byte_ms, r->mem_known, r->energy_j);
		buf_puts(&o->b, "</tr>\n");
	}
	buf_puts(&o->b, "</tbody></table>\n");
}

static void event_table(struct report_out *o, const struct summary *s)
{
	buf_puts(&o->b, "<h2>Events</h2>\n<table id=\"events\"><thead><tr><th>time</th><th>event</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < s->nevents; i++) {
		const struct event *e = &s->events[i].e;
		bool xid = event_has(e, EVENT_F_KIND) && e->kind && strcmp(e->kind, EVENT_XID) == 0;
		buf_puts(&o->b, xid ? "<tr class=\"xid\">" : "<tr>");
		cell_time(o, s->events[i].ts_known, s->events[i].ts_ms);
		buf_puts(&o->b, "<td>");
		report_out_event(o, e);
		buf_puts(&o->b, "</td></tr>\n");
	}
	if (s->events_total > s->nevents)
		buf_printf(&o->b, "<tr class=\"rest\"><td colspan=\"2\">%llu more events</td></tr>\n",
			   (unsigned long long)(s->events_total - s->nevents));
	buf_puts(&o->b, "</tbody></table>\n");
}

void html_write(struct report_out *o, const struct summary *s, const char *source)
{
	buf_puts(&o->b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
			"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			"style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\"><title>gpur report");
	if (s->host) {
		buf_puts(&o->b, ": ");
		report_out_text(o, s->host);
	}
	buf_printf(&o->b, "</title><style>%s</style></head><body>\n", CSS);
	header(o, s, source);
	gpu_table(o, s);
	buf_puts(&o->b, "<h2>Timelines</h2><p class=\"legend\">Each lane: the mean (line) and the range (band) of "
			"each column; shaded: <span style=\"color:#e33\">lost</span> <span style=\"color:#88c\">suspended"
			"</span> <span style=\"color:#888\">no records</span>; dashed red: slowdown temperature, power "
			"limit; marks: <span style=\"color:#d00\">lost</span> <span style=\"color:#080\">back</span> "
			"<span style=\"color:#80c\">signal</span> <span style=\"color:#e7298a\">XID</span> "
			"<span style=\"color:#777\">note</span>. The SM active and tensor active lanes are there only for "
			"GPUs that had them (GPM). Times are UTC.</p>\n");
	size_t plotted = 0;
	for (size_t i = 0; i < s->ngpus; i++) {
		const struct summary_gpu *g = &s->gpus[i];
		if (!g->plot)
			continue;
		plotted++;
		buf_printf(&o->b, "<section class=\"gpu\"><h2>GPU %llu", (unsigned long long)g->index);
		if (g->name) {
			buf_puts(&o->b, ": ");
			report_out_text(o, g->name);
		}
		buf_puts(&o->b, " <small>");
		report_out_text(o, g->device_id);
		buf_puts(&o->b, "</small></h2>\n");
		svg_plot_write(o, s, g);
		buf_puts(&o->b, "<div class=\"hover\"></div></section>\n");
	}
	if (plotted < s->ngpus)
		buf_printf(&o->b, "<p>Timelines of the first %d GPUs only; the table has them all.</p>\n",
			   SUMMARY_MAX_PLOTTED);
	proc_table(o, s);
	group_table(o, s);
	idle_table(o, s);
	event_table(o, s);
	buf_printf(&o->b, "<script>%s</script>\n</body></html>\n", SCRIPT);
	report_out_flush(o, true);
}
