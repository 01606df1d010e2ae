/* test_report_summary: the report's definitions (docs/report.md) on
 * hand-made records: means over known values only, energy from energy_j
 * differences else power integrated, stretches capped at 5 s, time lost,
 * GPU-memory hours, energy shares by utilisation, GPU-hours of a group
 * counted once per GPU, the top processes with the rest summed, --gpus'
 * recorded indices, GPM's SM and tensor activity (unknown is never 0), and
 * xid events kept with their number and described once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/frame.h"
#include "record/record_decode.h"
#include "report/out.h"
#include "report/summary.h"

#define GIB 1073741824.0

static void add(struct summary *s, const char *line)
{
	struct frame *f = frame_new();
	assert_int_equal(record_decode(f, line, strlen(line)), 0);
	summary_add(s, f, NULL);
	frame_unref(f);
}

static void near(double got, double want)
{
	double d = got - want;
	if (d < 0)
		d = -d;
	if (d > 1e-9 * (want < 0 ? -want : want) + 1e-12)
		fail_msg("got %.17g, expected %.17g", got, want);
}

static void test_means_over_known_values(void **state)
{
	struct summary *s = summary_new();

	(void)state;
	add(s, "{\"ts_ms\":1000,\"gpus\":[{\"device_id\":\"G\",\"util_pct\":10,\"state\":\"ok\"}]}");
	add(s, "{\"ts_ms\":2000,\"gpus\":[{\"device_id\":\"G\",\"state\":\"ok\"}]}"); /* unknown: not 0 */
	add(s, "{\"ts_ms\":3000,\"gpus\":[{\"device_id\":\"G\",\"util_pct\":0,\"state\":\"ok\"}]}"); /* a measured 0 */
	add(s, "{\"ts_ms\":4000,\"gpus\":[{\"device_id\":\"G\",\"util_pct\":50,\"state\":\"ok\"}]}");
	summary_finish(s);
	assert_int_equal(s->ngpus, 1);
	assert_int_equal(s->gpus[0].util.n, 3);
	near(s->gpus[0].util.sum / s->gpus[0].util.n, 20);
	near(s->gpus[0].util.max, 50);
	assert_int_equal(s->gpus[0].mem.n, 0); /* never known: absent */
	assert_false(s->gpus[0].energy_known);
	assert_false(s->gpus[0].throttle_known);
	assert_int_equal(s->records, 4);
	assert_int_equal(s->first_ms, 1000);
	assert_int_equal(s->last_ms, 4000);
	summary_free(s);
}

static void test_energy_counter_then_power(void **state)
{
	struct summary *s = summary_new();

	(void)state;
	/* 1 s: the counter says 300 J (power would say 100). */
	add(s, "{\"ts_ms\":1000,\"gpus\":[{\"device_id\":\"G\",\"energy_j\":1000,\"power_w\":100}]}");
	/* 1 s: the counter is missing at the end: (100 + 200) / 2 W for 1 s. */
	add(s, "{\"ts_ms\":2000,\"gpus\":[{\"device_id\":\"G\",\"energy_j\":1300,\"power_w\":100}]}");
	/* 2 s: the counter went backwards (driver reload): power, one end known. */
	add(s, "{\"ts_ms\":3000,\"gpus\":[{\"device_id\":\"G\",\"power_w\":200}]}");
	add(s, "{\"ts_ms\":5000,\"gpus\":[{\"device_id\":\"G\",\"energy_j\":5}]}");
	/* 60 s gap: the counter's difference is real energy, not capped. */
	add(s, "{\"ts_ms\":65000,\"gpus\":[{\"device_id\":\"G\",\"energy_j\":6005,\"power_w\":10}]}");
	/* 60 s gap, power only: capped at 5 s. */
	add(s, "{\"ts_ms\":125000,\"gpus\":[{\"device_id\":\"G\",\"power_w\":30}]}");
	summary_finish(s);
	near(s->gpus[0].energy_j, 300 + 150 + 200 * 2 + 6000 + 20 * 5);
	assert_int_equal(s->gaps, 2);
	assert_int_equal(s->gap_ms, 120000);
	near(s->energy_total_j, s->gpus[0].energy_j);
	summary_free(s);
}

