/* test_record_rules: rules 1-5 of the record format (docs/record-format.md), through
 * record_decode/record_encode and the replay reader (rules 6 and 8 are in
 * test_record_playback.c, rule 7, the recorder's, in test_recorder.c).
 * jansson is the independent oracle where a test compares records "as
 * parsed JSON". */
#include "record_helpers.h"

/* ---- rule 1: unknown is not zero ----------------------------------------- */

static void test_rule1_unknown_is_not_zero(void **state)
{
	struct frame *f = decode("{\"gpus\":[{\"name\":\"a\",\"util_pct\":0,\"temp_c\":null,\"mem_used_bytes\":0,"
				 "\"fan_pct\":0.0,\"mig_mode\":false}],"
				 "\"processes\":[{\"pid\":1,\"gpu_mem_bytes\":0,\"gpu_util_pct\":null},{\"pid\":2}],"
				 "\"system\":{\"cpu_pct\":0,\"load_1m\":null}}");
	const struct gpu *g = &f->gpus[0];

	(void)state;
	assert_true(gpu_has(g, GPU_F_UTIL) && g->util_pct == 0.0);
	assert_true(gpu_has(g, GPU_F_MEM_USED) && g->mem_used_bytes == 0);
	assert_true(gpu_has(g, GPU_F_FAN_PCT) && g->fan_pct == 0.0);
	assert_true(gpu_has(g, GPU_F_MIG_MODE) && !g->mig_mode);
	assert_false(gpu_has(g, GPU_F_TEMP));  /* null */
	assert_false(gpu_has(g, GPU_F_POWER)); /* absent */
	assert_int_equal(f->nprocs, 2);
	assert_true(process_has(&f->procs[0], PROC_F_GPU_MEM) && f->procs[0].gpu_mem_bytes == 0);
	assert_false(process_has(&f->procs[0], PROC_F_GPU_UTIL));
	assert_false(process_has(&f->procs[1], PROC_F_GPU_MEM));
	assert_true(frame_has(f, FRAME_F_SYSTEM));
	assert_true(f->system.valid & UINT64_C(1) << SYS_F_CPU);
	assert_false(f->system.valid & UINT64_C(1) << SYS_F_LOAD1);

	/* Written back: a zero is a number, unknown is left out. */
	json_t *j = encode_json(f);
	json_t *jg = gpu_json(j, 0);
	assert_true(json_is_integer(json_object_get(jg, "util_pct")));
	assert_int_equal(json_integer_value(json_object_get(jg, "util_pct")), 0);
	assert_int_equal(json_integer_value(json_object_get(jg, "mem_used_bytes")), 0);
	assert_true(json_is_false(json_object_get(jg, "mig_mode")));
	assert_null(json_object_get(jg, "temp_c"));
	assert_null(json_object_get(jg, "power_w"));
	json_t *p = json_object_get(j, "processes");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(p, 0), "gpu_mem_bytes")), 0);
	assert_null(json_object_get(json_array_get(p, 1), "gpu_mem_bytes"));
	assert_null(json_object_get(json_array_get(p, 0), "gpu_util_pct"));
	json_t *sys = json_object_get(j, "system");
	assert_int_equal(json_object_size(sys), 1);
	assert_int_equal(json_integer_value(json_object_get(sys, "cpu_pct")), 0);
	json_decref(j);
	frame_unref(f);

	/* A zeroed frame is all unknown, and says nothing it does not know. */
	f = frame_new();
	assert_non_null(frame_add_gpu(f));
	char *s = encode(f);
	assert_string_equal(s, "{\"schema\":1,\"gpus\":[{}],\"processes\":[]}\n");
	free(s);
	frame_unref(f);
}

/* ---- rule 2: old and newer recordings ------------------------------------- */

