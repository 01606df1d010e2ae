/* draw: the dashboard's frame, with the header, the GPU panels (draw_gpu.c
 * draws each), history sparklines, the events line and the footer. It is
 * laid out for the terminal's size, from 80x24 with one compact line per GPU
 * to wide screens, and the process table and the overlays go under and over
 * it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "record/replay.h"
#include "tui/tui_priv.h"
#include "util/fmt.h"
#include "util/utf8.h"

#define MIN_ROWS 12
#define MIN_COLS 60

/* The local time on the header, worked out once a second. Live on the
 * virtual clock, the data's time is the frame's. */
static const char *header_clock(struct tui *t, const struct frame *f)
{
	time_t now = t->st.stepped && f && frame_has(f, FRAME_F_TS) ? (time_t)(f->ts_ms / 1000) : time(NULL);

	if (now != t->hdr.clock_at) {
		t->hdr.clock_at = now;
		tui_hms(t->hdr.clock, sizeof(t->hdr.clock), now);
	}
	return t->hdr.clock;
}

/* The source. For a replay it is the file, backend and driver, the record's
 * time and number, the speed and the state; live, it is the backends'
 * drivers and CUDA. */
static void source_text(struct tui *t, const struct frame *f, char *buf, size_t n)
{
	const char *dot = t->utf8 ? " \u00b7 " : " - ";
	char drv[300];

	buf[0] = '\0';
	if (t->st.replay) {
		char at[32] = "--";
		if (f && frame_has(f, FRAME_F_TS))
			tui_hms(at, sizeof(at), (time_t)(f->ts_ms / 1000));
		const char *state = t->st.at_end ? "end" : t->st.paused ? (t->utf8 ? "\u275a\u275a" : "||")
									 : (t->utf8 ? "\u25b6" : ">");
		const char *name = strrchr(t->opts->replay_path, '/');
		name = name ? name + 1 : t->opts->replay_path;
		const char *src = f ? replay_driver_line(f, drv, sizeof(drv), !t->utf8) : NULL;
		snprintf(buf, n, "REPLAY %s%s%s%s%s #%" PRIu64 " %s%g %s", name, src ? dot : "", src ? src : "", dot, at,
			 t->st.position, t->utf8 ? "\u00d7" : "x", t->st.speed, state);
		return;
	}
	if (f && f->driver_line) /* several backends, each with its driver's version */
		snprintf(buf, n, "%s", f->driver_line);
	else if (f)
		snprintf(buf, n, "%s%s%s", frame_has(f, FRAME_F_BACKEND) ? f->backend : "",
			 frame_has(f, FRAME_F_DRIVER) ? dot : "", frame_has(f, FRAME_F_DRIVER) ? f->driver : "");
	if (f && f->cuda) {
		size_t at = strlen(buf);
		snprintf(buf + at, n - at, "%sCUDA %s", dot, f->cuda);
	}
}

/* Line 1 holds gpur, the host and the source, with the clock, the interval
 * and PAUSED on the right. */
static void draw_title(struct tui *t, const struct frame *f)
{
	char buf[512], right[160];
	const char *when = header_clock(t, f);

	tui_attr(t, TC_HEAD, true);
	canvas_hline(&t->canvas, 0, 0, ' ', t->cols);
	int x = tui_text(t, 0, 0, "gpur ", 5);
	x += tui_text(t, 0, x, f && frame_has(f, FRAME_F_HOST) ? f->host : "", 32);
	tui_attr(t, TC_HEAD, false);
	source_text(t, f, buf, sizeof(buf));
	/* Live on the virtual clock and stepped, it is paused until '.' or
	 * space. */
	bool paused = t->frozen || (t->st.stepped && t->st.paused);
	if (t->cols >= 110) {
		/* %g once per interval, not per frame */
		if (t->st.interval != t->hdr.iv_value || !t->hdr.iv_str[0]) {
			t->hdr.iv_value = t->st.interval;
			snprintf(t->hdr.iv_str, sizeof(t->hdr.iv_str), "%g", t->st.interval);
		}
		tui_join(right, sizeof(right),
			 (const char *const[]){when, "  every ", t->hdr.iv_str, "s", paused ? "  PAUSED" : "", NULL});
	} else {
		tui_join(right, sizeof(right), (const char *const[]){when, paused ? " PAUSED" : "", NULL});
	}
	int rw = tui_text_width(t, right);
	tui_text(t, 0, x + 2, buf, t->cols - x - 3 - rw);
	tui_attr(t, TC_HEAD, true);
	tui_text_right(t, 0, t->cols - rw - 1, right, rw);
	tui_attr(t, TC_HEAD, false);
}

