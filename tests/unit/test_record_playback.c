/* test_record_playback: the record format's rule 6 (playback) and rule 8
 * (round trip), and the readings a lost GPU omits. */
#include "record_helpers.h"

/* ---- rule 6: playback ------------------------------------------------------ */

static void test_rule6_first_poll_shows_first_record(void **state)
{
	struct fx *fx = *state;
	uint64_t ts[4];
	struct replay_stats st;

	/* The seed's poll() read the next line first and so never showed record 1. */
	testutil_write_str(fx->path, "{\"ts_ms\":10}\n{\"ts_ms\":20}\n{\"ts_ms\":30}\n");
	assert_int_equal(play_ts(fx, ts, 4, &st), 3);
	assert_int_equal(ts[0], 10);
	assert_int_equal(ts[1], 20);
	assert_int_equal(ts[2], 30);
	assert_int_equal(st.records, 3);

	/* A one-record file plays that record. */
	testutil_write_str(fx->path, "{\"ts_ms\":99}");
	assert_int_equal(play_ts(fx, ts, 4, NULL), 1);
	assert_int_equal(ts[0], 99);
}

static void test_rule6_end_of_file_leaves_the_last_frame(void **state)
{
	struct fx *fx = *state;
	struct frame *f = frame_new();

	testutil_write_str(fx->path, "{\"ts_ms\":1,\"host\":\"one\",\"gpus\":[{\"name\":\"g\"}],"
				     "\"processes\":[{\"pid\":5}],\"events\":[{\"kind\":\"note\"}]}\n"
				     "not json\n{\"gpus\":");
	struct replay *r = open_ok(fx);
	assert_int_equal(replay_next(r, f), 1);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(replay_next(r, f), 0);
		assert_true(frame_has(f, FRAME_F_TS) && f->ts_ms == 1);
		assert_string_equal(f->host, "one");
		assert_int_equal(f->ngpus, 1);
		assert_string_equal(f->gpus[0].device_id, "replay:0");
		assert_int_equal(f->nprocs, 1);
		assert_int_equal(f->nevents, 1);
	}
	assert_int_equal(replay_stats(r)->skipped, 2);
	replay_free(r);
	frame_unref(f);
}

static void test_rule6_driver_line(void **state)
{
	char out[64];
	struct frame *f;

	(void)state;
	f = decode("{\"backend\":\"nvml+amdgpu\",\"driver\":\"550.54.15+6.8.0\"}");
	assert_string_equal(replay_driver_line(f, out, sizeof(out), false), "nvml+amdgpu \xC2\xB7 550.54.15+6.8.0");
	assert_string_equal(replay_driver_line(f, out, sizeof(out), true), "nvml+amdgpu - 550.54.15+6.8.0");
	frame_unref(f);
	f = decode("{\"backend\":\"nvml\"}");
	assert_string_equal(replay_driver_line(f, out, sizeof(out), false), "nvml");
	frame_unref(f);
	f = decode("{\"driver\":\"550.1\",\"backend\":null}");
	assert_string_equal(replay_driver_line(f, out, sizeof(out), false), "550.1");
	frame_unref(f);
	f = decode("{\"host\":\"h\"}");
	assert_null(replay_driver_line(f, out, sizeof(out), false));
	frame_unref(f);
}