static void test_rule2_old_recordings_load(void **state)
{
	struct frame *f;

	(void)state;
	/* The seed's oldest shape: no schema, host, backend, driver, device_id, events, gpu_index. */
	f = decode("{\"gpus\":[{\"name\":\"card0\",\"util_pct\":5}],\"processes\":[{\"pid\":7,\"name\":\"x\"}]}");
	assert_int_equal(f->valid, 0);
	assert_int_equal(f->ngpus, 1);
	assert_string_equal(f->gpus[0].name, "card0");
	assert_false(gpu_has(&f->gpus[0], GPU_F_DEVICE_ID));
	assert_int_equal(f->nprocs, 1);
	assert_true(process_has(&f->procs[0], PROC_F_GPU_INDEX));
	assert_int_equal(f->procs[0].gpu_index, 0);
	assert_int_equal(f->nevents, 0);
	frame_unref(f);

	/* Whole arrays missing. */
	f = decode("{}");
	assert_int_equal(f->ngpus + f->nprocs + f->nevents, 0);
	frame_unref(f);
	f = decode("{\"gpus\":[{\"name\":\"a\"}]}");
	assert_int_equal(f->ngpus, 1);
	assert_int_equal(f->nprocs, 0);
	frame_unref(f);
	f = decode("{\"ts_ms\":5,\"processes\":[{\"pid\":1}]}"); /* no gpus: the row has no card */
	assert_int_equal(f->nprocs, 0);
	assert_true(frame_has(f, FRAME_F_TS));
	frame_unref(f);
}

static void test_rule2_later_schema_read_as_far_as_understood(void **state)
{
	const char *rec = "{\"schema\":2,\"ts_ms\":5,\"future\":{\"deep\":[1,{\"x\":null}],\"s\":\"\\u00e9\"},"
			  "\"gpus\":[{\"name\":\"a\",\"hbm_temp_c\":80,\"util_pct\":10,\"new\":[[]]}],"
			  "\"processes\":[{\"pid\":3,\"gpu_index\":0,\"cgroup_v3\":\"x\"}],"
			  "\"events\":[{\"kind\":\"future_kind\",\"extra\":1}],\"zz\":null}";
	struct frame *f = decode(rec);

	(void)state;
	assert_true(frame_has(f, FRAME_F_TS) && f->ts_ms == 5);
	assert_int_equal(f->ngpus, 1);
	assert_true(gpu_has(&f->gpus[0], GPU_F_UTIL) && f->gpus[0].util_pct == 10.0);
	assert_int_equal(f->nprocs, 1);
	assert_int_equal(f->procs[0].pid, 3);
	assert_int_equal(f->nevents, 1);
	assert_string_equal(f->events[0].kind, "future_kind");

	/* Unknown keys are not written back; schema is always 1. */
	json_t *got = encode_json(f);
	json_t *want = parse("{\"schema\":1,\"ts_ms\":5,\"gpus\":[{\"name\":\"a\",\"util_pct\":10}],"
			     "\"processes\":[{\"pid\":3,\"gpu_index\":0}],\"events\":[{\"kind\":\"future_kind\"}]}");
	assert_true(json_equal(got, want));
	json_decref(got);
	json_decref(want);
	frame_unref(f);
}

/* ---- rule 3: replay:<position> -------------------------------------------- */

static void test_rule3_replay_fills_device_id_and_recorded_wins(void **state)
{
	struct fx *fx = *state;
	struct frame *f = frame_new();

	testutil_write_str(fx->path, "{\"gpus\":[{\"name\":\"a\"},{\"name\":\"b\",\"device_id\":\"GPU-123\"},"
				     "{\"name\":\"c\",\"device_id\":null},{\"device_id\":42},"
				     "{\"device_id\":\"replay:0\"}]}\n");
	struct replay *r = open_ok(fx);
	assert_int_equal(replay_next(r, f), 1);
	assert_int_equal(f->ngpus, 5);
	static const char *const want[] = {"replay:0", "GPU-123", "replay:2", "replay:3", "replay:0"};
	for (size_t i = 0; i < 5; i++) {
		assert_true(gpu_has(&f->gpus[i], GPU_F_DEVICE_ID));
		assert_string_equal(f->gpus[i].device_id, want[i]);
	}
	replay_free(r);
	frame_unref(f);

	/* The decoder alone invents nothing: the fill is the replay's. */
	f = decode("{\"gpus\":[{\"name\":\"a\"}]}");
	assert_false(gpu_has(&f->gpus[0], GPU_F_DEVICE_ID));
	frame_unref(f);
}

