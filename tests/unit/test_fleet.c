/* test_fleet: the fleet model (safe, bounded names; references), the
 * grouping of Prometheus answers into hosts, the summary's figures, order,
 * filter and cells, and the sink's one record per host (stale: readings
 * dropped; the poll's events in the first record). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "backend/prometheus_fleet.h"
#include "model/fleet.h"
#include "output/sink.h"
#include "record/recorder.h"
#include "testutil.h"
#include "output/fleet_view.h"

static void test_safe_name(void **st)
{
	(void)st;
	char out[16];

	fleet_safe_name(out, sizeof(out), "a\x1b[31m\nb\x7f");
	assert_string_equal(out, "a?[31m?b?");
	fleet_safe_name(out, sizeof(out), "\xc2\x9b" "x"); /* C1 CSI */
	assert_string_equal(out, "?x");
	fleet_safe_name(out, 6, "ab\xc3\xa9\xc3\xa9"); /* cut on a character boundary */
	assert_string_equal(out, "ab\xc3\xa9");
	fleet_safe_name(out, sizeof(out), "\xff");
	assert_string_equal(out, "\xef\xbf\xbd"); /* invalid UTF-8: U+FFFD */

	struct fleet *fl = fleet_new("http://p");
	char big[1000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	struct frame *f = frame_new();
	struct fleet_host *h = fleet_add_host(fl, big, f);
	assert_non_null(h);
	assert_int_equal(strlen(h->name), FLEET_NAME_MAX);
	frame_unref(f); /* the fleet holds its own reference */
	assert_int_equal(h->frame->ngpus, 0);
	f = h->frame; /* h moves as hosts are added */
	for (int i = 1; i < FLEET_MAX_HOSTS; i++)
		assert_non_null(fleet_add_host(fl, "h", f));
	assert_null(fleet_add_host(fl, "one too many", f));
	assert_int_equal(fl->hosts_left_out, 1);
	fleet_unref(fl);
}

static void series(struct prom_result *r, const char *host, const char *gpu, const char *uuid, double v,
		   const char *container)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 8;
		r->s = realloc(r->s, r->cap * sizeof(*r->s));
	}
	struct prom_series *s = &r->s[r->n++];
	memset(s, 0, sizeof(*s));
	s->host = host ? strdup(host) : NULL;
	s->gpu = gpu ? strdup(gpu) : NULL;
	s->uuid = uuid ? strdup(uuid) : NULL;
	s->container = container ? strdup(container) : NULL;
	s->known = true;
	s->value = v;
}

/* b: 2 GPUs (GPU 1 lost), containers; a: 1 GPU without power; a series
 * without a host is left out. */
static struct fleet *sample_fleet(void)
{
	struct prom_result r[PROM_M__COUNT];
	struct prom_fleet_info info;

	for (int m = 0; m < PROM_M__COUNT; m++)
		prom_result_init(&r[m]);
	series(&r[PROM_M_UTIL], "b", "0", "GPU-b0", 50, NULL);
	series(&r[PROM_M_UTIL], "a", "0", "GPU-a0", 20, NULL);
	series(&r[PROM_M_UTIL], NULL, "0", "GPU-x", 99, NULL);
	series(&r[PROM_M_FB_USED], "b", "0", "GPU-b0", 1024, NULL);
	series(&r[PROM_M_FB_FREE], "b", "0", "GPU-b0", 3072, NULL);
	series(&r[PROM_M_POWER], "b", "0", "GPU-b0", 100.5, NULL);
	series(&r[PROM_M_SM], "b", "0", "GPU-b0", 0.4525, NULL);
	series(&r[PROM_M_TENSOR], "b", "0", "GPU-b0", 0.125, NULL);
	series(&r[PROM_M_TENSOR], "a", "0", "GPU-a0", 1.5, NULL); /* not a ratio: not believed */
	series(&r[PROM_M_LOST], "b", "1", "GPU-b1", 1, NULL);
	series(&r[PROM_M_LOST], "b", "0", "GPU-b0", 0, NULL);
	series(&r[PROM_M_CONTAINER], "b", NULL, NULL, 5e9, "train\x1b");
	series(&r[PROM_M_CONTAINER], "b", NULL, NULL, 7e9, "infer");
	series(&r[PROM_M_CONTAINER], "zz", NULL, NULL, 9e9, "nobody's");
	series(&r[PROM_M_PROC_MEM], "b", "0", "GPU-b0", 2e9, "infer");
	r[PROM_M_PROC_MEM].s[0].pid = strdup("42");
	r[PROM_M_PROC_MEM].s[0].comm = strdup("py\x1b]0;x");
	series(&r[PROM_M_PROC_MEM], "b", "5", "GPU-none", 1e9, NULL); /* no such GPU: dropped */
	r[PROM_M_PROC_MEM].s[1].pid = strdup("43");
	series(&r[PROM_M_PROC_MEM], "b", "0", "GPU-b0", 1e9, NULL); /* not a pid: dropped */
	r[PROM_M_PROC_MEM].s[2].pid = strdup("-1");
	series(&r[PROM_M_PROC_UTIL], "b", "0", "GPU-b0", 77, NULL);
	r[PROM_M_PROC_UTIL].s[0].pid = strdup("42");
	struct fleet *fl = prom_fleet_build(r, "http://p", 1000, &info);
	for (int m = 0; m < PROM_M__COUNT; m++)
		prom_result_free(&r[m]);
	assert_int_equal(info.gpus, 3);
	return fl;
}

