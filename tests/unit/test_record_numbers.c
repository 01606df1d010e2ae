/* test_record_numbers: "any JSON number is a number" (the record format's rules 5
 * and 8): every measured quantity takes any finite JSON number and gives it
 * back exactly — fractions, integers past 2^53, negative temperatures, 1.0
 * and 1e3 forms — while identities and counts stay integers. jansson is the
 * independent oracle: numbers are compared exactly, integers as integers,
 * reals as the same double bit for bit. */
#include <math.h>

#include "record_helpers.h"
#include "util/json_write.h"

/* ---- the oracle ----------------------------------------------------------- */

/* out is what gpur wrote for the recorded number in: an integer literal
 * comes back as the same integer; a real with an integral value below 2^63
 * as that integer (gpur writes whole numbers as integers); any other real as
 * the same double, bit for bit. */
static void assert_same_number(const char *key, const json_t *in, const json_t *out)
{
	if (!out)
		fail_msg("\"%s\": left out (read as unknown)", key);
	if (!json_is_number(out))
		fail_msg("\"%s\": written as a non-number", key);
	if (json_is_integer(in)) {
		if (!json_is_integer(out) || json_integer_value(out) != json_integer_value(in))
			fail_msg("\"%s\": %" JSON_INTEGER_FORMAT " came back as %.17g", key, json_integer_value(in),
				 json_number_value(out));
		return;
	}
	double d = json_real_value(in);
	if (d == trunc(d) && fabs(d) < 0x1p63) {
		if (!json_is_integer(out) || json_integer_value(out) != (json_int_t)d)
			fail_msg("\"%s\": %.17g came back as %.17g, not as an integer", key, d, json_number_value(out));
		return;
	}
	double o = json_is_real(out) ? json_real_value(out) : NAN;
	if (!json_is_real(out) || memcmp(&d, &o, sizeof(d)) != 0)
		fail_msg("\"%s\": %.17g came back as %.17g", key, d, json_number_value(out));
}

/* Every number of the recorded object in, against the written object out. */
static void assert_numbers_kept(const json_t *in, const json_t *out)
{
	const char *key;
	json_t *v;

	assert_non_null(out);
	json_object_foreach((json_t *)(uintptr_t)in, key, v) {
		if (json_is_number(v))
			assert_same_number(key, v, json_object_get(out, key));
	}
}

/* Replays one record line the way --replay --json does (decode, encode) and
 * checks its numbers with the oracle, object by object; returns the written
 * line (the caller frees). */
static char *round_trip_numbers(const char *line)
{
	struct frame *f = decode(line);
	char *s = encode(f);
	json_t *in = parse(line), *out = parse(s);

	assert_numbers_kept(json_object_get(in, "system"), json_object_get(out, "system"));
	json_t *gi = json_object_get(in, "gpus"), *go = json_object_get(out, "gpus");
	assert_int_equal(json_array_size(gi), json_array_size(go));
	for (size_t i = 0; i < json_array_size(gi); i++)
		assert_numbers_kept(json_array_get(gi, i), json_array_get(go, i));
	json_t *pi = json_object_get(in, "processes"), *po = json_object_get(out, "processes");
	assert_int_equal(json_array_size(pi), json_array_size(po));
	for (size_t i = 0; i < json_array_size(pi); i++)
		assert_numbers_kept(json_array_get(pi, i), json_array_get(po, i));
	json_decref(in);
	json_decref(out);

	/* gpur's output is a fixed point: read again, written the same. */
	struct frame *g = decode(s);
	char *again = encode(g);
	assert_string_equal(s, again);
	free(again);
	frame_unref(g);
	frame_unref(f);
	return s;
}

/* ---- measured quantities: any finite number ------------------------------ */