/* ---- rule 4: stray rows ---------------------------------------------------- */

static void test_rule4_stray_rows_are_dropped(void **state)
{
	struct frame *f = decode(
		"{\"gpus\":[{\"name\":\"card0\"},{\"name\":\"card1\"}],\"processes\":["
		"{\"pid\":1,\"gpu_index\":0},{\"pid\":2,\"gpu_index\":1},{\"pid\":3,\"gpu_index\":7},"
		"{\"pid\":4,\"gpu_index\":-1},{\"pid\":5,\"gpu_index\":1.5},{\"pid\":6,\"gpu_index\":\"1\"},"
		"{\"pid\":7,\"gpu_index\":null},{\"pid\":8},{\"pid\":9,\"gpu_index\":2},"
		"{\"pid\":10,\"gpu_index\":9223372036854775808},{\"pid\":11,\"gpu_index\":true},"
		"{\"pid\":12,\"gpu_index\":[0]},{\"pid\":13,\"gpu_index\":1e400},"
		"{\"gpu_index\":0},{\"pid\":\"14\"},{\"pid\":null},{\"pid\":15.5},{\"pid\":-16},"
		"{\"pid\":1e400},{\"pid\":{}},17,\"x\",null,[]]}");
	static const uint64_t pids[] = {1, 2, 7, 8}, idx[] = {0, 1, 0, 0};

	(void)state;
	assert_int_equal(f->ngpus, 2);
	assert_int_equal(f->nprocs, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(f->procs[i].pid, pids[i]);
		assert_true(process_has(&f->procs[i], PROC_F_GPU_INDEX));
		assert_int_equal(f->procs[i].gpu_index, idx[i]);
	}
	/* Written back, gpu_index is explicit. */
	json_t *j = encode_json(f);
	json_t *p = json_object_get(j, "processes");
	assert_int_equal(json_array_size(p), 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(p, 2), "gpu_index")), 0);
	json_decref(j);
	frame_unref(f);

	/* With no GPUs even index 0 is outside the frame. */
	f = decode("{\"gpus\":[],\"processes\":[{\"pid\":1,\"gpu_index\":0},{\"pid\":2}]}");
	assert_int_equal(f->nprocs, 0);
	frame_unref(f);

	/* A non-object GPU entry keeps its position, so later rows stay attached. */
	f = decode("{\"gpus\":[7,{\"name\":\"b\"}],\"processes\":[{\"pid\":1,\"gpu_index\":1}]}");
	assert_int_equal(f->ngpus, 2);
	assert_int_equal(f->gpus[0].valid, 0);
	assert_string_equal(f->gpus[1].name, "b");
	assert_int_equal(f->nprocs, 1);
	assert_int_equal(f->procs[0].gpu_index, 1);
	frame_unref(f);
}

/* ---- rule 5: lines --------------------------------------------------------- */

