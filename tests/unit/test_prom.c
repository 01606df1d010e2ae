/* test_prom: the exposition of frames — names, units and labels from the
 * field tables, label escaping, unknown values giving no sample, MIG labels,
 * lost and suspended GPUs, the process and container series with their
 * caps — and the gzip body finished per scrape. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "model/frame.h"
#include "serve/gz.h"
#include "serve/prom.h"

static struct gpu *add_gpu(struct frame *f, const char *id, const char *name)
{
	struct gpu *g = frame_add_gpu(f);
	assert_non_null(g);
	g->device_id = frame_str(f, id);
	gpu_set(g, GPU_F_DEVICE_ID);
	g->name = frame_str(f, name);
	gpu_set(g, GPU_F_NAME);
	g->vendor = frame_str(f, "nvidia");
	gpu_set(g, GPU_F_VENDOR);
	g->state = GPU_STATE_OK;
	gpu_set(g, GPU_F_STATE);
	return g;
}

static struct gpu_process *add_proc(struct frame *f, uint64_t pid, uint64_t gpu, long double mem)
{
	struct gpu_process *p = frame_add_process(f);
	assert_non_null(p);
	p->pid = pid;
	p->gpu_index = gpu;
	process_set(p, PROC_F_PID);
	process_set(p, PROC_F_GPU_INDEX);
	if (mem >= 0) {
		p->gpu_mem_bytes = mem;
		process_set(p, PROC_F_GPU_MEM);
	}
	return p;
}

static void pset(struct frame *f, struct gpu_process *p, enum process_field b, const char *s)
{
	for (size_t i = 0; i < PROCESS_NFIELDS; i++)
		if (PROCESS_FIELDS[i].bit == (unsigned)b) {
			*(const char **)field_ptr(p, &PROCESS_FIELDS[i]) = frame_str(f, s);
			process_set(p, b);
		}
}

static char *render(const struct frame *f, const struct prom_opts *o)
{
	struct buf b;
	struct prom_health h;

	prom_health_init(&h);
	prom_health_update(&h, f);
	buf_init(&b);
	prom_render(&b, f, o, &h);
	char *s = strdup(buf_cstr(&b));
	buf_fini(&b);
	return s;
}

/* The lines of text that start with prefix, counted. */
static size_t count_lines(const char *text, const char *prefix)
{
	size_t n = 0, pl = strlen(prefix);
	for (const char *p = text; *p;) {
		if (strncmp(p, prefix, pl) == 0)
			n++;
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

/* The value of the one sample line that starts with prefix. */
static double value_of(const char *text, const char *prefix)
{
	const char *p = strstr(text, prefix);
	assert_non_null(p);
	if (p != text)
		assert_true(p[-1] == '\n');
	const char *sp = strchr(p, ' ');
	const char *brace = strchr(p, '}');
	if (brace && brace < strchr(p, '\n'))
		sp = brace + 1;
	return strtod(sp, NULL);
}

/* Structural rules of text 0.0.4: a family's lines are one group, TYPE
 * once and before its samples, no series twice, the last line ends. */
static void check_exposition(const char *text)
{
	char seen_types[512][128];
	size_t ntypes = 0;
	char current[128] = "";
	size_t len = strlen(text);

	assert_true(len == 0 || text[len - 1] == '\n');
	char **lines = calloc(len + 1, sizeof(*lines));
	size_t nl = 0;
	char *copy = strdup(text);
	for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[128];
		if (strncmp(l, "# TYPE ", 7) == 0) {
			sscanf(l + 7, "%127s", name);
			for (size_t i = 0; i < ntypes; i++)
				assert_string_not_equal(seen_types[i], name);
			snprintf(seen_types[ntypes++], sizeof(seen_types[0]), "%s", name);
			snprintf(current, sizeof(current), "%s", name);
			continue;
		}
		if (l[0] == '#')
			continue;
		size_t n = strcspn(l, "{ ");
		snprintf(name, sizeof(name), "%.*s", (int)n, l);
		assert_string_equal(name, current); /* in its family's group */
		lines[nl++] = l;
	}
	/* No series twice: compare everything before the value. */
	for (size_t i = 0; i < nl; i++)
		*strrchr(lines[i], ' ') = '\0';
	for (size_t i = 0; i < nl; i++)
		for (size_t j = i + 1; j < nl && j < i + 3000; j++)
			assert_string_not_equal(lines[i], lines[j]);
	free(copy);
	free(lines);
}

static void test_label_escaping(void **state)
{
	(void)state;
	struct buf b;
	buf_init(&b);
	prom_put_label_value(&b, "a\\b\"c\nd\te\x01" "f\x7fg\xc2\x85h\xffi\xc3\xa9");
	assert_string_equal(buf_cstr(&b), "a\\\\b\\\"c\\nd" "efgh\xef\xbf\xbdi\xc3\xa9");
	buf_reset(&b);
	char longv[600];
	memset(longv, 'x', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	prom_put_label_value(&b, longv);
	assert_int_equal(b.len, PROM_MAX_LABEL_BYTES);
	buf_fini(&b);
}

static void test_unknown_is_no_sample(void **state)
{
	(void)state;
	struct frame *f = frame_new();
	struct gpu *g = add_gpu(f, "GPU-a", "NVIDIA A100");
	g->util_pct = 37;
	gpu_set(g, GPU_F_UTIL);
	g->temp_c = 0; /* a measured 0 is a sample */
	gpu_set(g, GPU_F_TEMP);
	g->mem_used_bytes = 1073741824;
	gpu_set(g, GPU_F_MEM_USED);
	g->mem_total_bytes = 4294967296.0L;
	gpu_set(g, GPU_F_MEM_TOTAL);
	g->energy_j = 2.5;
	gpu_set(g, GPU_F_ENERGY);
	g->power_w = 245.123;
	gpu_set(g, GPU_F_POWER);
	f->host = frame_str(f, "node-1");
	frame_set(f, FRAME_F_HOST);
	struct prom_opts o = {.processes = true};
	char *t = render(f, &o);
	check_exposition(t);
	assert_non_null(strstr(t, "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"));
	assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\",modelName=\"NVIDIA A100\","
				  "Hostname=\"node-1\",vendor=\"nvidia\"} 37\n"));
	assert_true(value_of(t, "DCGM_FI_DEV_GPU_TEMP{") == 0);
	assert_true(value_of(t, "DCGM_FI_DEV_FB_USED{") == 1024);
	assert_true(value_of(t, "DCGM_FI_DEV_FB_TOTAL{") == 4096);
	assert_true(value_of(t, "DCGM_FI_DEV_FB_FREE{") == 3072);
	assert_true(value_of(t, "DCGM_FI_DEV_POWER_USAGE{") == 245.123);
	assert_non_null(strstr(t, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"));
	assert_true(value_of(t, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{") == 2500);
	/* Unknown: neither a sample nor a family header. */
	assert_null(strstr(t, "DCGM_FI_DEV_MEMORY_TEMP"));
	assert_null(strstr(t, "DCGM_FI_DEV_SM_CLOCK"));
	assert_null(strstr(t, "gpur_throttle"));
	assert_null(strstr(t, "DCGM_FI_DRIVER_VERSION")); /* no driver recorded */
	assert_null(strstr(t, "gpur_poll_duration_seconds")); /* not live */
	assert_true(value_of(t, "gpur_gpu_up{") == 1);
	assert_true(value_of(t, "gpur_gpu_lost{") == 0);
	free(t);
	/* --hostname wins over the frame's host. */
	o.hostname = "other";
	t = render(f, &o);
	assert_non_null(strstr(t, "Hostname=\"other\""));
	assert_null(strstr(t, "node-1"));
	free(t);
	frame_unref(f);
}

static void test_mig_labels(void **state)
{
	(void)state;
	struct frame *f = frame_new();
	struct gpu *p = add_gpu(f, "GPU-parent", "NVIDIA A100-SXM4-40GB");
	p->mig_mode = true;
	gpu_set(p, GPU_F_MIG_MODE);
	const char *profiles[2] = {"3g.20gb", "1g.5gb"};
	for (int i = 0; i < 2; i++) {
		char id[32], name[64];
		snprintf(id, sizeof(id), "MIG-%d", i);
		snprintf(name, sizeof(name), "NVIDIA A100-SXM4-40GB MIG %s", profiles[i]);
		struct gpu *m = add_gpu(f, id, name);
		m->parent_device_id = frame_str(f, "GPU-parent");
		gpu_set(m, GPU_F_PARENT_DEVICE_ID);
		m->mem_used_bytes = 1048576.0L * (i + 1);
		gpu_set(m, GPU_F_MEM_USED);
	}
	struct gpu *plain = add_gpu(f, "GPU-plain", "NVIDIA A100-SXM4-40GB");
	plain->mem_used_bytes = 0;
	gpu_set(plain, GPU_F_MEM_USED);
	add_proc(f, 100, 1, 1048576);
	add_proc(f, 200, 3, 4096);
	struct prom_opts o = {.processes = true};
	char *t = render(f, &o);
	check_exposition(t);
	assert_non_null(strstr(t, "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-parent\",device=\"nvidia0\","
				  "modelName=\"NVIDIA A100-SXM4-40GB\",GPU_I_PROFILE=\"3g.20gb\",GPU_I_ID=\"0\",vendor=\"nvidia\"} 1\n"));
	assert_non_null(strstr(t, "GPU_I_PROFILE=\"1g.5gb\",GPU_I_ID=\"1\",vendor=\"nvidia\"} 2\n"));
	assert_non_null(strstr(t, "DCGM_FI_DEV_FB_USED{gpu=\"1\",UUID=\"GPU-plain\",device=\"nvidia1\""));
	assert_true(value_of(t, "gpur_gpu_mig_mode{gpu=\"0\"") == 1);
	assert_non_null(strstr(t, "gpur_process_gpu_memory_bytes{gpu=\"0\",UUID=\"GPU-parent\",GPU_I_ID=\"0\",pid=\"100\"} 1048576\n"));
	assert_non_null(strstr(t, "gpur_process_gpu_memory_bytes{gpu=\"1\",UUID=\"GPU-plain\",pid=\"200\"} 4096\n"));
	free(t);
	frame_unref(f);
}

static void test_lost_and_suspended(void **state)
{
	(void)state;
	struct frame *f = frame_new();
	struct gpu *a = add_gpu(f, "GPU-a", "A");
	a->util_pct = 5;
	gpu_set(a, GPU_F_UTIL);
	struct gpu *b = add_gpu(f, "GPU-b", "B");
	b->state = GPU_STATE_LOST;
	struct gpu *c = add_gpu(f, "pci:0000:03:00.0", "C");
	c->vendor = frame_str(f, "amd");
	c->state = GPU_STATE_SUSPENDED;
	struct gpu *d = add_gpu(f, "GPU-d", "D");
	d->valid &= ~(UINT64_C(1) << GPU_F_STATE); /* unknown state: no state series */
	struct prom_opts o = {0};
	char *t = render(f, &o);
	check_exposition(t);
	assert_true(value_of(t, "gpur_gpu_up{gpu=\"1\"") == 0);
	assert_true(value_of(t, "gpur_gpu_lost{gpu=\"1\"") == 1);
	assert_true(value_of(t, "gpur_gpu_suspended{gpu=\"1\"") == 0);
	assert_true(value_of(t, "gpur_gpu_suspended{gpu=\"2\"") == 1);
	assert_true(value_of(t, "gpur_gpu_up{gpu=\"0\"") == 1);
	assert_null(strstr(t, "gpur_gpu_up{gpu=\"3\""));
	/* Not NVIDIA: no nvidiaN device label, the vendor says which. */
	assert_non_null(strstr(t, "gpur_gpu_suspended{gpu=\"2\",UUID=\"pci:0000:03:00.0\",modelName=\"C\",vendor=\"amd\"} 1\n"));
	assert_int_equal(count_lines(t, "DCGM_FI_DEV_GPU_UTIL{"), 1);
	free(t);
	frame_unref(f);
}

static void test_throttle_and_driver(void **state)
{
	(void)state;
	struct frame *f = frame_new();
	struct gpu *a = add_gpu(f, "GPU-a", "A");
	a->throttle = 1u << GPU_THROTTLE_SW_POWER_CAP;
	gpu_set(a, GPU_F_THROTTLE);
	struct gpu *b = add_gpu(f, "pci:0000:03:00.0", "Radeon");
	b->vendor = frame_str(f, "amd");
	f->backend = frame_str(f, "nvml+amdgpu");
	f->driver = frame_str(f, "550.54.15+6.8.0");
	frame_set(f, FRAME_F_BACKEND);
	frame_set(f, FRAME_F_DRIVER);
	struct prom_opts o = {.live = true};
	char *t = render(f, &o);
	check_exposition(t);
	assert_int_equal(count_lines(t, "gpur_throttle{"), GPU_THROTTLE__COUNT);
	assert_true(value_of(t, "gpur_throttle{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\",modelName=\"A\","
				"DCGM_FI_DRIVER_VERSION=\"550.54.15\",vendor=\"nvidia\",reason=\"sw_power_cap\"}") == 1);
	assert_true(value_of(t, "gpur_throttle{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\",modelName=\"A\","
				"DCGM_FI_DRIVER_VERSION=\"550.54.15\",vendor=\"nvidia\",reason=\"gpu_idle\"}") == 0);
	assert_non_null(strstr(t, "gpur_gpu_up{gpu=\"1\",UUID=\"pci:0000:03:00.0\",modelName=\"Radeon\","
				  "DCGM_FI_DRIVER_VERSION=\"6.8.0\",vendor=\"amd\"} 1\n"));
	assert_non_null(strstr(t, "gpur_backend_up{backend=\"nvml\"} 1\n"));
	assert_non_null(strstr(t, "gpur_backend_up{backend=\"amdgpu\"} 1\n"));
	assert_non_null(strstr(t, "gpur_poll_duration_seconds"));
	free(t);
	frame_unref(f);
}

static void test_backend_health(void **state)
{
	(void)state;
	struct prom_health h;
	struct frame *f = frame_new();
	prom_health_init(&h);
	f->backend = frame_str(f, "nvml");
	frame_set(f, FRAME_F_BACKEND);
	frame_backend_event(f, EVENT_BACKEND_LOST, "nvml");
	prom_health_update(&h, f);
	assert_int_equal(h.nbackends, 1);
	assert_false(h.backends[0].up);
	assert_int_equal(h.backends[0].errors, 1);
	frame_reset(f);
	frame_backend_event(f, EVENT_BACKEND_BACK, "nvml");
	prom_health_update(&h, f);
	assert_true(h.backends[0].up);
	assert_int_equal(h.backends[0].errors, 1);
	frame_unref(f);
}

static void test_process_series_and_cap(void **state)
{
	(void)state;
	struct frame *f = frame_new();
	add_gpu(f, "GPU-a", "A");
	struct gpu_process *p = add_proc(f, 42, 0, 1000);
	pset(f, p, PROC_F_NAME, "py\"thon\n");
	pset(f, p, PROC_F_USER, "alice");
	pset(f, p, PROC_F_CONTAINER, "containerd:7f3a9c2e5b8d");
	pset(f, p, PROC_F_CONTAINER_NAME, "trainer");
	pset(f, p, PROC_F_POD, "0b1f-uid");
	pset(f, p, PROC_F_POD_NAME, "train-0");
	pset(f, p, PROC_F_POD_NAMESPACE, "research");
	p->gpu_util_pct = 55;
	process_set(p, PROC_F_GPU_UTIL);
	struct gpu_process *q = add_proc(f, 43, 0, 500);
	pset(f, q, PROC_F_CONTAINER, "containerd:7f3a9c2e5b8d");
	pset(f, q, PROC_F_CONTAINER_NAME, "trainer");
	pset(f, q, PROC_F_POD, "0b1f-uid");
	pset(f, q, PROC_F_POD_NAME, "train-0");
	pset(f, q, PROC_F_POD_NAMESPACE, "research");
	add_proc(f, 43, 0, 500); /* a duplicate row: one series */
	add_proc(f, 44, 0, -1);  /* memory unknown: no memory sample */
	struct prom_opts o = {.processes = true};
	char *t = render(f, &o);
	check_exposition(t);
	assert_non_null(strstr(t, "gpur_process_gpu_memory_bytes{gpu=\"0\",UUID=\"GPU-a\",pid=\"42\",comm=\"py\\\"thon\\n\","
				  "user=\"alice\",container=\"trainer\",pod=\"train-0\",namespace=\"research\"} 1000\n"));
	assert_int_equal(count_lines(t, "gpur_process_gpu_memory_bytes{"), 2);
	assert_int_equal(count_lines(t, "gpur_process_gpu_util_percent{"), 1);
	/* The container's sums: util unknown (pid 43 has none), memory known. */
	assert_true(value_of(t, "gpur_container_gpu_memory_bytes{container=\"trainer\",container_id=\"containerd:7f3a9c2e5b8d\","
				"pod=\"train-0\",namespace=\"research\"}") == 1500);
	assert_null(strstr(t, "gpur_container_gpu_util_percent{"));
	assert_true(value_of(t, "gpur_container_processes{container=\"trainer\"") == 2);
	assert_true(value_of(t, "gpur_exporter_series_left_out{family=\"process\"}") == 1);
	free(t);
	o.processes = false;
	t = render(f, &o);
	assert_null(strstr(t, "gpur_process_gpu_memory_bytes"));
	assert_non_null(strstr(t, "gpur_container_gpu_memory_bytes"));
	free(t);
	frame_unref(f);

	/* The cap keeps the rows with the most memory. */
	f = frame_new();
	add_gpu(f, "GPU-a", "A");
	for (uint64_t i = 0; i < 2500; i++)
		add_proc(f, 1000 + i, 0, (long double)i);
	o.processes = true;
	t = render(f, &o);
	check_exposition(t);
	assert_int_equal(count_lines(t, "gpur_process_gpu_memory_bytes{"), PROM_MAX_PROCESS_ROWS);
	assert_null(strstr(t, "pid=\"1499\"}"));
	assert_non_null(strstr(t, "pid=\"1500\"} 500\n"));
	assert_true(value_of(t, "gpur_exporter_series_left_out{family=\"process\"}") == 500);
	free(t);
	frame_unref(f);
}

static char *gunzip(const char *data, size_t n, size_t *outlen)
{
	z_stream z;
	size_t cap = 1 << 20;
	char *out = malloc(cap);

	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 16 + 15), Z_OK);
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END); /* trailer checked: CRC and length */
	assert_int_equal(z.avail_in, 0);
	*outlen = cap - z.avail_out;
	inflateEnd(&z);
	return out;
}

static void test_gzip_closed_per_scrape(void **state)
{
	(void)state;
	struct buf text;
	buf_init(&text);
	for (int i = 0; i < 5000; i++)
		buf_printf(&text, "metric_%d{a=\"b\"} %d\n", i % 50, i);
	struct gz_open g;
	assert_int_equal(gz_open_deflate(&g, text.data, text.len, 1), 0);
	assert_true(g.data.len < text.len / 4);
	for (int k = 0; k < 3; k++) {
		char tail[256];
		size_t tn = prom_render_tail(tail, sizeof(tail), (uint64_t)k * 1000);
		if (k == 2)
			tn = 0; /* an empty tail closes too */
		char closing[sizeof(tail) + GZ_CLOSE_OVERHEAD];
		size_t cn = gz_close(&g, tail, tn, closing);
		assert_int_equal(cn, tn + GZ_CLOSE_OVERHEAD);
		struct buf all;
		buf_init(&all);
		buf_append(&all, g.data.data, g.data.len);
		buf_append(&all, closing, cn);
		size_t n;
		char *plain = gunzip(all.data, all.len, &n);
		assert_int_equal(n, text.len + tn);
		assert_memory_equal(plain, text.data, text.len);
		if (tn)
			assert_memory_equal(plain + text.len, tail, tn);
		free(plain);
		buf_fini(&all);
	}
	gz_fini(&g);
	/* An empty body. */
	assert_int_equal(gz_open_deflate(&g, "", 0, 1), 0);
	char closing[64];
	size_t cn = gz_close(&g, "x\n", 2, closing);
	struct buf all;
	buf_init(&all);
	buf_append(&all, g.data.data, g.data.len);
	buf_append(&all, closing, cn);
	size_t n;
	char *plain = gunzip(all.data, all.len, &n);
	assert_int_equal(n, 2);
	free(plain);
	buf_fini(&all);
	gz_fini(&g);
	buf_fini(&text);
}

static void check_metric_name(const char *m)
{
	assert_non_null(m);
	assert_true(strspn(m, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_:0123456789") == strlen(m));
	assert_false(m[0] >= '0' && m[0] <= '9');
}

/* Every exported field: a valid metric name, a positive scale, a type the
 * renderer writes; no name twice under either set of names. gpur's own
 * families are never renamed, and a dcgm-exporter 4.10 name has positive
 * factors. */
static void test_field_prom_descriptors(void **state)
{
	(void)state;
	const struct { const struct field *tab; size_t n; } tabs[] = {
		{GPU_FIELDS, GPU_NFIELDS}, {PROCESS_FIELDS, PROCESS_NFIELDS}};
	const struct field_prom *others[] = {GPU_METRIC_FB_FREE.prom, GPU_METRIC_XID.prom};
	const struct field_prom *all[128];
	size_t na = 0, renamed = 0;
	for (size_t t = 0; t < 2; t++)
		for (size_t i = 0; i < tabs[t].n; i++) {
			const struct field *f = &tabs[t].tab[i];
			if (!f->prom)
				continue;
			assert_true(f->type == FIELD_NUM || f->type == FIELD_U64 || f->type == FIELD_BOOL ||
				    f->type == FIELD_FLAGS);
			all[na++] = f->prom;
		}
	assert_true(na >= 28);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		all[na++] = others[i];
	for (int n = 0; n < FIELD_NAMES__COUNT; n++) {
		for (size_t i = 0; i < na; i++) {
			const struct field_prom *p = all[i];
			struct field_metric m = field_prom_metric(p, (enum field_names)n);
			check_metric_name(m.name);
			assert_true(p->scale > 0);
			assert_true(p->type == FIELD_PROM_GAUGE || p->type == FIELD_PROM_COUNTER);
			assert_true(m.type == p->type);
			if (p->name_4_10) {
				assert_true(p->mul_4_10 > 0 && p->div_4_10 > 0);
				assert_string_not_equal(p->name_4_10, p->name);
				assert_true(strncmp(p->name, "gpur_", 5) != 0);
				renamed += n == FIELD_NAMES_DCGM_4_10;
			}
			assert_true(m.renamed == (n == FIELD_NAMES_DCGM_4_10 && p->name_4_10 != NULL));
			if (!m.renamed)
				assert_string_equal(m.name, p->name);
			for (size_t j = 0; j < i; j++)
				assert_string_not_equal(field_prom_metric(all[j], (enum field_names)n).name, m.name);
		}
	}
	assert_true(renamed >= 20);
}

/* The factors of both names, both ways: a field's value becomes the
 * metric's, and the metric's reads back as the field's. */
static void test_field_prom_values(void **state)
{
	(void)state;
	const struct field_prom *util = GPU_FIELDS[GPU_F_UTIL].prom, *used = GPU_FIELDS[GPU_F_MEM_USED].prom;
	const struct field_prom *clock = GPU_FIELDS[GPU_F_CLOCK_GFX].prom, *energy = GPU_FIELDS[GPU_F_ENERGY].prom;
	const struct field_prom *sm = GPU_FIELDS[GPU_F_SM_ACTIVE].prom;

	assert_true(field_prom_value(util, FIELD_NAMES_LEGACY, 57) == 57);
	assert_true(field_prom_value(util, FIELD_NAMES_DCGM_4_10, 57) == 0.57);
	assert_true(field_prom_value(used, FIELD_NAMES_LEGACY, 3145728) == 3);
	assert_true(field_prom_value(used, FIELD_NAMES_DCGM_4_10, 3145728) == 3145728);
	assert_true(field_prom_value(clock, FIELD_NAMES_DCGM_4_10, 1410) == 1410e6);
	assert_true(field_prom_value(energy, FIELD_NAMES_LEGACY, 2.5) == 2500);
	assert_true(field_prom_value(energy, FIELD_NAMES_DCGM_4_10, 2.5) == 2.5);
	assert_true(field_prom_value(sm, FIELD_NAMES_DCGM_4_10, 45.25) == 0.4525);
	assert_true(field_prom_field_value(util, FIELD_NAMES_DCGM_4_10, 0.57) == 57);
	assert_true(field_prom_field_value(used, FIELD_NAMES_LEGACY, 3) == 3145728);
	assert_true(field_prom_field_value(sm, FIELD_NAMES_LEGACY, 0.125) == 12.5);
	assert_true(field_prom_field_value(sm, FIELD_NAMES_DCGM_4_10, 0.125) == 12.5);
	assert_true(field_prom_field_value(clock, FIELD_NAMES_DCGM_4_10, 1410e6) == 1410);
	/* A metric that is the same under both names keeps its factor. */
	const struct field_prom *limit = GPU_FIELDS[GPU_F_POWER_LIMIT].prom;
	assert_null(limit->name_4_10);
	assert_true(field_prom_value(limit, FIELD_NAMES_DCGM_4_10, 400) == 400);
	assert_string_equal(field_prom_metric(limit, FIELD_NAMES_DCGM_4_10).name, "DCGM_FI_DEV_POWER_MGMT_LIMIT");
}

/* Under dcgm-exporter 4.10's names: the new names with their units and
 * labels (hostname, DCGM_FI_SYSTEM_DRIVER_VERSION) on dcgm-exporter's
 * families, gpur's own families as under the legacy names, and unknown
 * values still without a sample under either name. */
static void test_dcgm_4_10_names(void **state)
{
	(void)state;
	struct frame *f = frame_new();
	struct gpu *g = add_gpu(f, "GPU-a", "NVIDIA H100");
	g->util_pct = 57;
	gpu_set(g, GPU_F_UTIL);
	g->mem_used_bytes = 1073741824;
	gpu_set(g, GPU_F_MEM_USED);
	g->mem_total_bytes = 4294967296.0L;
	gpu_set(g, GPU_F_MEM_TOTAL);
	g->clock_gfx_mhz = 1410;
	gpu_set(g, GPU_F_CLOCK_GFX);
	g->energy_j = 2.5;
	gpu_set(g, GPU_F_ENERGY);
	g->fan_rpm = 2100;
	gpu_set(g, GPU_F_FAN_RPM);
	f->host = frame_str(f, "node-1");
	frame_set(f, FRAME_F_HOST);
	f->driver = frame_str(f, "550.54.15");
	frame_set(f, FRAME_F_DRIVER);
	struct prom_opts legacy = {.processes = true}, o = {.processes = true, .names = FIELD_NAMES_DCGM_4_10};
	char *t = render(f, &o), *l = render(f, &legacy);
	check_exposition(t);
	const char *labels = "{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\",modelName=\"NVIDIA H100\","
			     "hostname=\"node-1\",DCGM_FI_SYSTEM_DRIVER_VERSION=\"550.54.15\",vendor=\"nvidia\"}";
	char want[512];
	snprintf(want, sizeof(want), "\nDCGM_FI_DEV_GPU_UTIL_RATIO%s 0.57\n", labels);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof(want), "\nDCGM_FI_DEV_FB_USED_BYTES%s 1073741824\n", labels);
	assert_non_null(strstr(t, want));
	assert_true(value_of(t, "DCGM_FI_DEV_FB_CAPACITY_BYTES{") == 4294967296.0);
	assert_true(value_of(t, "DCGM_FI_DEV_FB_FREE_BYTES{") == 3221225472.0);
	assert_true(value_of(t, "DCGM_FI_DEV_SM_CLOCK_HERTZ{") == 1410e6);
	assert_non_null(strstr(t, "# TYPE DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL counter\n"));
	assert_true(value_of(t, "DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL{") == 2.5);
	assert_non_null(strstr(t, "# HELP DCGM_FI_DEV_GPU_UTIL_RATIO GPU utilisation (ratio 0-1)\n"));
	/* None of the legacy names or labels of dcgm-exporter's families. */
	assert_null(strstr(t, "DCGM_FI_DEV_GPU_UTIL{"));
	assert_null(strstr(t, "DCGM_FI_DEV_FB_USED{"));
	assert_null(strstr(t, "DCGM_FI_DEV_FB_TOTAL"));
	assert_null(strstr(t, "DCGM_FI_DEV_FB_FREE{"));
	assert_null(strstr(t, "DCGM_FI_DEV_SM_CLOCK{"));
	assert_null(strstr(t, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"));
	for (const char *p = strstr(t, "\nDCGM_"); p; p = strstr(p + 1, "\nDCGM_")) {
		const char *nl = strchr(p + 1, '\n');
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p - 1), p + 1);
		assert_null(strstr(line, "Hostname="));
		assert_null(strstr(line, "DCGM_FI_DRIVER_VERSION="));
	}
	/* Unknown values: no sample, no family, under the new names too. */
	assert_null(strstr(t, "DCGM_FI_DEV_MEMORY_UTIL_RATIO"));
	assert_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP_CELSIUS"));
	assert_null(strstr(t, "DCGM_FI_DEV_MEMORY_CLOCK_HERTZ"));
	assert_null(strstr(t, "DCGM_FI_DEV_XID_ERROR"));
	/* gpur's own families are the same, line for line, as under the legacy
	 * names. */
	for (const char *p = l; *p;) {
		const char *nl = strchr(p, '\n');
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p + 1), p);
		const char *name = line[0] == '#' ? line + 7 : line;
		if (strncmp(name, "gpur_", 5) == 0)
			assert_non_null(strstr(t, line));
		p = nl + 1;
	}
	assert_non_null(strstr(t, "gpur_gpu_fan_rpm{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\",modelName=\"NVIDIA H100\","
				  "Hostname=\"node-1\",DCGM_FI_DRIVER_VERSION=\"550.54.15\",vendor=\"nvidia\"} 2100\n"));
	free(t);
	free(l);
	frame_unref(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_prom_descriptors),
		cmocka_unit_test(test_field_prom_values),
		cmocka_unit_test(test_dcgm_4_10_names),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_unknown_is_no_sample),
		cmocka_unit_test(test_mig_labels),
		cmocka_unit_test(test_lost_and_suspended),
		cmocka_unit_test(test_throttle_and_driver),
		cmocka_unit_test(test_backend_health),
		cmocka_unit_test(test_process_series_and_cap),
		cmocka_unit_test(test_gzip_closed_per_scrape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
