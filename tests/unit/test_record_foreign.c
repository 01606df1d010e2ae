/* test_record_foreign: the original gpur's records (the Rust program gpur
 * began as) read as ours: each key of its map with its unit, ours winning
 * whichever comes first, its throttle string, P-states, words for unknown,
 * device id prefixes, a time of 0 and 32-bit pids. */
#include "record_helpers.h"

#include "record/record_foreign.h"

/* The one GPU of a record {"gpus":[<obj>]}. */
static struct frame *gpu_rec(const char *obj)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "{\"gpus\":[%s]}", obj);
	return decode(buf);
}

static void test_every_gpu_key_of_the_map_with_its_unit(void **state)
{
	struct frame *f = gpu_rec(
		"{\"utilization_pct\":92.0,\"vram_used_bytes\":1024,\"vram_total_bytes\":2048,"
		"\"temperature_c\":71.5,\"clock_mhz\":1980,\"mem_clock_mhz\":2619,\"enc_util_pct\":3.0,"
		"\"dec_util_pct\":0.0,\"video_util_pct\":12.5,\"pcie_max_gen\":5,\"pcie_max_width\":16,"
		"\"pcie_rx_kbs\":1000,\"pcie_tx_kbs\":3,\"volt_mv\":893,\"integrated\":true,"
		"\"gtt_used_bytes\":7,\"gtt_total_bytes\":8,\"temp_junction_c\":61.0}");
	const struct gpu *g = &f->gpus[0];

	(void)state;
	assert_true(gpu_has(g, GPU_F_UTIL) && g->util_pct == 92);
	assert_true(gpu_has(g, GPU_F_MEM_USED) && g->mem_used_bytes == 1024);
	assert_true(gpu_has(g, GPU_F_MEM_TOTAL) && g->mem_total_bytes == 2048);
	assert_true(gpu_has(g, GPU_F_TEMP) && g->temp_c == 71.5L);
	assert_true(gpu_has(g, GPU_F_CLOCK_GFX) && g->clock_gfx_mhz == 1980);
	assert_true(gpu_has(g, GPU_F_CLOCK_MEM) && g->clock_mem_mhz == 2619);
	assert_true(gpu_has(g, GPU_F_ENC) && g->enc_pct == 3);
	assert_true(gpu_has(g, GPU_F_DEC) && g->dec_pct == 0); /* a measured 0 stays */
	assert_true(gpu_has(g, GPU_F_VIDEO) && g->act.video_pct == 12.5L);
	assert_true(gpu_has(g, GPU_F_PCIE_GEN_MAX) && g->link.gen_max == 5);
	assert_true(gpu_has(g, GPU_F_PCIE_WIDTH_MAX) && g->link.width_max == 16);
	/* KiB/s into bytes/s. */
	assert_true(gpu_has(g, GPU_F_PCIE_RX) && g->pcie_rx_bytes_per_s == 1024000);
	assert_true(gpu_has(g, GPU_F_PCIE_TX) && g->pcie_tx_bytes_per_s == 3072);
	assert_true(gpu_has(g, GPU_F_VOLTAGE) && g->voltage_mv == 893);
	assert_true(gpu_has(g, GPU_F_INTEGRATED) && g->integrated);
	assert_true(gpu_has(g, GPU_F_GTT_USED) && g->gtt_used_bytes == 7);
	assert_true(gpu_has(g, GPU_F_TEMP_JUNCTION) && g->temp_junction_c == 61);
	/* No state was recorded, so none is known. */
	assert_false(gpu_has(g, GPU_F_STATE));
	frame_unref(f);
}

/* null is unknown under their names as under ours; a wrong type too, and a
 * KiB/s rate whose bytes/s would pass every int64 is unknown, not cut. */
static void test_null_wrong_type_and_overflow_are_unknown(void **state)
{
	struct frame *f = gpu_rec("{\"utilization_pct\":null,\"clock_mhz\":\"fast\",\"pcie_rx_kbs\":9223372036854775807,"
				  "\"vram_used_bytes\":-1,\"name\":\"\"}");
	const struct gpu *g = &f->gpus[0];

	(void)state;
	assert_false(gpu_has(g, GPU_F_UTIL));
	assert_false(gpu_has(g, GPU_F_CLOCK_GFX));
	assert_false(gpu_has(g, GPU_F_PCIE_RX));
	assert_false(gpu_has(g, GPU_F_MEM_USED));
	/* Their name may be empty: an empty name is what was recorded. */
	assert_true(gpu_has(g, GPU_F_NAME));
	assert_string_equal(g->name, "");
	frame_unref(f);
}