static void test_lost_throttled_and_memory_hours(void **state)
{
	struct summary *s = summary_new();
	char line[512];

	(void)state;
	/* GPU ok 3 s, then lost: 1 s, 1 s, then a 100 s gap (counts 5 s), then the last record (0). */
	const uint64_t ts[] = {1000, 2000, 3000, 4000, 5000, 6000, 106000}; /* ts_ms 0 is no time */
	for (size_t i = 0; i < 7; i++) {
		bool lost = i >= 3;
		snprintf(line, sizeof(line),
			 "{\"ts_ms\":%llu,\"gpus\":[{\"device_id\":\"G\",\"state\":\"%s\"%s}],"
			 "\"processes\":[%s]}",
			 (unsigned long long)ts[i], lost ? "lost" : "ok",
			 lost ? "" : i == 1 ? ",\"throttle\":[\"sw_thermal\"]" : ",\"throttle\":[\"gpu_idle\"]",
			 lost ? "" : "{\"pid\":7,\"gpu_index\":0,\"gpu_mem_bytes\":1073741824,\"start_ms\":5,\"user\":\"u\"}");
		add(s, line);
	}
	summary_finish(s);
	const struct summary_gpu *g = &s->gpus[0];
	assert_true(g->state_known);
	assert_int_equal(g->lost_ms, 1000 + 1000 + 5000); /* records 3, 4, 5 */
	assert_int_equal(g->throttled_ms, 1000);          /* gpu_idle does not count */
	assert_int_equal(s->nprocs, 1);
	const struct summary_proc *p = &s->procs[0];
	near(summary_gib_h(p->mem_byte_ms), 3.0 / 3600); /* 1 GiB for 3 s */
	near(p->mem_max, GIB);
	assert_int_equal(p->first_ms, 1000);
	assert_int_equal(p->last_ms, 3000);
	assert_int_equal(p->start_ms, 5);
	summary_free(s);
}

static void test_energy_shares_and_group_hours(void **state)
{
	struct summary *s = summary_new();

	(void)state;
	/* Two processes of one user on GPU 0 (util 30 and 10: 3/4 and 1/4 of
	 * 400 J), one process of another user on GPU 1 without util (all of
	 * its 100 J). */
#define REC "{\"ts_ms\":%d,\"gpus\":[{\"device_id\":\"A\",\"energy_j\":%d},{\"device_id\":\"B\",\"energy_j\":%d}]," \
			  "\"processes\":[{\"pid\":1,\"gpu_index\":0,\"gpu_util_pct\":30,\"user\":\"ann\",\"container\":\"slurm:42\"}," \
			  "{\"pid\":2,\"gpu_index\":0,\"gpu_util_pct\":10,\"user\":\"ann\",\"container\":\"docker:abc\"," \
			  "\"container_name\":\"nb\"}," \
			  "{\"pid\":3,\"gpu_index\":1,\"user\":\"bo\",\"pod\":\"uid-1\",\"pod_name\":\"p\",\"pod_namespace\":\"ns\"}]}"
	char line[1024];
	snprintf(line, sizeof(line), REC, 1000, 0, 0);
	add(s, line);
	snprintf(line, sizeof(line), REC, 3000, 400, 100);
	add(s, line);
	summary_finish(s);
	near(s->energy_total_j, 500);
	double e1 = 0, e2 = 0, e3 = 0;
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct summary_proc *p = &s->procs[i];
		if (p->pid == 1)
			e1 = p->energy_j;
		if (p->pid == 2)
			e2 = p->energy_j;
		if (p->pid == 3)
			e3 = p->energy_j;
		assert_false(p->mem_known);
	}
	near(e1, 300);
	near(e2, 100);
	near(e3, 100);
	int seen = 0;
	for (size_t i = 0; i < s->ngroups; i++) {
		const struct summary_group *g = &s->groups[i];
		if (g->kind == SUMMARY_G_USER && !strcmp(g->id, "ann")) {
			near(g->gpu_ms, 2000); /* two processes on one GPU: that GPU once */
			near(g->energy_j, 400);
			seen++;
		}
		if (g->kind == SUMMARY_G_SLURM) {
			assert_string_equal(g->id, "42");
			near(g->energy_j, 300);
			seen++;
		}
		if (g->kind == SUMMARY_G_CONTAINER) {
			assert_string_equal(g->name, "nb");
			seen++;
		}
		if (g->kind == SUMMARY_G_POD) {
			assert_string_equal(g->id, "uid-1");
			assert_string_equal(g->name, "ns/p");
			near(g->gpu_ms, 2000);
			seen++;
		}
	}
	assert_int_equal(seen, 4);
	assert_int_equal(s->ngroups, 5); /* ann, bo, slurm 42, docker:abc, pod uid-1 */
	summary_free(s);
}

