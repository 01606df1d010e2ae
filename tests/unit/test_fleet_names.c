/* test_fleet_names: the fleet view's queries ask for each GPU metric under
 * dcgm-exporter's legacy name and its 4.10 name at once, read each series in
 * its own name's unit, and show a GPU or a process that two exporters of one
 * host serve, under either names, once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/prometheus_fleet.h"
#include "model/fleet.h"

static void test_queries(void **st)
{
	(void)st;
	char q[1200];

	prom_fleet_query(q, sizeof(q), PROM_M_UTIL, NULL);
	assert_string_equal(q, "{__name__=~\"DCGM_FI_DEV_GPU_UTIL|DCGM_FI_DEV_GPU_UTIL_RATIO\"}");
	prom_fleet_query(q, sizeof(q), PROM_M_FB_USED, "{job=\"gpu\"}");
	assert_string_equal(q, "{__name__=~\"DCGM_FI_DEV_FB_USED|DCGM_FI_DEV_FB_USED_BYTES\",job=\"gpu\"}");
	prom_fleet_query(q, sizeof(q), PROM_M_FB_FREE, "job=\"gpu\"");
	assert_string_equal(q, "{__name__=~\"DCGM_FI_DEV_FB_FREE|DCGM_FI_DEV_FB_FREE_BYTES\",job=\"gpu\"}");
	prom_fleet_query(q, sizeof(q), PROM_M_TEMP, "");
	assert_string_equal(q, "{__name__=~\"DCGM_FI_DEV_GPU_TEMP|DCGM_FI_DEV_GPU_TEMP_CELSIUS\"}");
	prom_fleet_query(q, sizeof(q), PROM_M_POWER, NULL);
	assert_string_equal(q, "{__name__=~\"DCGM_FI_DEV_POWER_USAGE|DCGM_FI_DEV_BOARD_POWER_WATTS\"}");
	prom_fleet_query(q, sizeof(q), PROM_M_SM, NULL);
	assert_string_equal(q, "{__name__=~\"DCGM_FI_PROF_SM_ACTIVE|DCGM_FI_PROF_SM_UTIL_RATIO\"}");
	prom_fleet_query(q, sizeof(q), PROM_M_TENSOR, NULL);
	assert_string_equal(q, "{__name__=~\"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE|DCGM_FI_PROF_TENSOR_UTIL_RATIO\"}");
	/* gpur's own families have one name. */
	prom_fleet_query(q, sizeof(q), PROM_M_LOST, "{job=\"gpu\"}");
	assert_string_equal(q, "gpur_gpu_lost{job=\"gpu\"}");
	prom_fleet_query(q, sizeof(q), PROM_M_CONTAINER, NULL);
	assert_string_equal(q, "topk by (Hostname, instance) (1, gpur_container_gpu_memory_bytes)");
	assert_string_equal(prom_fleet_metric(PROM_M_UTIL), "DCGM_FI_DEV_GPU_UTIL");
	assert_string_equal(prom_fleet_metric(PROM_M_PROC_UTIL), "gpur_process_gpu_util_percent");

	/* The longest selector the command line takes still fits whole. */
	char match[1001];
	memset(match, 'x', 1000);
	match[1000] = '\0';
	for (int m = 0; m < PROM_M__COUNT; m++) {
		prom_fleet_query(q, sizeof(q), (enum prom_metric)m, match);
		assert_non_null(strstr(q, match));
		assert_true(q[strlen(q) - 1] == '}' || q[strlen(q) - 1] == ')');
	}
}

static struct prom_series *series(struct prom_result *r, const char *name, const char *host, const char *gpu,
				  const char *uuid, double v)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 8;
		r->s = realloc(r->s, r->cap * sizeof(*r->s));
	}
	struct prom_series *s = &r->s[r->n++];
	memset(s, 0, sizeof(*s));
	s->name = name ? strdup(name) : NULL;
	s->host = strdup(host);
	s->gpu = strdup(gpu);
	s->uuid = strdup(uuid);
	s->known = true;
	s->value = v;
	return s;
}

static void proc(struct prom_result *r, const char *host, const char *uuid, const char *pid, double v)
{
	struct prom_series *s = series(r, NULL, host, "0", uuid, v);
	s->pid = strdup(pid);
}

/* Host "new" is a dcgm-exporter 4.10 (ratios, bytes); host "old" a legacy
 * dcgm-exporter (percent, MiB); host "both" has one GPU that a legacy gpur
 * and a dcgm-4.10 gpur both serve, with the same process. */