static const char NUMBERS[] =
	"{\"system\":{\"cpu_pct\":12.345678901234567,\"mem_used_bytes\":9007199254740993,"
	"\"mem_total_bytes\":68719476736.0,\"load_1m\":0.1},"
	"\"gpus\":[{\"device_id\":\"GPU-a\",\"temp_c\":41.5,\"temp_mem_c\":-12.25,\"temp_slowdown_c\":-40,"
	"\"temp_shutdown_c\":1e3,\"util_pct\":1.0,\"mem_util_pct\":0.30000000000000004,"
	"\"mem_used_bytes\":9007199254740993,\"mem_total_bytes\":9223372036854775807,\"power_w\":312.456,"
	"\"power_limit_w\":7E2,\"energy_j\":9007199254740993,\"fan_pct\":12.5,\"fan_rpm\":1234.5,"
	"\"clock_gfx_mhz\":1410.5,\"clock_gfx_max_mhz\":1.98e+3,\"clock_mem_mhz\":2619,"
	"\"clock_mem_max_mhz\":2619.0,\"enc_pct\":5e-324,\"dec_pct\":99.99999999999999,"
	"\"pcie_rx_bytes_per_s\":123456789.125,\"pcie_tx_bytes_per_s\":2251799813685248.5,"
	"\"ecc_errors_uncorrected\":9007199254740993},"
	"{\"device_id\":\"GPU-b\",\"temp_c\":-0.5,\"energy_j\":1.8446744073709552e19,\"power_w\":0.1,"
	"\"mem_used_bytes\":1.5,\"pcie_rx_bytes_per_s\":9.2e18}],"
	"\"processes\":[{\"pid\":1,\"gpu_index\":0,\"gpu_mem_bytes\":9007199254740993,"
	"\"gpu_util_pct\":33.333333333333336,\"mem_bw_pct\":0.5,\"enc_pct\":1e-3,\"dec_pct\":100,"
	"\"cpu_pct\":181.5,\"host_mem_bytes\":2251799813685248.5,\"container_pid\":7,"
	"\"start_ms\":1699999990000}]}";

static void test_measured_quantities_round_trip_exactly(void **state)
{
	char *s = round_trip_numbers(NUMBERS);

	(void)state;
	/* The canonical forms, as bytes. */
	assert_non_null(strstr(s, "\"temp_c\":41.5,"));
	assert_non_null(strstr(s, "\"temp_mem_c\":-12.25,"));
	assert_non_null(strstr(s, "\"temp_c\":-0.5,"));
	assert_non_null(strstr(s, "\"mem_used_bytes\":9007199254740993,"));
	assert_non_null(strstr(s, "\"energy_j\":9007199254740993,"));
	assert_non_null(strstr(s, "\"pcie_rx_bytes_per_s\":123456789.125,"));
	assert_non_null(strstr(s, "\"cpu_pct\":12.345678901234567,"));
	assert_non_null(strstr(s, "\"temp_shutdown_c\":1000,"));
	assert_non_null(strstr(s, "\"util_pct\":1,"));
	assert_non_null(strstr(s, "\"clock_gfx_max_mhz\":1980,"));
	assert_non_null(strstr(s, "\"mem_total_bytes\":68719476736,"));
	free(s);
}

static void test_decoded_values_are_exact(void **state)
{
	struct frame *f = decode(NUMBERS);
	const struct gpu *g = &f->gpus[0];

	(void)state;
	assert_true(gpu_has(g, GPU_F_TEMP) && g->temp_c == 41.5L);
	assert_true(gpu_has(g, GPU_F_TEMP_MEM) && g->temp_mem_c == -12.25L);
	assert_true(g->mem_used_bytes == 9007199254740993.0L);
	assert_true(g->mem_used_bytes != 9007199254740992.0L); /* not through a double */
	assert_true(g->energy_j == 9007199254740993.0L);
	assert_true(g->mem_total_bytes == 9223372036854775807.0L);
	assert_true(g->pcie_rx_bytes_per_s == 123456789.125L);
	assert_true(g->clock_gfx_mhz == 1410.5L);
	assert_true(g->temp_shutdown_c == 1000);
	assert_true(f->system.cpu_pct == (long double)12.345678901234567);
	assert_true(f->system.mem_used_bytes == 9007199254740993.0L);
	assert_true(f->procs[0].gpu_mem_bytes == 9007199254740993.0L);
	assert_true(f->procs[0].host_mem_bytes == 2251799813685248.5L);
	assert_true(f->gpus[1].temp_c == -0.5L);
	assert_true(f->gpus[1].energy_j == (long double)1.8446744073709552e19);
	frame_unref(f);
}

/* Ranges still hold, and an integer literal outside int64 is still unknown
 * (rule 5) even where a real of the same size would be accepted. */
