/* drm_sysfs: one card's sysfs and hwmon readings; README's section "AMD,
 * Intel and other DRM GPUs" names each file. Every file is optional. One that
 * is missing, truncated or holds garbage leaves its field unknown, and the
 * others are read as usual. */
#include "drm/drm_sysfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "drm/drm_parse.h"
#include "util/kvparse.h"
#include "util/readfile.h"

/* Writes "class/drm/<card>/" + under + rel into out, and returns false when
 * it does not fit. */
static bool card_path(char *out, size_t n, const struct drm_card *c, const char *under, const char *rel)
{
	int len = snprintf(out, n, "class/drm/%s/%s%s", c->card, under, rel);
	return len > 0 && (size_t)len < n;
}

static ssize_t read_text(int fd, const struct drm_card *c, const char *under, const char *rel, char *buf,
			 size_t n)
{
	char path[256];

	if (!rel || !card_path(path, sizeof(path), c, under, rel))
		return -1;
	return readfile_fd(fd, path, buf, n);
}

static bool read_u64(int fd, const struct drm_card *c, const char *under, const char *rel, uint64_t *v)
{
	char buf[64];
	ssize_t len = read_text(fd, c, under, rel, buf, sizeof(buf));

	return len > 0 && kvparse_single_u64(buf, (size_t)len, v) == 0;
}

static bool read_scaled(int fd, const struct drm_card *c, const char *under, const char *rel, long double div,
			long double *v)
{
	char buf[64];
	ssize_t len = read_text(fd, c, under, rel, buf, sizeof(buf));

	return len > 0 && drm_parse_scaled(buf, (size_t)len, div, v) == 0;
}

static void put_num(struct gpu *g, enum gpu_field f, long double *dst, long double v)
{
	*dst = v;
	gpu_set(g, f);
}

bool drm_sysfs_suspended(int sysfs_fd, const struct drm_card *c)
{
	char buf[64];
	ssize_t len = read_text(sysfs_fd, c, "device/", "power/runtime_status", buf, sizeof(buf));

	return len > 0 && drm_parse_runtime_status(buf, (size_t)len) == DRM_RPM_SUSPENDED;
}

bool drm_sysfs_present(int sysfs_fd, const struct drm_card *c)
{
	char path[96], target[512];

	if (!card_path(path, sizeof(path), c, "device", ""))
		return false;
	ssize_t len = readlinkat(sysfs_fd, path, target, sizeof(target) - 1);
	if (len <= 0)
		return false;
	target[len] = '\0';
	const char *base = strrchr(target, '/');
	return strcmp(base ? base + 1 : target, c->devname) == 0;
}

/* Memory in use into g, and with rare set the totals into rare. */
static void read_memory(int fd, const struct drm_card *c, const struct drm_desc *d, struct gpu *g, struct gpu *rare)
{
	uint64_t v;

	if (read_u64(fd, c, "device/", d->vram_used, &v))
		put_num(g, GPU_F_MEM_USED, &g->mem_used_bytes, (long double)v);
	if (read_u64(fd, c, "device/", d->gtt_used, &v))
		put_num(g, GPU_F_GTT_USED, &g->gtt_used_bytes, (long double)v);
	if (!rare)
		return;
	if (read_u64(fd, c, "device/", d->vram_total, &v) && v > 0)
		put_num(rare, GPU_F_MEM_TOTAL, &rare->mem_total_bytes, (long double)v);
	if (read_u64(fd, c, "device/", d->gtt_total, &v) && v > 0)
		put_num(rare, GPU_F_GTT_TOTAL, &rare->gtt_total_bytes, (long double)v);
}

static void read_dpm(int fd, const struct drm_card *c, const char *rel, struct gpu *g, enum gpu_field cur,
		     long double *curv, enum gpu_field max, long double *maxv)
{
	char buf[2048];
	ssize_t len = read_text(fd, c, "device/", rel, buf, sizeof(buf));
	struct drm_dpm dpm;

	if (len <= 0)
		return;
	drm_parse_dpm(buf, kvparse_complete(buf, (size_t)len, sizeof(buf)), &dpm);
	if (dpm.cur_known)
		put_num(g, cur, curv, (long double)dpm.cur_mhz);
	if (dpm.max_known)
		put_num(g, max, maxv, (long double)dpm.max_mhz);
}

