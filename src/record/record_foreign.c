/* record_foreign: the original gpur's values, read as ours. */
#include "record/record_foreign.h"

#include <string.h>

/* The original's throttle names that are not simply ours with '-' for '_'. */
static const struct {
	const char *theirs, *ours;
} THROTTLE_NAMES[] = {
	{"power-limit", "power_cap"},
};

/* The bit of one reason name of the original's or ours, or -1. */
static int reason_index(const struct field *f, const char *s, size_t len)
{
	char name[64];

	if (len == 0 || len >= sizeof(name))
		return -1;
	for (size_t i = 0; i < sizeof(THROTTLE_NAMES) / sizeof(THROTTLE_NAMES[0]); i++)
		if (strlen(THROTTLE_NAMES[i].theirs) == len && memcmp(THROTTLE_NAMES[i].theirs, s, len) == 0)
			return field_name_index(f, THROTTLE_NAMES[i].ours, strlen(THROTTLE_NAMES[i].ours));
	for (size_t i = 0; i < len; i++)
		name[i] = s[i] == '-' ? '_' : s[i];
	return field_name_index(f, name, len);
}

bool record_foreign_flags(const struct field *f, const char *s, size_t len, uint32_t *out)
{
	uint32_t v = 0;
	size_t i = 0, known = 0;

	while (i < len) {
		size_t start = i;
		while (i < len && s[i] != '+')
			i++;
		int idx = reason_index(f, s + start, i - start);
		if (idx >= 0) {
			v |= 1u << idx;
			known++;
		}
		i++; /* past the '+' */
	}
	*out = v;
	return known > 0;
}

/* The n of "P<n>" when n is in 0..15, else -1. */
static int pstate_name(const char *s)
{
	size_t len = strlen(s);

	if (len < 2 || len > 3 || s[0] != 'P' || s[1] < '0' || s[1] > '9')
		return -1;
	if (len == 2)
		return s[1] - '0';
	if (s[1] == '0' || s[2] < '0' || s[2] > '9')
		return -1;
	int n = (s[1] - '0') * 10 + (s[2] - '0');
	return n <= 15 ? n : -1;
}

void record_foreign_gpu(struct gpu *g, uint64_t own)
{
	if (gpu_has(g, GPU_F_PERF_LEVEL)) {
		int ps = pstate_name(g->perf_level);
		if (ps >= 0 || strcmp(g->perf_level, "auto") == 0)
			g->valid &= ~(UINT64_C(1) << GPU_F_PERF_LEVEL);
		if (ps >= 0 && !(own >> GPU_F_PSTATE & 1u)) {
			g->pstate = (uint64_t)ps;
			gpu_set(g, GPU_F_PSTATE);
		}
	}
	if (gpu_has(g, GPU_F_DEVICE_ID))
		g->device_id = record_foreign_device_id(g->device_id);
	if (gpu_has(g, GPU_F_PARENT_DEVICE_ID))
		g->parent_device_id = record_foreign_device_id(g->parent_device_id);
}

void record_foreign_process(struct gpu_process *p, uint64_t via)
{
	if (process_has(p, PROC_F_USER) && strcmp(p->user, "-") == 0)
		p->valid &= ~(UINT64_C(1) << PROC_F_USER);
	if ((via >> PROC_F_CMDLINE & 1u) && process_has(p, PROC_F_CMDLINE) && strcmp(p->cmdline, "?") == 0)
		p->valid &= ~(UINT64_C(1) << PROC_F_CMDLINE);
}

/* id without one prefix of the original's composite backend, or id itself
 * when it has none. */
static const char *strip_one(const char *id)
{
	static const char *const backends[] = {"nvml", "amdgpu", "intel", "nouveau", "ioaccel", "pdh"};

	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		size_t n = strlen(backends[i]);
		if (strncmp(id, backends[i], n) != 0)
			continue;
		const char *p = id + n;
		if (*p == '#') {
			const char *d = ++p;
			while (*p >= '0' && *p <= '9' && p - d < 4)
				p++;
			if (p == d)
				continue;
		}
		/* Something must follow, because "nvml:" alone is an id, not a
		 * prefix. */
		if (*p == ':' && p[1])
			return p + 1;
	}
	return id;
}

const char *record_foreign_device_id(const char *id)
{
	/* Every prefix goes, so that reading back what gpur wrote gives the
	 * same id again, and a replay of a replay is a fixed point. */
	for (const char *bare = strip_one(id); bare != id; bare = strip_one(id))
		id = bare;
	return id;
}