static void test_ranges_and_2_63_still_unknown(void **state)
{
	struct frame *f = decode(
		"{\"system\":{\"mem_used_bytes\":9223372036854775808,\"cpu_pct\":100.5},"
		"\"gpus\":[{\"mem_used_bytes\":9223372036854775808,\"temp_c\":-9223372036854775809,"
		"\"energy_j\":18446744073709551616,\"temp_mem_c\":-273.5,\"util_pct\":100.000001,"
		"\"power_w\":-0.001,\"fan_rpm\":1e400,\"pcie_tx_bytes_per_s\":1e19,\"clock_gfx_mhz\":\"1410.5\","
		"\"temp_slowdown_c\":-273,\"mem_total_bytes\":9223372036854775807}],"
		"\"processes\":[{\"pid\":1,\"gpu_mem_bytes\":-0.5,\"cpu_pct\":1e7}]}");
	const struct gpu *g = &f->gpus[0];

	(void)state;
	assert_int_equal(f->system.valid, 0);
	assert_int_equal(g->valid, UINT64_C(1) << GPU_F_TEMP_SLOWDOWN | UINT64_C(1) << GPU_F_MEM_TOTAL);
	assert_true(g->temp_slowdown_c == -273);
	assert_int_equal(f->nprocs, 1);
	assert_false(process_has(&f->procs[0], PROC_F_GPU_MEM));
	assert_false(process_has(&f->procs[0], PROC_F_CPU));
	frame_unref(f);

	/* The same magnitude as a real is a number: energy has no upper bound. */
	f = decode("{\"gpus\":[{\"energy_j\":1.8446744073709552e19}]}");
	assert_true(gpu_has(&f->gpus[0], GPU_F_ENERGY));
	frame_unref(f);
}

/* ---- identities and counts: integers only -------------------------------- */

static void test_identities_and_counts_stay_integers(void **state)
{
	struct frame *f = decode(
		"{\"ts_ms\":1.5,\"gpus\":[{\"pstate\":1.5,\"pcie_gen\":4.5,\"pcie_width\":16.5,"
		"\"pcie_gen_max\":5.5,\"pcie_width_max\":0.5,\"temp_c\":41.5},"
		"{\"pstate\":2.0,\"pcie_gen\":4e0,\"pcie_width\":16}],"
		"\"processes\":[{\"pid\":1.5,\"gpu_index\":0},{\"pid\":2,\"gpu_index\":0.5},"
		"{\"pid\":3,\"gpu_index\":1.0,\"container_pid\":7.5,\"start_ms\":1.5,\"cpu_pct\":0.5}],"
		"\"events\":[{\"kind\":\"note\",\"gpu_index\":0.5,\"pid\":1.5}]}");
	const struct gpu *g = &f->gpus[0];

	(void)state;
	assert_false(frame_has(f, FRAME_F_TS));
	assert_false(gpu_has(g, GPU_F_PSTATE));
	assert_false(gpu_has(g, GPU_F_PCIE_GEN));
	assert_false(gpu_has(g, GPU_F_PCIE_WIDTH));
	assert_false(gpu_has(g, GPU_F_PCIE_GEN_MAX));
	assert_false(gpu_has(g, GPU_F_PCIE_WIDTH_MAX));
	assert_true(gpu_has(g, GPU_F_TEMP)); /* a measurement beside them is kept */
	/* An integral value in another form is still that integer. */
	assert_true(gpu_has(&f->gpus[1], GPU_F_PSTATE) && f->gpus[1].pstate == 2);
	assert_true(gpu_has(&f->gpus[1], GPU_F_PCIE_GEN) && f->gpus[1].link.gen == 4);
	/* pid 1.5 and gpu_index 0.5 drop their rows (rule 4); the third stays. */
	assert_int_equal(f->nprocs, 1);
	const struct gpu_process *p = &f->procs[0];
	assert_int_equal(p->pid, 3);
	assert_int_equal(p->gpu_index, 1);
	assert_false(process_has(p, PROC_F_CONTAINER_PID));
	assert_false(process_has(p, PROC_F_START));
	assert_true(process_has(p, PROC_F_CPU) && p->cpu_pct == 0.5L);
	assert_int_equal(f->nevents, 1);
	assert_false(event_has(&f->events[0], EVENT_F_GPU_INDEX));
	assert_false(event_has(&f->events[0], EVENT_F_PID));

	/* Written back, the integers are integer literals. */
	json_t *j = encode_json(f);
	assert_true(json_is_integer(json_object_get(gpu_json(j, 1), "pstate")));
	assert_true(json_is_integer(json_object_get(gpu_json(j, 1), "pcie_gen")));
	assert_null(json_object_get(gpu_json(j, 0), "pstate"));
	json_decref(j);
	frame_unref(f);
}