/* Line 2 holds the host's figures from the record, gpur's own, and how long
 * a backend has not answered. Returns the columns taken. */
static int draw_figures(struct tui *t, const struct frame *f)
{
	char buf[256], rss[16], self[32], poll_ms[32];
	int x = 0;

	canvas_hline(&t->canvas, 1, 0, ' ', t->cols);
	if (f && frame_has(f, FRAME_F_SYSTEM)) {
		const struct system_stats *s = &f->system;
		char used[16], total[16], cpu[16] = "--", load[16] = "--";
		tui_size(used, sizeof(used), s->valid >> SYS_F_MEM_USED & 1, field_num_u64(s->mem_used_bytes));
		tui_size(total, sizeof(total), s->valid >> SYS_F_MEM_TOTAL & 1, field_num_u64(s->mem_total_bytes));
		if (s->valid >> SYS_F_CPU & 1) {
			size_t at = fmt_fixed(cpu, sizeof(cpu) - 1, field_num_whole(s->cpu_pct), 0);
			cpu[at] = '%';
			cpu[at + 1] = '\0';
		}
		if (s->valid >> SYS_F_LOAD1 & 1)
			fmt_fixed(load, sizeof(load), s->load_1m, 2);
		tui_join(buf, sizeof(buf),
			 (const char *const[]){"CPU ", cpu, "  MEM ", used, "/", total, "  LOAD ", load, "   ", NULL});
		x += tui_text(t, 1, x, buf, t->cols - x);
	}
	tui_size(rss, sizeof(rss), t->self.rss > 0, t->self.rss);
	bool poll_shown = f && !t->st.replay;
	fmt_fixed(self, sizeof(self), t->self.cpu, 1);
	fmt_fixed(poll_ms, sizeof(poll_ms), poll_shown ? (double)f->poll_us / 1000.0 : 0, 1);
	tui_join(buf, sizeof(buf), (const char *const[]){"gpur ", self, "% ", rss, poll_shown ? " poll " : "",
							  poll_shown ? poll_ms : "", poll_shown ? "ms" : "", NULL});
	tui_attr(t, TC_DIM, true);
	x += tui_text(t, 1, x, buf, t->cols - x);
	tui_attr(t, TC_DIM, false);
	/* The screen never freezes, so say how long a backend has not
	 * answered. */
	if (t->st.busy_ms >= 2000) {
		snprintf(buf, sizeof(buf), "   no answer from %s for %" PRIu64 " s", t->st.busy_backend,
			 t->st.busy_ms / 1000);
		tui_attr(t, TC_CRIT, true);
		x += tui_text(t, 1, x, buf, t->cols - x);
		tui_attr(t, TC_CRIT, false);
	}
	return x;
}

/* Draws one message after the figures, from column x, the most pressing of:
 * the status line, saying why a key did nothing; the fleet's source failing,
 * when what is shown is its last good data; and gpur in a PID namespace of
 * its own, where the host pids the driver lists are not its to look up
 * (model/process.h, pid_hidden). A message that does not fit goes over the
 * events line. */
static void draw_message(struct tui *t, const struct frame *f, int x)
{
	char problem[600];
	const char *msg = NULL;
	enum tui_color color = TC_WARN;
	size_t hidden = 0;

	for (size_t i = 0; f && i < f->nprocs; i++)
		hidden += f->procs[i].pid_hidden;
	if (t->msg.status[0]) {
		msg = t->msg.status;
	} else if (tui_fleet_problem(t, problem, sizeof(problem))) {
		msg = problem;
		color = TC_CRIT;
	} else if (hidden) {
		msg = "host pids not visible here (PID namespace): use --pid=host, hostPID or --procfs";
	}
	if (!msg)
		return; /* tui_draw clears msg.low */
	if (tui_text_width(t, msg) <= t->cols - x - 3) {
		tui_attr(t, color, true);
		tui_text(t, 1, x + 3, msg, t->cols - x - 3);
		tui_attr(t, color, false);
	} else {
		snprintf(t->msg.low, sizeof(t->msg.low), "%s", msg);
		t->msg.low_color = color;
	}
}

