/* table: a plain-text snapshot of one frame. */
#include "output/table.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/utf8.h"
#include "util/xalloc.h"
#include "model/group.h"

#define NAME_MAX_COLS 32

/* Appends the safe text of s, with control characters neutralised, cut to
 * cols columns. */
static void put_text(struct buf *out, const char *s, bool utf8, size_t cols, bool pad)
{
	struct buf tmp;
	size_t n = 0, i = 0;

	buf_init(&tmp);
	utf8_append_safe(&tmp, s ? s : "", s ? strlen(s) : 0, utf8);
	while (i < tmp.len && n < cols) {
		uint32_t cp;
		size_t used = utf8_decode(tmp.data + i, tmp.len - i, &cp);
		buf_append(out, tmp.data + i, used);
		i += used;
		n++;
	}
	while (pad && n++ < cols)
		buf_putc(out, ' ');
	buf_fini(&tmp);
}

/* The columns of s as put_text draws it, made safe first, one per
 * character. */
static size_t text_cols(const char *s, bool utf8)
{
	struct buf tmp;
	size_t n = 0;

	buf_init(&tmp);
	utf8_append_safe(&tmp, s ? s : "", s ? strlen(s) : 0, utf8);
	for (size_t i = 0; i < tmp.len; i++)
		n += ((unsigned char)tmp.data[i] & 0xC0) != 0x80;
	buf_fini(&tmp);
	return n;
}

static void put_mib(struct buf *out, bool known, long double bytes, int width)
{
	if (known)
		buf_printf(out, "%*" PRIu64, width, field_num_u64(bytes) >> 20);
	else
		buf_printf(out, "%*s", width, "--");
}

/* Appends what is known of who the row belongs to, as in
 * " [name docker:05cff9470056 pod ns/name]", or nothing when nothing is. */
static void put_owner(struct buf *out, const struct gpu_process *p, bool utf8)
{
	const char *parts[3] = {NULL, NULL, NULL};
	bool any = false;

	if (process_has(p, PROC_F_CONTAINER_NAME))
		parts[0] = p->container_name;
	if (process_has(p, PROC_F_CONTAINER))
		parts[1] = p->container;
	else if (process_has(p, PROC_F_UNIT))
		parts[1] = p->unit;
	for (int k = 0; k < 2; k++) {
		if (!parts[k] || !*parts[k])
			continue;
		buf_puts(out, any ? " " : " [");
		put_text(out, parts[k], utf8, 64, false);
		any = true;
	}
	char pod[512];
	if (*process_pod_text(p, pod, sizeof(pod))) {
		buf_puts(out, any ? " pod " : " [pod ");
		put_text(out, pod, utf8, 128, false);
		any = true;
	}
	if (any)
		buf_putc(out, ']');
}

/* Totals per owner when the frame has more than one, biggest GPU memory
 * first. They follow the dashboard's grouping by container, which is by
 * identity (model/group.h), so two pods of one name in two namespaces stay
 * two. Rows of no container are not a group here. */
static void put_groups(struct buf *out, const struct frame *f, bool utf8)
{
	struct grouping g;
	size_t *rows = f->nprocs ? xreallocarray(NULL, f->nprocs, sizeof(*rows)) : NULL;
	size_t owned = 0;
	char label[GROUP_KEY_MAX], key[GROUP_KEY_MAX], gpus[96];

	for (size_t i = 0; i < f->nprocs; i++)
		rows[i] = i;
	group_init(&g);
	group_build(&g, f, rows, f->nprocs, GROUP_BY_CONTAINER, GROUP_SORT_MEM, false);
	for (size_t k = 0; k < g.ngroups; k++)
		owned += group_key(&f->procs[g.groups[k].first], GROUP_BY_CONTAINER, key);
	for (size_t k = 0; owned > 1 && k < g.ngroups; k++) {
		const struct group *grp = &g.groups[k];
		const struct gpu_process *p = &f->procs[grp->first];
		if (!group_key(p, GROUP_BY_CONTAINER, key))
			continue;
		group_label(p, GROUP_BY_CONTAINER, label, sizeof(label));
		group_gpus(grp, gpus, sizeof(gpus));
		buf_puts(out, "group ");
		put_text(out, label, utf8, 64, false);
		/* A name is not an identity, since every replica's container may be
		 * "trainer", so the id goes with it. A key starting with "c" is a
		 * container, labelled by its name, else by that id. */
		if (key[0] == 'c' && strcmp(label, p->container) != 0) {
			buf_puts(out, " (");
			put_text(out, p->container, utf8, 64, false);
			buf_putc(out, ')');
		}
		buf_printf(out, ": %zu process%s, ", grp->nprocs, grp->nprocs == 1 ? "" : "es");
		put_mib(out, grp->mem_known, grp->mem_bytes, 0);
		buf_printf(out, " MiB, GPU %s\n", gpus);
	}
	group_fini(&g);
	free(rows);
}