static void test_top_processes_rest_summed(void **state)
{
	struct summary *s = summary_new();
	const size_t n = SUMMARY_TOP_ROWS + 500;
	size_t cap = 64 + n * 80;
	char *line = malloc(cap);

	(void)state;
	for (int r = 0; r < 2; r++) {
		size_t k = (size_t)snprintf(line, cap, "{\"ts_ms\":%d,\"gpus\":[{\"device_id\":\"G\"}],\"processes\":[", 1000 + r * 1000);
		for (size_t i = 0; i < n; i++)
			k += (size_t)snprintf(line + k, cap - k, "%s{\"pid\":%zu,\"gpu_index\":0,\"gpu_mem_bytes\":%zu}",
					      i ? "," : "", i + 1, (i + 1) * 1024);
		snprintf(line + k, cap - k, "]}");
		add(s, line);
	}
	summary_finish(s);
	assert_int_equal(s->nprocs, SUMMARY_TOP_ROWS);
	assert_int_equal(s->proc_rest.count, 500);
	/* The biggest first; the rest is the 500 smallest, summed. */
	assert_int_equal(s->procs[0].pid, n);
	assert_int_equal(s->procs[SUMMARY_TOP_ROWS - 1].pid, 501);
	double rest = 0;
	for (size_t i = 1; i <= 500; i++)
		rest += (double)i * 1024 * 1000;
	near(s->proc_rest.mem_byte_ms, rest);
	near(s->proc_rest.mem_max, 500 * 1024);
	free(line);
	summary_free(s);
}

static void test_recorded_index_and_duplicates(void **state)
{
	struct summary *s = summary_new();
	struct frame *f = frame_new();
	const char *l = "{\"ts_ms\":1000,\"gpus\":[{\"device_id\":\"X\"}],\"processes\":[{\"pid\":9,\"gpu_index\":0,"
			"\"gpu_mem_bytes\":100},{\"pid\":9,\"gpu_index\":0,\"gpu_mem_bytes\":300}],"
			"\"events\":[{\"kind\":\"gpu_lost\",\"gpu_index\":0}]}";
	const uint32_t orig[] = {5};

	(void)state;
	assert_int_equal(record_decode(f, l, strlen(l)), 0);
	summary_add(s, f, orig); /* as if --gpus 5 kept this one */
	summary_add(s, f, orig);
	frame_unref(f);
	summary_finish(s);
	assert_int_equal(s->gpus[0].index, 5);
	assert_int_equal(s->events_total, 2);
	assert_int_equal(s->events[0].e.gpu_index, 5);
	assert_int_equal(s->nprocs, 1);
	near(s->procs[0].mem_max, 100); /* the second row of one record is not counted again */
	summary_free(s);
}

static void test_gpm_activity_known_only(void **state)
{
	struct summary *s = summary_new();

	(void)state;
	add(s, "{\"ts_ms\":1000,\"gpus\":[{\"device_id\":\"G\",\"sm_active_pct\":40},{\"device_id\":\"N\"}]}");
	add(s, "{\"ts_ms\":2000,\"gpus\":[{\"device_id\":\"G\",\"sm_active_pct\":null,\"tensor_active_pct\":10},"
	       "{\"device_id\":\"N\",\"util_pct\":5}]}");
	add(s, "{\"ts_ms\":3000,\"gpus\":[{\"device_id\":\"G\",\"sm_active_pct\":0,\"tensor_active_pct\":30},"
	       "{\"device_id\":\"N\"}]}");
	summary_finish(s);
	assert_int_equal(s->ngpus, 2);
	const struct summary_gpu *g = &s->gpus[0], *n = &s->gpus[1];
	assert_string_equal(g->device_id, "G");
	assert_int_equal(g->sm.n, 2); /* null is unknown; a recorded 0 counts */
	near(g->sm.sum / g->sm.n, 20);
	near(g->sm.max, 40);
	assert_int_equal(g->tensor.n, 2);
	near(g->tensor.sum / g->tensor.n, 20);
	near(g->tensor.max, 30);
	assert_ptr_equal(summary_stat_of(g, SUMMARY_SM), &g->sm);
	assert_ptr_equal(summary_stat_of(g, SUMMARY_TENSOR), &g->tensor);
	assert_int_equal(n->sm.n, 0); /* without GPM: never known */
	assert_int_equal(n->tensor.n, 0);
	/* The plot's columns hold the known values only. */
	const struct downsample_series *sm = &g->plot->m[SUMMARY_SM];
	assert_int_equal(sm->col[0].n + sm->col[1].n + sm->col[2].n, 2);
	for (size_t c = 0; c < s->grid.used; c++)
		assert_int_equal(n->plot->m[SUMMARY_SM].col[c].n + n->plot->m[SUMMARY_TENSOR].col[c].n, 0);
	summary_free(s);
}