static void test_rule5_line_framing(void **state)
{
	struct fx *fx = *state;
	static const char rec[] =
		"\xEF\xBB\xBF{\"ts_ms\":1}\r\n"     /* BOM at the start of the file, CRLF */
		"\n"                                 /* blank */
		"  \t \r\n"                          /* blank */
		"[1,2]\n"                            /* not an object */
		"\"str\"\n"
		"{\"ts_ms\":2\n"                     /* torn */
		"null\n"
		"{\"ts_ms\":3} trailing\n"           /* not one object */
		"{\"ts_ms\":4}{\"ts_ms\":44}\n"      /* two objects on one line */
		"{\"ts_ms\":5}\n"
		"{\"ts_ms\":6}";                     /* last line without \n */
	uint64_t ts[8];
	struct replay_stats st;

	testutil_write_file(fx->path, rec, sizeof(rec) - 1);
	assert_int_equal(play_ts(fx, ts, 8, &st), 3);
	assert_int_equal(ts[0], 1);
	assert_int_equal(ts[1], 5);
	assert_int_equal(ts[2], 6);
	assert_int_equal(st.records, 3);
	assert_int_equal(st.skipped, 6);
	assert_int_equal(st.oversized, 0);
	assert_int_equal(st.read_error, 0);

	/* CR only once: "x}\r\r" keeps one \r, which JSON reads as whitespace;
	 * a lone \r inside is not a line end. */
	static const char cr[] = "{\"ts_ms\":7}\r\r\n{\"ts_ms\":8}\r{\"ts_ms\":9}\n";
	testutil_write_file(fx->path, cr, sizeof(cr) - 1);
	assert_int_equal(play_ts(fx, ts, 8, &st), 1);
	assert_int_equal(ts[0], 7);
	assert_int_equal(st.skipped, 1);
}

/* A record line of exactly len bytes (before any line end) with the given host. */
static void put_record_of_len(struct buf *b, const char *host, size_t len)
{
	size_t start = b->len;

	buf_printf(b, "{\"host\":\"%s\",\"gpus\":[{\"name\":\"a\"}],\"pad\":\"", host);
	size_t fixed = b->len - start + 2; /* the closing "} */
	assert_true(len >= fixed);
	buf_reserve(b, len - fixed);
	memset(b->data + b->len, 'x', len - fixed);
	b->len += len - fixed;
	buf_puts(b, "\"}");
	assert_int_equal(b->len - start, len);
}

static void test_rule5_line_of_8mib_kept_one_more_byte_skipped(void **state)
{
	struct fx *fx = *state;
	struct buf b;
	struct frame *f = frame_new();

	buf_init(&b);
	put_record_of_len(&b, "exact", MiB8);
	buf_puts(&b, "\n");
	put_record_of_len(&b, "over", MiB8 + 1);
	buf_puts(&b, "\n");
	put_record_of_len(&b, "exact-crlf", MiB8);
	buf_puts(&b, "\r\n");
	put_record_of_len(&b, "over-crlf", MiB8 + 1);
	buf_puts(&b, "\r\n");
	buf_puts(&b, "{\"host\":\"small\"}\n");
	put_record_of_len(&b, "over-at-eof", MiB8 + 1);
	testutil_write_file(fx->path, b.data, b.len);
	buf_fini(&b);

	struct replay *r = open_ok(fx);
	static const char *const want[] = {"exact", "exact-crlf", "small"};
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(replay_next(r, f), 1);
		assert_string_equal(f->host, want[i]);
	}
	assert_int_equal(replay_next(r, f), 0);
	assert_int_equal(replay_stats(r)->oversized, 3);
	assert_int_equal(replay_stats(r)->skipped, 3);
	assert_int_equal(replay_stats(r)->records, 3);
	replay_free(r);
	frame_unref(f);
}

/* {"gpus":[{}x ngpus],"processes":[{"pid":1}x nprocs],"events":[{"kind":"note"}x nevents]} */
static char *big_record(size_t ngpus, size_t nprocs, size_t nevents)
{
	struct buf b;

	buf_init(&b);
	buf_puts(&b, "{\"gpus\":[");
	put_n(&b, "{},", ngpus);
	if (ngpus)
		b.len--;
	buf_puts(&b, "],\"processes\":[");
	put_n(&b, "{\"pid\":1},", nprocs);
	if (nprocs)
		b.len--;
	buf_puts(&b, "],\"events\":[");
	put_n(&b, "{\"kind\":\"note\"},", nevents);
	if (nevents)
		b.len--;
	buf_puts(&b, "]}");
	char *s = strdup(buf_cstr(&b));
	assert_non_null(s);
	buf_fini(&b);
	return s;
}

