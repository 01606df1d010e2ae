/* nvml_getters: one table entry per NVML getter (symbol, calling shape,
 * field(s), conversion, when it is read) and the loop that reads them. A
 * getter whose answer means "never on this device" is remembered per device
 * and not called again until re-initialisation. */
#include <string.h>

#include "backend/nvml_priv.h"

enum shape {
	SH_U32,      /* (dev, unsigned *) */
	SH_ARG_U32,  /* (dev, int, unsigned *) */
	SH_U64,      /* (dev, unsigned long long *) */
	SH_INT,      /* (dev, int *) */
	SH_CODEC,    /* (dev, unsigned *util, unsigned *period) */
	SH_ECC,      /* (dev, int type, int counter, unsigned long long *) */
	SH_UTIL,     /* (dev, nvmlUtilization_t *) into field and field2 */
	SH_MEM2,     /* (dev, nvmlMemory_v2_t *) into used and total */
	SH_MEM1,     /* (dev, nvmlMemory_t *) into used and total */
	SH_TEMPV,    /* (dev, nvmlTemperature_t *) */
	SH_FIELDVAL, /* (dev, 1, nvmlFieldValue_t *) with fieldId arg */
	SH_FANRPM,   /* (dev, nvmlFanSpeedInfo_t *) */
};

enum conv {
	CV_PLAIN,
	CV_MILLI,    /* mW, mJ -> W, J */
	CV_PCT,      /* 0..100, and dropped otherwise */
	CV_FAN,      /* NVIDIA documents fan speeds over 100 %, but 1000 is garbage */
	CV_PSTATE,   /* P0..P15; 32 is NVML_PSTATE_UNKNOWN */
	CV_TEMP,     /* signed degrees, -273..1000 */
	CV_ECC,      /* a count, where the all-ones "not available" is dropped */
	CV_THROTTLE, /* NVML's reason bits 0x1..0x100 are gpur's names in order */
};

#define G_POLL NVML_READ_POLL
#define G_STATIC NVML_READ_STATIC
#define G_MEMORY NVML_READ_MEMORY
#define G_NOT_MIG 8u   /* not available in MIG mode */
#define G_FALLBACK 16u /* only when the entry before it answers "never" */
#define G_PSTATE 32u   /* also read in the poll that sees the P-state change */

/* A getter's cadence, every_ms, is 0 for every poll. A slower one is read
 * when due, into the device's held values, which every poll's GPU carries
 * between reads. The SH_FIELDVAL entries that are due in a poll are asked
 * in one nvmlDeviceGetFieldValues call, each with its own answer. */
struct getter {
	const char *symbol;
	size_t fn; /* offset of the entry point in struct nvml_lib */
	enum shape shape;
	int arg, arg2;
	enum gpu_field field, field2; /* field2 is GPU_F__COUNT when there is none */
	enum conv conv;
	unsigned flags;
	unsigned every_ms;
};

#define FN(m) offsetof(struct nvml_lib, m)
#define NONE GPU_F__COUNT
#define FV(id) "nvmlDeviceGetFieldValues(" #id ")", FN(get_field_values), SH_FIELDVAL, NVML_FI_DEV_##id, 0
#define FAN NVML_FAN_MS
#define RARE NVML_RARE_MS

