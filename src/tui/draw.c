/* draw: the dashboard's top half — header, one panel per GPU, history
 * sparklines, the events line and the footer — laid out for the terminal's
 * size, from 80x24 (one compact line per GPU) to wide screens. */
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

static bool known(const struct gpu *g, enum gpu_field f)
{
	return gpu_has(g, f);
}

static double mem_pct(const struct gpu *g)
{
	if (!known(g, GPU_F_MEM_USED) || !known(g, GPU_F_MEM_TOTAL) || g->mem_total_bytes == 0)
		return -1;
	return 100.0 * (double)g->mem_used_bytes / (double)g->mem_total_bytes;
}

static enum tui_color temp_color(const struct gpu *g)
{
	if (!known(g, GPU_F_TEMP))
		return TC_NONE;
	long double slow = known(g, GPU_F_TEMP_SLOWDOWN) ? g->temp_slowdown_c : 85;
	if (g->temp_c >= slow)
		return TC_CRIT;
	if (g->temp_c >= slow - 5)
		return TC_WARN;
	return TC_NONE;
}

/* Memory no listed process accounts for; false when that is not known. */
static bool unattributed(const struct frame *f, size_t i, uint64_t *out)
{
	const struct gpu *g = &f->gpus[i];
	uint64_t sum = 0;

	if (!known(g, GPU_F_MEM_USED))
		return false;
	for (size_t p = 0; p < f->nprocs; p++) {
		const struct gpu_process *pr = &f->procs[p];
		if (pr->gpu_index != i)
			continue;
		if (!process_has(pr, PROC_F_GPU_MEM))
			return false;
		sum += field_num_u64(pr->gpu_mem_bytes);
	}
	uint64_t used = field_num_u64(g->mem_used_bytes);
	*out = sum < used ? used - sum : 0;
	return true;
}

/* A line built without printf (the header and every GPU's details are drawn
 * every frame): pieces appended, cut at cap - 1, always NUL-terminated. */
struct line {
	char *b;
	size_t n, cap; /* cap includes the NUL */
};

static void put_s(struct line *l, const char *s)
{
	size_t len = strlen(s);
	if (l->n + 1 >= l->cap)
		return;
	if (len > l->cap - 1 - l->n)
		len = l->cap - 1 - l->n;
	memcpy(l->b + l->n, s, len);
	l->n += len;
	l->b[l->n] = '\0';
}

/* The strings of parts (NULL-terminated) one after another in buf. */
static void join(char *buf, size_t n, const char *const *parts)
{
	struct line l = {buf, 0, n};

	if (!n)
		return;
	buf[0] = '\0';
	for (; *parts; parts++)
		put_s(&l, *parts);
}

