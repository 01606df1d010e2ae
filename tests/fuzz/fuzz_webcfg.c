/* fuzz_webcfg: libFuzzer harness for the exporter's web config parser
 * (webcfg_parse, with no file read and libyaml loaded as gpur loads it).
 * Whatever the input, a parse either fails with a message that names the
 * file, or gives a config whose counts are within their bounds, whose
 * strings are NUL-terminated and free of control characters where they
 * become headers, and that frees cleanly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/webcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                     \
	do {                                                                         \
		if (!(c)) {                                                          \
			fprintf(stderr, "fuzz_webcfg: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                     \
		}                                                                    \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct webcfg c;
	char err[1024];

	if (size > 64 * 1024)
		return 0;
	int rc = webcfg_parse((const char *)data, size, "fuzz.yml", NULL, false, &c, err, sizeof(err));
	if (rc != 0) {
		CHECK(strncmp(err, "--web-config fuzz.yml: ", 23) == 0);
		return 0;
	}
	CHECK(c.nusers <= WEBCFG_MAX_USERS);
	CHECK(c.nsans <= WEBCFG_MAX_SANS);
	CHECK(c.nheaders <= WEBCFG_NHEADERS);
	for (size_t i = 0; i < c.nheaders; i++)
		for (const char *p = c.headers[i].value; *p; p++)
			CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
	for (size_t i = 0; i < c.nusers; i++)
		CHECK(strlen(c.users[i].hash) == 60 && !strchr(c.users[i].name, ':'));
	CHECK(!c.tls || (c.cert_pem && c.key_pem));
	CHECK(strlen(c.priorities) < sizeof(c.priorities));
	webcfg_free(&c);
	return 0;
}