/* Ours wins when a record has both, whichever comes first, even when ours
 * says unknown. */
static void test_ours_wins_in_either_order(void **state)
{
	static const char *const recs[] = {
		"{\"util_pct\":10,\"utilization_pct\":90,\"pcie_rx_bytes_per_s\":5,\"pcie_rx_kbs\":7}",
		"{\"utilization_pct\":90,\"util_pct\":10,\"pcie_rx_kbs\":7,\"pcie_rx_bytes_per_s\":5}",
	};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct frame *f = gpu_rec(recs[i]);
		assert_true(gpu_has(&f->gpus[0], GPU_F_UTIL));
		assert_true(f->gpus[0].util_pct == 10);
		assert_true(f->gpus[0].pcie_rx_bytes_per_s == 5);
		frame_unref(f);
	}
	struct frame *f = gpu_rec("{\"temperature_c\":70,\"temp_c\":null}");
	assert_false(gpu_has(&f->gpus[0], GPU_F_TEMP));
	frame_unref(f);
	f = gpu_rec("{\"temp_c\":null,\"temperature_c\":70}");
	assert_false(gpu_has(&f->gpus[0], GPU_F_TEMP));
	frame_unref(f);
}

static void test_throttle_string(void **state)
{
	static const struct {
		const char *json;
		bool known;
		uint32_t want;
	} cases[] = {
		{"\"thermal+power-limit\"", true, 1u << GPU_THROTTLE_THERMAL | 1u << GPU_THROTTLE_POWER_CAP},
		{"\"hw-slowdown\"", true, 1u << GPU_THROTTLE_HW_SLOWDOWN},
		{"\"power-limit+hw-slowdown+thermal\"", true,
		 1u << GPU_THROTTLE_THERMAL | 1u << GPU_THROTTLE_POWER_CAP | 1u << GPU_THROTTLE_HW_SLOWDOWN},
		/* Ours in their form too; an unknown name among known ones is left out. */
		{"\"sw_power_cap+melting\"", true, 1u << GPU_THROTTLE_SW_POWER_CAP},
		{"\"melting\"", false, 0},
		{"\"\"", false, 0},
		{"\"+\"", false, 0},
		{"null", false, 0},
		{"[\"thermal\",\"power_cap\"]", true, 1u << GPU_THROTTLE_THERMAL | 1u << GPU_THROTTLE_POWER_CAP},
	};
	char obj[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(obj, sizeof(obj), "{\"throttle\":%s}", cases[i].json);
		struct frame *f = gpu_rec(obj);
		if (gpu_has(&f->gpus[0], GPU_F_THROTTLE) != cases[i].known)
			fail_msg("throttle %s: known %d", cases[i].json, !cases[i].known);
		if (cases[i].known && f->gpus[0].throttle != cases[i].want)
			fail_msg("throttle %s: 0x%x, want 0x%x", cases[i].json, f->gpus[0].throttle, cases[i].want);
		frame_unref(f);
	}
}