/* Draws the header's message that did not fit there over the events line
 * (y), with its words wrapped onto the footer (y + 1) when it is longer than
 * a line. */
static void draw_low_msg(struct tui *t, int y)
{
	const char *msg = t->msg.low;
	char head[sizeof(t->msg.low)];
	size_t cut = strlen(msg);

	if (!msg[0])
		return;
	if (tui_text_width(t, msg) > t->cols) {
		/* The last space before the line is full. */
		cut = 0;
		for (size_t i = 1; msg[i]; i++) {
			if (msg[i] != ' ')
				continue;
			memcpy(head, msg, i);
			head[i] = '\0';
			if (tui_text_width(t, head) > t->cols)
				break;
			cut = i;
		}
		if (!cut)
			cut = utf8_trim(msg, strlen(msg), (size_t)t->cols);
	}
	memcpy(head, msg, cut);
	head[cut] = '\0';
	tui_attr(t, t->msg.low_color, true);
	canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	tui_text(t, y, 0, head, t->cols);
	if (msg[cut]) {
		const char *rest = msg + cut;
		while (*rest == ' ')
			rest++;
		canvas_hline(&t->canvas, y + 1, 0, ' ', t->cols);
		tui_text(t, y + 1, 0, rest, t->cols);
	}
	tui_attr(t, t->msg.low_color, false);
}

