/* view_details: the selected process's details (Enter): who it is, where it
 * runs (container, pod, unit, its pid inside), when it started, what it
 * uses, and its own history chart from prochist. It shows only what the
 * frame carries; the cgroup path, for one, is not recorded, so a replay does
 * not show it. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tui/tui_priv.h"
#include "util/clock.h"

#define LABEL_W 12

static const char *known_str(const struct gpu_process *p, enum process_field b, const char *s)
{
	return process_has(p, b) && s && *s ? s : NULL;
}

/* Draws one "label  value" line, with the value made safe by tui_text, or
 * "--" when it is NULL. */
static void line(struct tui *t, int y, int x, int w, const char *label, const char *value)
{
	tui_attr(t, TC_HEAD, true);
	tui_text(t, y, x, label, LABEL_W);
	tui_attr(t, TC_HEAD, false);
	if (!value)
		tui_attr(t, TC_DIM, true);
	tui_text(t, y, x + LABEL_W, value ? value : "--", w - LABEL_W);
	if (!value)
		tui_attr(t, TC_DIM, false);
}

/* Draws s wrapped over at most max lines of w columns from (y, x), and
 * returns the lines used. */
static int wrap(struct tui *t, int y, int x, int w, int max, const char *s)
{
	size_t len = strlen(s), off = 0;
	int r = 0;

	for (; r < max && off < len; r++) {
		char piece[1024];
		size_t take = len - off < sizeof(piece) - 1 ? len - off : sizeof(piece) - 1;
		memcpy(piece, s + off, take);
		piece[take] = '\0';
		int cols = tui_text(t, y + r, x, piece, w);
		/* Advance by the bytes that made those columns, where a wide
		 * character is two columns and a replaced byte one. */
		size_t used = 0;
		for (int c = 0; c < cols && used < take;) {
			char one[8];
			size_t at = used++;
			while (used < take && used - at < sizeof(one) - 1 && ((unsigned char)piece[used] & 0xC0) == 0x80)
				used++;
			memcpy(one, piece + at, used - at);
			one[used - at] = '\0';
			int cw = tui_text_width(t, one);
			if (c + cw > cols) {
				used = at; /* it did not fit on this line */
				break;
			}
			c += cw;
		}
		off += used ? used : take;
	}
	return r ? r : 1;
}

/* The lines s needs at w columns, at most max, and 1 for NULL. */
static int rows_for(struct tui *t, const char *s, int w, int max)
{
	if (!s || w < 1)
		return 1;
	int n = (tui_text_width(t, s) + w - 1) / w;
	return n < 1 ? 1 : n > max ? max : n;
}

/* Draws a labelled value wrapped over n lines, or "--" when it is NULL, and
 * returns n. */
static int field(struct tui *t, int y, int x, int w, int n, const char *label, const char *value)
{
	line(t, y, x, w, label, value ? "" : NULL);
	if (value)
		wrap(t, y, x + LABEL_W, w - LABEL_W, n, value);
	return n;
}

static void fmt_metric(char *buf, size_t n, enum prochist_metric m, double v)
{
	if (isnan(v))
		snprintf(buf, n, "--");
	else if (m == PROCHIST_GPU_MEM)
		tui_size(buf, n, true, v < 0 ? 0 : (uint64_t)(v + 0.5));
	else
		snprintf(buf, n, "%.0f%%", v);
}

/* Draws the process's own history as one sparkline per metric, scaled to its
 * peak, or at least to 100 % for utilisation and CPU, with unknown samples
 * dotted. */
