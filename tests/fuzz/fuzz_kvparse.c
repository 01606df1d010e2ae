/* fuzz_kvparse: libFuzzer harness for the procfs/sysfs/fdinfo parser. The
 * numbers are checked against strtoull/strtoll, and every line, key, value
 * and field against the contract (inside the input, bounded, trimmed, in
 * order); any difference abort()s.
 *
 * Input: byte 0 = the separator for kvparse_next (':' unless it is ' '),
 * byte 1 = a max for kvparse_u64, the rest = the text. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/kvparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                      \
	do {                                                                          \
		if (!(c)) {                                                           \
			fprintf(stderr, "fuzz_kvparse: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                      \
		}                                                                     \
	} while (0)

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* kvparse_u64 and kvparse_i64 at s against the C library on the same
 * digits (copied, NUL-terminated: the parser itself gets no NUL). */
static void check_numbers(const char *s, size_t n, uint64_t max)
{
	char tmp[64];
	size_t d = 0;
	uint64_t v = 0;

	while (d < n && s[d] >= '0' && s[d] <= '9')
		d++;
	ssize_t r = kvparse_u64(s, n, max, &v);
	if (d == 0) {
		CHECK(r == 0);
	} else if (d < sizeof(tmp)) {
		memcpy(tmp, s, d);
		tmp[d] = '\0';
		errno = 0;
		unsigned long long ref = strtoull(tmp, NULL, 10);
		bool over = errno == ERANGE || ref > max;
		CHECK(over ? r == -ERANGE : r == (ssize_t)d && v == ref);
	} else {
		CHECK(r == -ERANGE || (r == (ssize_t)d && v <= max));
	}

	size_t sign = n && (s[0] == '+' || s[0] == '-');
	d = sign;
	while (d < n && s[d] >= '0' && s[d] <= '9')
		d++;
	int64_t iv = 0;
	r = kvparse_i64(s, n, &iv);
	if (d == sign) {
		CHECK(r == 0);
	} else if (d < sizeof(tmp)) {
		memcpy(tmp, s, d);
		tmp[d] = '\0';
		errno = 0;
		long long ref = strtoll(tmp, NULL, 10);
		CHECK(errno == ERANGE ? r == -ERANGE : r == (ssize_t)d && iv == ref);
	}

	uint64_t sv = 0;
	int rc = kvparse_single_u64(s, n, &sv);
	if (rc == 0) {
		size_t i = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		CHECK(i > 0);
		for (; i < n; i++)
			CHECK(is_blank(s[i]));
	} else {
		CHECK(rc == -EINVAL || rc == -ERANGE);
	}
	CHECK(kvparse_trim_end(s, n) <= n);
}

static void check_fields(const char *buf, size_t n)
{
	struct kvparse_cur c;
	const char *f, *prev = buf;
	size_t flen, count = 0;
	uint64_t v;

	kvparse_cur_init(&c, buf, n);
	while (kvparse_field(&c, &f, &flen)) {
		CHECK(f >= prev && flen >= 1 && f + flen <= buf + n);
		for (size_t i = 0; i < flen; i++)
			CHECK(!is_blank(f[i]));
		prev = f + flen;
		CHECK(++count <= n / 2 + 1);
		/* The same field read as a number, from a fresh cursor. */
		struct kvparse_cur d;
		kvparse_cur_init(&d, f, flen);
		if (kvparse_field_u64(&d, UINT64_MAX, &v))
			CHECK(kvparse_u64(f, flen, UINT64_MAX, &v) == (ssize_t)flen);
	}
}

static void check_lines(const char *buf, size_t n, char sep)
{
	struct kvparse_iter it;
	struct kvparse_kv kv;
	const char *line, *prev = buf;
	size_t len, count = 0, newlines = 0;
	char key[KVPARSE_MAX_KEY + 1];

	for (size_t i = 0; i < n; i++)
		newlines += buf[i] == '\n';
	kvparse_iter_init(&it, buf, n);
	while (kvparse_line(&it, &line, &len)) {
		CHECK(line >= prev && line + len <= buf + n && len <= KVPARSE_MAX_LINE);
		CHECK(!memchr(line, '\n', len));
		prev = line + len;
		CHECK(++count <= newlines + 1);
	}
	kvparse_iter_init(&it, buf, n);
	prev = buf;
	count = 0;
	while (kvparse_next(&it, sep, &kv)) {
		CHECK(kv.key >= prev && kv.klen >= 1 && kv.klen <= KVPARSE_MAX_KEY);
		CHECK(kv.val >= kv.key + kv.klen && kv.val + kv.vlen <= buf + n);
		CHECK(kv.key[kv.klen - 1] != ' ' && kv.key[kv.klen - 1] != '\t');
		for (size_t i = 0; i < kv.klen; i++)
			CHECK(sep == ' ' ? kv.key[i] != ' ' && kv.key[i] != '\t' : kv.key[i] != sep);
		CHECK(!memchr(kv.val, '\n', kv.vlen));
		if (kv.vlen)
			CHECK(kv.val[0] != ' ' && kv.val[0] != '\t' && kv.val[kv.vlen - 1] != ' ' &&
			      kv.val[kv.vlen - 1] != '\t');
		/* The key matches itself, and nothing longer or shorter. */
		memcpy(key, kv.key, kv.klen);
		key[kv.klen] = '\0';
		if (strlen(key) == kv.klen) {
			CHECK(kvparse_key_is(&kv, key));
			CHECK(!kvparse_key_prefix(&kv, key, NULL));
			key[kv.klen - 1] = '\0';
			CHECK(!kvparse_key_is(&kv, key));
			CHECK(kv.klen == 1 || kvparse_key_prefix(&kv, key, NULL));
		}
		/* A value with a unit is the bare number scaled by one of the kind's
		 * units; without one, the bare number. */
		uint64_t bare, scaled;
		bool have_bare = kvparse_value(kv.val, kv.vlen, KVPARSE_UNIT_NONE, &bare) == 0;
		static const enum kvparse_unit kinds[] = {KVPARSE_UNIT_BYTES, KVPARSE_UNIT_NS, KVPARSE_UNIT_HZ};
		for (size_t k = 0; k < 3; k++) {
			int rc = kvparse_value(kv.val, kv.vlen, kinds[k], &scaled);
			CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
			if (have_bare)
				CHECK(rc == 0 && scaled == bare);
		}
		prev = kv.val + kv.vlen;
		CHECK(++count <= newlines + 1);
	}
	size_t whole = kvparse_complete(buf, n, n + 1);
	CHECK(whole <= n && (whole == 0 || buf[whole - 1] == '\n'));
	CHECK(kvparse_complete(buf, n, n + 2) == n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > (1u << 16))
		return 0;
	char sep = data[0] == ' ' ? ' ' : ':';
	uint64_t max = data[1] == 0xFF ? UINT64_MAX : (uint64_t)data[1] * UINT64_C(72057594037927936) + data[1];
	/* An exact-size copy: any read past len is an ASan error. */
	size_t n = size - 2;
	char *buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, n);
	check_numbers(buf, n, max);
	check_fields(buf, n);
	check_lines(buf, n, sep);
	free(buf);
	return 0;
}
