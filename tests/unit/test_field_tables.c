/* test_field_tables: every descriptor table is complete and consistent with
 * its enum of validity bits and with the keys docs/record-format.md documents. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/event.h"
#include "model/field.h"
#include "model/frame.h"
#include "model/gpu.h"
#include "model/process.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The keys docs/record-format.md lists, object by object. */
static const char *const DESIGN_GPU_KEYS[] = {
	"name", "device_id", "parent_device_id", "vendor", "pci_bus_id", "state", "pstate",
	"mig_mode", "util_pct", "mem_util_pct", "mem_used_bytes", "mem_total_bytes", "temp_c",
	"temp_mem_c", "temp_slowdown_c", "temp_shutdown_c", "power_w", "power_limit_w", "energy_j",
	"fan_pct", "fan_rpm", "clock_gfx_mhz", "clock_gfx_max_mhz", "clock_mem_mhz",
	"clock_mem_max_mhz", "enc_pct", "dec_pct", "pcie_gen", "pcie_width", "pcie_gen_max",
	"pcie_width_max", "pcie_rx_bytes_per_s", "pcie_tx_bytes_per_s", "ecc_errors_uncorrected",
	"throttle",
	/* Added with issue 10: AMD's GTT and the
	 * junction temperature of amdgpu and xe hwmon. */
	"gtt_used_bytes", "gtt_total_bytes", "temp_junction_c",
	/* Issue 20: the original gpur's fields that had no key of ours. */
	"integrated", "video_pct", "voltage_mv", "perf_level",
	/* Issue 23: GPM's profiling metrics. */
	"gr_active_pct", "sm_active_pct", "sm_occupancy_pct", "tensor_active_pct", "dram_active_pct",
	"fp64_active_pct", "fp32_active_pct", "fp16_active_pct", "nvlink_rx_bytes_per_s", "nvlink_tx_bytes_per_s",
	/* A process list that failed in the poll (the idle tracker and
	 * --select must not read its missing rows as exits or a free GPU). */
	"processes_unknown",
};
/* "readings — util, memory used, temperatures, power, energy, fan, clocks,
 * enc/dec, PCIe throughput and link, ECC, throttle, P-state — are omitted" for
 * lost and suspended GPUs; identity, totals, limits, maxima and thresholds stay. */
static const char *const DESIGN_GPU_READINGS[] = {
	"pstate", "util_pct", "mem_util_pct", "mem_used_bytes", "temp_c", "temp_mem_c", "power_w",
	"energy_j", "fan_pct", "fan_rpm", "clock_gfx_mhz", "clock_mem_mhz", "enc_pct", "dec_pct",
	"pcie_gen", "pcie_width", "pcie_rx_bytes_per_s", "pcie_tx_bytes_per_s",
	"ecc_errors_uncorrected", "throttle", "gtt_used_bytes", "temp_junction_c",
	"video_pct", "voltage_mv", "perf_level",
	"gr_active_pct", "sm_active_pct", "sm_occupancy_pct", "tensor_active_pct", "dram_active_pct",
	"fp64_active_pct", "fp32_active_pct", "fp16_active_pct", "nvlink_rx_bytes_per_s", "nvlink_tx_bytes_per_s",
	"processes_unknown",
};
static const char *const DESIGN_PROCESS_KEYS[] = {
	"pid", "gpu_index", "name", "cmdline", "user", "kind", "gpu_mem_bytes", "gpu_util_pct",
	"mem_bw_pct", "enc_pct", "dec_pct", "cpu_pct", "host_mem_bytes", "container",
	"container_name", "container_pid", "pod", "pod_name", "pod_namespace", "unit", "start_ms",
};
static const char *const DESIGN_EVENT_KEYS[] = {
	"kind", "gpu_index", "device_id", "backend", "pid", "signal", "result", "detail", "xid", "gpu_instance_id",
};
static const char *const DESIGN_SYSTEM_KEYS[] = {"cpu_pct", "mem_used_bytes", "mem_total_bytes", "load_1m"};
/* Top level, less schema (always 1) and the arrays, which the decoder handles itself. */
static const char *const DESIGN_FRAME_KEYS[] = {"ts_ms", "host", "backend", "driver"};

struct table {
	const char *what;
	const struct field *tab;
	size_t n, struct_size;
	unsigned nbits;
};

static struct table tables(size_t i)
{
	const struct table all[] = {
		{"gpu", GPU_FIELDS, GPU_NFIELDS, sizeof(struct gpu), GPU_F__COUNT},
		{"process", PROCESS_FIELDS, PROCESS_NFIELDS, sizeof(struct gpu_process), PROC_F__COUNT},
		{"event", EVENT_FIELDS, EVENT_NFIELDS, sizeof(struct event), EVENT_F__COUNT},
		{"frame", FRAME_FIELDS, FRAME_NFIELDS, sizeof(struct frame), FRAME_F__COUNT},
		{"system", SYSTEM_FIELDS, SYSTEM_NFIELDS, sizeof(struct system_stats), SYS_F__COUNT},
	};
	assert_true(i < N(all));
	return all[i];
}
#define NTABLES 5