/* The clocks into g; a DPM table gives the current and the highest level in
 * one read. With rare set, the maximum frequency file into rare. */
static void read_clocks(int fd, const struct drm_card *c, const struct drm_desc *d, struct gpu *g, struct gpu *rare)
{
	uint64_t v;

	read_dpm(fd, c, d->dpm_gfx, g, GPU_F_CLOCK_GFX, &g->clock_gfx_mhz, GPU_F_CLOCK_GFX_MAX, &g->clock_gfx_max_mhz);
	read_dpm(fd, c, d->dpm_mem, g, GPU_F_CLOCK_MEM, &g->clock_mem_mhz, GPU_F_CLOCK_MEM_MAX, &g->clock_mem_max_mhz);
	if (read_u64(fd, c, "", d->freq_act, &v) && v <= 1000000)
		put_num(g, GPU_F_CLOCK_GFX, &g->clock_gfx_mhz, (long double)v);
	if (rare && read_u64(fd, c, "", d->freq_max, &v) && v > 0 && v <= 1000000)
		put_num(rare, GPU_F_CLOCK_GFX_MAX, &rare->clock_gfx_max_mhz, (long double)v);
}

/* The PCI core's link files, which every PCI GPU has; iGPUs print Unknown
 * and 0. */
static void read_link(int fd, const struct drm_card *c, struct gpu *g)
{
	static const char *const files[2][2] = {{"current_link_speed", "current_link_width"},
						 {"max_link_speed", "max_link_width"}};
	uint64_t *gens[2] = {&g->link.gen, &g->link.gen_max}, *widths[2] = {&g->link.width, &g->link.width_max};
	const enum gpu_field gf[2] = {GPU_F_PCIE_GEN, GPU_F_PCIE_GEN_MAX}, wf[2] = {GPU_F_PCIE_WIDTH, GPU_F_PCIE_WIDTH_MAX};
	char buf[64];
	uint64_t v;

	for (int i = 0; i < 2 && c->pci; i++) {
		ssize_t len = read_text(fd, c, "device/", files[i][0], buf, sizeof(buf));
		if (len > 0 && drm_parse_link_gen(buf, (size_t)len, &v) == 0) {
			*gens[i] = v;
			gpu_set(g, gf[i]);
		}
		if (read_u64(fd, c, "device/", files[i][1], &v) && v > 0 && v <= 64) {
			*widths[i] = v;
			gpu_set(g, wf[i]);
		}
	}
}

/* The card's first hwmonN, whose N can change between boots, or "" when there
 * is none. */
static void find_hwmon(int fd, const struct drm_card *c, char *out, size_t n)
{
	char path[96];
	struct dirent *de;

	out[0] = '\0';
	if (!card_path(path, sizeof(path), c, "device/", "hwmon"))
		return;
	DIR *d = drm_card_opendir(fd, path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5) != 0 || !de->d_name[5] || strlen(de->d_name) >= n)
			continue;
		if (!out[0] || strcmp(de->d_name, out) < 0)
			memcpy(out, de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
}

static void read_labels(int fd, const struct drm_card *c, const char *under, struct drm_sysfs_state *st)
{
	for (unsigned ch = 1; ch <= DRM_SYSFS_MAX_TEMPS; ch++) {
		char rel[32], buf[64];
		snprintf(rel, sizeof(rel), "temp%u_label", ch);
		ssize_t len = read_text(fd, c, under, rel, buf, sizeof(buf));
		st->label_known[ch] = len >= 0;
		len = len > 0 ? (ssize_t)kvparse_trim_end(buf, (size_t)len) : 0;
		if ((size_t)len >= sizeof(st->labels[ch]))
			len = (ssize_t)sizeof(st->labels[ch]) - 1;
		memcpy(st->labels[ch], buf, (size_t)len);
		st->labels[ch][len] = '\0';
	}
	/* in0 is the core voltage where it is labelled so or not labelled at
	 * all; an APU's in1 is the northbridge's. */
	char buf[64];
	ssize_t len = read_text(fd, c, under, "in0_label", buf, sizeof(buf));
	len = len > 0 ? (ssize_t)kvparse_trim_end(buf, (size_t)len) : len;
	st->volt_ok = len < 0 || (len == 6 && memcmp(buf, "vddgfx", 6) == 0);
	st->labels_read = true;
}