static void draw_header(struct tui *t, const struct frame *f)
{
	char buf[512], drv[300], part[160];
	/* Live on the virtual clock the data's time is the frame's. */
	time_t now = t->st.stepped && f && frame_has(f, FRAME_F_TS) ? (time_t)(f->ts_ms / 1000) : time(NULL);

	/* The local time, worked out once a second. */
	if (now != t->hdr.clock_at) {
		struct tm tm;
		t->hdr.clock_at = now;
		if (!localtime_r(&now, &tm) || !strftime(t->hdr.clock, sizeof(t->hdr.clock), "%H:%M:%S", &tm))
			snprintf(t->hdr.clock, sizeof(t->hdr.clock), "--:--:--");
	}
	const char *when = t->hdr.clock;
	tui_attr(t, TC_HEAD, true);
	canvas_hline(&t->canvas, 0, 0, ' ', t->cols);
	int x = tui_text(t, 0, 0, "gpur ", 5);
	x += tui_text(t, 0, x, f && frame_has(f, FRAME_F_HOST) ? f->host : "", 32);
	tui_attr(t, TC_HEAD, false);
	const char *dot = t->utf8 ? " \u00b7 " : " - ";
	buf[0] = '\0';
	if (t->st.replay) {
		char at[32] = "--";
		if (f && frame_has(f, FRAME_F_TS)) {
			time_t ts = (time_t)(f->ts_ms / 1000);
			struct tm rt;
			localtime_r(&ts, &rt);
			strftime(at, sizeof(at), "%H:%M:%S", &rt);
		}
		const char *state = t->st.at_end ? "end" : t->st.paused ? (t->utf8 ? "\u275a\u275a" : "||")
									 : (t->utf8 ? "\u25b6" : ">");
		const char *name = strrchr(t->opts->replay_path, '/');
		name = name ? name + 1 : t->opts->replay_path;
		const char *src = f ? replay_driver_line(f, drv, sizeof(drv), !t->utf8) : NULL;
		snprintf(buf, sizeof(buf), "REPLAY %s%s%s%s%s #%" PRIu64 " %s%g %s", name, src ? dot : "", src ? src : "",
			 dot, at, t->st.position, t->utf8 ? "\u00d7" : "x", t->st.speed, state);
	} else if (f && f->driver_line) {
		/* Several backends: each with its driver's version. */
		snprintf(buf, sizeof(buf), "%s", f->driver_line);
	} else if (f) {
		snprintf(buf, sizeof(buf), "%s%s%s", frame_has(f, FRAME_F_BACKEND) ? f->backend : "",
			 frame_has(f, FRAME_F_DRIVER) ? dot : "", frame_has(f, FRAME_F_DRIVER) ? f->driver : "");
	}
	if (f && !t->st.replay && f->cuda) {
		snprintf(part, sizeof(part), "%sCUDA %s", dot, f->cuda);
		strncat(buf, part, sizeof(buf) - strlen(buf) - 1);
	}
	/* Live on the virtual clock, stepped: paused until '.' or space. */
	bool paused = t->frozen || (t->st.stepped && t->st.paused);
	if (t->cols >= 110) {
		/* %g once per interval, not per frame */
		if (t->st.interval != t->hdr.iv_value || !t->hdr.iv_str[0]) {
			t->hdr.iv_value = t->st.interval;
			snprintf(t->hdr.iv_str, sizeof(t->hdr.iv_str), "%g", t->st.interval);
		}
		join(part, sizeof(part), (const char *const[]){when, "  every ", t->hdr.iv_str, "s", paused ? "  PAUSED" : "", NULL});
	} else {
		join(part, sizeof(part), (const char *const[]){when, paused ? " PAUSED" : "", NULL});
	}
	int right = tui_text_width(t, part);
	tui_text(t, 0, x + 2, buf, t->cols - x - 3 - right);
	tui_attr(t, TC_HEAD, true);
	tui_text_right(t, 0, t->cols - right - 1, part, right);
	tui_attr(t, TC_HEAD, false);

	/* Line 2: the host (from the record) and gpur itself. */
	canvas_hline(&t->canvas, 1, 0, ' ', t->cols);
	x = 0;
	if (f && frame_has(f, FRAME_F_SYSTEM)) {
		const struct system_stats *s = &f->system;
		char used[16], total[16];
		tui_size(used, sizeof(used), s->valid >> SYS_F_MEM_USED & 1, field_num_u64(s->mem_used_bytes));
		tui_size(total, sizeof(total), s->valid >> SYS_F_MEM_TOTAL & 1, field_num_u64(s->mem_total_bytes));
		char cpu[16] = "--", load[16] = "--";
		if (s->valid >> SYS_F_CPU & 1) {
			size_t at = fmt_fixed(cpu, sizeof(cpu) - 1, field_num_whole(s->cpu_pct), 0);
			cpu[at] = '%';
			cpu[at + 1] = '\0';
		}
		if (s->valid >> SYS_F_LOAD1 & 1)
			fmt_fixed(load, sizeof(load), s->load_1m, 2);
		join(buf, sizeof(buf), (const char *const[]){"CPU ", cpu, "  MEM ", used, "/", total, "  LOAD ", load, "   ", NULL});
		x += tui_text(t, 1, x, buf, t->cols - x);
	}
	char rss[16];
	tui_size(rss, sizeof(rss), t->self.rss > 0, t->self.rss);
	char self[32], poll_ms[32];
	bool poll_shown = f && !t->st.replay;
	fmt_fixed(self, sizeof(self), t->self.cpu, 1);
	fmt_fixed(poll_ms, sizeof(poll_ms), poll_shown ? (double)f->poll_us / 1000.0 : 0, 1);
	join(buf, sizeof(buf), (const char *const[]){"gpur ", self, "% ", rss, poll_shown ? " poll " : "",
						      poll_shown ? poll_ms : "", poll_shown ? "ms" : "", NULL});
	tui_attr(t, TC_DIM, true);
	x += tui_text(t, 1, x, buf, t->cols - x);
	tui_attr(t, TC_DIM, false);
	/* Never frozen: say how long a backend has not answered. */
	if (t->st.busy_ms >= 2000) {
		snprintf(buf, sizeof(buf), "   no answer from %s for %" PRIu64 " s", t->st.busy_backend,
			 t->st.busy_ms / 1000);
		tui_attr(t, TC_CRIT, true);
		x += tui_text(t, 1, x, buf, t->cols - x);
		tui_attr(t, TC_CRIT, false);
	}
	/* One message after the figures, the most pressing: the status line
	 * (why a key did nothing), the fleet's source failing (what is shown
	 * is its last good data), gpur in a PID namespace of its own (the host
	 * pids the driver lists are not its to look up: model/process.h,
	 * pid_hidden). */
	size_t hidden = 0;
	for (size_t i = 0; f && i < f->nprocs; i++)
		hidden += f->procs[i].pid_hidden;
	char problem[600];
	const char *msg = NULL;
	enum tui_color color = TC_WARN;
	if (t->msg.status[0]) {
		msg = t->msg.status;
	} else if (tui_fleet_problem(t, problem, sizeof(problem))) {
		msg = problem;
		color = TC_CRIT;
	} else if (hidden) {
		msg = "host pids not visible here (PID namespace): use --pid=host, hostPID or --procfs";
	}
	if (!msg)
		return; /* low_msg: cleared by tui_draw */
	if (tui_text_width(t, msg) <= t->cols - x - 3) {
		tui_attr(t, color, true);
		tui_text(t, 1, x + 3, msg, t->cols - x - 3);
		tui_attr(t, color, false);
	} else {
		snprintf(t->msg.low, sizeof(t->msg.low), "%s", msg);
		t->msg.low_color = color;
	}
}