static void test_rule5_record_limits(void **state)
{
	struct fx *fx = *state;
	char *s;
	struct frame *f;

	s = big_record(FRAME_MAX_GPUS, 1, 1);
	f = decode(s);
	assert_int_equal(f->ngpus, 1024);
	frame_unref(f);
	free(s);
	s = big_record(FRAME_MAX_GPUS + 1, 1, 1);
	assert_int_equal(decode_rc(s, strlen(s)), -E2BIG);
	free(s);

	s = big_record(1, FRAME_MAX_PROCESSES, 1);
	f = decode(s);
	assert_int_equal(f->nprocs, 16384);
	frame_unref(f);
	free(s);
	s = big_record(1, FRAME_MAX_PROCESSES + 1, 1);
	assert_int_equal(decode_rc(s, strlen(s)), -E2BIG);
	free(s);

	s = big_record(1, 1, FRAME_MAX_EVENTS);
	f = decode(s);
	assert_int_equal(f->nevents, 1024);
	frame_unref(f);
	free(s);
	s = big_record(1, 1, FRAME_MAX_EVENTS + 1);
	assert_int_equal(decode_rc(s, strlen(s)), -E2BIG);
	free(s);

	/* In a recording, the over-limit record is skipped and counted. */
	struct buf b;
	buf_init(&b);
	s = big_record(FRAME_MAX_GPUS + 1, 0, 0);
	buf_puts(&b, s);
	free(s);
	buf_puts(&b, "\n{\"ts_ms\":2,\"gpus\":[{}]}\n");
	testutil_write_file(fx->path, b.data, b.len);
	buf_fini(&b);
	uint64_t ts[4];
	struct replay_stats st;
	assert_int_equal(play_ts(fx, ts, 4, &st), 1);
	assert_int_equal(ts[0], 2);
	assert_int_equal(st.too_big, 1);
	assert_int_equal(st.skipped, 1);
}