/* The channel of a mapping: the one with its label, else its number when
 * that channel has no label, or 0 for none. */
static unsigned temp_channel(const struct drm_sysfs_state *st, const struct drm_temp_map *m)
{
	for (unsigned ch = 1; ch <= DRM_SYSFS_MAX_TEMPS; ch++)
		if (st->label_known[ch] && m->label[0] && strcmp(st->labels[ch], m->label) == 0)
			return ch;
	return m->channel <= DRM_SYSFS_MAX_TEMPS && !st->label_known[m->channel] ? m->channel : 0;
}

/* The temperatures into g, and with rare set the limits into rare. */
static void read_temps(int fd, const struct drm_card *c, const char *under, const struct drm_desc *d,
		       const struct drm_sysfs_state *st, struct gpu *g, struct gpu *rare)
{
	for (size_t i = 0; i < DRM_DESC_MAX_TEMPS && d->temps[i].label; i++) {
		const struct drm_temp_map *m = &d->temps[i];
		unsigned ch = temp_channel(st, m);
		char rel[32];
		long double v;
		if (!ch)
			continue;
		snprintf(rel, sizeof(rel), "temp%u_input", ch);
		if (read_scaled(fd, c, under, rel, 1000, &v) && v > -273 && v < 1000) {
			if (m->target == DRM_TEMP_GPU)
				put_num(g, GPU_F_TEMP, &g->temp_c, v);
			else if (m->target == DRM_TEMP_JUNCTION)
				put_num(g, GPU_F_TEMP_JUNCTION, &g->temp_junction_c, v);
			else
				put_num(g, GPU_F_TEMP_MEM, &g->temp_mem_c, v);
		}
		if (m->target != DRM_TEMP_GPU || !rare)
			continue;
		snprintf(rel, sizeof(rel), "temp%u_crit", ch);
		if (read_scaled(fd, c, under, rel, 1000, &v) && v > 0 && v < 1000)
			put_num(rare, GPU_F_TEMP_SLOWDOWN, &rare->temp_slowdown_c, v);
		snprintf(rel, sizeof(rel), "temp%u_emergency", ch);
		if (read_scaled(fd, c, under, rel, 1000, &v) && v > 0 && v < 1000)
			put_num(rare, GPU_F_TEMP_SHUTDOWN, &rare->temp_shutdown_c, v);
	}
}

/* Power and energy into g, and with rare set the power cap into rare. */
static void read_power(int fd, const struct drm_card *c, const char *under, const struct drm_desc *d,
		       struct drm_sysfs_state *st, uint64_t now_ns, uint64_t min_ns, struct gpu *g, struct gpu *rare)
{
	long double v;
	uint64_t uj;

	if (d->power == DRM_POWER_UW) {
		/* Most amdgpu ASICs have one of the two: power1_average, in µW
		 * averaged, or from Linux 6.6 power1_input, in µW now. */
		if ((read_scaled(fd, c, under, "power1_average", 1e6L, &v) ||
		     read_scaled(fd, c, under, "power1_input", 1e6L, &v)) && v >= 0 && v < 1e6L)
			put_num(g, GPU_F_POWER, &g->power_w, v);
	} else if (d->power == DRM_POWER_ENERGY) {
		bool got = false;
		for (const char *const *e = d->energy; e && *e && !got; e++)
			got = read_u64(fd, c, under, *e, &uj);
		if (got) {
			put_num(g, GPU_F_ENERGY, &g->energy_j, (long double)uj / 1e6L);
			if (drm_energy_sample(&st->energy, uj, now_ns, min_ns, &v))
				put_num(g, GPU_F_POWER, &g->power_w, v);
		} else {
			st->energy.known = false;
		}
	}
	if (rare && read_scaled(fd, c, under, d->power_cap, 1e6L, &v) && v > 0 && v < 1e6L)
		put_num(rare, GPU_F_POWER_LIMIT, &rare->power_limit_w, v);
}