/* Appends "used / total MiB", each number width columns wide and "--" when
 * unknown. */
static void put_used_total(struct buf *out, const struct gpu *g, enum gpu_field ub, long double used,
			   enum gpu_field tb, long double total, int width)
{
	put_mib(out, gpu_has(g, ub), used, width);
	buf_puts(out, " / ");
	put_mib(out, gpu_has(g, tb), total, width);
	buf_puts(out, " MiB");
}

/* A second line with what some vendors have and others do not: an integrated
 * GPU, clocks, core voltage, AMD's GTT, the PCIe link, a unified video engine
 * and AMD's forced performance level. There is no line when the GPU has none
 * of it or is not read. */
static void put_details(struct buf *out, const struct gpu *g, bool utf8)
{
	size_t start = out->len;

	if (gpu_is_unread(g))
		return;
	buf_puts(out, "    ");
	size_t empty = out->len;
	if (gpu_has(g, GPU_F_INTEGRATED) && g->integrated)
		buf_puts(out, "iGPU  ");
	if (gpu_has(g, GPU_F_CLOCK_GFX)) {
		buf_printf(out, "GFX %" PRIu64, field_num_u64(g->clock_gfx_mhz));
		if (gpu_has(g, GPU_F_CLOCK_GFX_MAX))
			buf_printf(out, "/%" PRIu64, field_num_u64(g->clock_gfx_max_mhz));
		buf_puts(out, " MHz  ");
	}
	if (gpu_has(g, GPU_F_VOLTAGE))
		buf_printf(out, "%" PRIu64 " mV  ", field_num_u64(g->voltage_mv));
	if (gpu_has(g, GPU_F_CLOCK_MEM))
		buf_printf(out, "MEM %" PRIu64 " MHz  ", field_num_u64(g->clock_mem_mhz));
	if (gpu_has(g, GPU_F_GTT_USED) || gpu_has(g, GPU_F_GTT_TOTAL)) {
		buf_puts(out, "GTT ");
		put_used_total(out, g, GPU_F_GTT_USED, g->gtt_used_bytes, GPU_F_GTT_TOTAL, g->gtt_total_bytes, 0);
		buf_puts(out, "  ");
	}
	if (gpu_has(g, GPU_F_TEMP_JUNCTION))
		buf_printf(out, "junction %" PRId64 "C  ", field_num_i64(g->temp_junction_c));
	char link[64];
	gpu_pcie_link(g, link, sizeof(link));
	if (link[0])
		buf_printf(out, "PCIe %s  ", link);
	if (gpu_has(g, GPU_F_VIDEO))
		buf_printf(out, "VID %.0f %%  ", field_num_whole(g->act.video_pct));
	/* GPM's activity, where the GPU has it. */
	static const struct {
		enum gpu_field f;
		const char *name;
		size_t off;
	} ACT[] = {
		{GPU_F_SM_ACTIVE, "SM", offsetof(struct gpu, act.sm_pct)},
		{GPU_F_TENSOR_ACTIVE, "TENSOR", offsetof(struct gpu, act.tensor_pct)},
		{GPU_F_SM_OCCUPANCY, "OCC", offsetof(struct gpu, act.sm_occupancy_pct)},
		{GPU_F_DRAM_ACTIVE, "DRAM", offsetof(struct gpu, act.dram_pct)},
	};
	for (size_t i = 0; i < sizeof(ACT) / sizeof(ACT[0]); i++)
		if (gpu_has(g, ACT[i].f))
			buf_printf(out, "%s %.0f %%  ", ACT[i].name,
				   field_num_whole(*(const long double *)((const char *)g + ACT[i].off)));
	if (gpu_has(g, GPU_F_PERF_LEVEL) && g->perf_level && *g->perf_level) {
		buf_puts(out, "DPM ");
		put_text(out, g->perf_level, utf8, 32, false);
		buf_puts(out, "  ");
	}
	if (out->len == empty) {
		out->len = start;
		return;
	}
	while (out->len > empty && out->data[out->len - 1] == ' ')
		out->len--;
	buf_putc(out, '\n');
}

/* The first line, with the host, the time, the recording played and the
 * source. */
static void put_heading(struct buf *out, const struct frame *f, const struct table_opts *o)
{
	char when[32] = "--";

	if (frame_has(f, FRAME_F_TS)) {
		time_t t = (time_t)(f->ts_ms / 1000);
		struct tm tm;
		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	}
	put_text(out, frame_has(f, FRAME_F_HOST) ? f->host : "--", o->utf8, 64, false);
	buf_printf(out, "  %s", when);
	if (o->replay) {
		buf_puts(out, "  REPLAY ");
		put_text(out, o->replay, o->utf8, 64, false);
	}
	if (o->source) {
		buf_puts(out, "  ");
		put_text(out, o->source, o->utf8, 80, false);
	}
	buf_putc(out, '\n');
}