static void test_rule5_wrong_type_or_range_is_unknown_record_kept(void **state)
{
	struct frame *f = decode(
		"{\"ts_ms\":\"yesterday\",\"host\":42,\"backend\":[\"nvml\"],\"driver\":{\"v\":1},"
		"\"system\":{\"cpu_pct\":\"high\",\"mem_total_bytes\":1024,\"load_1m\":-1},"
		"\"gpus\":[{\"name\":\"card0\",\"temp_c\":\"hot\",\"util_pct\":true,\"mig_mode\":1,\"state\":5,"
		"\"throttle\":\"melting\",\"power_w\":{},\"fan_rpm\":-1,\"pstate\":16,\"mem_util_pct\":100.5,"
		"\"temp_mem_c\":1001,\"pcie_gen\":1.5,\"mem_total_bytes\":1024,\"enc_pct\":-0.5,"
		"\"device_id\":7,\"vendor\":null}],"
		"\"processes\":[{\"pid\":1,\"name\":5,\"kind\":\"gpu\",\"cpu_pct\":\"x\",\"gpu_mem_bytes\":-1,"
		"\"user\":\"root\"}]}");
	const struct gpu *g = &f->gpus[0];

	(void)state;
	assert_false(frame_has(f, FRAME_F_TS));
	assert_false(frame_has(f, FRAME_F_HOST));
	assert_false(frame_has(f, FRAME_F_BACKEND));
	assert_false(frame_has(f, FRAME_F_DRIVER));
	assert_true(frame_has(f, FRAME_F_SYSTEM));
	assert_int_equal(f->system.valid, UINT64_C(1) << SYS_F_MEM_TOTAL);
	assert_int_equal(f->system.mem_total_bytes, 1024);
	/* Only the two good GPU fields survive. */
	assert_int_equal(g->valid, UINT64_C(1) << GPU_F_NAME | UINT64_C(1) << GPU_F_MEM_TOTAL);
	assert_string_equal(g->name, "card0");
	assert_int_equal(g->mem_total_bytes, 1024);
	assert_int_equal(f->nprocs, 1);
	assert_int_equal(f->procs[0].valid,
			 UINT64_C(1) << PROC_F_PID | UINT64_C(1) << PROC_F_GPU_INDEX | UINT64_C(1) << PROC_F_USER);

	/* An unknown throttle name or a non-string is ignored; [] is "none active". */
	frame_unref(f);
	f = decode("{\"gpus\":[{\"throttle\":[\"hw_slowdown\",3,\"warp_drive\",null,\"gpu_idle\"]},{\"throttle\":[]}]}");
	assert_true(gpu_has(&f->gpus[0], GPU_F_THROTTLE));
	assert_int_equal(f->gpus[0].throttle, 1u << GPU_THROTTLE_HW_SLOWDOWN | 1u << GPU_THROTTLE_GPU_IDLE);
	assert_true(gpu_has(&f->gpus[1], GPU_F_THROTTLE));
	assert_int_equal(f->gpus[1].throttle, 0);
	json_t *j = encode_json(f);
	assert_int_equal(json_array_size(json_object_get(gpu_json(j, 1), "throttle")), 0);
	assert_int_equal(json_array_size(json_object_get(gpu_json(j, 0), "throttle")), 2);
	json_decref(j);
	frame_unref(f);

	/* Strings are bounded: a cmdline is cut to 4 KiB, a name to its cap. */
	struct buf b;
	buf_init(&b);
	buf_puts(&b, "{\"gpus\":[{\"name\":\"");
	put_n(&b, "n", 1000);
	buf_puts(&b, "\"}],\"processes\":[{\"pid\":1,\"cmdline\":\"");
	put_n(&b, "c", 5000);
	buf_puts(&b, "\"}]}");
	f = decode(buf_cstr(&b));
	assert_int_equal(strlen(f->gpus[0].name), gpu_field("name")->max_len);
	assert_int_equal(strlen(f->procs[0].cmdline), PROCESS_CMDLINE_MAX);
	frame_unref(f);
	buf_fini(&b);
}

static void test_rule5_integer_of_2_63_is_unknown(void **state)
{
	struct frame *f = decode(
		"{\"ts_ms\":9223372036854775808,\"gpus\":[{\"mem_used_bytes\":9223372036854775808,"
		"\"mem_total_bytes\":9223372036854775807,\"ecc_errors_uncorrected\":18446744073709551615,"
		"\"temp_c\":-9223372036854775809,\"energy_j\":1e400,\"pcie_rx_bytes_per_s\":1e19,"
		"\"pcie_tx_bytes_per_s\":100000000000000000000000}],"
		"\"processes\":[{\"pid\":1,\"start_ms\":9223372036854775807}]}");
	const struct gpu *g = &f->gpus[0];

	(void)state;
	assert_false(frame_has(f, FRAME_F_TS));
	assert_false(gpu_has(g, GPU_F_MEM_USED));
	assert_true(gpu_has(g, GPU_F_MEM_TOTAL));
	assert_true(g->mem_total_bytes == UINT64_C(9223372036854775807));
	assert_false(gpu_has(g, GPU_F_ECC_UNCORRECTED));
	assert_false(gpu_has(g, GPU_F_TEMP));
	assert_false(gpu_has(g, GPU_F_ENERGY));
	assert_false(gpu_has(g, GPU_F_PCIE_RX));
	assert_false(gpu_has(g, GPU_F_PCIE_TX));
	assert_int_equal(f->nprocs, 1);
	assert_true(f->procs[0].start_ms == UINT64_C(9223372036854775807));

	/* The largest integer is written back as the same integer. */
	char *s = encode(f);
	assert_non_null(strstr(s, "\"mem_total_bytes\":9223372036854775807"));
	assert_non_null(strstr(s, "\"start_ms\":9223372036854775807}"));
	free(s);
	frame_unref(f);
}

