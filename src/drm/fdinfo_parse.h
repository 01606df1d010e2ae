/* fdinfo_parse: one /proc/PID/fdinfo/FD text, (buf, len), into the DRM
 * client keys it holds, in every format from kernel 5.14 (amdgpu's legacy
 * "pdev:", "pasid:", "vram mem: N kB", "gfx0: 12.5%") to today's
 * drm-usage-stats keys. It is pure, with no I/O and no allocation. */
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
 * summed into their class (gfx, sdma, comp), and rings counts the ring keys
 * summed, of busy time or percentage. The class's capacity is therefore
 * drm-engine-capacity-<class> when printed, else rings, and at least 1. */
struct fdinfo_parsed_engine {
	char name[FDINFO_NAMELEN];
	unsigned have;
	unsigned exact; /* counters taken from the class's own key, so a repeat of it is ignored */
	unsigned rings;
	uint64_t ns, cycles, total_cycles, capacity, maxfreq_hz;
	uint64_t pct_centi; /* legacy hundredths of a percent, summed over rings */
};

enum fdinfo_mem {
	FDINFO_MEM_TOTAL,
	FDINFO_MEM_SHARED,
	FDINFO_MEM_RESIDENT,
	FDINFO_MEM_PURGEABLE,
	FDINFO_MEM_ACTIVE,
	FDINFO_MEM_DEPRECATED, /* resident, from drm-memory-<r> and legacy "<r> mem" */
	FDINFO_MEM__COUNT,
};

struct fdinfo_parsed_region {
	char name[FDINFO_NAMELEN];
	unsigned have; /* 1 << enum fdinfo_mem */
	uint64_t bytes[FDINFO_MEM__COUNT];
};

struct fdinfo_parsed {
	char driver[FDINFO_NAMELEN]; /* drm-driver, or "amdgpu" for the legacy format */
	char pdev[16];               /* lowercase "dddd:bb:dd.f", or "" when absent */
	uint64_t client_id;          /* drm-client-id, or the pasid in the legacy format */
	uint64_t pasid;
	bool have_driver, have_client_id, have_pasid;
	bool legacy; /* 5.14–5.18 amdgpu, with no drm-driver but pdev: and pasid: */
	size_t nengines;
	struct fdinfo_parsed_engine engines[FDINFO_MAX_ENGINES];
	size_t nregions;
	struct fdinfo_parsed_region regions[FDINFO_MAX_REGIONS];
	unsigned ignored; /* DRM lines left out for a bad number or unit, a bad name, no slot left or a repeat */
};

/* Parses buf[0..len), which need not be NUL-terminated and whose NUL bytes
 * are data. Returns 0 when it is a DRM client, with a drm-driver and a
 * drm-client-id or in the legacy amdgpu format with its pasid, and -ENODATA
 * otherwise, when out still holds what was found. Lines over
 * KVPARSE_MAX_LINE are skipped, and a value that does not parse leaves its
 * key out, never the client. */
int fdinfo_parse(const char *buf, size_t len, struct fdinfo_parsed *out);

/* The capacity of an engine class: drm-engine-capacity when it is printed and
 * not 0, else the ring count, and at least 1. */
uint64_t fdinfo_parse_capacity(const struct fdinfo_parsed_engine *en);

/* A region's resident bytes, from drm-resident- or else the deprecated
 * drm-memory-, and its total bytes from drm-total-. Returns false when the
 * region is absent. */
bool fdinfo_parse_resident(const struct fdinfo_parsed_region *r, uint64_t *bytes);
bool fdinfo_parse_total(const struct fdinfo_parsed_region *r, uint64_t *bytes);

#endif