static void test_mixed_fleet(void **st)
{
	(void)st;
	struct prom_result r[PROM_M__COUNT];
	struct prom_fleet_info info;

	for (int m = 0; m < PROM_M__COUNT; m++)
		prom_result_init(&r[m]);
	series(&r[PROM_M_UTIL], "DCGM_FI_DEV_GPU_UTIL_RATIO", "new", "0", "GPU-n0", 0.57);
	series(&r[PROM_M_FB_USED], "DCGM_FI_DEV_FB_USED_BYTES", "new", "0", "GPU-n0", 2147483648.0);
	series(&r[PROM_M_FB_FREE], "DCGM_FI_DEV_FB_FREE_BYTES", "new", "0", "GPU-n0", 6442450944.0);
	series(&r[PROM_M_TEMP], "DCGM_FI_DEV_GPU_TEMP_CELSIUS", "new", "0", "GPU-n0", 55);
	series(&r[PROM_M_POWER], "DCGM_FI_DEV_BOARD_POWER_WATTS", "new", "0", "GPU-n0", 300.25);
	series(&r[PROM_M_SM], "DCGM_FI_PROF_SM_UTIL_RATIO", "new", "0", "GPU-n0", 0.29);
	series(&r[PROM_M_TENSOR], "DCGM_FI_PROF_TENSOR_UTIL_RATIO", "new", "0", "GPU-n0", 1.5); /* not a ratio */
	series(&r[PROM_M_UTIL], "DCGM_FI_DEV_GPU_UTIL", "old", "0", "GPU-o0", 17);
	series(&r[PROM_M_FB_USED], "DCGM_FI_DEV_FB_USED", "old", "0", "GPU-o0", 512);
	series(&r[PROM_M_FB_FREE], "DCGM_FI_DEV_FB_FREE", "old", "0", "GPU-o0", 1536);
	series(&r[PROM_M_SM], "DCGM_FI_PROF_SM_ACTIVE", "old", "0", "GPU-o0", 0.4525);
	/* The same GPU under both names: the first series of a metric in the
	 * answer counts, whichever its name. */
	series(&r[PROM_M_UTIL], "DCGM_FI_DEV_GPU_UTIL", "both", "0", "GPU-b0", 40);
	series(&r[PROM_M_UTIL], "DCGM_FI_DEV_GPU_UTIL_RATIO", "both", "0", "GPU-b0", 0.41);
	series(&r[PROM_M_FB_USED], "DCGM_FI_DEV_FB_USED_BYTES", "both", "0", "GPU-b0", 1048576);
	series(&r[PROM_M_FB_USED], "DCGM_FI_DEV_FB_USED", "both", "0", "GPU-b0", 2);
	series(&r[PROM_M_FB_FREE], "DCGM_FI_DEV_FB_FREE", "both", "0", "GPU-b0", 3);
	series(&r[PROM_M_FB_FREE], "DCGM_FI_DEV_FB_FREE_BYTES", "both", "0", "GPU-b0", 5242880);
	series(&r[PROM_M_LOST], "gpur_gpu_lost", "both", "0", "GPU-b0", 0);
	series(&r[PROM_M_LOST], "gpur_gpu_lost", "both", "0", "GPU-b0", 0);
	proc(&r[PROM_M_PROC_MEM], "both", "GPU-b0", "42", 1e9);
	proc(&r[PROM_M_PROC_MEM], "both", "GPU-b0", "43", 2e9);
	proc(&r[PROM_M_PROC_MEM], "both", "GPU-b0", "42", 1e9);
	proc(&r[PROM_M_PROC_UTIL], "both", "GPU-b0", "42", 30);
	proc(&r[PROM_M_PROC_UTIL], "both", "GPU-b0", "42", 30);

	struct fleet *fl = prom_fleet_build(r, "http://p", 1000, &info);
	for (int m = 0; m < PROM_M__COUNT; m++)
		prom_result_free(&r[m]);
	assert_int_equal(fl->nhosts, 3);
	assert_int_equal(info.gpus, 3);
	assert_string_equal(fl->hosts[0].name, "both");
	assert_string_equal(fl->hosts[1].name, "new");
	assert_string_equal(fl->hosts[2].name, "old");

	const struct frame *b = fl->hosts[0].frame;
	assert_int_equal(b->ngpus, 1);
	assert_true(b->gpus[0].util_pct == 40);
	assert_true(b->gpus[0].mem_used_bytes == 1048576);
	assert_true(b->gpus[0].mem_total_bytes == 4194304);
	assert_int_equal(b->nprocs, 2);
	assert_true(b->procs[0].pid == 42 && b->procs[1].pid == 43);
	assert_true(b->procs[0].gpu_util_pct == 30);

	const struct gpu *n = &fl->hosts[1].frame->gpus[0];
	assert_true(gpu_has(n, GPU_F_UTIL) && n->util_pct == 57);
	assert_true(n->mem_used_bytes == 2147483648.0L);
	assert_true(n->mem_total_bytes == 8589934592.0L);
	assert_true(n->temp_c == 55);
	assert_true(n->power_w == 300.25L);
	assert_true(gpu_has(n, GPU_F_SM_ACTIVE) && n->act.sm_pct == 29);
	assert_false(gpu_has(n, GPU_F_TENSOR_ACTIVE));

	const struct gpu *o = &fl->hosts[2].frame->gpus[0];
	assert_true(o->util_pct == 17);
	assert_true(o->mem_used_bytes == 512.0L * 1048576);
	assert_true(o->mem_total_bytes == 2048.0L * 1048576);
	assert_true(gpu_has(o, GPU_F_SM_ACTIVE) && o->act.sm_pct == 45.25);
	fleet_unref(fl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queries),
		cmocka_unit_test(test_mixed_fleet),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