static void test_rule5_gpus_or_processes_null_or_not_arrays_are_empty(void **state)
{
	static const char *const recs[] = {
		"{\"gpus\":null,\"processes\":null,\"events\":null,\"system\":null}",
		"{\"gpus\":{\"name\":\"a\"},\"processes\":\"x\",\"events\":5,\"system\":[1]}",
		"{\"gpus\":true,\"processes\":{\"pid\":1},\"events\":{\"kind\":\"note\"}}",
	};
	struct frame *f;

	(void)state;
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		f = decode(recs[i]);
		assert_int_equal(f->ngpus + f->nprocs + f->nevents, 0);
		assert_false(frame_has(f, FRAME_F_SYSTEM));
		frame_unref(f);
	}
	f = decode("{\"gpus\":[{\"name\":\"a\"}],\"processes\":{\"pid\":1}}");
	assert_int_equal(f->ngpus, 1);
	assert_int_equal(f->nprocs, 0);
	frame_unref(f);
}

static void test_rule5_duplicate_keys_last_wins(void **state)
{
	struct frame *f = decode(
		"{\"host\":\"a\",\"host\":\"b\",\"ts_ms\":1,\"ts_ms\":null,"
		"\"gpus\":[{\"name\":\"x\"}],"
		"\"gpus\":[{\"name\":\"y\",\"temp_c\":50,\"temp_c\":null,\"util_pct\":null,\"util_pct\":7},{\"name\":\"z\"}],"
		"\"processes\":[{\"pid\":1}],"
		"\"processes\":[{\"pid\":2,\"gpu_index\":1},{\"pid\":\"x\",\"pid\":3},{\"pid\":4,\"pid\":\"x\"},"
		"{\"pid\":5,\"gpu_index\":\"bad\",\"gpu_index\":1},{\"pid\":6,\"gpu_index\":1,\"gpu_index\":-1}],"
		"\"system\":{\"cpu_pct\":5},\"system\":null,"
		"\"events\":[{\"kind\":\"a\"}],\"events\":[{\"kind\":\"b\"}]}");
	static const uint64_t pids[] = {2, 3, 5}, idx[] = {1, 0, 1};

	(void)state;
	assert_string_equal(f->host, "b");
	assert_false(frame_has(f, FRAME_F_TS));
	assert_int_equal(f->ngpus, 2);
	assert_string_equal(f->gpus[0].name, "y");
	assert_false(gpu_has(&f->gpus[0], GPU_F_TEMP));
	assert_true(gpu_has(&f->gpus[0], GPU_F_UTIL) && f->gpus[0].util_pct == 7.0);
	assert_string_equal(f->gpus[1].name, "z");
	assert_int_equal(f->nprocs, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(f->procs[i].pid, pids[i]);
		assert_int_equal(f->procs[i].gpu_index, idx[i]);
	}
	assert_false(frame_has(f, FRAME_F_SYSTEM));
	assert_int_equal(f->nevents, 1);
	assert_string_equal(f->events[0].kind, "b");
	frame_unref(f);

	f = decode("{\"gpus\":[{\"name\":\"a\"}],\"processes\":[{\"pid\":1}],\"gpus\":null}");
	assert_int_equal(f->ngpus, 0);
	assert_int_equal(f->nprocs, 0); /* its card went with the first array */
	frame_unref(f);
}