/* ---- writing -------------------------------------------------------------- */

static char *put_num(long double v)
{
	struct buf b;

	buf_init(&b);
	json_put_num(&b, v);
	char *s = strdup(buf_cstr(&b));
	assert_non_null(s);
	buf_fini(&b);
	return s;
}

static void assert_put_num(long double v, const char *want)
{
	char *s = put_num(v);

	if (strcmp(s, want) != 0)
		fail_msg("json_put_num(%.21Lg) wrote %s, not %s", v, s, want);
	free(s);
}

static void test_num_writes_integers_exactly_and_others_shortest(void **state)
{
	(void)state;
	assert_put_num(9007199254740993.0L, "9007199254740993");
	assert_put_num(-9007199254740993.0L, "-9007199254740993");
	assert_put_num(9223372036854775807.0L, "9223372036854775807");
	assert_put_num(-0x1p63L, "-9223372036854775808");
	assert_put_num(41.5L, "41.5");
	assert_put_num(-0.0L, "0");
	assert_put_num(123456789.125L, "123456789.125");
	assert_put_num((long double)0.1, "0.1");
	assert_put_num((long double)0.30000000000000004, "0.30000000000000004");
	/* A value only a long double holds is written as its nearest double. */
	assert_put_num(1.0L / 3.0L, "0.3333333333333333");
	/* 2^63 is past int64: not an integer literal (a reader would take
	 * that as unknown) but a real that reads back as the same double. */
	char *s = put_num(0x1p63L);
	assert_true(strtod(s, NULL) == 0x1p63);
	assert_non_null(strpbrk(s, ".eE"));
	free(s);
}

static void test_non_finite_is_never_written(void **state)
{
	struct frame *f = frame_new();
	struct gpu *g = frame_add_gpu(f);

	(void)state;
	g->temp_c = NAN;
	g->power_w = INFINITY;
	g->energy_j = 1e4000L; /* finite, but no double holds it */
	g->util_pct = 50;
	gpu_set(g, GPU_F_TEMP);
	gpu_set(g, GPU_F_POWER);
	gpu_set(g, GPU_F_ENERGY);
	gpu_set(g, GPU_F_UTIL);
	char *s = encode(f);
	assert_string_equal(s, "{\"schema\":1,\"gpus\":[{\"util_pct\":50}],\"processes\":[]}\n");
	free(s);
	frame_unref(f);
}

/* ---- display rounding ----------------------------------------------------- */

static void test_display_rounds_never_truncates(void **state)
{
	(void)state;
	assert_int_equal(field_num_i64(41.5L), 42);
	assert_int_equal(field_num_i64(40.5L), 41);
	assert_int_equal(field_num_i64(41.49L), 41);
	assert_int_equal(field_num_i64(-2.5L), -3);
	assert_int_equal(field_num_i64(-0.4L), 0);
	assert_true(field_num_i64(1e30L) == INT64_MAX);
	assert_true(field_num_i64(-1e30L) == INT64_MIN);
	assert_int_equal(field_num_i64(NAN), 0);
	assert_true(field_num_i64(9007199254740993.0L) == INT64_C(9007199254740993));
	assert_int_equal(field_num_u64(41.5L), 42);
	assert_int_equal(field_num_u64(0.49L), 0);
	assert_int_equal(field_num_u64(-7), 0);
	assert_int_equal(field_num_u64(NAN), 0);
	assert_true(field_num_u64(0x1p64L) == UINT64_MAX);
	assert_true(field_num_u64(1e30L) == UINT64_MAX);
	assert_true(field_num_u64(9223372036854775807.0L) == UINT64_C(9223372036854775807));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measured_quantities_round_trip_exactly),
		cmocka_unit_test(test_decoded_values_are_exact),
		cmocka_unit_test(test_ranges_and_2_63_still_unknown),
		cmocka_unit_test(test_identities_and_counts_stay_integers),
		cmocka_unit_test(test_num_writes_integers_exactly_and_others_shortest),
		cmocka_unit_test(test_non_finite_is_never_written),
		cmocka_unit_test(test_display_rounds_never_truncates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