static size_t type_size(enum field_type t)
{
	switch (t) {
	case FIELD_STR: return sizeof(const char *);
	case FIELD_U64: return sizeof(uint64_t);
	case FIELD_NUM: return sizeof(long double);
	case FIELD_BOOL: return sizeof(bool);
	case FIELD_ENUM: return sizeof(uint8_t);
	case FIELD_FLAGS: return sizeof(uint32_t);
	}
	fail_msg("unknown field type %d", (int)t);
	return 0;
}

static void test_every_table_passes_its_check(void **state)
{
	(void)state;
	for (size_t i = 0; i < NTABLES; i++) {
		struct table t = tables(i);
		const char *bad = field_table_check(t.tab, t.n, t.struct_size);
		if (bad)
			fail_msg("%s table: field_table_check blames \"%s\"", t.what, bad);
		for (size_t j = 0; j < t.n; j++)
			assert_true(t.tab[j].offset + type_size(t.tab[j].type) <= t.struct_size);
	}
}

static void test_every_bit_has_exactly_one_entry(void **state)
{
	(void)state;
	for (size_t i = 0; i < NTABLES; i++) {
		struct table t = tables(i);
		for (unsigned bit = 0; bit < t.nbits; bit++) {
			size_t count = 0;
			for (size_t j = 0; j < t.n; j++)
				count += t.tab[j].bit == bit;
			/* "system" is a nested object with its own table. */
			size_t want = t.tab == FRAME_FIELDS && bit == FRAME_F_SYSTEM ? 0 : 1;
			if (count != want)
				fail_msg("%s table: bit %u has %zu entries", t.what, bit, count);
		}
		for (size_t j = 0; j < t.n; j++)
			if (t.tab[j].bit >= t.nbits)
				fail_msg("%s table: \"%s\" has bit %u outside the enum", t.what, t.tab[j].key, t.tab[j].bit);
	}
	/* The GPU table is in the order of its enum, so code finds a field's
	 * row by its bit (GPU_FIELDS[GPU_F_TEMP]: the backends do). */
	for (size_t j = 0; j < GPU_NFIELDS; j++)
		if (GPU_FIELDS[j].bit != j)
			fail_msg("gpu table: \"%s\" is row %zu but has bit %u", GPU_FIELDS[j].key, j, GPU_FIELDS[j].bit);
}

/* field_set_number stores by the field's type, and refuses what does not fit. */
static void test_set_number(void **state)
{
	struct gpu g;
	const struct field *temp = &GPU_FIELDS[GPU_F_TEMP], *gen = &GPU_FIELDS[GPU_F_PCIE_GEN];
	const struct field *thr = &GPU_FIELDS[GPU_F_THROTTLE], *name = &GPU_FIELDS[GPU_F_NAME];

	(void)state;
	memset(&g, 0, sizeof(g));
	assert_true(field_set_number(&g, temp, 41.5L));
	assert_true(g.temp_c == 41.5L);
	assert_true(field_set_number(&g, gen, 4));
	assert_int_equal(g.link.gen, 4);
	assert_false(field_set_number(&g, gen, 4.5L));
	assert_false(field_set_number(&g, gen, -1));
	assert_int_equal(g.link.gen, 4);
	assert_true(field_set_number(&g, thr, 5));
	assert_int_equal(g.throttle, 5);
	assert_false(field_set_number(&g, thr, 0x1p33L));
	assert_false(field_set_number(&g, name, 1));
	assert_int_equal(g.valid, 0); /* the validity bits are the caller's */
}

/* The table holds exactly the keys docs/record-format.md lists. */
static void check_keys(const char *what, const struct field *tab, size_t n, const char *const *keys, size_t nkeys)
{
	for (size_t k = 0; k < nkeys; k++)
		if (!field_find(tab, n, keys[k], strlen(keys[k])))
			fail_msg("%s: documented key \"%s\" has no table entry", what, keys[k]);
	if (n != nkeys)
		fail_msg("%s: %zu table entries for %zu documented keys", what, n, nkeys);
}