static void read_fan(int fd, const struct drm_card *c, const char *under, struct gpu *g)
{
	uint64_t rpm, pwm, max = 255;

	if (read_u64(fd, c, under, "fan1_input", &rpm) && rpm < 1000000)
		put_num(g, GPU_F_FAN_RPM, &g->fan_rpm, (long double)rpm);
	if (!read_u64(fd, c, under, "pwm1", &pwm))
		return;
	if (read_u64(fd, c, under, "pwm1_max", &max) && max == 0)
		return;
	if (pwm <= max)
		put_num(g, GPU_F_FAN_PCT, &g->fan_pct, (long double)pwm * 100.0L / (long double)max);
}

#define FAN_FIELDS (UINT64_C(1) << GPU_F_FAN_RPM | UINT64_C(1) << GPU_F_FAN_PCT)
#define RARE_FIELDS                                                                                              \
	(UINT64_C(1) << GPU_F_MEM_TOTAL | UINT64_C(1) << GPU_F_GTT_TOTAL | UINT64_C(1) << GPU_F_CLOCK_GFX_MAX |   \
	 UINT64_C(1) << GPU_F_PCIE_GEN | UINT64_C(1) << GPU_F_PCIE_WIDTH | UINT64_C(1) << GPU_F_PCIE_GEN_MAX |     \
	 UINT64_C(1) << GPU_F_PCIE_WIDTH_MAX | UINT64_C(1) << GPU_F_POWER_LIMIT |                                  \
	 UINT64_C(1) << GPU_F_TEMP_SLOWDOWN | UINT64_C(1) << GPU_F_TEMP_SHUTDOWN)

#define HWMON_RARE_FIELDS \
	(UINT64_C(1) << GPU_F_POWER_LIMIT | UINT64_C(1) << GPU_F_TEMP_SLOWDOWN | UINT64_C(1) << GPU_F_TEMP_SHUTDOWN)

static void read_hwmon(int fd, const struct drm_card *c, const struct drm_desc *d, struct drm_sysfs_state *st,
		       uint64_t now_ns, uint64_t min_ns, struct gpu *g, struct gpu *rare)
{
	char hw[sizeof(st->hwmon)], under[64];

	find_hwmon(fd, c, hw, sizeof(hw));
	if (strcmp(hw, st->hwmon) != 0) {
		/* A new hwmon, after the driver bound again, has new labels and a new
		 * counter. */
		memcpy(st->hwmon, hw, sizeof(hw));
		st->labels_read = st->energy.known = false;
		/* What the old hwmon gave is not this one's: read it again at
		 * once (the rest of the rare files at the next poll). */
		st->held.valid &= ~(FAN_FIELDS | HWMON_RARE_FIELDS);
		st->fan_next_ns = st->rare_next_ns = 0;
	}
	if (!hw[0])
		return;
	snprintf(under, sizeof(under), "device/hwmon/%s/", hw);
	if (!st->labels_read)
		read_labels(fd, c, under, st);
	read_temps(fd, c, under, d, st, g, rare);
	read_power(fd, c, under, d, st, now_ns, min_ns, g, rare);
	if (now_ns >= st->fan_next_ns) {
		st->held.valid &= ~FAN_FIELDS;
		read_fan(fd, c, under, &st->held);
		st->fan_next_ns = now_ns + DRM_SYSFS_FAN_NS;
	}
	long double mv;
	if (st->volt_ok && read_scaled(fd, c, under, d->voltage, 1, &mv) && mv >= 0 && mv < 1e6L)
		put_num(g, GPU_F_VOLTAGE, &g->voltage_mv, mv);
}

/* A forced performance level, of lowercase letters and '_' only ("manual",
 * "profile_peak"). "auto", the driver's own choice, is none. */
