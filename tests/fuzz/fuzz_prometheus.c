/* fuzz_prometheus: libFuzzer harness for the fleet view's reading of
 * Prometheus answers: prom_parse_query on the input as every query's answer,
 * then the grouping into hosts (prom_fleet_build) and every cell of the
 * summary. A failed parse must leave the result empty; every host and
 * container name given out must be valid UTF-8 without unsafe characters
 * and at most FLEET_NAME_MAX bytes; every process row must name a GPU of
 * its host; any difference abort()s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/prometheus_fleet.h"
#include "util/utf8.h"
#include "output/fleet_view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                           \
	do {                                                                               \
		if (!(c)) {                                                                \
			fprintf(stderr, "fuzz_prometheus: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                           \
		}                                                                          \
	} while (0)

static void check_safe(const char *s)
{
	size_t n = strlen(s);
	CHECK(n <= FLEET_NAME_MAX);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t used = utf8_decode(s + i, n - i, &cp);
		CHECK(!utf8_is_unsafe(cp));
		i += used;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prom_result r[PROM_M__COUNT];
	struct prom_fleet_info info;
	char err[256];

	for (int m = 0; m < PROM_M__COUNT; m++) {
		prom_result_init(&r[m]);
		if (prom_parse_query((const char *)data, size, 64, &r[m], err, sizeof(err)) != 0)
			CHECK(r[m].n == 0 && err[0]);
		CHECK(r[m].n <= 64);
	}
	struct fleet *fl = prom_fleet_build(r, "http://fuzz", 1, &info);
	struct fleet_row *rows = calloc(fl->nhosts ? fl->nhosts : 1, sizeof(*rows));
	struct fleet_view_opts o = {.sort = FLEET_UTIL, .filter = "a"};
	size_t n = fleet_view(fl, &o, rows);
	char cell[FLEET_NAME_MAX + 64];
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < FLEET__COUNT; c++)
			fleet_cell(fl, &rows[i], (enum fleet_col)c, cell, sizeof(cell));
	for (size_t h = 0; h < fl->nhosts; h++) {
		const struct fleet_host *fh = &fl->hosts[h];
		const struct frame *f = fh->frame;
		check_safe(fh->name);
		if (fh->top_container)
			check_safe(fh->top_container);
		for (size_t p = 0; p < f->nprocs; p++)
			CHECK(f->procs[p].gpu_index < f->ngpus);
	}
	fleet_status(fl, 2, cell, sizeof(cell));
	free(rows);
	fleet_unref(fl);
	for (int m = 0; m < PROM_M__COUNT; m++)
		prom_result_free(&r[m]);
	return 0;
}