static const struct getter GETTERS[] = {
	{"nvmlDeviceGetTemperatureThreshold(SLOWDOWN)", FN(get_temperature_threshold), SH_ARG_U32,
	 NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, 0, GPU_F_TEMP_SLOWDOWN, NONE, CV_TEMP, G_STATIC, 0},
	{"nvmlDeviceGetTemperatureThreshold(SHUTDOWN)", FN(get_temperature_threshold), SH_ARG_U32,
	 NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, 0, GPU_F_TEMP_SHUTDOWN, NONE, CV_TEMP, G_STATIC, 0},
	{"nvmlDeviceGetMaxClockInfo(GRAPHICS)", FN(get_max_clock_info), SH_ARG_U32, NVML_CLOCK_GRAPHICS, 0,
	 GPU_F_CLOCK_GFX_MAX, NONE, CV_PLAIN, G_STATIC, 0},
	{"nvmlDeviceGetMaxClockInfo(MEM)", FN(get_max_clock_info), SH_ARG_U32, NVML_CLOCK_MEM, 0, GPU_F_CLOCK_MEM_MAX,
	 NONE, CV_PLAIN, G_STATIC, 0},
	{"nvmlDeviceGetMaxPcieLinkGeneration", FN(get_max_pcie_link_generation), SH_U32, 0, 0, GPU_F_PCIE_GEN_MAX, NONE,
	 CV_PLAIN, G_STATIC, 0},
	{"nvmlDeviceGetMaxPcieLinkWidth", FN(get_max_pcie_link_width), SH_U32, 0, 0, GPU_F_PCIE_WIDTH_MAX, NONE,
	 CV_PLAIN, G_STATIC, 0},

	/* The P-state comes first: the getters flagged G_PSTATE follow it. */
	{"nvmlDeviceGetPerformanceState", FN(get_performance_state), SH_INT, 0, 0, GPU_F_PSTATE, NONE, CV_PSTATE,
	 G_POLL, 0},
	{"nvmlDeviceGetUtilizationRates", FN(get_utilization_rates), SH_UTIL, 0, 0, GPU_F_UTIL, GPU_F_MEM_UTIL, CV_PCT,
	 G_POLL | G_NOT_MIG, 0},
	{"nvmlDeviceGetMemoryInfo_v2", FN(get_memory_info_v2), SH_MEM2, 0, 0, GPU_F_MEM_USED, GPU_F_MEM_TOTAL, CV_PLAIN,
	 G_POLL | G_MEMORY, 0},
	{"nvmlDeviceGetMemoryInfo", FN(get_memory_info), SH_MEM1, 0, 0, GPU_F_MEM_USED, GPU_F_MEM_TOTAL, CV_PLAIN,
	 G_POLL | G_MEMORY | G_FALLBACK, 0},
	{"nvmlDeviceGetTemperatureV", FN(get_temperature_v), SH_TEMPV, NVML_TEMPERATURE_GPU, 0, GPU_F_TEMP, NONE,
	 CV_TEMP, G_POLL, 0},
	{"nvmlDeviceGetTemperature", FN(get_temperature), SH_ARG_U32, NVML_TEMPERATURE_GPU, 0, GPU_F_TEMP, NONE,
	 CV_TEMP, G_POLL | G_FALLBACK, 0},
	{FV(MEMORY_TEMP), GPU_F_TEMP_MEM, NONE, CV_TEMP, G_POLL, 0},
	{FV(POWER_AVERAGE), GPU_F_POWER, NONE, CV_MILLI, G_POLL, 0},
	{"nvmlDeviceGetPowerUsage", FN(get_power_usage), SH_U32, 0, 0, GPU_F_POWER, NONE, CV_MILLI,
	 G_POLL | G_FALLBACK, 0},
	{FV(TOTAL_ENERGY_CONSUMPTION), GPU_F_ENERGY, NONE, CV_MILLI, G_POLL, 0},
	{"nvmlDeviceGetTotalEnergyConsumption", FN(get_total_energy_consumption), SH_U64, 0, 0, GPU_F_ENERGY, NONE,
	 CV_MILLI, G_POLL | G_FALLBACK, 0},
	{FV(POWER_CURRENT_LIMIT), GPU_F_POWER_LIMIT, NONE, CV_MILLI, G_POLL, RARE},
	{"nvmlDeviceGetEnforcedPowerLimit", FN(get_enforced_power_limit), SH_U32, 0, 0, GPU_F_POWER_LIMIT, NONE,
	 CV_MILLI, G_POLL | G_FALLBACK, RARE},
	{FV(ECC_DBE_VOL_TOTAL), GPU_F_ECC_UNCORRECTED, NONE, CV_ECC, G_POLL, RARE},
	{"nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE)", FN(get_total_ecc_errors), SH_ECC,
	 NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, GPU_F_ECC_UNCORRECTED, NONE, CV_ECC,
	 G_POLL | G_FALLBACK, RARE},
	{"nvmlDeviceGetFanSpeed", FN(get_fan_speed), SH_U32, 0, 0, GPU_F_FAN_PCT, NONE, CV_FAN, G_POLL, FAN},
	{"nvmlDeviceGetFanSpeedRPM", FN(get_fan_speed_rpm), SH_FANRPM, 0, 0, GPU_F_FAN_RPM, NONE, CV_PLAIN, G_POLL,
	 FAN},
	{"nvmlDeviceGetClockInfo(GRAPHICS)", FN(get_clock_info), SH_ARG_U32, NVML_CLOCK_GRAPHICS, 0, GPU_F_CLOCK_GFX,
	 NONE, CV_PLAIN, G_POLL, 0},
	/* The memory clock is set per P-state. */
	{"nvmlDeviceGetClockInfo(MEM)", FN(get_clock_info), SH_ARG_U32, NVML_CLOCK_MEM, 0, GPU_F_CLOCK_MEM, NONE,
	 CV_PLAIN, G_POLL | G_PSTATE, RARE},
	{"nvmlDeviceGetEncoderUtilization", FN(get_encoder_utilization), SH_CODEC, 0, 0, GPU_F_ENC, NONE, CV_PCT,
	 G_POLL | G_NOT_MIG, 0},
	{"nvmlDeviceGetDecoderUtilization", FN(get_decoder_utilization), SH_CODEC, 0, 0, GPU_F_DEC, NONE, CV_PCT,
	 G_POLL | G_NOT_MIG, 0},
	/* The link trains down in the idle P-states and up again under load. */
	{"nvmlDeviceGetCurrPcieLinkGeneration", FN(get_curr_pcie_link_generation), SH_U32, 0, 0, GPU_F_PCIE_GEN, NONE,
	 CV_PLAIN, G_POLL | G_PSTATE, RARE},
	{"nvmlDeviceGetCurrPcieLinkWidth", FN(get_curr_pcie_link_width), SH_U32, 0, 0, GPU_F_PCIE_WIDTH, NONE, CV_PLAIN,
	 G_POLL | G_PSTATE, RARE},
	{"nvmlDeviceGetCurrentClocksEventReasons", FN(get_clocks_event_reasons), SH_U64, 0, 0, GPU_F_THROTTLE, NONE,
	 CV_THROTTLE, G_POLL, 0},
};