static void test_lost_and_suspended_gpus_omit_readings(void **state)
{
	(void)state;
	static const char *const states[] = {"lost", "suspended"};
	for (size_t i = 0; i < 2; i++) {
		char rec[512];
		snprintf(rec, sizeof(rec),
			 "{\"gpus\":[{\"name\":\"a\",\"device_id\":\"GPU-1\",\"state\":\"%s\",\"util_pct\":50,"
			 "\"temp_c\":60,\"mem_used_bytes\":5,\"mem_total_bytes\":100,\"power_limit_w\":300,"
			 "\"temp_shutdown_c\":90,\"throttle\":[],\"pstate\":2,\"clock_gfx_max_mhz\":1000}]}",
			 states[i]);
		struct frame *f = decode(rec);
		const struct gpu *g = &f->gpus[0];
		assert_true(gpu_is_unread(g));
		assert_false(gpu_has(g, GPU_F_UTIL));
		assert_false(gpu_has(g, GPU_F_TEMP));
		assert_false(gpu_has(g, GPU_F_MEM_USED));
		assert_false(gpu_has(g, GPU_F_THROTTLE));
		assert_false(gpu_has(g, GPU_F_PSTATE));
		assert_true(gpu_has(g, GPU_F_MEM_TOTAL));
		assert_true(gpu_has(g, GPU_F_POWER_LIMIT));
		assert_true(gpu_has(g, GPU_F_TEMP_SHUTDOWN));
		assert_true(gpu_has(g, GPU_F_CLOCK_GFX_MAX));
		assert_string_equal(g->device_id, "GPU-1");
		frame_unref(f);
	}

	/* The writer leaves them out too, whatever the struct still holds. */
	struct frame *f = frame_new();
	struct gpu *g = frame_add_gpu(f);
	g->state = GPU_STATE_LOST;
	g->util_pct = 50;
	g->mem_total_bytes = 100;
	gpu_set(g, GPU_F_STATE);
	gpu_set(g, GPU_F_UTIL);
	gpu_set(g, GPU_F_MEM_TOTAL);
	char *s = encode(f);
	assert_string_equal(s, "{\"schema\":1,\"gpus\":[{\"state\":\"lost\",\"mem_total_bytes\":100}],\"processes\":[]}\n");
	free(s);
	frame_unref(f);
}

static void test_unknown_state_string_reads_as_unknown(void **state)
{
	struct frame *f = decode("{\"gpus\":[{\"state\":\"exploded\",\"util_pct\":3},{\"state\":\"OK\"},"
				 "{\"state\":0},{\"state\":\"ok\"}]}");

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		assert_false(gpu_has(&f->gpus[i], GPU_F_STATE));
		assert_int_equal(gpu_state(&f->gpus[i]), GPU_STATE__COUNT);
		assert_false(gpu_is_unread(&f->gpus[i]));
	}
	assert_int_equal(gpu_state(&f->gpus[3]), GPU_STATE_OK);
	assert_true(gpu_has(&f->gpus[0], GPU_F_UTIL)); /* not "lost": readings stay */
	json_t *j = encode_json(f);
	assert_null(json_object_get(gpu_json(j, 0), "state"));
	assert_string_equal(json_string_value(json_object_get(gpu_json(j, 3), "state")), "ok");
	json_decref(j);
	frame_unref(f);
}

/* ---- rule 8: round trip ---------------------------------------------------- */

/* Sets every field of obj to an in-range, non-trivial value. */
static void fill_all(struct frame *f, void *obj, const struct field *tab, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct field *d = &tab[i];
		void *p = field_ptr(obj, d);
		char s[64];
		switch (d->type) {
		case FIELD_STR:
			snprintf(s, sizeof(s), "%s \"\xC3\xA9\"\\\t\x01", d->key);
			*(const char **)p = frame_str(f, s);
			break;
		case FIELD_U64:
			*(uint64_t *)p = d->max > 1e12 ? UINT64_C(9223372036854775807) : (uint64_t)d->max;
			break;
		case FIELD_NUM: /* the largest integer, a negative one, a fraction */
			*(long double *)p = d->max > 1e12 ? 9223372036854775807.0L : d->min < 0 ? d->min : d->max / 3;
			break;
		case FIELD_BOOL: *(bool *)p = true; break;
		case FIELD_ENUM: *(uint8_t *)p = (uint8_t)(d->nnames - 1); break;
		case FIELD_FLAGS: *(uint32_t *)p = (1u << d->nnames) - 1; break;
		}
		field_set_valid(obj, d, true);
	}
}

static struct frame *rich_frame(void)
{
	struct frame *f = frame_new();

	fill_all(f, f, FRAME_FIELDS, FRAME_NFIELDS);
	fill_all(f, &f->system, SYSTEM_FIELDS, SYSTEM_NFIELDS);
	frame_set(f, FRAME_F_SYSTEM);
	for (int i = 0; i < 3; i++)
		fill_all(f, frame_add_gpu(f), GPU_FIELDS, GPU_NFIELDS);
	f->gpus[0].state = GPU_STATE_OK;
	f->gpus[1].state = GPU_STATE_LOST;
	f->gpus[2].valid = 0; /* all unknown */
	for (int i = 0; i < 2; i++) {
		struct gpu_process *p = frame_add_process(f);
		fill_all(f, p, PROCESS_FIELDS, PROCESS_NFIELDS);
		p->gpu_index = (uint64_t)i;
	}
	struct event *e = frame_add_event(f);
	fill_all(f, e, EVENT_FIELDS, EVENT_NFIELDS);
	e->gpu_index = 2; /* an index the record has (others lose it: rule 4) */
	frame_note(f, "note", "no answer from nvml for %d s", 5);
	return f;
}

