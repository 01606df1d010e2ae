/* draw_gpu: one GPU's panel. Its line shows the index, name, util and memory
 * bars, temperature and power, or a lost or suspended GPU's last readings.
 * On wide screens its details line shows clocks, voltage, fan, PCIe,
 * engines, P-state, throttling and the memory no process accounts for. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tui/tui_priv.h"
#include "util/fmt.h"

static bool known(const struct gpu *g, enum gpu_field f)
{
	return gpu_has(g, f);
}

static void put_pct(struct tui_line *l, bool known, double v);

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

/* The memory that no listed process accounts for, or false when that is not
 * known. */
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

/* Writes "%3.0f%%" without printf, or " --%" when the value is unknown. */
static void fmt_pct(char *b, size_t n, const struct gpu *g, enum gpu_field f, double v)
{
	char num[32] = "--";
	size_t len = known(g, f) ? fmt_fixed(num, sizeof(num), field_num_whole(v), 0) : 2;
	tui_join(b, n, (const char *const[]){len < 3 ? &"   "[len] : "", num, "%", NULL});
}

/* Draws a lost or suspended GPU after its name: the state, then its last
 * known readings, dimmed, which show what it was doing when it went. */
static void draw_gone(struct tui *t, const struct frame *f, size_t i, int y, int x, int w)
{
	const struct gpu *g = &f->gpus[i];
	const struct gpu_seen *l = f->seen && f->seen[i].seen ? &f->seen[i] : NULL;
	char buf[128], used[16], total[16];

	tui_attr(t, TC_CRIT, true);
	tui_text(t, y, x, gpu_state(g) == GPU_STATE_LOST ? "LOST" : "SUSPENDED", 10);
	tui_attr(t, TC_CRIT, false);
	tui_size(total, sizeof(total), known(g, GPU_F_MEM_TOTAL), field_num_u64(g->mem_total_bytes));
	if (l) {
		char when[16] = "--:--:--", util[8] = "--", temp[8] = "--", pw[8] = "--";
		if (l->gone_ms || l->ts_ms)
			tui_hms(when, sizeof(when), (time_t)((l->gone_ms ? l->gone_ms : l->ts_ms) / 1000));
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
	tui_text(t, y, x + 11, buf, w - 11);
	tui_attr(t, TC_DIM, false);
}

/* Draws the temperature, " 65°C", in its colour, and returns the columns it
 * took. */
static int draw_temp(struct tui *t, const struct gpu *g, int y, int x)
{
	const char *unit = t->utf8 ? "\u00b0C" : "C";
	int64_t temp = field_num_i64(g->temp_c);
	char buf[32];

	if (known(g, GPU_F_TEMP) && temp >= 0) {
		fmt_u64(buf, sizeof(buf), (uint64_t)temp, 3, ' ');
		strcat(buf, unit);
	} else if (known(g, GPU_F_TEMP)) {
		snprintf(buf, sizeof(buf), "%3" PRId64 "%s", temp, unit);
	} else {
		snprintf(buf, sizeof(buf), " --%s", unit);
	}
	enum tui_color tc = temp_color(g);
	tui_attr(t, tc, true);
	int cols = tui_text(t, y, x, buf, 5);
	tui_attr(t, tc, false);
	return cols;
}

/* Draws SM and tensor activity (GPM) after the utilisation where either is
 * known: "SM  45% TENSOR  30% " when wide, "SM45% T30% " at 80 columns.
 * Returns the columns taken. */
static int draw_activity(struct tui *t, const struct gpu *g, int y, int x, bool wide)
{
	char sm[16], tc[16], buf[64];

	if (!known(g, GPU_F_SM_ACTIVE) && !known(g, GPU_F_TENSOR_ACTIVE))
		return 0;
	if (wide) {
		fmt_pct(sm, sizeof(sm), g, GPU_F_SM_ACTIVE, g->act.sm_pct);
		fmt_pct(tc, sizeof(tc), g, GPU_F_TENSOR_ACTIVE, g->act.tensor_pct);
		tui_join(buf, sizeof(buf), (const char *const[]){"SM", sm, " TENSOR", tc, " ", NULL});
	} else {
		struct tui_line l;
		tui_line_init(&l, buf, sizeof(buf));
		tui_line_put(&l, "SM");
		put_pct(&l, known(g, GPU_F_SM_ACTIVE), field_num_whole(g->act.sm_pct));
		tui_line_put(&l, " T");
		put_pct(&l, known(g, GPU_F_TENSOR_ACTIVE), field_num_whole(g->act.tensor_pct));
		tui_line_put(&l, " ");
	}
	return tui_text(t, y, x, buf, (int)strlen(buf));
}

/* Draws the power, " 641/700W", with the limit beside it when wide. */
static void fmt_power(char *buf, size_t n, const struct gpu *g, bool wide)
{
	char num[32], lim[16] = "--";
	struct tui_line l;

	tui_line_init(&l, buf, n);
	size_t len = known(g, GPU_F_POWER) ? fmt_fixed(num, sizeof(num), field_num_whole(g->power_w), 0) : 2;
	if (!known(g, GPU_F_POWER))
		snprintf(num, sizeof(num), "--");
	for (; len < 4; len++)
		tui_line_put(&l, " ");
	tui_line_put(&l, num);
	if (wide) {
		if (known(g, GPU_F_POWER_LIMIT))
			fmt_fixed(lim, sizeof(lim), field_num_whole(g->power_limit_w), 0);
		tui_line_put(&l, "/");
		tui_line_put(&l, lim);
	}
	tui_line_put(&l, "W");
}

void tui_gpu_draw_line(struct tui *t, const struct frame *f, size_t i, int y, int x, int w)
{
	const struct gpu *g = &f->gpus[i];
	bool gone = gpu_is_unread(g);
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
		draw_gone(t, f, i, y, x + 4 + namew, w - 4 - namew);
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
	cx += draw_activity(t, g, y, cx, w >= 100);
	double mp = mem_pct(g);
	if (barw) {
		tui_bar(t, y, cx, barw, mp, mp > 90 ? TC_CRIT : TC_BAR);
		cx += barw;
	}
	tui_size(used, sizeof(used), known(g, GPU_F_MEM_USED), field_num_u64(g->mem_used_bytes));
	tui_size(total, sizeof(total), known(g, GPU_F_MEM_TOTAL), field_num_u64(g->mem_total_bytes));
	if (!known(g, GPU_F_MEM_USED) && !known(g, GPU_F_MEM_TOTAL) && known(g, GPU_F_CLOCK_GFX))
		/* A GPU with no memory of its own, an iGPU, shows its clock instead of an
		 * empty "--/--". */
		fmt_cat(buf, sizeof(buf), fmt_u64(buf, sizeof(buf), field_num_u64(g->clock_gfx_mhz), 0, ' '), "MHz");
	else
		fmt_cat(buf, sizeof(buf), fmt_cat(buf, sizeof(buf), fmt_cat(buf, sizeof(buf), 0, used), "/"), total);
	if (mp > 90)
		tui_attr(t, TC_CRIT, true);
	tui_text_right(t, y, cx, buf, 11);
	if (mp > 90)
		tui_attr(t, TC_CRIT, false);
	cx += 12;
	cx += draw_temp(t, g, y, cx) + 1;
	fmt_power(buf, sizeof(buf), g, w >= 70);
	tui_text(t, y, cx, buf, x + w - cx);
}

static void put_i(struct tui_line *l, int64_t v)
{
	if (v < 0)
		tui_line_put(l, "-");
	tui_line_u64(l, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 0, ' ');
}

/* A whole percentage, or "--" when unknown. */
static void put_pct(struct tui_line *l, bool known, double v)
{
	if (!known) {
		tui_line_put(l, "--");
		return;
	}
	tui_line_fixed(l, v, 0);
	tui_line_put(l, "%");
}

/* Appends "NAME value unit  " for a field of g that is known. */
static void put_u64_field(struct tui_line *l, const struct gpu *g, enum gpu_field f, const char *name, long double v,
			  const char *unit)
{
	if (!known(g, f))
		return;
	tui_line_put(l, name);
	tui_line_u64(l, field_num_u64(v), 0, ' ');
	tui_line_put(l, unit);
}

/* The clocks, voltage, GTT, junction temperature and fan. */
static void put_clocks(struct tui_line *l, const struct gpu *g)
{
	if (known(g, GPU_F_INTEGRATED) && g->integrated)
		tui_line_put(l, "iGPU  ");
	if (known(g, GPU_F_CLOCK_GFX))
		put_u64_field(l, g, GPU_F_CLOCK_GFX, "GFX ", g->clock_gfx_mhz, "MHz  ");
	else
		tui_line_put(l, "GFX --  ");
	put_u64_field(l, g, GPU_F_VOLTAGE, "", g->voltage_mv, "mV  ");
	put_u64_field(l, g, GPU_F_CLOCK_MEM, "MCLK ", g->clock_mem_mhz, "MHz  ");
	/* AMD's system memory mapped for the GPU, beside VRAM. */
	if (known(g, GPU_F_GTT_USED) || known(g, GPU_F_GTT_TOTAL)) {
		char a[24], b[24];
		tui_size(a, sizeof(a), known(g, GPU_F_GTT_USED), field_num_u64(g->gtt_used_bytes));
		tui_size(b, sizeof(b), known(g, GPU_F_GTT_TOTAL), field_num_u64(g->gtt_total_bytes));
		tui_line_puts(l, (const char *const[]){"GTT ", a, "/", b, "  ", NULL});
	}
	if (known(g, GPU_F_TEMP_JUNCTION)) {
		tui_line_put(l, "JCT ");
		put_i(l, field_num_i64(g->temp_junction_c));
		tui_line_put(l, "C  ");
	}
	if (known(g, GPU_F_FAN_PCT)) {
		tui_line_put(l, "FAN ");
		put_pct(l, true, field_num_whole(g->fan_pct));
		tui_line_put(l, "  ");
	} else {
		put_u64_field(l, g, GPU_F_FAN_RPM, "FAN ", g->fan_rpm, "rpm  ");
	}
}

/* PCIe throughput, the video engines, the P-state, AMD's forced level. */
static void put_engines(struct tui_line *l, const struct gpu *g)
{
	if (known(g, GPU_F_PCIE_RX) || known(g, GPU_F_PCIE_TX)) {
		char a[24], b[24];
		tui_size(a, sizeof(a), known(g, GPU_F_PCIE_RX), field_num_u64(g->pcie_rx_bytes_per_s));
		tui_size(b, sizeof(b), known(g, GPU_F_PCIE_TX), field_num_u64(g->pcie_tx_bytes_per_s));
		tui_line_puts(l, (const char *const[]){"RX ", a, "/s TX ", b, "/s  ", NULL});
	}
	if (known(g, GPU_F_ENC) || known(g, GPU_F_DEC)) {
		tui_line_put(l, "ENC ");
		put_pct(l, known(g, GPU_F_ENC), field_num_whole(g->enc_pct));
		tui_line_put(l, " DEC ");
		put_pct(l, known(g, GPU_F_DEC), field_num_whole(g->dec_pct));
		tui_line_put(l, known(g, GPU_F_VIDEO) ? " " : "  ");
	}
	if (known(g, GPU_F_VIDEO)) {
		/* One engine for both, AMD's VCN, goes beside ENC and DEC when
		 * those are known too. */
		tui_line_put(l, "VID ");
		put_pct(l, true, field_num_whole(g->act.video_pct));
		tui_line_put(l, "  ");
	}
	if (known(g, GPU_F_SM_OCCUPANCY)) {
		tui_line_put(l, "OCC ");
		put_pct(l, true, field_num_whole(g->act.sm_occupancy_pct));
		tui_line_put(l, "  ");
	}
	if (known(g, GPU_F_DRAM_ACTIVE)) {
		tui_line_put(l, "DRAM ");
		put_pct(l, true, field_num_whole(g->act.dram_pct));
		tui_line_put(l, "  ");
	}
	if (known(g, GPU_F_NVLINK_RX) || known(g, GPU_F_NVLINK_TX)) {
		char a[24], b[24];
		tui_size(a, sizeof(a), known(g, GPU_F_NVLINK_RX), field_num_u64(g->act.nvlink_rx_bytes_per_s));
		tui_size(b, sizeof(b), known(g, GPU_F_NVLINK_TX), field_num_u64(g->act.nvlink_tx_bytes_per_s));
		tui_line_puts(l, (const char *const[]){"NVL RX ", a, "/s TX ", b, "/s  ", NULL});
	}
	if (known(g, GPU_F_PSTATE)) {
		tui_line_put(l, "P");
		tui_line_u64(l, g->pstate, 0, ' ');
		tui_line_put(l, "  ");
	}
	if (known(g, GPU_F_PERF_LEVEL) && g->perf_level && *g->perf_level) {
		tui_line_put(l, "DPM ");
		tui_line_put(l, g->perf_level); /* recorded text, which tui_text makes safe */
		tui_line_put(l, "  ");
	}
}

/* Draws the line built so far at *cx (up to column xend) in colour c,
 * moves *cx past it and empties the line. */
static void flush_line(struct tui *t, struct tui_line *l, int y, int *cx, int xend, enum tui_color c)
{
	if (l->n && *cx < xend) {
		tui_attr(t, c, true);
		*cx += tui_text(t, y, *cx, l->b, xend - *cx);
		tui_attr(t, c, false);
	}
	tui_line_init(l, l->b, l->cap);
}

/* Draws the throttle reasons, except the idle one, in yellow. */
static void draw_throttle(struct tui *t, const struct gpu *g, int y, int cx, int xend)
{
	char buf[512];
	size_t m = 0;

	if (!known(g, GPU_F_THROTTLE) || !(g->throttle & ~(1u << GPU_THROTTLE_GPU_IDLE)) || cx >= xend)
		return;
	buf[0] = '\0';
	for (unsigned r = 1; r < GPU_THROTTLE__COUNT; r++)
		if (g->throttle >> r & 1u)
			m += (size_t)snprintf(buf + m, m < sizeof(buf) ? sizeof(buf) - m : 0, "%s%s", m ? "," : "throttle: ",
					      GPU_THROTTLE_NAMES[r]);
	tui_attr(t, TC_WARN, true);
	tui_text(t, y, cx, buf, xend - cx);
	tui_attr(t, TC_WARN, false);
}

void tui_gpu_draw_details(struct tui *t, const struct frame *f, size_t i, int y, int x, int w)
{
	const struct gpu *g = &f->gpus[i];
	char buf[512], link[64];
	struct tui_line l;
	int cx = x + 4;
	uint64_t un;

	if (gpu_is_unread(g))
		return;
	tui_line_init(&l, buf, sizeof(buf));
	put_clocks(&l, g);
	if (gpu_pcie_link(g, link, sizeof(link))) {
		/* A link below its maximum is a warning, as throttling is. */
		flush_line(t, &l, y, &cx, x + w, TC_DIM);
		tui_line_put(&l, "PCIe ");
		tui_line_put(&l, link);
		flush_line(t, &l, y, &cx, x + w, TC_WARN);
		tui_line_put(&l, " ");
	} else if (link[0]) {
		tui_line_puts(&l, (const char *const[]){"PCIe ", link, " ", NULL});
	}
	put_engines(&l, g);
	if (unattributed(f, i, &un) && un > 0) {
		char a[24];
		tui_size(a, sizeof(a), true, un);
		tui_line_puts(&l, (const char *const[]){"unattributed ", a, "  ", NULL});
	}
	flush_line(t, &l, y, &cx, x + w, TC_DIM);
	draw_throttle(t, g, y, cx, x + w);
}