/* The header's message that did not fit there, over the events line (y),
 * its words wrapped onto the footer (y + 1) when longer than a line. */
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

/* "%3.0f%%" without printf; " --%" when unknown. */
static void fmt_pct(char *b, size_t n, const struct gpu *g, enum gpu_field f, double v)
{
	char num[32] = "--";
	size_t len = known(g, f) ? fmt_fixed(num, sizeof(num), field_num_whole(v), 0) : 2;
	join(b, n, (const char *const[]){len < 3 ? &"   "[len] : "", num, "%", NULL});
}

/* One line per GPU: index, name, util and memory bars, temperature, power. */
static void draw_gpu_compact(struct tui *t, const struct frame *f, size_t i, int y, int x, int w)
{
	const struct gpu *g = &f->gpus[i];
	unsigned st = gpu_state(g);
	bool gone = st == GPU_STATE_LOST || st == GPU_STATE_SUSPENDED;
	char buf[128], used[16], total[16];

	fmt_u64(buf, sizeof(buf), i, 2, ' ');
	strcat(buf, " ");
	tui_attr(t, TC_HEAD, true);
	tui_text(t, y, x, buf, 3);
	tui_attr(t, TC_HEAD, false);
	int namew = w >= 100 ? 24 : w >= 70 ? 14 : 8;
	if (gone)
		tui_attr(t, TC_DIM, true);
	tui_text(t, y, x + 3, known(g, GPU_F_NAME) ? g->name : "--", namew);
	if (gone) {
		tui_attr(t, TC_DIM, false);
		tui_attr(t, TC_CRIT, true);
		tui_text(t, y, x + 4 + namew, st == GPU_STATE_LOST ? "LOST" : "SUSPENDED", 10);
		tui_attr(t, TC_CRIT, false);
		/* Its last known readings, dimmed: what it was doing when it went. */
		const struct gpu_seen *l = f->seen && f->seen[i].seen ? &f->seen[i] : NULL;
		tui_size(total, sizeof(total), known(g, GPU_F_MEM_TOTAL), field_num_u64(g->mem_total_bytes));
		if (l) {
			char when[16] = "--:--:--", util[8] = "--", temp[8] = "--", pw[8] = "--";
			time_t ts = (time_t)((l->gone_ms ? l->gone_ms : l->ts_ms) / 1000);
			struct tm tm;
			if ((l->gone_ms || l->ts_ms) && localtime_r(&ts, &tm))
				strftime(when, sizeof(when), "%H:%M:%S", &tm);
			if (gpu_has(&l->g, GPU_F_UTIL))
				snprintf(util, sizeof(util), "%.0f%%", field_num_whole(l->g.util_pct));
			if (gpu_has(&l->g, GPU_F_TEMP))
				snprintf(temp, sizeof(temp), "%" PRId64 "C", field_num_i64(l->g.temp_c));
			if (gpu_has(&l->g, GPU_F_POWER))
				snprintf(pw, sizeof(pw), "%.0fW", field_num_whole(l->g.power_w));
			tui_size(used, sizeof(used), gpu_has(&l->g, GPU_F_MEM_USED), field_num_u64(l->g.mem_used_bytes));
			snprintf(buf, sizeof(buf), "last seen %s: %s %s/%s %s %s", when, util, used, total, temp, pw);
		} else {
			snprintf(buf, sizeof(buf), "mem --/%s", total);
		}
		tui_attr(t, TC_DIM, true);
		tui_text(t, y, x + 15 + namew, buf, w - 15 - namew);
		tui_attr(t, TC_DIM, false);
		return;
	}
	int cx = x + 4 + namew;
	int barw = w >= 100 ? 14 : w >= 70 ? 8 : 0;
	if (barw) {
		tui_bar(t, y, cx, barw, known(g, GPU_F_UTIL) ? g->util_pct : -1, TC_BAR);
		cx += barw;
	}
	fmt_pct(buf, sizeof(buf), g, GPU_F_UTIL, g->util_pct);
	cx += tui_text(t, y, cx, buf, 5) + 1;
	double mp = mem_pct(g);
	if (barw) {
		tui_bar(t, y, cx, barw, mp, mp > 90 ? TC_CRIT : TC_BAR);
		cx += barw;
	}
	tui_size(used, sizeof(used), known(g, GPU_F_MEM_USED), field_num_u64(g->mem_used_bytes));
	tui_size(total, sizeof(total), known(g, GPU_F_MEM_TOTAL), field_num_u64(g->mem_total_bytes));
	if (!known(g, GPU_F_MEM_USED) && !known(g, GPU_F_MEM_TOTAL) && known(g, GPU_F_CLOCK_GFX))
		/* No memory of its own (an iGPU): its clock instead of an empty "--/--". */
		snprintf(buf, sizeof(buf), "%" PRIu64 "MHz", field_num_u64(g->clock_gfx_mhz));
	else
		snprintf(buf, sizeof(buf), "%s/%s", used, total);
	if (mp > 90)
		tui_attr(t, TC_CRIT, true);
	tui_text_right(t, y, cx, buf, 11);
	cx += 12;
	if (mp > 90)
		tui_attr(t, TC_CRIT, false);
	int64_t temp = field_num_i64(g->temp_c);
	if (known(g, GPU_F_TEMP) && temp >= 0) {
		fmt_u64(buf, sizeof(buf), (uint64_t)temp, 3, ' ');
		strcat(buf, t->utf8 ? "\u00b0C" : "C");
	} else if (known(g, GPU_F_TEMP)) {
		snprintf(buf, sizeof(buf), "%3" PRId64 "%s", temp, t->utf8 ? "\u00b0C" : "C");
	} else {
		snprintf(buf, sizeof(buf), " --%s", t->utf8 ? "\u00b0C" : "C");
	}
	enum tui_color tc = temp_color(g);
	tui_attr(t, tc, true);
	cx += tui_text(t, y, cx, buf, 5) + 1;
	tui_attr(t, tc, false);
	if (known(g, GPU_F_POWER)) {
		char num[32];
		size_t len = fmt_fixed(num, sizeof(num), field_num_whole(g->power_w), 0), at = 0;
		while (len + at < 4)
			buf[at++] = ' ';
		memcpy(buf + at, num, len + 1);
	} else {
		snprintf(buf, sizeof(buf), "  --");
	}
	if (w >= 70) {
		char lim[16] = "--";
		if (known(g, GPU_F_POWER_LIMIT))
			fmt_fixed(lim, sizeof(lim), field_num_whole(g->power_limit_w), 0);
		strncat(buf, "/", sizeof(buf) - strlen(buf) - 1);
		strncat(buf, lim, sizeof(buf) - strlen(buf) - 1);
	}
	strncat(buf, "W", sizeof(buf) - strlen(buf) - 1);
	tui_text(t, y, cx, buf, x + w - cx);
}