static void test_build(void **st)
{
	(void)st;
	struct fleet *fl = sample_fleet();

	assert_int_equal(fl->nhosts, 2);
	assert_string_equal(fl->hosts[0].name, "a");
	assert_string_equal(fl->hosts[1].name, "b");
	const struct frame *b = fl->hosts[1].frame;
	assert_string_equal(b->host, "b");
	assert_string_equal(b->backend, "prometheus");
	assert_string_equal(b->driver, "http://p");
	assert_true(b->ts_ms == 1000);
	assert_int_equal(b->ngpus, 2);
	assert_string_equal(b->gpus[0].device_id, "GPU-b0");
	assert_true(b->gpus[0].mem_total_bytes == 4096.0L * 1048576);
	assert_int_equal(gpu_state(&b->gpus[1]), GPU_STATE_LOST);
	/* The profiling ratios come back as percentages; an impossible one and
	 * one never served are unknown. */
	assert_true(gpu_has(&b->gpus[0], GPU_F_SM_ACTIVE) && fabsl(b->gpus[0].act.sm_pct - 45.25L) < 1e-9L);
	assert_true(gpu_has(&b->gpus[0], GPU_F_TENSOR_ACTIVE) && b->gpus[0].act.tensor_pct == 12.5L);
	assert_false(gpu_has(&b->gpus[1], GPU_F_SM_ACTIVE));
	assert_false(gpu_has(&fl->hosts[0].frame->gpus[0], GPU_F_TENSOR_ACTIVE));
	assert_string_equal(fl->hosts[1].top_container, "infer");
	assert_int_equal(b->nprocs, 1);
	assert_true(b->procs[0].pid == 42 && b->procs[0].gpu_index == 0);
	assert_string_equal(b->procs[0].name, "py?]0;x");
	assert_string_equal(b->procs[0].container_name, "infer");
	assert_true(b->procs[0].gpu_mem_bytes == 2e9 && b->procs[0].gpu_util_pct == 77);
	assert_int_equal(fl->hosts[0].frame->nprocs, 0);
	assert_null(fl->hosts[0].top_container); /* no container series: unknown */
	fleet_unref(fl);
}

