/* fuzz_cnames: libFuzzer harness for the name parsers (Docker's
 * config.v2.json, Podman's containers.json, kubelet log link and pod
 * directory names) and cnames_clean. Every name given out must be
 * NUL-terminated inside its buffer, valid UTF-8 without control or
 * invisible formatting characters, empty exactly when the parser says
 * "no name"; the kubelet names must put the input back together; any
 * difference abort()s.
 *
 * Input: byte 0 = the name buffer's size less one (1 to 256 bytes), the
 * rest = the text every parser reads. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/cnames_parse.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                      \
	do {                                                                          \
		if (!(c)) {                                                           \
			fprintf(stderr, "fuzz_cnames: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                      \
		}                                                                     \
	} while (0)

#define ID "5b833c7a6ce02ac293b4c096850c9ac4ec95190d68b9c892c4bf417920f07494"

/* name is a NUL-terminated string of fewer than n bytes, valid UTF-8,
 * with no character a terminal or a record must not get. */
static void check_inert(const char *name, size_t n)
{
	const char *nul = memchr(name, '\0', n);
	CHECK(nul);
	size_t len = (size_t)(nul - name);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = utf8_decode(name + i, len - i, &cp);
		/* U+FFFD itself is fine; an invalid sequence decodes to it in
		 * fewer than its 3 bytes. */
		CHECK(cp != UTF8_REPLACEMENT || (k == 3 && memcmp(name + i, "\xEF\xBF\xBD", 3) == 0));
		CHECK(!utf8_is_unsafe(cp));
		i += k;
	}
}

static void check_name_rc(int rc, const char *name, size_t n)
{
	CHECK(rc == 0 || rc == -ENOENT || rc == -EINVAL);
	check_inert(name, n);
	CHECK(rc == 0 ? name[0] != '\0' : name[0] == '\0');
}

static bool in_set(const char *s, const char *set)
{
	for (; *s; s++)
		if (!strchr(set, *s))
			return false;
	return true;
}

static void check_kubelet(const char *buf, size_t len)
{
	struct cnames_kubelet_log k;
	char again[sizeof(k) + 16];

	if (cnames_parse_kubelet_log_name(buf, len, &k) != 0) {
		CHECK(k.id[0] == '\0' && k.pod_name[0] == '\0' && k.container_name[0] == '\0');
		return;
	}
	CHECK(cnames_id_valid(k.id, strlen(k.id)));
	CHECK(k.pod_name[0] && in_set(k.pod_name, "abcdefghijklmnopqrstuvwxyz0123456789-."));
	CHECK(k.pod_namespace[0] && in_set(k.pod_namespace, "abcdefghijklmnopqrstuvwxyz0123456789-"));
	CHECK(k.container_name[0] && in_set(k.container_name, "abcdefghijklmnopqrstuvwxyz0123456789-"));
	int n = snprintf(again, sizeof(again), "%s_%s_%s-%s.log", k.pod_name, k.pod_namespace, k.container_name, k.id);
	CHECK(n > 0 && (size_t)n == len && memcmp(again, buf, len) == 0);
}

static void check_pod_dir(const char *buf, size_t len)
{
	struct cnames_pod_dir p;
	char again[sizeof(p) + 16];

	if (cnames_parse_pod_dir_name(buf, len, &p) != 0) {
		CHECK(p.uid[0] == '\0' && p.pod_name[0] == '\0' && p.pod_namespace[0] == '\0');
		return;
	}
	CHECK(p.pod_namespace[0] && in_set(p.pod_namespace, "abcdefghijklmnopqrstuvwxyz0123456789-"));
	CHECK(p.pod_name[0] && in_set(p.pod_name, "abcdefghijklmnopqrstuvwxyz0123456789-."));
	CHECK(p.uid[0] && in_set(p.uid, "0123456789abcdef-"));
	int n = snprintf(again, sizeof(again), "%s_%s_%s", p.pod_namespace, p.pod_name, p.uid);
	CHECK(n > 0 && (size_t)n == len && memcmp(again, buf, len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[258];

	if (size < 1 || size > (1u << 18))
		return 0;
	size_t n = (size_t)data[0] + 1;
	/* An exact-size copy: any read past len is an ASan error. */
	size_t len = size - 1;
	char *buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);

	memset(name, 'x', sizeof(name));
	check_name_rc(cnames_parse_docker_config(buf, len, name, n), name, n);
	CHECK(name[n] == 'x'); /* nothing written past the buffer */

	memset(name, 'x', sizeof(name));
	int rc = cnames_parse_podman_containers(buf, len, ID, name, n);
	check_name_rc(rc, name, n);
	CHECK(name[n] == 'x');
	if (rc == 0) /* a match needs the id, written out or \u-escaped */
		CHECK(memmem(buf, len, ID, strlen(ID)) || memmem(buf, len, "\\u", 2));

	memset(name, 'x', sizeof(name));
	size_t cl = cnames_clean(buf, len, name, n);
	CHECK(cl < n && name[cl] == '\0' && name[n] == 'x');
	check_inert(name, n);

	check_kubelet(buf, len);
	check_pod_dir(buf, len);
	free(buf);
	return 0;
}