static void put_u(struct line *l, uint64_t v)
{
	char num[24];
	fmt_u64(num, sizeof(num), v, 0, ' ');
	put_s(l, num);
}

static void put_i(struct line *l, int64_t v)
{
	if (v < 0) {
		put_s(l, "-");
		put_u(l, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u(l, (uint64_t)v);
	}
}

/* A whole percentage, or "--" when unknown. */
static void put_pct(struct line *l, bool known, double v)
{
	char num[32];
	if (!known) {
		put_s(l, "--");
		return;
	}
	fmt_fixed(num, sizeof(num), v, 0);
	put_s(l, num);
	put_s(l, "%");
}

/* Draws the line built so far at *cx (up to column xend) in colour c,
 * moves *cx past it and empties the line. */
static void flush_line(struct tui *t, struct line *l, int y, int *cx, int xend, enum tui_color c)
{
	if (l->n && *cx < xend) {
		tui_attr(t, c, true);
		*cx += tui_text(t, y, *cx, l->b, xend - *cx);
		tui_attr(t, c, false);
	}
	l->n = 0;
	l->b[0] = '\0';
}

/* The second line of a full panel: iGPU, clocks, core voltage, fan, PCIe
 * (a link below its maximum highlighted), codecs, P-state, AMD's forced
 * performance level, throttle reasons, memory no process accounts for. */
static void draw_gpu_details(struct tui *t, const struct frame *f, size_t i, int y, int x, int w)
{
	const struct gpu *g = &f->gpus[i];
	char buf[512], a[24], b[24];
	struct line l = {buf, 0, sizeof(buf)};
	int cx = x + 4;

	if (gpu_is_unread(g))
		return;
	buf[0] = '\0';
	if (known(g, GPU_F_INTEGRATED) && g->integrated)
		put_s(&l, "iGPU  ");
	put_s(&l, "GFX ");
	if (known(g, GPU_F_CLOCK_GFX)) {
		put_u(&l, field_num_u64(g->clock_gfx_mhz));
		put_s(&l, "MHz  ");
	} else {
		put_s(&l, "--  ");
	}
	if (known(g, GPU_F_VOLTAGE)) {
		put_u(&l, field_num_u64(g->voltage_mv));
		put_s(&l, "mV  ");
	}
	if (known(g, GPU_F_CLOCK_MEM)) {
		put_s(&l, "MCLK ");
		put_u(&l, field_num_u64(g->clock_mem_mhz));
		put_s(&l, "MHz  ");
	}
	if (known(g, GPU_F_GTT_USED) || known(g, GPU_F_GTT_TOTAL)) {
		/* AMD: system memory mapped for the GPU, beside VRAM. */
		tui_size(a, sizeof(a), known(g, GPU_F_GTT_USED), field_num_u64(g->gtt_used_bytes));
		tui_size(b, sizeof(b), known(g, GPU_F_GTT_TOTAL), field_num_u64(g->gtt_total_bytes));
		put_s(&l, "GTT ");
		put_s(&l, a);
		put_s(&l, "/");
		put_s(&l, b);
		put_s(&l, "  ");
	}
	if (known(g, GPU_F_TEMP_JUNCTION)) {
		put_s(&l, "JCT ");
		put_i(&l, field_num_i64(g->temp_junction_c));
		put_s(&l, "C  ");
	}
	if (known(g, GPU_F_FAN_PCT)) {
		put_s(&l, "FAN ");
		put_pct(&l, true, field_num_whole(g->fan_pct));
		put_s(&l, "  ");
	} else if (known(g, GPU_F_FAN_RPM)) {
		put_s(&l, "FAN ");
		put_u(&l, field_num_u64(g->fan_rpm));
		put_s(&l, "rpm  ");
	}
	char link[64];
	if (gpu_pcie_link(g, link, sizeof(link))) {
		/* A link below its maximum is a warning, as throttling is. */
		flush_line(t, &l, y, &cx, x + w, TC_DIM);
		put_s(&l, "PCIe ");
		put_s(&l, link);
		flush_line(t, &l, y, &cx, x + w, TC_WARN);
		put_s(&l, " ");
	} else if (link[0]) {
		put_s(&l, "PCIe ");
		put_s(&l, link);
		put_s(&l, " ");
	}
	if (known(g, GPU_F_PCIE_RX) || known(g, GPU_F_PCIE_TX)) {
		tui_size(a, sizeof(a), known(g, GPU_F_PCIE_RX), field_num_u64(g->pcie_rx_bytes_per_s));
		tui_size(b, sizeof(b), known(g, GPU_F_PCIE_TX), field_num_u64(g->pcie_tx_bytes_per_s));
		put_s(&l, "RX ");
		put_s(&l, a);
		put_s(&l, "/s TX ");
		put_s(&l, b);
		put_s(&l, "/s  ");
	}
	if (known(g, GPU_F_ENC) || known(g, GPU_F_DEC)) {
		put_s(&l, "ENC ");
		put_pct(&l, known(g, GPU_F_ENC), field_num_whole(g->enc_pct));
		put_s(&l, " DEC ");
		put_pct(&l, known(g, GPU_F_DEC), field_num_whole(g->dec_pct));
		put_s(&l, known(g, GPU_F_VIDEO) ? " " : "  ");
	}
	if (known(g, GPU_F_VIDEO)) {
		/* One engine for both (AMD's VCN): beside ENC and DEC when
		 * those are known too. */
		put_s(&l, "VID ");
		put_pct(&l, true, field_num_whole(g->video_pct));
		put_s(&l, "  ");
	}
	if (known(g, GPU_F_PSTATE)) {
		put_s(&l, "P");
		put_u(&l, g->pstate);
		put_s(&l, "  ");
	}
	if (known(g, GPU_F_PERF_LEVEL) && g->perf_level && *g->perf_level) {
		put_s(&l, "DPM ");
		put_s(&l, g->perf_level); /* recorded text: tui_text makes it safe */
		put_s(&l, "  ");
	}
	uint64_t un;
	if (unattributed(f, i, &un) && un > 0) {
		tui_size(a, sizeof(a), true, un);
		put_s(&l, "unattributed ");
		put_s(&l, a);
		put_s(&l, "  ");
	}
	flush_line(t, &l, y, &cx, x + w, TC_DIM);
	if (known(g, GPU_F_THROTTLE) && g->throttle & ~(1u << GPU_THROTTLE_GPU_IDLE)) {
		size_t m = 0;
		buf[0] = '\0';
		for (unsigned r = 1; r < GPU_THROTTLE__COUNT; r++)
			if (g->throttle >> r & 1u)
				m += (size_t)snprintf(buf + m, m < sizeof(buf) ? sizeof(buf) - m : 0, "%s%s",
						      m ? "," : "throttle: ", GPU_THROTTLE_NAMES[r]);
		if (cx < x + w) {
			tui_attr(t, TC_WARN, true);
			tui_text(t, y, cx, buf, x + w - cx);
			tui_attr(t, TC_WARN, false);
		}
	}
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
	struct line l = {buf, 0, sizeof(buf)};
	buf[0] = '\0';
	put_s(&l, "history: ");
	put_s(&l, history_metric_name(t->set.chart));
	put_s(&l, " (c: next)   last ");
	put_s(&l, secs);
	put_s(&l, " s, newest right");
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
	l.n = 0;
	buf[0] = '\0';
	put_s(&l, "-");
	put_s(&l, secs);
	put_s(&l, "s");
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
	time_t ts = (time_t)(e->ts_ms / 1000);
	struct tm tm;
	if (e->ts_ms && localtime_r(&ts, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	snprintf(buf, sizeof(buf), "%s %s", when, e->text);
	tui_attr(t, e->bad ? TC_CRIT : TC_WARN, true);
	tui_text(t, y, 0, buf, t->cols);
	tui_attr(t, e->bad ? TC_CRIT : TC_WARN, false);
}

/* The key hints of the screen's mode for its source (the way back first
 * in a fleet's host), a prompt being typed, or why a time typed was not
 * taken. */
static void draw_footer(struct tui *t, int y)
{
	enum key_foot kinds[2];
	size_t nkinds = 0;
	struct key_hint hints[32];
	char buf[600];

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
		size_t n = keys_hints(tui_screen_mode(t), kinds, nkinds, t->utf8, hints, sizeof(hints) / sizeof(hints[0]));
		keys_join(hints, n, "  ", NULL, buf, sizeof(buf));
		tui_text(t, y, 0, buf, t->cols);
	}
	tui_attr(t, TC_SEL, false);
}

void tui_draw(struct tui *t)
{
	const struct frame *f = t->frame;
	size_t shown[FRAME_MAX_GPUS], nshown = 0;

	canvas_begin(&t->canvas, t->rows, t->cols);
	t->msg.low[0] = '\0';
	if (t->rows < MIN_ROWS || t->cols < MIN_COLS) {
		char buf[80];
		/* Short enough to fit a very small terminal whole. */
		snprintf(buf, sizeof(buf), "too small: %dx%d", t->cols, t->rows);
		tui_text(t, t->rows / 2 - 1, 0, buf, t->cols);
		snprintf(buf, sizeof(buf), "gpur needs %dx%d", MIN_COLS, MIN_ROWS);
		tui_text(t, t->rows / 2, 0, buf, t->cols);
		return;
	}
	draw_header(t, f);
	int y = 2;
	int bottom = t->rows - 2; /* events line, footer */
	if (tui_fleet_listing(t)) {
		tui_fleet_draw(t, y, bottom - y);
		draw_events_line(t, bottom);
		/* The summary's key hints are its own: they replace the footer. */
		tui_fleet_draw_keys(t, bottom + 1);
		draw_low_msg(t, bottom);
		tui_draw_overlays(t);
		return;
	}
	if (f) {
		for (size_t i = 0; i < f->ngpus; i++)
			if (!t->table.hide_idle || !gpu_is_idle(f, i))
				shown[nshown++] = i;
		int avail = bottom - y;
		/* Processes keep at least a third of the screen (and 5 rows). */
		int proc_min = avail / 3 > 5 ? avail / 3 : 5;
		int gpu_rows_max = avail - proc_min;
		/* S: a session line under each GPU (or row of GPUs). */
		int sess = t->set.session ? 1 : 0;
		bool full = t->cols >= 100 && (int)nshown * (2 + sess) <= gpu_rows_max;
		int per_line = 1;
		if (!full && t->cols >= 160 && (int)nshown * (1 + sess) > gpu_rows_max)
			per_line = t->cols / 80;
		/* A band: one row of GPUs with the lines under it. */
		int band = (full ? 2 : 1) + sess;
		int lines = ((int)nshown + per_line - 1) / per_line * band;
		bool more = false;
		if (lines > gpu_rows_max) {
			more = true;
			lines = (gpu_rows_max - 1) / band * band;
			if (lines < band)
				lines = band;
		}
		int cellw = t->cols / per_line;
		/* Too many GPUs for their share: a window on them, scrolled with [ and ]. */
		size_t per_screen = (size_t)(lines / band) * (size_t)per_line;
		if (t->gpu_top + per_screen > nshown)
			t->gpu_top = nshown > per_screen ? nshown - per_screen : 0;
		size_t drawn = t->gpu_top;
		for (int l = 0; l + band <= lines && drawn < nshown; l += band) {
			for (int c = 0; c < per_line && drawn < nshown; c++, drawn++) {
				const struct gpu *g = &f->gpus[shown[drawn]];
				int cx = c * cellw, cw = full ? t->cols : cellw - 1;
				draw_gpu_compact(t, f, shown[drawn], y + l, cx, cw);
				if (full)
					draw_gpu_details(t, f, shown[drawn], y + l + 1, cx, cw);
				if (sess)
					tui_session_draw(t, g, y + l + band - 1, cx, cw);
			}
		}
		y += lines;
		if (more || drawn < nshown || t->gpu_top > 0) {
			char buf[128];
			snprintf(buf, sizeof(buf), "GPUs %zu-%zu of %zu shown  ([ ] scroll, i hides idle ones)",
				 t->gpu_top + 1, drawn, nshown);
			tui_attr(t, TC_DIM, true);
			tui_text(t, y++, 0, buf, t->cols);
			tui_attr(t, TC_DIM, false);
		}
		if (!nshown) {
			tui_text(t, y++, 0, f->ngpus ? "(all GPUs idle and hidden: i shows them)" : "(no GPUs in this frame)",
				 t->cols);
		}
		/* Charts when there is room beyond the processes' share. */
		int room = bottom - y - proc_min;
		if (t->rows >= 30 && t->cols >= 100 && room >= 4 && nshown)
			y += draw_charts(t, f, shown, nshown, y + 1, room > (int)nshown + 3 ? (int)nshown + 3 : room - 1) + 1;
	} else {
		tui_text(t, y++, 0,
			 t->st.stepped && t->st.paused ? "no poll yet: on the virtual clock, '.' takes one, space runs on"
						       : "waiting for the first poll...",
			 t->cols);
	}
	tui_draw_procs(t, y, bottom - y);
	draw_events_line(t, bottom);
	draw_footer(t, bottom + 1);
	draw_low_msg(t, bottom);
	tui_draw_overlays(t);
	dialog_signal_draw(t);
}