static void test_view(void **st)
{
	(void)st;
	struct fleet *fl = sample_fleet();
	struct fleet_row rows[2];
	char cell[128];

	struct fleet_view_opts o = {.sort = FLEET_UTIL};
	assert_int_equal(fleet_view(fl, &o, rows), 2);
	assert_string_equal(fl->hosts[rows[0].host].name, "b"); /* busiest first */
	fleet_cell(fl, &rows[0], FLEET_BAD, cell, sizeof(cell));
	assert_string_equal(cell, "1/0");
	fleet_cell(fl, &rows[0], FLEET_MEM, cell, sizeof(cell));
	assert_string_equal(cell, "1.0G/4.0G");
	fleet_cell(fl, &rows[0], FLEET_CONTAINER, cell, sizeof(cell));
	assert_string_equal(cell, "infer (6.5G)");
	fleet_cell(fl, &rows[1], FLEET_POWER, cell, sizeof(cell));
	assert_string_equal(cell, "--");
	fleet_cell(fl, &rows[1], FLEET_CONTAINER, cell, sizeof(cell));
	assert_string_equal(cell, "--");
	o.reverse = true;
	fleet_view(fl, &o, rows);
	assert_string_equal(fl->hosts[rows[0].host].name, "a");
	/* Unknown last in either direction. */
	o.sort = FLEET_POWER;
	for (int rev = 0; rev < 2; rev++) {
		o.reverse = rev;
		fleet_view(fl, &o, rows);
		assert_string_equal(fl->hosts[rows[1].host].name, "a");
	}
	o.filter = "INF"; /* the container matches, case aside */
	assert_int_equal(fleet_view(fl, &o, rows), 1);
	assert_string_equal(fl->hosts[rows[0].host].name, "b");
	o.filter = "nothing";
	assert_int_equal(fleet_view(fl, &o, rows), 0);

	struct fleet *none = fleet_new("http://p"); /* no hosts: no rows, nothing sorted */
	assert_int_equal(fleet_view(none, &o, NULL), 0);
	fleet_unref(none);
	fleet_status(fl, 5000, cell, sizeof(cell));
	assert_string_equal(cell, "2 hosts, 3 GPUs, 1 lost");
	fl->read_ms = 12;
	fleet_status(fl, 5000, cell, sizeof(cell));
	assert_string_equal(cell, "2 hosts, 3 GPUs, 1 lost, read in 12 ms");
	fl->read_ms = 0;
	fl->error = "http://p: HTTP 500";
	fl->stale = true;
	fl->good_ts_ms = 1000;
	fl->retry_ms = 6500;
	fleet_status(fl, 5000, cell, sizeof(cell));
	assert_string_equal(cell, "2 hosts, 3 GPUs, 1 lost - STALE (data from 4 s ago, retry in 2 s): http://p: HTTP 500");
	fleet_unref(fl);
}

/* The records a sink writes for f and the fleet fl beside it, parsed. */
static json_t *emit(struct frame *f, const struct fleet *fl)
{
	char *dir = testutil_tmpdir(), *path = testutil_path(dir, "out.jsonl");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct sink s;

	assert_true(fd >= 0);
	sink_init(&s);
	s.json = recorder_fdopen(fd, "out");
	assert_true(sink_emit(&s, f, fl));
	sink_fini(&s);
	size_t len;
	char *text = testutil_read_file(path, &len);
	json_t *all = json_array();
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		json_error_t e;
		json_t *r = json_loads(line, 0, &e);
		assert_non_null(r);
		json_array_append_new(all, r);
	}
	free(text);
	testutil_rmtree(dir);
	free(path);
	free(dir);
	return all;
}

static void test_sink_per_host(void **st)
{
	(void)st;
	struct frame *f = frame_new();
	struct fleet *fl = sample_fleet();

	f->ts_ms = 2000;
	frame_set(f, FRAME_F_TS);
	frame_note(f, EVENT_NOTE, "poll note");
	json_t *recs = emit(f, fl);
	assert_int_equal(json_array_size(recs), 2);
	json_t *a = json_array_get(recs, 0), *b = json_array_get(recs, 1);
	assert_string_equal(json_string_value(json_object_get(a, "host")), "a");
	assert_string_equal(json_string_value(json_object_get(b, "host")), "b");
	assert_int_equal(json_integer_value(json_object_get(b, "ts_ms")), 2000); /* the poll's time */
	assert_int_equal(json_array_size(json_object_get(a, "events")), 1);      /* in the first only */
	assert_null(json_object_get(b, "events"));
	json_t *g0 = json_array_get(json_object_get(b, "gpus"), 0);
	assert_true(json_number_value(json_object_get(g0, "util_pct")) == 50);
	json_decref(recs);

	/* Stale: identity and state only. */
	fl->stale = true;
	fl->error = "down";
	recs = emit(f, fl);
	b = json_array_get(recs, 1);
	g0 = json_array_get(json_object_get(b, "gpus"), 0);
	assert_null(json_object_get(g0, "util_pct"));
	assert_string_equal(json_string_value(json_object_get(g0, "device_id")), "GPU-b0");
	assert_string_equal(json_string_value(json_object_get(g0, "state")), "ok");
	json_decref(recs);
	frame_unref(f);
	fleet_unref(fl); /* drops its hosts */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_safe_name),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_sink_per_host),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