static void test_tables_hold_the_design_keys(void **state)
{
	(void)state;
	check_keys("gpu", GPU_FIELDS, GPU_NFIELDS, DESIGN_GPU_KEYS, N(DESIGN_GPU_KEYS));
	check_keys("process", PROCESS_FIELDS, PROCESS_NFIELDS, DESIGN_PROCESS_KEYS, N(DESIGN_PROCESS_KEYS));
	check_keys("event", EVENT_FIELDS, EVENT_NFIELDS, DESIGN_EVENT_KEYS, N(DESIGN_EVENT_KEYS));
	check_keys("system", SYSTEM_FIELDS, SYSTEM_NFIELDS, DESIGN_SYSTEM_KEYS, N(DESIGN_SYSTEM_KEYS));
	check_keys("frame", FRAME_FIELDS, FRAME_NFIELDS, DESIGN_FRAME_KEYS, N(DESIGN_FRAME_KEYS));
}

/* A process's keys are written in the documented order (names after the ids
 * they name: container_name after container, pod_name after pod). */
static void test_process_keys_in_design_order(void **state)
{
	(void)state;
	assert_int_equal(PROCESS_NFIELDS, N(DESIGN_PROCESS_KEYS));
	for (size_t i = 0; i < PROCESS_NFIELDS; i++)
		if (strcmp(PROCESS_FIELDS[i].key, DESIGN_PROCESS_KEYS[i]) != 0)
			fail_msg("process key %zu is \"%s\", the docs have \"%s\"", i, PROCESS_FIELDS[i].key,
				 DESIGN_PROCESS_KEYS[i]);
}

static void test_entries_point_at_their_members(void **state)
{
	static const struct {
		const char *key;
		size_t offset;
		enum field_type type;
		unsigned bit;
	} gpu[] = {
		{"name", offsetof(struct gpu, name), FIELD_STR, GPU_F_NAME},
		{"state", offsetof(struct gpu, state), FIELD_ENUM, GPU_F_STATE},
		{"mig_mode", offsetof(struct gpu, mig_mode), FIELD_BOOL, GPU_F_MIG_MODE},
		{"temp_c", offsetof(struct gpu, temp_c), FIELD_NUM, GPU_F_TEMP},
		{"power_w", offsetof(struct gpu, power_w), FIELD_NUM, GPU_F_POWER},
		{"mem_total_bytes", offsetof(struct gpu, mem_total_bytes), FIELD_NUM, GPU_F_MEM_TOTAL},
		{"ecc_errors_uncorrected", offsetof(struct gpu, ecc_errors_uncorrected), FIELD_NUM, GPU_F_ECC_UNCORRECTED},
		{"pcie_gen", offsetof(struct gpu, link.gen), FIELD_U64, GPU_F_PCIE_GEN},
		{"throttle", offsetof(struct gpu, throttle), FIELD_FLAGS, GPU_F_THROTTLE},
	}, proc[] = {
		{"pid", offsetof(struct gpu_process, pid), FIELD_U64, PROC_F_PID},
		{"gpu_index", offsetof(struct gpu_process, gpu_index), FIELD_U64, PROC_F_GPU_INDEX},
		{"kind", offsetof(struct gpu_process, kind), FIELD_ENUM, PROC_F_KIND},
		{"cmdline", offsetof(struct gpu_process, cmdline), FIELD_STR, PROC_F_CMDLINE},
		{"start_ms", offsetof(struct gpu_process, start_ms), FIELD_U64, PROC_F_START},
		{"container_name", offsetof(struct gpu_process, container_name), FIELD_STR, PROC_F_CONTAINER_NAME},
		{"pod_name", offsetof(struct gpu_process, pod_name), FIELD_STR, PROC_F_POD_NAME},
		{"pod_namespace", offsetof(struct gpu_process, pod_namespace), FIELD_STR, PROC_F_POD_NAMESPACE},
	};

	(void)state;
	for (size_t i = 0; i < N(gpu); i++) {
		const struct field *f = field_find(GPU_FIELDS, GPU_NFIELDS, gpu[i].key, strlen(gpu[i].key));
		assert_non_null(f);
		assert_int_equal(f->offset, gpu[i].offset);
		assert_int_equal(f->type, gpu[i].type);
		assert_int_equal(f->bit, gpu[i].bit);
	}
	for (size_t i = 0; i < N(proc); i++) {
		const struct field *f = field_find(PROCESS_FIELDS, PROCESS_NFIELDS, proc[i].key, strlen(proc[i].key));
		assert_non_null(f);
		assert_int_equal(f->offset, proc[i].offset);
		assert_int_equal(f->type, proc[i].type);
		assert_int_equal(f->bit, proc[i].bit);
	}
	/* The cmdline cap is the record format's 4 KiB. */
	assert_int_equal(field_find(PROCESS_FIELDS, PROCESS_NFIELDS, "cmdline", 7)->max_len, 4096);
}