/* A GPU's line, with temperature, util, memory, power, and a known LOST or
 * suspended state. An unknown state, as in a record without it, says
 * nothing. */
static void put_gpu_line(struct buf *out, const struct gpu *g, size_t i, size_t namew, bool utf8)
{
	unsigned st = gpu_state(g);

	buf_printf(out, "[%zu] ", i);
	put_text(out, gpu_has(g, GPU_F_NAME) ? g->name : "--", utf8, namew, true);
	buf_puts(out, " | ");
	if (gpu_has(g, GPU_F_TEMP))
		buf_printf(out, "%3" PRId64 "%s", field_num_i64(g->temp_c), utf8 ? "\u00b0C" : "C");
	else
		buf_printf(out, "%3s%s", "--", utf8 ? "\u00b0C" : "C");
	buf_puts(out, ", ");
	if (gpu_has(g, GPU_F_UTIL))
		buf_printf(out, "%3.0f %%", field_num_whole(g->util_pct));
	else
		buf_puts(out, " -- %");
	buf_puts(out, " | ");
	put_used_total(out, g, GPU_F_MEM_USED, g->mem_used_bytes, GPU_F_MEM_TOTAL, g->mem_total_bytes, 6);
	buf_puts(out, " | ");
	if (gpu_has(g, GPU_F_POWER))
		buf_printf(out, "%4.0f", field_num_whole(g->power_w));
	else
		buf_puts(out, "  --");
	buf_puts(out, " / ");
	if (gpu_has(g, GPU_F_POWER_LIMIT))
		buf_printf(out, "%4.0f W", field_num_whole(g->power_limit_w));
	else
		buf_puts(out, "  -- W");
	if (st == GPU_STATE_LOST)
		buf_puts(out, " | LOST");
	else if (st == GPU_STATE_SUSPENDED)
		buf_puts(out, " | suspended");
	buf_putc(out, '\n');
}

/* A process's line under its GPU, as user/pid name (memory) [owner]. */
static void put_process_line(struct buf *out, const struct gpu_process *pr, bool utf8)
{
	char shortname[64];
	const char *name = process_short_name(pr, shortname, sizeof(shortname));

	buf_puts(out, "    ");
	put_text(out, process_has(pr, PROC_F_USER) ? pr->user : "--", utf8, 16, false);
	buf_printf(out, "/%" PRIu64 " ", pr->pid);
	put_text(out, name ? name : "--", utf8, 32, false);
	buf_puts(out, " (");
	put_mib(out, process_has(pr, PROC_F_GPU_MEM), pr->gpu_mem_bytes, 0);
	buf_puts(out, " MiB)");
	put_owner(out, pr, utf8);
	buf_putc(out, '\n');
}

/* After the GPUs come a note on pids this /proc cannot see, and the events. */
static void put_notes(struct buf *out, const struct frame *f, bool utf8)
{
	size_t hidden = 0;
	bool said = false;

	for (size_t i = 0; i < f->nprocs; i++)
		hidden += f->procs[i].pid_hidden;
	for (size_t e = 0; e < f->nevents && hidden; e++)
		said |= event_has(&f->events[e], EVENT_F_DETAIL) && strstr(f->events[e].detail, "PID namespace") != NULL;
	if (hidden && !said)
		buf_printf(out, "note: %zu GPU process%s not in this PID namespace's /proc: gpur cannot see the host's "
				"pids (run it with docker run --pid=host, hostPID: true, or --procfs pointing at the host's "
				"procfs)\n", hidden, hidden == 1 ? " is" : "es are");
	for (size_t e = 0; e < f->nevents; e++) {
		char desc[320];
		event_describe(&f->events[e], desc, sizeof(desc));
		buf_puts(out, "event: ");
		put_text(out, desc, utf8, sizeof(desc), false);
		buf_putc(out, '\n');
	}
}

void table_render(struct buf *out, const struct frame *f, const struct table_opts *o)
{
	size_t namew = 4;

	put_heading(out, f, o);
	if (f->ngpus == 0)
		buf_puts(out, "(no GPUs in this frame)\n");
	for (size_t i = 0; i < f->ngpus; i++) {
		size_t w = text_cols(gpu_has(&f->gpus[i], GPU_F_NAME) ? f->gpus[i].name : "--", o->utf8);
		namew = w > namew ? w : namew;
	}
	if (namew > NAME_MAX_COLS)
		namew = NAME_MAX_COLS;
	for (size_t i = 0; i < f->ngpus; i++) {
		put_gpu_line(out, &f->gpus[i], i, namew, o->utf8);
		put_details(out, &f->gpus[i], o->utf8);
		for (size_t p = 0; p < f->nprocs; p++)
			if (f->procs[p].gpu_index == i)
				put_process_line(out, &f->procs[p], o->utf8);
	}
	put_groups(out, f, o->utf8);
	put_notes(out, f, o->utf8);
}