#define NGETTERS (sizeof(GETTERS) / sizeof(GETTERS[0]))
_Static_assert(NGETTERS <= 64 && NGETTERS <= NVML_GETTERS_MAX, "one bit per getter in nvml_dev.never");

bool nvml_never(nvmlReturn_t r)
{
	return r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_INVALID_ARGUMENT ||
	       r == NVML_ERROR_FUNCTION_NOT_FOUND || r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

/* Sets field f of g to v through the GPU field table. A measured quantity
 * takes v as it is, as a long double, while an identity or count (P-state,
 * PCIe link) and the throttle bits are integers. */
static void put(struct gpu *g, enum gpu_field f, long double v)
{
	if (!field_set_number(g, &GPU_FIELDS[f], v))
		return;
	gpu_set(g, f);
}

/* Converts a raw answer, and returns false when it is not a value. */
static bool convert(enum conv c, long long raw, long double *out)
{
	switch (c) {
	case CV_MILLI:
		/* Divide in double, as the readings are stored. */
		*out = (double)raw / 1000.0;
		return raw >= 0;
	case CV_PCT: *out = raw; return raw >= 0 && raw <= 100;
	case CV_FAN: *out = raw; return raw >= 0 && raw <= 1000;
	case CV_PSTATE: *out = raw; return raw >= 0 && raw <= 15;
	case CV_TEMP: *out = raw; return raw > -273 && raw < 1000;
	case CV_ECC: *out = raw; return raw >= 0 && raw < (1LL << 62);
	case CV_THROTTLE: *out = (long double)(raw & GPU_THROTTLE_NVML_MASK); return true;
	case CV_PLAIN: *out = raw; return raw >= 0;
	}
	return false;
}

static void put_conv(struct gpu *g, enum gpu_field f, enum conv c, long long raw)
{
	long double v;

	if (convert(c, raw, &v))
		put(g, f, v);
}

/* The typed entry points, read from the lib table by offset. */
#define ENTRY(name, ...)                                                                                        \
	nvmlReturn_t (*name)(__VA_ARGS__);                                                                     \
	memcpy(&name, (const char *)L + e->fn, sizeof(name))

/* A field value's number, whatever its type, or false when it is not an
 * integer. */
static bool field_number(const nvmlFieldValue_t *fv, long long *out)
{
	switch (fv->valueType) {
	case NVML_VALUE_TYPE_UNSIGNED_INT: *out = fv->value.uiVal; return true;
	case NVML_VALUE_TYPE_SIGNED_INT: *out = fv->value.siVal; return true;
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *out = (long long)fv->value.ullVal; return fv->value.ullVal < (1ULL << 62);
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG: *out = fv->value.sllVal; return true;
	default: return false;
	}
}

/* Sets the memory pair. A total of 0, as on unified-memory superchips where
 * device memory is the host's, is unknown rather than a 0-byte card. */
static void put_memory(struct gpu *g, unsigned long long total, unsigned long long used)
{
	if (total == 0 || total == NVML_VALUE_NOT_AVAILABLE)
		return;
	put(g, GPU_F_MEM_TOTAL, total);
	if (used <= total)
		put(g, GPU_F_MEM_USED, used);
}

/* Calls a getter that answers one number, whose shape is one of SH_U32 to
 * SH_ECC, and returns NVML's answer. */
static nvmlReturn_t call_number(const struct nvml_lib *L, nvmlDevice_t h, const struct getter *e, struct gpu *g)
{
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
	unsigned v = 0, v2 = 0;
	unsigned long long u = 0;
	int i = 0;

	switch (e->shape) {
	case SH_U32: {
		ENTRY(fn, nvmlDevice_t, unsigned *);
		if ((r = fn(h, &v)) == NVML_SUCCESS)
			put_conv(g, e->field, e->conv, v);
		break;
	}
	case SH_ARG_U32: {
		ENTRY(fn, nvmlDevice_t, int, unsigned *);
		if ((r = fn(h, e->arg, &v)) == NVML_SUCCESS)
			put_conv(g, e->field, e->conv, v);
		break;
	}
	case SH_U64: {
		ENTRY(fn, nvmlDevice_t, unsigned long long *);
		if ((r = fn(h, &u)) == NVML_SUCCESS && u < (1ULL << 62))
			put_conv(g, e->field, e->conv, (long long)u);
		break;
	}
	case SH_INT: {
		ENTRY(fn, nvmlDevice_t, int *);
		if ((r = fn(h, &i)) == NVML_SUCCESS)
			put_conv(g, e->field, e->conv, i);
		break;
	}
	case SH_CODEC: {
		ENTRY(fn, nvmlDevice_t, unsigned *, unsigned *);
		if ((r = fn(h, &v, &v2)) == NVML_SUCCESS)
			put_conv(g, e->field, e->conv, v);
		break;
	}
	case SH_ECC: {
		ENTRY(fn, nvmlDevice_t, int, int, unsigned long long *);
		if ((r = fn(h, e->arg, e->arg2, &u)) == NVML_SUCCESS && u < (1ULL << 62))
			put_conv(g, e->field, e->conv, (long long)u);
		break;
	}
	default:
		break;
	}
	return r;
}

/* Calls a getter that answers a struct, which is any other shape, and returns
 * NVML's answer. */
static nvmlReturn_t call_struct(const struct nvml_lib *L, nvmlDevice_t h, const struct getter *e, struct gpu *g)
{
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;

	switch (e->shape) {
	case SH_UTIL: {
		ENTRY(fn, nvmlDevice_t, nvmlUtilization_t *);
		nvmlUtilization_t ut = {0, 0};
		if ((r = fn(h, &ut)) == NVML_SUCCESS && ut.gpu <= 100 && ut.memory <= 100) {
			put_conv(g, e->field, e->conv, ut.gpu);
			put_conv(g, e->field2, e->conv, ut.memory);
		}
		break;
	}
	case SH_MEM2: {
		ENTRY(fn, nvmlDevice_t, nvmlMemory_v2_t *);
		nvmlMemory_v2_t m = {.version = nvmlMemory_v2};
		if ((r = fn(h, &m)) == NVML_SUCCESS)
			put_memory(g, m.total, m.used); /* v2's used memory excludes the reserved memory */
		break;
	}
	case SH_MEM1: {
		ENTRY(fn, nvmlDevice_t, nvmlMemory_t *);
		nvmlMemory_t m = {0, 0, 0};
		if ((r = fn(h, &m)) == NVML_SUCCESS)
			put_memory(g, m.total, m.used);
		break;
	}
	case SH_TEMPV: {
		ENTRY(fn, nvmlDevice_t, nvmlTemperature_t *);
		nvmlTemperature_t t = {.version = nvmlTemperature_v1, .sensorType = e->arg};
		if ((r = fn(h, &t)) == NVML_SUCCESS)
			put_conv(g, e->field, e->conv, t.temperature);
		break;
	}
	case SH_FANRPM: {
		ENTRY(fn, nvmlDevice_t, nvmlFanSpeedInfo_t *);
		nvmlFanSpeedInfo_t fs = {.version = nvmlFanSpeedInfo_v1, .fan = 0};
		if ((r = fn(h, &fs)) == NVML_SUCCESS)
			put_conv(g, e->field, e->conv, fs.speed);
		break;
	}
	default:
		break;
	}
	return r;
}

/* Calls one getter for rd's device and returns NVML's answer. */
static nvmlReturn_t call(struct rd *rd, const struct getter *e, struct gpu *g)
{
	switch (e->shape) {
	case SH_U32:
	case SH_ARG_U32:
	case SH_U64:
	case SH_INT:
	case SH_CODEC:
	case SH_ECC: return call_number(&rd->n->lib, rd->h, e, g);
	default: return call_struct(&rd->n->lib, rd->h, e, g);
	}
}

static bool has_entry(const struct nvml_lib *L, const struct getter *e)
{
	void *p;

	memcpy(&p, (const char *)L + e->fn, sizeof(p));
	return p != NULL;
}

/* The answers of one poll's nvmlDeviceGetFieldValues call, per getter. */
struct batch {
	bool done;
	bool asked[NGETTERS];
	nvmlReturn_t r[NGETTERS];
	nvmlFieldValue_t v[NGETTERS];
};

static bool applies(const struct getter *e, const struct nvml_dev *d, unsigned which)
{
	return (e->flags & which) && !((e->flags & G_NOT_MIG) && d->mig);
}

static bool is_due(const struct rd *rd, size_t k, bool pstate_moved)
{
	const struct getter *e = &GETTERS[k];

	return e->every_ms == 0 || rd->now_ms >= rd->d->next_ms[k] || ((e->flags & G_PSTATE) && pstate_moved);
}

/* Asks, in one call, every field-value getter from `from` on that is due
 * and not "never". A field's own answer is in its entry; an answer for
 * another field than the one asked is not believed. */
static void batch_call(struct rd *rd, struct batch *b, size_t from, unsigned which, bool pstate_moved)
{
	const struct nvml_lib *L = &rd->n->lib;
	nvmlFieldValue_t req[NGETTERS];
	size_t idx[NGETTERS];
	int n = 0;

	b->done = true;
	for (size_t k = from; k < NGETTERS; k++) {
		const struct getter *e = &GETTERS[k];
		if (e->shape != SH_FIELDVAL || !applies(e, rd->d, which) || (rd->d->never >> k & 1u) ||
		    !is_due(rd, k, pstate_moved))
			continue;
		memset(&req[n], 0, sizeof(req[n]));
		req[n].fieldId = (unsigned)e->arg;
		idx[n++] = k;
	}
	if (n == 0 || !L->get_field_values)
		return;
	nvmlReturn_t r = L->get_field_values(rd->h, n, req);
	for (int i = 0; i < n; i++) {
		size_t k = idx[i];
		b->asked[k] = true;
		b->v[k] = req[i];
		b->r[k] = r != NVML_SUCCESS ? r : req[i].fieldId != (unsigned)GETTERS[k].arg ? NVML_ERROR_UNKNOWN
									  : req[i].nvmlReturn;
	}
}

/* Takes getter k's answer from the poll's field-value call. */
static nvmlReturn_t from_batch(const struct batch *b, size_t k, struct gpu *g)
{
	const struct getter *e = &GETTERS[k];
	long long t;

	if (!b->asked[k])
		return NVML_ERROR_UNKNOWN; /* not in the call, which a caller's mistake would be */
	if (b->r[k] != NVML_SUCCESS)
		return b->r[k];
	if (!field_number(&b->v[k], &t))
		return NVML_ERROR_UNKNOWN;
	put_conv(g, e->field, e->conv, t);
	return NVML_SUCCESS;
}

static void forget(struct gpu *held, const struct getter *e)
{
	field_set_valid(held, &GPU_FIELDS[e->field], false);
	if (e->field2 != NONE)
		field_set_valid(held, &GPU_FIELDS[e->field2], false);
}

/* Notes a new P-state, and returns whether it moved from the last one. */
static bool pstate_moved(struct nvml_dev *d, const struct gpu *g)
{
	if (!gpu_has(g, GPU_F_PSTATE))
		return false;
	int seen = (int)g->pstate + 1;
	bool moved = d->pstate_seen && d->pstate_seen != seen;
	d->pstate_seen = seen;
	return moved;
}

void nvml_getters_read(struct rd *rd, struct gpu *g, unsigned which)
{
	const struct nvml_lib *L = &rd->n->lib;
	struct nvml_dev *d = rd->d;
	struct batch b;
	bool prev_never = false, moved = false;

	b.done = false;
	memset(b.asked, 0, sizeof(b.asked));
	for (size_t k = 0; k < NGETTERS && rd->fatal == NV_OK; k++) {
		const struct getter *e = &GETTERS[k];
		uint64_t bit = UINT64_C(1) << k;
		bool never_now = !has_entry(L, e) || (d->never & bit);
		bool skip = !applies(e, d, which) || ((e->flags & G_FALLBACK) && !prev_never);
		prev_never = never_now;
		if (skip || never_now || !is_due(rd, k, moved))
			continue;
		struct gpu *into = e->every_ms ? &d->held : g;
		nvmlReturn_t r;
		if (e->every_ms)
			forget(&d->held, e); /* a read that gives no value leaves it unknown */
		if (e->shape == SH_FIELDVAL) {
			if (!b.done)
				batch_call(rd, &b, k, which, moved);
			r = from_batch(&b, k, into);
		} else {
			r = call(rd, e, into);
		}
		if (e->field == GPU_F_PSTATE)
			moved = pstate_moved(d, g);
		if (r == NVML_SUCCESS || nvml_never(r))
			d->next_ms[k] = rd->now_ms + e->every_ms;
		if (r == NVML_SUCCESS)
			continue;
		if (nvml_never(r)) {
			d->never |= bit;
			prev_never = true;
		} else {
			nvml_took(rd, r);
		}
	}
	/* The held values of the slower cadences are newer than what g may
	 * hold already: the power limit a lost GPU keeps from its statics. */
	if (which & G_POLL)
		gpu_copy_numbers(g, &d->held, ~UINT64_C(0));
}