/* What report_out_event writes for the event of record line l. */
static void event_text(const char *l, const char *want)
{
	struct summary *s = summary_new();
	struct report_out o;

	add(s, l);
	summary_finish(s);
	assert_int_equal(s->nevents, 1);
	report_out_init(&o, -1);
	report_out_event(&o, &s->events[0].e);
	buf_putc(&o.b, '\0');
	assert_string_equal(o.b.data, want);
	report_out_fini(&o);
	summary_free(s);
}

static void test_xid_events(void **state)
{
	struct summary *s = summary_new();

	(void)state;
	add(s, "{\"ts_ms\":1000,\"gpus\":[{\"device_id\":\"G\"}],\"events\":[{\"kind\":\"xid\",\"gpu_index\":0,"
	       "\"xid\":79,\"gpu_instance_id\":3,\"detail\":\"XID 79: GPU has fallen off the bus\"}]}");
	summary_finish(s);
	assert_int_equal(s->nevents, 1);
	const struct event *e = &s->events[0].e;
	assert_true(event_has(e, EVENT_F_XID) && event_has(e, EVENT_F_GPU_INSTANCE));
	assert_int_equal(e->xid, 79);
	assert_int_equal(e->gpu_instance, 3);
	summary_free(s);
	/* The number once, then its meaning: gpur's detail, gpur's meaning when
	 * there is no detail, none for an unknown number, and any other detail
	 * as recorded, escaped. */
	event_text("{\"ts_ms\":1,\"gpus\":[{\"device_id\":\"G\"}],\"events\":[{\"kind\":\"xid\",\"gpu_index\":0,\"backend\":\"nvml\",\"xid\":79,"
		   "\"gpu_instance_id\":3,\"detail\":\"XID 79: GPU has fallen off the bus\"}]}",
		   "xid GPU 0 (nvml) instance 3 XID 79: GPU has fallen off the bus");
	event_text("{\"ts_ms\":1,\"gpus\":[{\"device_id\":\"G\"},{\"device_id\":\"H\"}],"
		   "\"events\":[{\"kind\":\"xid\",\"gpu_index\":1,\"xid\":48}]}",
		   "xid GPU 1 XID 48: double-bit ECC error");
	event_text("{\"ts_ms\":1,\"events\":[{\"kind\":\"xid\",\"xid\":4242,\"detail\":\"XID 4242\"}]}", "xid XID 4242");
	event_text("{\"ts_ms\":1,\"events\":[{\"kind\":\"xid\",\"xid\":7,\"detail\":\"XID 79: <b>\"}]}",
		   "xid XID 7: XID 79: &lt;b&gt;");
	event_text("{\"ts_ms\":1,\"events\":[{\"kind\":\"note\",\"detail\":\"XID 5\"}]}", "note: XID 5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_means_over_known_values),
		cmocka_unit_test(test_energy_counter_then_power),
		cmocka_unit_test(test_lost_throttled_and_memory_hours),
		cmocka_unit_test(test_energy_shares_and_group_hours),
		cmocka_unit_test(test_top_processes_rest_summed),
		cmocka_unit_test(test_recorded_index_and_duplicates),
		cmocka_unit_test(test_gpm_activity_known_only),
		cmocka_unit_test(test_xid_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