static void draw_chart(struct tui *t, const struct gpu_process *p, int y, int x, int w)
{
	static const uint32_t blocks[] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	static const char ascii[] = "_.:-=+*#";
	static const char *const names[PROCHIST__COUNT] = {"GPU-MEM", "GPU%", "CPU%"};
	double v[PROCHIST_MAX_CAPACITY];
	char buf[96];
	int cw = w - LABEL_W - 10; /* the label on the left, the latest value on the right */
	size_t n = 0;

	if (cw < 8)
		return;
	if (cw > PROCHIST_MAX_CAPACITY)
		cw = PROCHIST_MAX_CAPACITY;
	for (int m = 0; m < PROCHIST__COUNT; m++) {
		size_t k = prochist_get(t->hist.procs, p->pid, process_has(p, PROC_F_START), p->start_ms,
					(enum prochist_metric)m, v, (size_t)cw);
		n = k > n ? k : n;
		double peak = m == PROCHIST_GPU_MEM ? 0 : 100;
		for (size_t i = 0; i < k; i++)
			if (!isnan(v[i]) && v[i] > peak)
				peak = v[i];
		char pk[32];
		fmt_metric(pk, sizeof(pk), (enum prochist_metric)m, peak > 0 ? peak : NAN);
		snprintf(buf, sizeof(buf), "%s", names[m]);
		tui_attr(t, TC_HEAD, true);
		tui_text(t, y + 1 + m, x, buf, LABEL_W);
		tui_attr(t, TC_HEAD, false);
		int cx = x + LABEL_W + cw - (int)k;
		for (size_t i = 0; i < k; i++) {
			if (isnan(v[i])) {
				tui_attr(t, TC_DIM, true);
				canvas_put(&t->canvas, y + 1 + m, cx + (int)i, t->utf8 ? 0x00b7 : '.', 1);
				tui_attr(t, TC_DIM, false);
				continue;
			}
			double f = peak > 0 ? v[i] / peak : 0;
			int b = (int)ceil(f * 8) - 1; /* any use shows, and 0 is the lowest block */
			b = b < 0 ? 0 : b > 7 ? 7 : b;
			canvas_put(&t->canvas, y + 1 + m, cx + (int)i, t->utf8 ? blocks[b] : (uint32_t)(unsigned char)ascii[b], 1);
		}
		fmt_metric(buf, sizeof(buf), (enum prochist_metric)m, k ? v[k - 1] : NAN);
		tui_text_right(t, y + 1 + m, x + LABEL_W + cw + 1, buf, 9);
	}
	double span = (double)n * (t->st.interval > 0 ? t->st.interval : 1);
	snprintf(buf, sizeof(buf), "history of this process: %zu sample%s, %.0f s, newest right", n, n == 1 ? "" : "s",
		 span);
	tui_attr(t, TC_HEAD, true);
	tui_text(t, y, x, buf, w);
	tui_attr(t, TC_HEAD, false);
	int ay = y + 1 + PROCHIST__COUNT;
	canvas_hline(&t->canvas, ay, x + LABEL_W, t->utf8 ? 0x2500 : '-', cw);
	snprintf(buf, sizeof(buf), "-%.0fs", span);
	tui_text(t, ay, x + LABEL_W, buf, 10);
	tui_text_right(t, ay, x + LABEL_W + cw - 4, "now", 4);
}

/* Who owns the process, as the screen writes it: the container by name and
 * id, the pod as namespace/name and uid, the unit and the cgroup path, each
 * NULL when it is not known. */
struct owner {
	char container_buf[PROCESS_CONTAINER_NAME_MAX + 80], pod_buf[700];
	const char *container, *pod, *unit, *cgroup;
};

static void owner_of(const struct gpu_process *p, struct owner *o)
{
	const char *cid = known_str(p, PROC_F_CONTAINER, p->container);
	const char *cname = known_str(p, PROC_F_CONTAINER_NAME, p->container_name);
	const char *uid = known_str(p, PROC_F_POD, p->pod), *pname = known_str(p, PROC_F_POD_NAME, p->pod_name);
	char pod[512];

	o->container = o->pod = NULL;
	if (cid && cname)
		snprintf(o->container_buf, sizeof(o->container_buf), "%s   (%s)", cname, cid);
	else
		snprintf(o->container_buf, sizeof(o->container_buf), "%s", cid ? cid : cname ? cname : "");
	if (o->container_buf[0])
		o->container = o->container_buf;
	if (pname)
		snprintf(o->pod_buf, sizeof(o->pod_buf), "%s   uid %s", process_pod_text(p, pod, sizeof(pod)),
			 uid ? uid : "--");
	else if (uid)
		snprintf(o->pod_buf, sizeof(o->pod_buf), "uid %s", uid);
	if (pname || uid)
		o->pod = o->pod_buf;
	o->unit = known_str(p, PROC_F_UNIT, p->unit);
	o->cgroup = p->cgroup_path && *p->cgroup_path ? p->cgroup_path : NULL;
}

/* Draws the command line and the owner's values from row r, with rows up to
 * end, at column ix and iw wide, wrapped rather than cut. The pod, the unit
 * and the cgroup path, whose last part has the container's full id, get the
 * lines they need, up to 3 each, and the container up to 2. The command line
 * gets what is left beside the chart, and all of it where there is room. On
 * a short terminal the long values give lines back, the cgroup first, down
 * to one each, so that every line stays inside the box. Returns the next
 * row. */
static int draw_long_values(struct tui *t, const struct gpu_process *p, int r, int end, int ix, int iw)
{
	struct owner o;
	int vw = iw - LABEL_W;
	const char *cmd = known_str(p, PROC_F_CMDLINE, p->cmdline);

	if (!cmd)
		cmd = known_str(p, PROC_F_NAME, p->name);
	owner_of(p, &o);
	int n_ctr = rows_for(t, o.container, vw, 2), n_pod = rows_for(t, o.pod, vw, 3);
	int n_unit = rows_for(t, o.unit, vw, 3), n_cg = rows_for(t, o.cgroup, vw, 3);
	int *give[] = {&n_cg, &n_unit, &n_pod, &n_ctr};
	for (size_t k = 0; k < sizeof(give) / sizeof(give[0]); k++)
		while (*give[k] > 1 && end - r - (1 + n_ctr + n_pod + n_unit + n_cg + 2) < 0)
			(*give[k])--;
	int chart = PROCHIST__COUNT + 3;
	int left = end - r - (n_ctr + n_pod + n_unit + n_cg + 2); /* plus started and GPU */
	int cmd_need = rows_for(t, cmd, vw, 1 << 20);
	int cmd_rows = left - chart < cmd_need ? left - chart : cmd_need;
	cmd_rows = cmd_rows < 1 ? 1 : cmd_rows;

	line(t, r, ix, iw, "command", cmd ? "" : NULL);
	r += cmd ? wrap(t, r, ix + LABEL_W, vw, cmd_rows, cmd) : 1;
	r += r >= end ? n_ctr : field(t, r, ix, iw, n_ctr, "container", o.container);
	r += r >= end ? n_pod : field(t, r, ix, iw, n_pod, "pod", o.pod);
	r += r >= end ? n_unit : field(t, r, ix, iw, n_unit, "unit", o.unit);
	r += r >= end ? n_cg : field(t, r, ix, iw, n_cg, "cgroup", o.cgroup);
	return r;
}