/* Sparklines of the chosen metric, one row per GPU, with a time axis. */
static int draw_charts(struct tui *t, const struct frame *f, const size_t *shown, size_t nshown, int y, int h)
{
	static const uint32_t blocks[] = {' ', 0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	static const char ascii[] = " .:-=+*#%@";
	uint8_t samples[512];
	char buf[160];
	int w = t->cols - 6;

	if (h < 3 || w < 10)
		return 0;
	if (w > (int)sizeof(samples))
		w = (int)sizeof(samples);
	size_t rows = nshown < (size_t)(h - 2) ? nshown : (size_t)(h - 2);
	double span = (double)w * t->st.interval;
	char secs[32];
	fmt_fixed(secs, sizeof(secs), span, 0);
	struct tui_line l;
	tui_line_init(&l, buf, sizeof(buf));
	tui_line_put(&l, "history: ");
	tui_line_put(&l, history_metric_name(t->set.chart));
	tui_line_put(&l, " (c: next)   last ");
	tui_line_put(&l, secs);
	tui_line_put(&l, " s, newest right");
	tui_attr(t, TC_HEAD, true);
	tui_text(t, y, 0, buf, t->cols);
	tui_attr(t, TC_HEAD, false);
	for (size_t r = 0; r < rows; r++) {
		const struct gpu *g = &f->gpus[shown[r]];
		fmt_u64(buf, sizeof(buf), shown[r], 2, ' ');
		tui_text(t, y + 1 + (int)r, 0, buf, 3);
		size_t n = history_get(t->hist.gpus, gpu_has(g, GPU_F_DEVICE_ID) ? g->device_id : "", t->set.chart, samples,
				       (size_t)w);
		int cx = 4 + w - (int)n;
		for (size_t k = 0; k < n; k++) {
			uint8_t v = samples[k];
			uint32_t ch = ' ';
			if (v != HISTORY_UNKNOWN && t->utf8) {
				ch = blocks[v >= 100 ? 8 : (v * 8 + 99) / 100]; /* any use shows */
			} else if (v != HISTORY_UNKNOWN) {
				ch = (unsigned char)ascii[v >= 100 ? 9 : v * 9 / 100];
			}
			canvas_put(&t->canvas, y + 1 + (int)r, cx + (int)k, ch, 1);
		}
	}
	/* Time axis. */
	int ay = y + 1 + (int)rows;
	canvas_hline(&t->canvas, ay, 4, t->utf8 ? 0x2500 : '-', w);
	tui_join(buf, sizeof(buf), (const char *const[]){"-", secs, "s", NULL});
	tui_text(t, ay, 4, buf, 10);
	tui_text_right(t, ay, 4 + w - 4, "now", 4);
	return (int)rows + 2;
}

static void draw_events_line(struct tui *t, int y)
{
	canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	if (!t->nevents)
		return;
	const struct tui_event *e = &t->events[(t->nevents - 1) % TUI_EVENTS];
	char when[16] = "--:--:--", buf[256];
	if (e->ts_ms)
		tui_hms(when, sizeof(when), (time_t)(e->ts_ms / 1000));
	snprintf(buf, sizeof(buf), "%s %s", when, e->text);
	tui_attr(t, e->bad ? TC_CRIT : TC_WARN, true);
	tui_text(t, y, 0, buf, t->cols);
	tui_attr(t, e->bad ? TC_CRIT : TC_WARN, false);
}

/* Draws the key hints of the screen's mode for its source, with the way back
 * first in a fleet's host; or a prompt being typed; or why a time typed was
 * not taken. */
static void draw_footer(struct tui *t, int y)
{
	enum key_foot kinds[2];
	size_t nkinds = 0;
	struct key_hint hints[32];

	tui_attr(t, TC_SEL, true);
	canvas_hline(&t->canvas, y, 0, ' ', t->cols);
	if (keys_prompt(t->mode)) {
		tui_prompt(t, y, t->mode);
	} else if (t->seek.err[0]) {
		tui_text(t, y, 0, t->seek.err, t->cols);
	} else {
		if (t->fleet.host_open)
			kinds[nkinds++] = KEYS_FOOT_HOST;
		kinds[nkinds++] = t->st.stepped  ? KEYS_FOOT_STEPPED /* live on the virtual clock */
				  : t->st.replay ? KEYS_FOOT_REPLAY
						 : KEYS_FOOT_LIVE;
		unsigned mode = (unsigned)tui_screen_mode(t);
		if (!t->foot.valid || t->foot.mode != mode || t->foot.utf8 != t->utf8 || t->foot.nkinds != nkinds ||
		    memcmp(t->foot.kinds, kinds, nkinds * sizeof(kinds[0])) != 0) {
			size_t n = keys_hints((enum tui_mode)mode, kinds, nkinds, t->utf8, hints, sizeof(hints) / sizeof(hints[0]));
			keys_join(hints, n, "  ", NULL, t->foot.text, sizeof(t->foot.text));
			t->foot.valid = true;
			t->foot.mode = mode;
			t->foot.utf8 = t->utf8;
			t->foot.nkinds = nkinds;
			memcpy(t->foot.kinds, kinds, nkinds * sizeof(kinds[0]));
		}
		tui_text(t, y, 0, t->foot.text, t->cols);
	}
	tui_attr(t, TC_SEL, false);
}

/* Draws the GPU panels shown[0..nshown) from row y in at most rows_max rows.
 * They are full panels of two lines when they fit on a wide terminal, else
 * one line each, with several per line on a very wide one. S adds a session
 * line under each. Too many for their share get a window, scrolled with [
 * and ]. Returns the row after them. */
static int draw_panels(struct tui *t, const struct frame *f, const size_t *shown, size_t nshown, int y, int rows_max)
{
	int sess = t->set.session ? 1 : 0;
	bool full = t->cols >= 100 && (int)nshown * (2 + sess) <= rows_max;
	int per_line = !full && t->cols >= 160 && (int)nshown * (1 + sess) > rows_max ? t->cols / 80 : 1;
	/* A band is one row of GPUs with the lines under it. */
	int band = (full ? 2 : 1) + sess;
	int lines = ((int)nshown + per_line - 1) / per_line * band;
	bool more = lines > rows_max;
	if (more) {
		lines = (rows_max - 1) / band * band;
		if (lines < band)
			lines = band;
	}
	int cellw = t->cols / per_line;
	size_t per_screen = (size_t)(lines / band) * (size_t)per_line;
	if (t->gpu_top + per_screen > nshown)
		t->gpu_top = nshown > per_screen ? nshown - per_screen : 0;
	size_t drawn = t->gpu_top;
	for (int l = 0; l + band <= lines && drawn < nshown; l += band) {
		for (int c = 0; c < per_line && drawn < nshown; c++, drawn++) {
			int cx = c * cellw, cw = full ? t->cols : cellw - 1;
			tui_gpu_draw_line(t, f, shown[drawn], y + l, cx, cw);
			if (full)
				tui_gpu_draw_details(t, f, shown[drawn], y + l + 1, cx, cw);
			if (sess)
				tui_session_draw(t, &f->gpus[shown[drawn]], y + l + band - 1, cx, cw);
		}
	}
	y += lines;
	if (more || drawn < nshown || t->gpu_top > 0) {
		char buf[128];
		snprintf(buf, sizeof(buf), "GPUs %zu-%zu of %zu shown  ([ ] scroll, i hides idle ones)", t->gpu_top + 1,
			 drawn, nshown);
		tui_attr(t, TC_DIM, true);
		tui_text(t, y++, 0, buf, t->cols);
		tui_attr(t, TC_DIM, false);
	}
	return y;
}

/* Draws the GPUs from row y, less the idle ones when i hides them, with the
 * processes keeping at least a third of the rows up to bottom, and at least
 * 5, then the charts when there is room beyond that. Returns the row after
 * them. */
static int draw_gpus(struct tui *t, const struct frame *f, int y, int bottom)
{
	size_t shown[FRAME_MAX_GPUS], nshown = 0;

	for (size_t i = 0; i < f->ngpus; i++)
		if (!t->table.hide_idle || !gpu_is_idle(f, i))
			shown[nshown++] = i;
	int avail = bottom - y;
	int proc_min = avail / 3 > 5 ? avail / 3 : 5;
	y = draw_panels(t, f, shown, nshown, y, avail - proc_min);
	if (!nshown)
		tui_text(t, y++, 0, f->ngpus ? "(all GPUs idle and hidden: i shows them)" : "(no GPUs in this frame)",
			 t->cols);
	int room = bottom - y - proc_min;
	if (t->rows >= 30 && t->cols >= 100 && room >= 4 && nshown)
		y += draw_charts(t, f, shown, nshown, y + 1, room > (int)nshown + 3 ? (int)nshown + 3 : room - 1) + 1;
	return y;
}

/* For a terminal too small for the dashboard, draws its size and the size
 * needed, short enough to fit a very small terminal whole. */
static void draw_too_small(struct tui *t)
{
	char buf[80];

	snprintf(buf, sizeof(buf), "too small: %dx%d", t->cols, t->rows);
	tui_text(t, t->rows / 2 - 1, 0, buf, t->cols);
	snprintf(buf, sizeof(buf), "gpur needs %dx%d", MIN_COLS, MIN_ROWS);
	tui_text(t, t->rows / 2, 0, buf, t->cols);
}

void tui_draw(struct tui *t)
{
	const struct frame *f = t->frame;
	int y = 2, bottom = t->rows - 2; /* the events line, then the footer */

	canvas_begin(&t->canvas, t->rows, t->cols);
	t->msg.low[0] = '\0';
	if (t->rows < MIN_ROWS || t->cols < MIN_COLS) {
		draw_too_small(t);
		return;
	}
	draw_title(t, f);
	draw_message(t, f, draw_figures(t, f));
	if (tui_fleet_listing(t)) {
		tui_fleet_draw(t, y, bottom - y);
		draw_events_line(t, bottom);
		/* The summary's key hints are its own, and they replace the footer. */
		tui_fleet_draw_keys(t, bottom + 1);
		draw_low_msg(t, bottom);
		tui_draw_overlays(t);
		return;
	}
	if (f)
		y = draw_gpus(t, f, y, bottom);
	else
		tui_text(t, y++, 0,
			 t->st.stepped && t->st.paused ? "no poll yet: on the virtual clock, '.' takes one, space runs on"
						       : "waiting for the first poll...",
			 t->cols);
	tui_draw_procs(t, y, bottom - y);
	draw_events_line(t, bottom);
	draw_footer(t, bottom + 1);
	draw_low_msg(t, bottom);
	tui_draw_overlays(t);
	dialog_signal_draw(t);
}
