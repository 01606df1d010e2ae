/* fuzz_fdinfo: libFuzzer harness for the DRM fdinfo parser. Checked on
 * every input: the result is 0 (with a driver and a client id) or
 * -ENODATA; every name is NUL-terminated inside its buffer and made of
 * letters, digits, '_', '.', '-'; a pdev is "" or lowercase
 * "dddd:bb:dd.f"; counts are within their slots; an engine's capacity is
 * at least 1; the same input gives the same answer, also after a line that
 * is no key line in front of it. Any difference abort()s.
 *
 * Input: the text of /proc/PID/fdinfo/FD. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drm/fdinfo_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                      \
	do {                                                                          \
		if (!(c)) {                                                           \
			fprintf(stderr, "fuzz_fdinfo: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                      \
		}                                                                     \
	} while (0)

static size_t name_ok(const char *s, size_t size, bool may_be_empty)
{
	const char *nul = memchr(s, '\0', size);
	CHECK(nul != NULL);
	size_t n = (size_t)(nul - s);
	CHECK(may_be_empty || n > 0);
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '.' || c == '-');
	}
	return n;
}

static void check(int rc, const struct fdinfo_parsed *p)
{
	CHECK(rc == 0 || rc == -ENODATA);
	CHECK(rc != 0 || (p->have_driver && p->have_client_id));
	name_ok(p->driver, sizeof(p->driver), !p->have_driver);
	const char *nul = memchr(p->pdev, '\0', sizeof(p->pdev));
	CHECK(nul != NULL);
	size_t pl = (size_t)(nul - p->pdev);
	CHECK(pl == 0 || (pl >= 12 && pl <= 14));
	for (size_t i = 0; i < pl; i++)
		CHECK((p->pdev[i] >= '0' && p->pdev[i] <= '9') || (p->pdev[i] >= 'a' && p->pdev[i] <= 'f') ||
		      p->pdev[i] == ':' || p->pdev[i] == '.');
	CHECK(!p->legacy || (p->have_pasid && p->client_id == p->pasid && strcmp(p->driver, "amdgpu") == 0));
	CHECK(p->nengines <= FDINFO_MAX_ENGINES && p->nregions <= FDINFO_MAX_REGIONS);
	for (size_t i = 0; i < p->nengines; i++) {
		const struct fdinfo_parsed_engine *en = &p->engines[i];
		name_ok(en->name, sizeof(en->name), false);
		CHECK(fdinfo_parse_capacity(en) >= 1);
		CHECK((en->exact & ~en->have) == 0);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(p->engines[j].name, en->name) != 0);
	}
	for (size_t i = 0; i < p->nregions; i++) {
		const struct fdinfo_parsed_region *r = &p->regions[i];
		name_ok(r->name, sizeof(r->name), false);
		CHECK(r->have != 0 && r->have < (1u << FDINFO_MEM__COUNT));
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(p->regions[j].name, r->name) != 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy: a read past the end is ASan's to see. */
	char *buf = malloc(size ? size : 1), *pre = malloc(size + 2);
	static struct fdinfo_parsed a, b;

	memcpy(buf, data, size);
	int rc = fdinfo_parse(buf, size, &a);
	check(rc, &a);
	CHECK(fdinfo_parse(buf, size, &b) == rc && memcmp(&a, &b, sizeof(a)) == 0);
	memcpy(pre, "x\n", 2);
	memcpy(pre + 2, buf, size);
	CHECK(fdinfo_parse(pre, size + 2, &b) == rc && memcmp(&a, &b, sizeof(a)) == 0);
	free(pre);
	free(buf);
	return 0;
}