static void test_rule8_encode_decode_encode_is_identical(void **state)
{
	struct frame *f = rich_frame();
	char *b1 = encode(f);
	struct frame *g = decode(b1);
	char *b2 = encode(g);

	(void)state;
	assert_string_equal(b1, b2);
	/* Every known field was written and read back. */
	json_t *j = parse(b1);
	assert_int_equal(json_object_size(j), 9);
	assert_int_equal(json_object_size(gpu_json(j, 0)), GPU_NFIELDS);
	assert_int_equal(json_object_size(gpu_json(j, 2)), 0);
	assert_int_equal(json_object_size(json_array_get(json_object_get(j, "processes"), 0)), PROCESS_NFIELDS);
	assert_int_equal(json_object_size(json_array_get(json_object_get(j, "events"), 0)), EVENT_NFIELDS);
	assert_int_equal(json_object_size(json_object_get(j, "system")), SYSTEM_NFIELDS);
	json_decref(j);
	assert_int_equal(g->valid, f->valid);
	assert_int_equal(g->gpus[0].valid, f->gpus[0].valid);
	assert_int_equal(g->procs[1].valid, f->procs[1].valid);
	assert_true(g->gpus[0].energy_j == f->gpus[0].energy_j);
	assert_true(g->system.load_1m == f->system.load_1m);
	assert_string_equal(g->host, f->host);
	assert_int_equal(g->nevents, 2);
	assert_string_equal(g->events[1].detail, "no answer from nvml for 5 s");
	free(b1);
	free(b2);
	frame_unref(f);
	frame_unref(g);
}

static void test_rule8_recorded_record_plays_back_equal(void **state)
{
	struct fx *fx = *state;
	static const char rec[] =
		"{\"processes\":[{\"gpu_index\":0,\"pid\":42,\"name\":\"python\",\"kind\":\"compute\","
		"\"gpu_mem_bytes\":1073741824,\"unknown\":1,\"container\":\"docker:abc\"}],"
		"\"gpus\":[{\"util_pct\":12.5,\"name\":\"A100\",\"device_id\":\"GPU-abc\",\"throttle\":[],"
		"\"temp_c\":61,\"power_w\":0.1,\"state\":\"ok\",\"fan_pct\":100.0}],"
		"\"driver\":\"550.54.15\",\"backend\":\"nvml\",\"host\":\"n1\",\"ts_ms\":1700000000000,"
		"\"schema\":7,\"system\":{\"load_1m\":0.30000000000000004,\"cpu_pct\":3},"
		"\"events\":[{\"kind\":\"note\",\"detail\":\"x\"}],\"extra\":{\"a\":1}}\n"
		"{\"gpus\":[{\"name\":\"B\",\"device_id\":\"GPU-b\"}],\"processes\":[],\"events\":[]}\n";
	static const char *const want[] = {
		"{\"schema\":1,\"processes\":[{\"gpu_index\":0,\"pid\":42,\"name\":\"python\",\"kind\":\"compute\","
		"\"gpu_mem_bytes\":1073741824,\"container\":\"docker:abc\"}],"
		"\"gpus\":[{\"util_pct\":12.5,\"name\":\"A100\",\"device_id\":\"GPU-abc\",\"throttle\":[],"
		"\"temp_c\":61,\"power_w\":0.1,\"state\":\"ok\",\"fan_pct\":100}],"
		"\"driver\":\"550.54.15\",\"backend\":\"nvml\",\"host\":\"n1\",\"ts_ms\":1700000000000,"
		"\"system\":{\"load_1m\":0.30000000000000004,\"cpu_pct\":3},"
		"\"events\":[{\"kind\":\"note\",\"detail\":\"x\"}]}",
		/* no host, backend, driver, ts_ms or system recorded: none invented; no empty events */
		"{\"schema\":1,\"gpus\":[{\"name\":\"B\",\"device_id\":\"GPU-b\"}],\"processes\":[]}",
	};
	struct frame *f = frame_new();

	testutil_write_file(fx->path, rec, sizeof(rec) - 1);
	struct replay *r = open_ok(fx);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(replay_next(r, f), 1);
		json_t *got = encode_json(f), *exp = parse(want[i]);
		if (!json_equal(got, exp)) {
			char *s = json_dumps(got, JSON_SORT_KEYS);
			fail_msg("record %zu played back as %s", i, s);
		}
		json_decref(got);
		json_decref(exp);
	}
	replay_free(r);
	frame_unref(f);
}

