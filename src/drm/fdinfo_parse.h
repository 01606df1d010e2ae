/* fdinfo_parse: one /proc/PID/fdinfo/FD text, (buf, len), into the DRM
 * client keys it holds — every format from kernel 5.14 (amdgpu's legacy
 * "pdev:", "pasid:", "vram mem: N kB", "gfx0: 12.5%") to today's
 * drm-usage-stats keys. Pure: no I/O, no allocation. */
#ifndef GPUR_FDINFO_PARSE_H
#define GPUR_FDINFO_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drm/fdinfo.h"

/* Which counters an engine class had (struct fdinfo_parsed_engine.have). */
enum {
	FDINFO_HAVE_NS = 1u << 0,       /* drm-engine-<e> */
	FDINFO_HAVE_CYCLES = 1u << 1,   /* drm-cycles-<e> */
	FDINFO_HAVE_TOTAL = 1u << 2,    /* drm-total-cycles-<e> */
	FDINFO_HAVE_CAPACITY = 1u << 3, /* drm-engine-capacity-<e> */
	FDINFO_HAVE_MAXFREQ = 1u << 4,  /* drm-maxfreq-<e> */
	FDINFO_HAVE_PCT = 1u << 5,      /* legacy amdgpu "gfx0: 42.17%" */
};

/* One engine class. amdgpu per-ring names (gfx0, sdma1, comp_1.0.0) are
 * summed into their class (gfx, sdma, comp); rings counts the ring keys
 * summed (busy time or percentage), so the class's capacity is
 * drm-engine-capacity-<class> when printed, else rings (at least 1). */
struct fdinfo_parsed_engine {
	char name[FDINFO_NAMELEN];
	unsigned have;
	unsigned exact; /* counters taken from the class's own key: a repeat of it is ignored */
	unsigned rings;
	uint64_t ns, cycles, total_cycles, capacity, maxfreq_hz;
	uint64_t pct_centi; /* legacy: hundredths of a percent, summed over rings */
};

enum fdinfo_mem {
	FDINFO_MEM_TOTAL,
	FDINFO_MEM_SHARED,
	FDINFO_MEM_RESIDENT,
	FDINFO_MEM_PURGEABLE,
	FDINFO_MEM_ACTIVE,
	FDINFO_MEM_DEPRECATED, /* drm-memory-<r> and legacy "<r> mem": resident */
	FDINFO_MEM__COUNT,
};

struct fdinfo_parsed_region {
	char name[FDINFO_NAMELEN];
	unsigned have; /* 1 << enum fdinfo_mem */
	uint64_t bytes[FDINFO_MEM__COUNT];
};

struct fdinfo_parsed {
	char driver[FDINFO_NAMELEN]; /* drm-driver; "amdgpu" for the legacy format */
	char pdev[16];               /* lowercase "dddd:bb:dd.f"; "" when absent */
	uint64_t client_id;          /* drm-client-id; legacy: the pasid */
	uint64_t pasid;
	bool have_driver, have_client_id, have_pasid;
	bool legacy; /* 5.14–5.18 amdgpu: no drm-driver, pdev: and pasid: */
	size_t nengines;
	struct fdinfo_parsed_engine engines[FDINFO_MAX_ENGINES];
	size_t nregions;
	struct fdinfo_parsed_region regions[FDINFO_MAX_REGIONS];
	unsigned ignored; /* DRM lines left out: bad number or unit, bad name, no slot left, repeat */
};

/* Parses buf[0..len) (need not be NUL-terminated; NUL bytes are data).
 * 0 when it is a DRM client: a drm-driver and a drm-client-id, or the
 * legacy amdgpu format with its pasid. -ENODATA otherwise (out still holds
 * what was found). Lines over KVPARSE_MAX_LINE are skipped; a value that
 * does not parse leaves its key out, never the client. */
int fdinfo_parse(const char *buf, size_t len, struct fdinfo_parsed *out);

/* The capacity of an engine class: drm-engine-capacity when printed and
 * not 0, else the ring count, at least 1. */
uint64_t fdinfo_parse_capacity(const struct fdinfo_parsed_engine *en);

/* A region's resident bytes (drm-resident-, else the deprecated
 * drm-memory-) and total bytes (drm-total-); false when absent. */
bool fdinfo_parse_resident(const struct fdinfo_parsed_region *r, uint64_t *bytes);
bool fdinfo_parse_total(const struct fdinfo_parsed_region *r, uint64_t *bytes);

#endif
