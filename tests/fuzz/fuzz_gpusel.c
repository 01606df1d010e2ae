/* fuzz_gpusel: libFuzzer harness for the --gpus list and PCI bus ids. A list
 * is accepted exactly when the plain rule holds (1 to GPUSEL_MAX_ITEMS
 * items of 1 to 128 bytes); a normalised bus id has the canonical form and
 * normalises to itself. Any difference abort()s.
 *
 * Input: the text (up to its first NUL, as a command line gives it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gpusel.h"
#include "model/frame.h"
#include "util/pciaddr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                      \
	do {                                                                          \
		if (!(c)) {                                                           \
			fprintf(stderr, "fuzz_gpusel: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                      \
		}                                                                     \
	} while (0)

static bool canonical(const char *s)
{
	static const char hex[] = "0123456789abcdef";
	if (strlen(s) != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.' || s[11] < '0' || s[11] > '7')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !strchr(hex, s[i]))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	/* The model: split at ',' and count. */
	size_t items = 0, longest = 0, shortest = SIZE_MAX;
	for (const char *p = s;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		items++;
		longest = len > longest ? len : longest;
		shortest = len < shortest ? len : shortest;
		if (!comma)
			break;
		p = comma + 1;
	}
	bool ok = shortest >= 1 && longest <= 128 && items <= GPUSEL_MAX_ITEMS;
	char err[256] = "";
	struct gpusel *sel = gpusel_parse(s, err, sizeof(err));
	CHECK(ok == (sel != NULL));
	CHECK(sel || err[0]);
	if (sel) {
		/* No GPU matches anything: the first item is unmatched, and
		 * applying the selection to an empty frame leaves it empty. */
		struct frame *f = frame_new();
		const char *un = gpusel_unmatched(sel, f);
		CHECK(un && strncmp(un, s, strlen(un)) == 0);
		gpusel_apply(sel, f);
		CHECK(f->ngpus == 0);
		frame_unref(f);
		gpusel_free(sel);
	}

	char out[16], again[16];
	if (pciaddr_normalise(s, out)) {
		CHECK(canonical(out));
		CHECK(pciaddr_normalise(out, again) && strcmp(out, again) == 0);
	}
	free(s);
	return 0;
}