static void read_perf_level(int fd, const struct drm_card *c, const struct drm_desc *d, struct drm_sysfs_state *st)
{
	char buf[64];
	ssize_t len = read_text(fd, c, "device/", d->perf_level, buf, sizeof(buf));

	st->perf_level[0] = '\0';
	len = len > 0 ? (ssize_t)kvparse_trim_end(buf, (size_t)len) : 0;
	if (len <= 0 || (size_t)len >= sizeof(st->perf_level) || (len == 4 && memcmp(buf, "auto", 4) == 0))
		return;
	for (ssize_t i = 0; i < len; i++)
		if (!((buf[i] >= 'a' && buf[i] <= 'z') || buf[i] == '_'))
			return;
	memcpy(st->perf_level, buf, (size_t)len);
	st->perf_level[len] = '\0';
}

/* Whether the GPU is integrated, from the header of gpu_metrics (u16 size, u8
 * format revision, u8 content revision). Format 1 is a dGPU's table, and 2
 * and 3 an APU's. It is read once, because the firmware builds the table at
 * each read. */
static void read_integrated(int fd, const struct drm_card *c, const struct drm_desc *d, struct drm_sysfs_state *st)
{
	char buf[8];
	ssize_t len;

	st->integrated_read = true;
	st->integrated = -1;
	len = read_text(fd, c, "device/", d->metrics, buf, 5);
	if (len < 4)
		return;
	unsigned char format = (unsigned char)buf[2];
	if (format == 1)
		st->integrated = 0;
	else if (format == 2 || format == 3)
		st->integrated = 1;
}

void drm_sysfs_read(int sysfs_fd, const struct drm_card *c, const struct drm_desc *desc, struct drm_sysfs_state *st,
		    uint64_t now_ns, uint64_t min_ns, struct gpu *g)
{
	uint64_t v;

	if (read_u64(sysfs_fd, c, "device/", desc->util, &v) && v <= 100)
		put_num(g, GPU_F_UTIL, &g->util_pct, (long double)v);
	if (read_u64(sysfs_fd, c, "device/", desc->mem_util, &v) && v <= 100)
		put_num(g, GPU_F_MEM_UTIL, &g->mem_util_pct, (long double)v);
	/* The rare files are read into st->held, cleared first, so that a file
	 * that has gone leaves its field unknown. */
	struct gpu *rare = NULL;
	if (now_ns >= st->rare_next_ns) {
		rare = &st->held;
		rare->valid &= ~RARE_FIELDS;
		st->rare_next_ns = now_ns + DRM_SYSFS_RARE_NS;
	}
	read_memory(sysfs_fd, c, desc, g, rare);
	read_clocks(sysfs_fd, c, desc, g, rare);
	if (rare)
		read_link(sysfs_fd, c, rare);
	read_hwmon(sysfs_fd, c, desc, st, now_ns, min_ns, g, rare);
	if (rare)
		read_perf_level(sysfs_fd, c, desc, st);
	if (!st->integrated_read)
		read_integrated(sysfs_fd, c, desc, st);
	gpu_copy_numbers(g, &st->held, RARE_FIELDS | FAN_FIELDS);
}

void drm_sysfs_driver_version(int sysfs_fd, const char *procfs, const struct drm_desc *desc, char *out, size_t n)
{
	char path[96], buf[128];
	ssize_t len;

	out[0] = '\0';
	if (desc->module) {
		snprintf(path, sizeof(path), "module/%s/version", desc->module);
		len = readfile_fd(sysfs_fd, path, buf, sizeof(buf));
		if (len > 0) {
			len = (ssize_t)kvparse_trim_end(buf, (size_t)len);
			if (len > 0 && (size_t)len < n && !memchr(buf, '+', (size_t)len) && !memchr(buf, '\n', (size_t)len)) {
				memcpy(out, buf, (size_t)len);
				out[len] = '\0';
				return;
			}
		}
	}
	len = readfile_at(procfs, "sys/kernel/osrelease", buf, sizeof(buf));
	if (len <= 0 || !drm_parse_release(buf, (size_t)len, out, n))
		out[0] = '\0';
}