static void test_rule8_numbers_in_shortest_form(void **state)
{
	struct frame *f = frame_new();

	(void)state;
	for (int i = 0; i < 3; i++)
		assert_non_null(frame_add_gpu(f));
	struct gpu *g = &f->gpus[0], *h = &f->gpus[1], *k = &f->gpus[2];
	g->util_pct = 0.1;
	g->mem_util_pct = 0.1 + 0.2;
	g->power_w = 1.0 / 3;
	g->energy_j = 1e300;
	g->power_limit_w = 42.0;
	g->fan_pct = 100.0;
	g->temp_c = -5;
	g->enc_pct = 1e-7;
	g->valid = UINT64_C(1) << GPU_F_UTIL | UINT64_C(1) << GPU_F_MEM_UTIL | UINT64_C(1) << GPU_F_POWER |
		   UINT64_C(1) << GPU_F_ENERGY | UINT64_C(1) << GPU_F_POWER_LIMIT |
		   UINT64_C(1) << GPU_F_FAN_PCT | UINT64_C(1) << GPU_F_TEMP | UINT64_C(1) << GPU_F_ENC;
	h->energy_j = 5e-324;
	h->power_w = 123456.789;
	h->valid = UINT64_C(1) << GPU_F_ENERGY | UINT64_C(1) << GPU_F_POWER;
	k->energy_j = 1e15; /* integral: an integer, not 1e+15 */
	gpu_set(k, GPU_F_ENERGY);

	char *s = encode(f);
	static const char *const want[] = {
		"\"util_pct\":0.1,", "\"mem_util_pct\":0.30000000000000004,", "\"power_w\":0.3333333333333333,",
		"\"energy_j\":1e+300,", "\"power_limit_w\":42,", "\"fan_pct\":100,", "\"temp_c\":-5,",
		"\"enc_pct\":1e-07", "\"energy_j\":4.94065645841247e-324", "\"power_w\":123456.789,",
		"\"energy_j\":1000000000000000}",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(s, want[i]))
			fail_msg("%s not in %s", want[i], s);
	/* And each reads back as the same double. */
	struct frame *back = decode(s);
	assert_true(back->gpus[0].util_pct == 0.1);
	assert_true(back->gpus[0].mem_util_pct == 0.1 + 0.2);
	assert_true(back->gpus[0].power_w == 1.0 / 3);
	assert_true(back->gpus[0].energy_j == 1e300);
	assert_true(back->gpus[0].enc_pct == 1e-7);
	assert_true(back->gpus[1].energy_j == 5e-324);
	assert_true(back->gpus[1].power_w == 123456.789);
	assert_true(back->gpus[2].energy_j == 1e15);
	free(s);
	frame_unref(back);
	frame_unref(f);
}

static void test_encode_skips_a_string_marked_known_but_null(void **state)
{
	struct frame *f = frame_new();

	(void)state;
	/* Inconsistent, but must still produce valid JSON. */
	frame_set(f, FRAME_F_HOST);
	char *s = encode(f);
	assert_string_equal(s, "{\"schema\":1,\"gpus\":[],\"processes\":[]}\n");
	free(s);
	struct gpu *g = frame_add_gpu(f);
	gpu_set(g, GPU_F_NAME);
	s = encode(f);
	assert_string_equal(s, "{\"schema\":1,\"gpus\":[{}],\"processes\":[]}\n");
	free(s);
	frame_unref(f);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
	const struct CMUnitTest tests[] = {
		T(test_rule6_first_poll_shows_first_record),
		T(test_rule6_end_of_file_leaves_the_last_frame),
		T(test_rule6_driver_line),
		T(test_lost_and_suspended_gpus_omit_readings),
		T(test_unknown_state_string_reads_as_unknown),
		T(test_rule8_encode_decode_encode_is_identical),
		T(test_rule8_recorded_record_plays_back_equal),
		T(test_rule8_numbers_in_shortest_form),
		T(test_encode_skips_a_string_marked_known_but_null),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