static void test_rule5_invalid_utf8_becomes_fffd(void **state)
{
	struct frame *f = decode("{\"host\":\"a\xFF" "b\",\"backend\":\"\xC3(\",\"driver\":\"\\u0000\","
				 "\"gpus\":[{\"name\":\"\xED\xA0\x80x\"}],"
				 "\"processes\":[{\"pid\":1,\"cmdline\":\"\xF0\x9F\x98\",\"user\":\"\\uDC00\"}]}");

	(void)state;
	assert_string_equal(f->host, "a" FFFD "b");
	assert_string_equal(f->backend, FFFD "(");
	assert_string_equal(f->driver, FFFD);
	assert_string_equal(f->gpus[0].name, FFFD FFFD FFFD "x");
	assert_string_equal(f->procs[0].cmdline, FFFD);
	assert_string_equal(f->procs[0].user, FFFD);
	/* What is written back is valid UTF-8 (jansson rejects anything else). */
	json_t *j = encode_json(f);
	assert_string_equal(json_string_value(json_object_get(j, "host")), "a" FFFD "b");
	json_decref(j);
	frame_unref(f);

	/* A string that is not valid JSON (raw control) is not one object: skipped. */
	static const char raw[] = "{\"host\":\"a\x01\"}";
	assert_int_equal(decode_rc(raw, sizeof(raw) - 1), -EINVAL);
}

static void test_rule5_no_valid_records_is_an_error(void **state)
{
	struct fx *fx = *state;
	static const char *const bodies[] = {
		"", "\n\n  \r\n", "\xEF\xBB\xBF", "not json\n", "[]\n", "null\n{\"a\":\n", "{\"gpus\":[}\n",
		"\"{}\"\n", "{}}\n",
	};
	char want[600];

	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		testutil_write_str(fx->path, bodies[i]);
		assert_null(replay_open(fx->path, fx->err, sizeof(fx->err)));
		snprintf(want, sizeof(want), "%s: no valid JSONL records", fx->path);
		assert_string_equal(fx->err, want);
	}
	/* Over the limits is not valid either. */
	char *s = big_record(FRAME_MAX_GPUS + 1, 0, 0);
	testutil_write_str(fx->path, s);
	free(s);
	assert_null(replay_open(fx->path, fx->err, sizeof(fx->err)));
	assert_string_equal(fx->err, want);

	/* Unreadable files say why. */
	char *missing = testutil_path(fx->dir, "missing.jsonl");
	assert_null(replay_open(missing, fx->err, sizeof(fx->err)));
	snprintf(want, sizeof(want), "%s: No such file or directory", missing);
	assert_string_equal(fx->err, want);
	free(missing);
	/* A directory is a timeline of the recordings in it (issue 12): one
	 * without any valid record says so. */
	assert_null(replay_open(fx->dir, fx->err, sizeof(fx->err)));
	snprintf(want, sizeof(want), "%s: no valid JSONL records (no recording in the directory)", fx->dir);
	assert_string_equal(fx->err, want);

	/* One valid record anywhere is enough. */
	testutil_write_str(fx->path, "junk\n\n{\"ts_ms\":1}\njunk\n");
	uint64_t ts[2];
	assert_int_equal(play_ts(fx, ts, 2, NULL), 1);
	assert_int_equal(ts[0], 1);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
	const struct CMUnitTest tests[] = {
		T(test_rule1_unknown_is_not_zero),
		T(test_rule2_old_recordings_load),
		T(test_rule2_later_schema_read_as_far_as_understood),
		T(test_rule3_replay_fills_device_id_and_recorded_wins),
		T(test_rule4_stray_rows_are_dropped),
		T(test_rule5_line_framing),
		T(test_rule5_line_of_8mib_kept_one_more_byte_skipped),
		T(test_rule5_record_limits),
		T(test_rule5_wrong_type_or_range_is_unknown_record_kept),
		T(test_rule5_integer_of_2_63_is_unknown),
		T(test_rule5_gpus_or_processes_null_or_not_arrays_are_empty),
		T(test_rule5_duplicate_keys_last_wins),
		T(test_rule5_invalid_utf8_becomes_fffd),
		T(test_rule5_no_valid_records_is_an_error),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
