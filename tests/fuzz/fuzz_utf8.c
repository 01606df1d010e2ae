/* fuzz_utf8: libFuzzer harness for decoding and cutting untrusted text
 * (command lines, names). utf8_trim never grows the text, moves the cut back
 * at most 3 bytes and only to the start of a valid character, and keeps
 * valid text valid; decoding consumes 1..4 bytes within the input; the
 * safe and valid writers give valid UTF-8. Any difference abort()s.
 *
 * Input: byte 0 = the cut (max), the rest = the text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                    \
	do {                                                                        \
		if (!(c)) {                                                         \
			fprintf(stderr, "fuzz_utf8: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                    \
		}                                                                   \
	} while (0)

/* s[0..n) decodes without an error (a literal U+FFFD is fine). */
static bool valid(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t used = utf8_decode(s + i, n - i, &cp);
		CHECK(used >= 1 && used <= 4 && used <= n - i);
		if (cp == UTF8_REPLACEMENT && !(used == 3 && memcmp(s + i, "\xEF\xBF\xBD", 3) == 0))
			return false;
		i += used;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	size_t max = data[0], n = size - 1;
	char *s = malloc(n ? n : 1);
	if (!s)
		return 0;
	memcpy(s, data + 1, n);

	size_t t = utf8_trim(s, n, max);
	CHECK(t <= n && t <= max);
	if (n <= max)
		CHECK(t == n);
	else
		CHECK(t + 3 >= max);
	if (t < max && t < n) {
		/* Moved back: to a lead byte whose character does not fit. */
		unsigned char c = (unsigned char)s[t];
		CHECK(c >= 0xC2 && c <= 0xF4);
		/* ... and a valid one: whole past the cut, or cut short by the
		 * end of s. Invalid bytes are cut at max. */
		uint32_t cp;
		size_t used = utf8_decode(s + t, n - t, &cp);
		bool whole = valid(s + t, used) && t + used > max;
		CHECK(whole || t + used == n);
	}
	bool was_valid = valid(s, n);
	if (was_valid)
		CHECK(valid(s, t));

	struct buf b;
	buf_init(&b);
	utf8_append_valid(&b, s, n, max);
	CHECK(b.len <= max && valid(b.data, b.len));
	if (was_valid)
		CHECK(b.len <= n && (b.len == 0 || memcmp(b.data, s, b.len) == 0));
	buf_reset(&b);
	utf8_append_safe(&b, s, n, true);
	CHECK(valid(b.data, b.len));
	buf_fini(&b);
	free(s);
	return 0;
}