/* ms since the epoch as the local date and time with its zone, or "--". */
static void local_time(uint64_t ms, char *out, size_t n)
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;

	snprintf(out, n, "--");
	if (localtime_r(&s, &tm))
		strftime(out, n, "%Y-%m-%d %H:%M:%S %Z", &tm);
}

/* Draws from row r when the process started, in local time and with its age
 * at now, and its GPU with the memory and util it has there, its CPU and its
 * RSS. Returns the next row. */
static int draw_use(struct tui *t, const struct gpu_process *p, uint64_t now, int r, int end, int ix, int iw)
{
	const struct frame *f = t->frame;
	char buf[PROCESS_CMDLINE_MAX + 64], a[64], b[64], c[64], d[64];

	char when[64];
	if (process_has(p, PROC_F_START)) {
		local_time(p->start_ms, when, sizeof(when));
		proctable_cell(f, p, PROCTABLE_TIME, now, a, sizeof(a));
		snprintf(buf, sizeof(buf), "%s   (%s ago)", when, a);
	}
	if (r < end)
		line(t, r, ix, iw, "started", process_has(p, PROC_F_START) ? buf : NULL);
	r++;
	if (p->idle_since_ms) {
		/* Idle (model/idle.h): since when it has held its memory at 0 %. */
		local_time(p->idle_since_ms, when, sizeof(when));
		proctable_cell(f, p, PROCTABLE_IDLE, now, a, sizeof(a));
		proctable_cell(f, p, PROCTABLE_GPUMEM, now, b, sizeof(b));
		snprintf(buf, sizeof(buf), "since %s   (%s), holding %s at 0%% GPU", when, a, b);
		if (r < end)
			line(t, r, ix, iw, "idle", buf);
		r++;
	}
	const char *gname = f && p->gpu_index < f->ngpus && gpu_has(&f->gpus[p->gpu_index], GPU_F_NAME)
				    ? f->gpus[p->gpu_index].name
				    : NULL;
	proctable_cell(f, p, PROCTABLE_GPUMEM, now, a, sizeof(a));
	proctable_cell(f, p, PROCTABLE_GPU, now, b, sizeof(b));
	proctable_cell(f, p, PROCTABLE_CPU, now, c, sizeof(c));
	proctable_cell(f, p, PROCTABLE_HOSTMEM, now, d, sizeof(d));
	snprintf(buf, sizeof(buf), "%" PRIu64 " %s   memory %s   util %s%s   CPU %s%s   RSS %s", p->gpu_index,
		 gname ? gname : "", a, b, strcmp(b, "--") ? "%" : "", c, strcmp(c, "--") ? "%" : "", d);
	if (r < end)
		line(t, r, ix, iw, "GPU", buf);
	return r + 1;
}

void tui_details_draw(struct tui *t)
{
	const struct gpu_process *p;
	const struct frame *f = t->frame;
	struct tui_inside in;
	char buf[PROCESS_CMDLINE_MAX + 64], a[64], b[64];

	if (!tui_overlay(t, TUI_MODE_DETAILS, "pid", &p, &in) || !p || !f)
		return;
	int ix = in.x, iw = in.w, r = in.y, end = in.end;
	uint64_t now = f && frame_has(f, FRAME_F_TS) ? f->ts_ms : clock_wall_ms();
	proctable_cell(f, p, PROCTABLE_USER, now, a, sizeof(a));
	if (process_has(p, PROC_F_CONTAINER_PID))
		snprintf(b, sizeof(b), "%" PRIu64, p->container_pid);
	else
		snprintf(b, sizeof(b), "--");
	snprintf(buf, sizeof(buf), "%" PRIu64 "   user %s   pid in its namespace (NSpid) %s", p->pid, a, b);
	line(t, r++, ix, iw, "pid", buf);
	r = draw_long_values(t, p, r, end, ix, iw);
	r = draw_use(t, p, now, r, end, ix, iw);
	r++;
	if (r + PROCHIST__COUNT + 1 < end)
		draw_chart(t, p, r, ix, iw);
}