static void test_perf_level(void **state)
{
	static const struct {
		const char *obj;
		int pstate;          /* -1: unknown */
		const char *level;   /* NULL: unknown */
	} cases[] = {
		{"{\"perf_level\":\"P0\"}", 0, NULL},
		{"{\"perf_level\":\"P8\"}", 8, NULL},
		{"{\"perf_level\":\"P15\"}", 15, NULL},
		{"{\"perf_level\":\"P16\"}", -1, "P16"},
		{"{\"perf_level\":\"P08\"}", -1, "P08"},
		{"{\"perf_level\":\"p3\"}", -1, "p3"},
		{"{\"perf_level\":\"manual\"}", -1, "manual"},
		{"{\"perf_level\":\"auto\"}", -1, NULL},
		{"{\"perf_level\":null}", -1, NULL},
		/* Our pstate key wins over a P-state level, in either order, even null. */
		{"{\"pstate\":2,\"perf_level\":\"P8\"}", 2, NULL},
		{"{\"perf_level\":\"P8\",\"pstate\":2}", 2, NULL},
		{"{\"perf_level\":\"P8\",\"pstate\":null}", -1, NULL},
		{"{\"perf_level\":\"profile_peak\",\"pstate\":3}", 3, "profile_peak"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct frame *f = gpu_rec(cases[i].obj);
		const struct gpu *g = &f->gpus[0];
		if (gpu_has(g, GPU_F_PSTATE) != (cases[i].pstate >= 0) ||
		    (cases[i].pstate >= 0 && g->pstate != (uint64_t)cases[i].pstate))
			fail_msg("%s: pstate", cases[i].obj);
		if (gpu_has(g, GPU_F_PERF_LEVEL) != (cases[i].level != NULL) ||
		    (cases[i].level && strcmp(g->perf_level, cases[i].level) != 0))
			fail_msg("%s: perf_level", cases[i].obj);
		frame_unref(f);
	}
}

static void test_device_id_prefixes(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"nvml:GPU-1234", "GPU-1234"},
		{"amdgpu:pci:0000:03:00.0", "pci:0000:03:00.0"},
		{"intel:pci:0000:00:02.0", "pci:0000:00:02.0"},
		{"nouveau:pci:0000:01:00.0", "pci:0000:01:00.0"},
		{"ioaccel:ioreg:4294968325", "ioreg:4294968325"},
		{"pdh:luid_0x0000_0x1234", "luid_0x0000_0x1234"},
		{"nvml#1:GPU-1234", "GPU-1234"},
		/* All of them, so that a replay of a replay keeps the id. */
		{"nvml:amdgpu:pci:0000:03:00.0", "pci:0000:03:00.0"},
		{"nvml:nvml:", "nvml:"},
		/* Ours, and what only looks like a prefix, stay. */
		{"GPU-1234", "GPU-1234"},
		{"MIG-abcd", "MIG-abcd"},
		{"pci:0000:03:00.0", "pci:0000:03:00.0"},
		{"nvml:", "nvml:"},
		{"nvml#:GPU-1", "nvml#:GPU-1"},
		{"nvmlx:GPU-1", "nvmlx:GPU-1"},
		{"mock:0", "mock:0"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(record_foreign_device_id(cases[i].in), cases[i].out);
	struct frame *f = gpu_rec("{\"device_id\":\"nvml:MIG-1\",\"parent_device_id\":\"nvml:GPU-2\"}");
	assert_string_equal(f->gpus[0].device_id, "MIG-1");
	assert_string_equal(f->gpus[0].parent_device_id, "GPU-2");
	frame_unref(f);
}

static void test_process_row(void **state)
{
	struct frame *f = decode(
		"{\"gpus\":[{},{}],\"processes\":["
		"{\"command\":\"/usr/bin/python train.py\",\"container\":\"k8s:fedcba987654\",\"cpu_pct\":12.300000190734863,"
		"\"gpu_index\":0,\"gpu_mem_bytes\":0,\"gpu_util_pct\":null,\"host_mem_bytes\":5,\"kind\":\"Compute\","
		"\"pid\":4294967294,\"user\":\"alice\"},"
		"{\"command\":\"?\",\"container\":null,\"cpu_pct\":null,\"gpu_index\":1,\"gpu_mem_bytes\":null,"
		"\"gpu_util_pct\":null,\"host_mem_bytes\":null,\"kind\":\"Graphics\",\"pid\":0,\"user\":\"-\"},"
		"{\"pid\":4294967295,\"cmdline\":\"?\",\"command\":\"other\",\"kind\":\"GRAPHICS\"},"
		"{\"pid\":4294967296}]}");

	(void)state;
	assert_int_equal(f->nprocs, 3); /* a pid past 32 bits is no pid */
	const struct gpu_process *p = &f->procs[0];
	assert_int_equal(p->pid, 4294967294u);
	assert_true(process_has(p, PROC_F_CMDLINE));
	assert_string_equal(p->cmdline, "/usr/bin/python train.py");
	assert_string_equal(p->container, "k8s:fedcba987654");
	assert_true(p->cpu_pct == (long double)12.300000190734863);
	assert_true(process_has(p, PROC_F_GPU_MEM) && p->gpu_mem_bytes == 0);
	assert_false(process_has(p, PROC_F_GPU_UTIL));
	assert_int_equal(p->kind, PROCESS_COMPUTE);
	assert_string_equal(p->user, "alice");
	p = &f->procs[1];
	assert_int_equal(p->pid, 0);
	assert_int_equal(p->gpu_index, 1);
	assert_false(process_has(p, PROC_F_CMDLINE)); /* "?" is their unknown */
	assert_false(process_has(p, PROC_F_USER));    /* and "-" */
	assert_false(process_has(p, PROC_F_CONTAINER));
	assert_int_equal(p->kind, PROCESS_GRAPHICS);
	/* With no comm, a one-word name is the command line's program. */
	char name[64];
	assert_string_equal(process_short_name(&f->procs[0], name, sizeof(name)), "python");
	assert_null(process_short_name(&f->procs[1], name, sizeof(name)));
	/* Our cmdline key wins, and "?" there is a command line like any other. */
	p = &f->procs[2];
	assert_int_equal(p->pid, 4294967295u);
	assert_string_equal(p->cmdline, "?");
	assert_true(process_has(p, PROC_F_KIND) && p->kind == PROCESS_GRAPHICS);
	frame_unref(f);
}

/* A kind is read in any case; a GPU's state is not (docs/record-format.md: an unknown
 * state string is unknown, never ok). */
static void test_case_only_where_the_original_needs_it(void **state)
{
	struct frame *f = decode("{\"gpus\":[{\"state\":\"OK\"}],\"processes\":[{\"pid\":1,\"kind\":\"cOmPuTe\"}]}");

	(void)state;
	assert_false(gpu_has(&f->gpus[0], GPU_F_STATE));
	assert_int_equal(f->procs[0].kind, PROCESS_COMPUTE);
	frame_unref(f);
}

static void test_ts_zero_is_no_time(void **state)
{
	struct frame *f = decode("{\"ts_ms\":0,\"backend\":\"multi\",\"driver\":\"nvml driver 550.1 \xC2\xB7 amdgpu\"}");

	(void)state;
	assert_false(frame_has(f, FRAME_F_TS));
	assert_string_equal(f->driver, "nvml driver 550.1 \xC2\xB7 amdgpu");
	frame_unref(f);
	f = decode("{\"ts_ms\":1}");
	assert_true(frame_has(f, FRAME_F_TS));
	frame_unref(f);
}

static void test_peek_ts_at_the_end(void **state)
{
	static const struct {
		const char *line;
		bool found;
		uint64_t ts;
	} cases[] = {
		{"{\"gpus\":[],\"ts_ms\":1764745200000}", true, 1764745200000ull},
		{"{\"gpus\":[],\"ts_ms\": 7 }\r", true, 7},
		{"  \"ts_ms\": 1764745200000\n}", true, 1764745200000ull},
		{"{\"ts_ms\":12345678901234567890}", false, 0}, /* 20 digits */
		{"{\"ts_ms\":\"5\"}", false, 0},
		{"{\"xts_ms\":5,\"a\":1}", false, 0},
		{"ts_ms\":5}", false, 0},
		{"}", false, 0},
		{"", false, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ts = 0;
		bool got = record_peek_ts_end(cases[i].line, strlen(cases[i].line), &ts);
		if (got != cases[i].found || (got && ts != cases[i].ts))
			fail_msg("%s: found %d ts %llu", cases[i].line, got, (unsigned long long)ts);
	}
}

/* A record of theirs, encoded again, is ours: our keys, our units, no key
 * of theirs left. */
static void test_reencoded_as_ours(void **state)
{
	struct frame *f = decode(
		"{\"backend\":\"nvml\",\"driver\":\"550.54.15\",\"gpus\":[{\"clock_mhz\":1410,\"device_id\":\"nvml:GPU-9\","
		"\"integrated\":false,\"name\":\"A100\",\"pcie_tx_kbs\":2,\"perf_level\":\"P2\",\"throttle\":\"thermal\","
		"\"utilization_pct\":50.0}],\"processes\":[{\"command\":\"x\",\"gpu_index\":0,\"kind\":\"Compute\",\"pid\":7,"
		"\"user\":\"-\"}],\"ts_ms\":5}");
	char *s = encode(f);

	(void)state;
	assert_string_equal(s, "{\"schema\":1,\"ts_ms\":5,\"backend\":\"nvml\",\"driver\":\"550.54.15\",\"gpus\":[{\"name\":"
			       "\"A100\",\"device_id\":\"GPU-9\",\"pstate\":2,\"util_pct\":50,\"clock_gfx_mhz\":1410,"
			       "\"pcie_tx_bytes_per_s\":2048,\"throttle\":[\"thermal\"],\"integrated\":false}],"
			       "\"processes\":[{\"pid\":7,\"gpu_index\":0,\"cmdline\":\"x\",\"kind\":\"compute\"}]}\n");
	free(s);
	frame_unref(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_gpu_key_of_the_map_with_its_unit),
		cmocka_unit_test(test_null_wrong_type_and_overflow_are_unknown),
		cmocka_unit_test(test_ours_wins_in_either_order),
		cmocka_unit_test(test_throttle_string),
		cmocka_unit_test(test_perf_level),
		cmocka_unit_test(test_device_id_prefixes),
		cmocka_unit_test(test_process_row),
		cmocka_unit_test(test_case_only_where_the_original_needs_it),
		cmocka_unit_test(test_ts_zero_is_no_time),
		cmocka_unit_test(test_reencoded_as_ours),
		cmocka_unit_test(test_peek_ts_at_the_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
