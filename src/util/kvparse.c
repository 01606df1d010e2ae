/* kvparse: numbers, fields and key-value lines over (buf, len); nothing
 * here reads past len or expects a NUL. */
#include "util/kvparse.h"

#include <errno.h>
#include <string.h>

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

ssize_t kvparse_u64(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < len && is_digit(s[i])) {
		uint64_t d = (uint64_t)(s[i] - '0');
		if (d > max || v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		i++;
	}
	if (i)
		*out = v;
	return (ssize_t)i;
}

ssize_t kvparse_i64(const char *s, size_t len, int64_t *out)
{
	bool neg = false;
	size_t sign = 0;
	uint64_t v = 0;

	if (len && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		sign = 1;
	}
	ssize_t n = kvparse_u64(s + sign, len - sign, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &v);
	if (n <= 0)
		return n;
	/* -2^63 has no positive counterpart, so the negation is done in unsigned
	 * arithmetic. */
	*out = neg ? (int64_t)(~v + 1) : (int64_t)v;
	return n + (ssize_t)sign;
}

void kvparse_cur_init(struct kvparse_cur *c, const char *buf, size_t len)
{
	c->p = buf;
	c->end = buf + len;
}

bool kvparse_field(struct kvparse_cur *c, const char **f, size_t *flen)
{
	const char *p = c->p;

	while (p < c->end && is_blank(*p))
		p++;
	const char *start = p;
	while (p < c->end && !is_blank(*p))
		p++;
	if (p == start)
		return false;
	*f = start;
	*flen = (size_t)(p - start);
	c->p = p;
	return true;
}

bool kvparse_field_u64(struct kvparse_cur *c, uint64_t max, uint64_t *out)
{
	struct kvparse_cur save = *c;
	const char *f;
	size_t n;
	uint64_t v = 0;

	if (!kvparse_field(c, &f, &n) || kvparse_u64(f, n, max, &v) != (ssize_t)n) {
		*c = save;
		return false;
	}
	*out = v;
	return true;
}

void kvparse_iter_init(struct kvparse_iter *it, const char *buf, size_t len)
{
	it->p = buf;
	it->end = buf + len;
}

size_t kvparse_complete(const char *buf, size_t len, size_t bufsize)
{
	if (len + 1 < bufsize)
		return len;
	const char *nl = memrchr(buf, '\n', len);
	return nl ? (size_t)(nl - buf) + 1 : 0;
}

bool kvparse_line(struct kvparse_iter *it, const char **line, size_t *len)
{
	while (it->p < it->end) {
		const char *start = it->p;
		const char *nl = memchr(start, '\n', (size_t)(it->end - start));
		const char *stop = nl ? nl : it->end;
		it->p = nl ? nl + 1 : it->end;
		size_t n = (size_t)(stop - start);
		if (n && start[n - 1] == '\r')
			n--;
		if (n > KVPARSE_MAX_LINE)
			continue;
		*line = start;
		*len = n;
		return true;
	}
	return false;
}

static bool is_space_tab(char c)
{
	return c == ' ' || c == '\t';
}

bool kvparse_next(struct kvparse_iter *it, char sep, struct kvparse_kv *kv)
{
	const char *line;
	size_t len;

	while (kvparse_line(it, &line, &len)) {
		size_t k = 0;
		if (sep == ' ')
			while (k < len && !is_space_tab(line[k]))
				k++;
		else
			while (k < len && line[k] != sep)
				k++;
		if (k == len)
			continue;
		size_t klen = k;
		while (klen && is_space_tab(line[klen - 1]))
			klen--;
		if (!klen || klen > KVPARSE_MAX_KEY)
			continue;
		const char *v = line + k + 1, *vend = line + len;
		while (v < vend && is_space_tab(*v))
			v++;
		while (vend > v && is_space_tab(vend[-1]))
			vend--;
		kv->key = line;
		kv->klen = klen;
		kv->val = v;
		kv->vlen = (size_t)(vend - v);
		return true;
	}
	return false;
}

bool kvparse_key_is(const struct kvparse_kv *kv, const char *key)
{
	size_t n = strlen(key);

	return kv->klen == n && memcmp(kv->key, key, n) == 0;
}

bool kvparse_key_prefix(const struct kvparse_kv *kv, const char *prefix, size_t *rest)
{
	size_t n = strlen(prefix);

	if (kv->klen <= n || memcmp(kv->key, prefix, n) != 0)
		return false;
	if (rest)
		*rest = n;
	return true;
}

struct unit {
	const char *name;
	uint64_t scale;
};

static const struct unit BYTE_UNITS[] = {
	{"kB", UINT64_C(1) << 10}, {"KiB", UINT64_C(1) << 10}, {"MiB", UINT64_C(1) << 20},
	{"GiB", UINT64_C(1) << 30}, {NULL, 0},
};
static const struct unit NS_UNITS[] = {{"ns", 1}, {NULL, 0}};
static const struct unit HZ_UNITS[] = {
	{"Hz", 1}, {"KHz", 1000}, {"kHz", 1000}, {"MHz", 1000000}, {"GHz", 1000000000}, {NULL, 0},
};

int kvparse_value(const char *s, size_t len, enum kvparse_unit kind, uint64_t *out)
{
	const struct unit *units = kind == KVPARSE_UNIT_BYTES ? BYTE_UNITS
				   : kind == KVPARSE_UNIT_NS  ? NS_UNITS
				   : kind == KVPARSE_UNIT_HZ  ? HZ_UNITS
							      : NULL;
	size_t i = 0;
	uint64_t v = 0, scale = 1;

	while (i < len && is_blank(s[i]))
		i++;
	ssize_t n = kvparse_u64(s + i, len - i, UINT64_MAX, &v);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -EINVAL;
	i += (size_t)n;
	while (i < len && is_blank(s[i]))
		i++;
	size_t u = i;
	while (i < len && !is_blank(s[i]))
		i++;
	size_t ulen = i - u;
	while (i < len && is_blank(s[i]))
		i++;
	if (i < len)
		return -EINVAL;
	if (ulen) {
		const struct unit *m = units;
		while (m && m->name && !(strlen(m->name) == ulen && memcmp(m->name, s + u, ulen) == 0))
			m++;
		if (!m || !m->name)
			return -EINVAL;
		scale = m->scale;
	}
	if (v > UINT64_MAX / scale)
		return -ERANGE;
	*out = v * scale;
	return 0;
}

/* Checks that the number parsed at s is followed only by blanks. n is its
 * length, or the error that the kvparse_* parser returned. */
static int single_rest(const char *s, size_t len, ssize_t n)
{
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -EINVAL;
	for (size_t i = (size_t)n; i < len; i++)
		if (!is_blank(s[i]))
			return -EINVAL;
	return 0;
}

int kvparse_single_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	int rc = single_rest(s, len, kvparse_u64(s, len, UINT64_MAX, &v));

	if (rc == 0)
		*out = v;
	return rc;
}

int kvparse_single_i64(const char *s, size_t len, int64_t *out)
{
	int64_t v = 0;
	int rc = single_rest(s, len, kvparse_i64(s, len, &v));

	if (rc == 0)
		*out = v;
	return rc;
}

size_t kvparse_trim_end(const char *s, size_t len)
{
	while (len && is_blank(s[len - 1]))
		len--;
	return len;
}

int kvparse_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