static void test_readings_are_the_designs(void **state)
{
	(void)state;
	for (size_t i = 0; i < GPU_NFIELDS; i++) {
		bool want = false;
		for (size_t k = 0; k < N(DESIGN_GPU_READINGS); k++)
			want |= strcmp(GPU_FIELDS[i].key, DESIGN_GPU_READINGS[k]) == 0;
		bool is = GPU_FIELDS[i].flags & FIELD_READING;
		if (is != want)
			fail_msg("gpu \"%s\": reading flag %d, the docs say %d", GPU_FIELDS[i].key, is, want);
	}
}

static void test_vocabularies(void **state)
{
	const struct field *state_f = field_find(GPU_FIELDS, GPU_NFIELDS, "state", 5);
	const struct field *thr = field_find(GPU_FIELDS, GPU_NFIELDS, "throttle", 8);
	const struct field *kind = field_find(PROCESS_FIELDS, PROCESS_NFIELDS, "kind", 4);
	static const char *const throttle[] = {"gpu_idle", "applications_clocks", "sw_power_cap",
		"hw_slowdown", "sync_boost", "sw_thermal", "hw_thermal", "hw_power_brake", "display_clock",
		/* Issue 20: generic reasons whose source is not told. */
		"thermal", "power_cap"};

	(void)state;
	assert_int_equal(state_f->nnames, 3);
	assert_int_equal(field_name_index(state_f, "ok", 2), GPU_STATE_OK);
	assert_int_equal(field_name_index(state_f, "lost", 4), GPU_STATE_LOST);
	assert_int_equal(field_name_index(state_f, "suspended", 9), GPU_STATE_SUSPENDED);
	assert_int_equal(field_name_index(state_f, "ok!", 3), -1);
	assert_int_equal(field_name_index(state_f, "o", 1), -1);
	assert_int_equal(thr->nnames, N(throttle));
	for (size_t i = 0; i < N(throttle); i++)
		assert_int_equal(field_name_index(thr, throttle[i], strlen(throttle[i])), (int)i);
	assert_int_equal(field_name_index(kind, "compute", 7), PROCESS_COMPUTE);
	assert_int_equal(field_name_index(kind, "graphics", 8), PROCESS_GRAPHICS);
	assert_int_equal(field_name_index(kind, "both", 4), PROCESS_BOTH);
	assert_null(field_find(GPU_FIELDS, GPU_NFIELDS, "nam", 3));
	assert_null(field_find(GPU_FIELDS, GPU_NFIELDS, "names", 5));
}

/* The check itself must catch each kind of mistake it promises to. */
static void test_check_catches_broken_tables(void **state)
{
	struct obj {
		uint64_t valid;
		long double a;
		const char *s;
		uint8_t e;
	};
	static const char *const names[] = {"x"};
	const struct field good[] = {
		{"a", FIELD_NUM, 0, offsetof(struct obj, a), 0, 1, 0, NULL, 0, 0, NULL, "a"},
		{"s", FIELD_STR, 1, offsetof(struct obj, s), 0, 0, 8, NULL, 0, 0, NULL, "s"},
		{"e", FIELD_ENUM, 2, offsetof(struct obj, e), 0, 0, 0, names, 1, 0, NULL, "e"},
	};
	struct field t[3];

	(void)state;
	assert_null(field_table_check(good, 3, sizeof(struct obj)));
#define BROKEN(change, blamed)                                                  \
	do {                                                                    \
		memcpy(t, good, sizeof(good));                                  \
		change;                                                         \
		const char *b = field_table_check(t, 3, sizeof(struct obj));    \
		assert_non_null(b);                                             \
		assert_string_equal(b, blamed);                                 \
	} while (0)
	BROKEN(t[1].key = "a", "a");                            /* duplicate key */
	BROKEN(t[2].bit = 0, "e");                              /* duplicate bit */
	BROKEN(t[1].bit = 64, "s");                             /* bit beyond the mask */
	BROKEN(t[0].help = NULL, "a");                          /* undocumented */
	BROKEN(t[1].max_len = 0, "s");                          /* unbounded string */
	BROKEN((t[0].min = 2, t[0].max = 1), "a");              /* empty range */
	BROKEN(t[2].names = NULL, "e");                         /* enum without names */
	BROKEN(t[2].nnames = 0, "e");
	BROKEN(t[0].offset = 0, "a");                           /* overlaps the mask */
	BROKEN(t[2].offset = sizeof(struct obj), "e");          /* outside the struct */
	BROKEN(t[1].key = "", "");                              /* empty key */
#undef BROKEN
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_table_passes_its_check),
		cmocka_unit_test(test_every_bit_has_exactly_one_entry),
		cmocka_unit_test(test_set_number),
		cmocka_unit_test(test_tables_hold_the_design_keys),
		cmocka_unit_test(test_process_keys_in_design_order),
		cmocka_unit_test(test_entries_point_at_their_members),
		cmocka_unit_test(test_readings_are_the_designs),
		cmocka_unit_test(test_vocabularies),
		cmocka_unit_test(test_check_catches_broken_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
