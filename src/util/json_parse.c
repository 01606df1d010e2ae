/* json_parse: strict RFC 8259 pull parser with bounded depth and no
 * allocation of its own. Any syntax error makes the whole text invalid. */
#include "util/json_parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/kvparse.h"
#include "util/utf8.h"

static bool fail(struct jsonp_parser *jp)
{
	jp->failed = true;
	jp->p = jp->end;
	return false;
}

static void ws(struct jsonp_parser *jp)
{
	while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
		jp->p++;
}

void jsonp_init(struct jsonp_parser *jp, const char *buf, size_t len)
{
	jp->p = buf;
	jp->end = buf + len;
	jp->depth = 0;
	jp->failed = false;
}

enum jsonp_type jsonp_peek(struct jsonp_parser *jp)
{
	ws(jp);
	if (jp->failed || jp->p >= jp->end)
		return JSONP_ERROR;
	switch (*jp->p) {
	case '{': return JSONP_OBJECT;
	case '[': return JSONP_ARRAY;
	case '"': return JSONP_STRING;
	case 't': return JSONP_TRUE;
	case 'f': return JSONP_FALSE;
	case 'n': return JSONP_NULL;
	default:
		if (*jp->p == '-' || (*jp->p >= '0' && *jp->p <= '9'))
			return JSONP_NUMBER;
		return JSONP_ERROR;
	}
}

static bool open_container(struct jsonp_parser *jp, char c)
{
	if (jsonp_peek(jp) == JSONP_ERROR || *jp->p != c)
		return fail(jp);
	if (jp->depth >= JSONP_MAX_DEPTH)
		return fail(jp);
	jp->p++;
	jp->depth++;
	jp->first[jp->depth / 8] |= (unsigned char)(1u << (jp->depth % 8));
	return true;
}

/* Handles the separator before an element or the closing bracket.
 * Returns true when an element follows. */
static bool next_element(struct jsonp_parser *jp, char close)
{
	unsigned d = jp->depth;
	bool first = jp->first[d / 8] >> (d % 8) & 1u;

	ws(jp);
	if (jp->failed || jp->p >= jp->end)
		return fail(jp);
	if (*jp->p == close) {
		jp->p++;
		jp->depth--;
		return false;
	}
	if (first) {
		jp->first[d / 8] &= (unsigned char)~(1u << (d % 8));
	} else {
		if (*jp->p != ',')
			return fail(jp);
		jp->p++;
		ws(jp);
		if (jp->p < jp->end && *jp->p == close) /* trailing comma */
			return fail(jp);
	}
	return true;
}

bool jsonp_object_begin(struct jsonp_parser *jp)
{
	return open_container(jp, '{');
}

int jsonp_object_key(struct jsonp_parser *jp, const char *const *names, size_t n)
{
	char key[64];
	size_t klen;

	if (!jsonp_object_next(jp, key, sizeof(key), &klen))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (jsonp_key_is(key, klen, names[i]))
			return (int)i;
	return (int)n;
}

int jsonp_object_enter(struct jsonp_parser *jp)
{
	if (jsonp_peek(jp) != JSONP_OBJECT)
		return jsonp_skip(jp) ? 0 : -1;
	return jsonp_object_begin(jp) ? 1 : -1;
}

bool jsonp_array_begin(struct jsonp_parser *jp)
{
	return open_container(jp, '[');
}

bool jsonp_array_next(struct jsonp_parser *jp)
{
	return next_element(jp, ']');
}

static bool hex4(struct jsonp_parser *jp, uint32_t *v)
{
	if (jp->end - jp->p < 4)
		return false;
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int h = kvparse_hexval(jp->p[i]);
		if (h < 0)
			return false;
		*v = *v << 4 | (uint32_t)h;
	}
	jp->p += 4;
	return true;
}

/* Where a decoded string goes: a growable buffer, a fixed array, or nowhere. */
struct sink {
	struct buf *b;
	char *fixed;
	size_t len, max;
	bool full; /* once full, it stays full, so a short character cannot follow a dropped long one */
};

static void sink_put(struct sink *k, const char *s, size_t n)
{
	if (k->full || (!k->b && !k->fixed))
		return;
	if (k->len + n > k->max) {
		k->full = true;
		return;
	}
	if (k->b)
		buf_append(k->b, s, n);
	else
		memcpy(k->fixed + k->len, s, n);
	k->len += n;
}

static void sink_cp(struct sink *k, uint32_t cp)
{
	char enc[4];

	sink_put(k, enc, utf8_encode(cp, enc));
}

/* 1 for the bytes that a string's plain run is made of, which are the
 * printable ASCII characters other than '"' and '\\'. */
static const unsigned char PLAIN[256] = {
	[0x20] = 1, [0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7f] = 1,
};

/* Decodes the escape after a backslash into one code point; the cursor is
 * already past the backslash. A \u surrogate pair gives one code point, and a
 * lone surrogate or \u0000 gives U+FFFD. Returns false on a bad escape. */
static bool parse_escape(struct jsonp_parser *jp, uint32_t *out)
{
	uint32_t cp;

	if (jp->p >= jp->end)
		return false;
	switch (*jp->p++) {
	case '"': cp = '"'; break;
	case '\\': cp = '\\'; break;
	case '/': cp = '/'; break;
	case 'b': cp = '\b'; break;
	case 'f': cp = '\f'; break;
	case 'n': cp = '\n'; break;
	case 'r': cp = '\r'; break;
	case 't': cp = '\t'; break;
	case 'u':
		if (!hex4(jp, &cp))
			return false;
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			uint32_t lo;
			const char *save = jp->p;
			if (jp->end - jp->p >= 6 && jp->p[0] == '\\' && jp->p[1] == 'u') {
				jp->p += 2;
				if (!hex4(jp, &lo))
					return false;
				if (lo >= 0xDC00 && lo <= 0xDFFF) {
					*out = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					return true;
				}
				jp->p = save; /* not a pair, so the next escape stands alone */
			}
			cp = UTF8_REPLACEMENT;
		} else if ((cp >= 0xDC00 && cp <= 0xDFFF) || cp == 0) {
			cp = UTF8_REPLACEMENT;
		}
		break;
	default:
		return false;
	}
	*out = cp;
	return true;
}

static bool parse_string(struct jsonp_parser *jp, struct sink *k)
{
	if (jsonp_peek(jp) != JSONP_STRING)
		return fail(jp);
	jp->p++;
	while (jp->p < jp->end) {
		const char *run = jp->p, *q = jp->p, *end = jp->end;
		/* Eight bytes at a time while none of them ends the run. */
		while (end - q >= 8 && PLAIN[(unsigned char)q[0]] & PLAIN[(unsigned char)q[1]] & PLAIN[(unsigned char)q[2]] &
					       PLAIN[(unsigned char)q[3]] & PLAIN[(unsigned char)q[4]] &
					       PLAIN[(unsigned char)q[5]] & PLAIN[(unsigned char)q[6]] & PLAIN[(unsigned char)q[7]])
			q += 8;
		while (q < end && PLAIN[(unsigned char)*q])
			q++;
		jp->p = q;
		if (jp->p > run) {
			size_t n = (size_t)(jp->p - run);
			if (!k->full && k->len + n > k->max) {
				sink_put(k, run, k->max - k->len); /* in ASCII, any cut is a boundary */
				k->full = true;
			} else {
				sink_put(k, run, n);
			}
		}
		if (jp->p >= jp->end)
			break;
		unsigned char c = (unsigned char)*jp->p;
		if (c == '"') {
			jp->p++;
			return true;
		}
		if (c < 0x20)
			return fail(jp);
		if (c >= 0x80) {
			uint32_t cp;
			jp->p += utf8_decode(jp->p, (size_t)(jp->end - jp->p), &cp);
			sink_cp(k, cp);
			continue;
		}
		/* A backslash. */
		jp->p++;
		uint32_t cp;
		if (!parse_escape(jp, &cp))
			return fail(jp);
		sink_cp(k, cp);
	}
	return fail(jp);
}

bool jsonp_string(struct jsonp_parser *jp, struct buf *out, size_t max)
{
	struct sink k = {.b = out, .max = max};

	if (out)
		buf_reset(out);
	return parse_string(jp, &k);
}

bool jsonp_object_next(struct jsonp_parser *jp, char *key, size_t keymax, size_t *keylen)
{
	/* A key longer than keymax-1 bytes cannot name a known field. It is
	 * cut, and *keylen is set to keymax so that it matches nothing. */
	struct sink k = {.fixed = key, .max = keymax - 1};

	if (!next_element(jp, '}'))
		return false;
	if (!parse_string(jp, &k))
		return false;
	ws(jp);
	if (jp->p >= jp->end || *jp->p != ':')
		return fail(jp);
	jp->p++;
	key[k.len] = '\0';
	*keylen = k.full ? keymax : k.len;
	return true;
}

bool jsonp_number(struct jsonp_parser *jp, struct jsonp_number *num)
{
	const char *s, *p;
	bool neg = false;
	uint64_t acc = 0;

	if (jsonp_peek(jp) != JSONP_NUMBER)
		return fail(jp);
	s = p = jp->p;
	memset(num, 0, sizeof(*num));
	num->is_int = true;
	if (*p == '-') {
		neg = true;
		p++;
	}
	if (p >= jp->end || *p < '0' || *p > '9')
		return fail(jp);
	if (*p == '0') {
		p++;
	} else {
		while (p < jp->end && *p >= '0' && *p <= '9') {
			unsigned dgt = (unsigned)(*p - '0');
			if (acc > (UINT64_MAX - dgt) / 10)
				num->overflow = true;
			else
				acc = acc * 10 + dgt;
			p++;
		}
	}
	if (p < jp->end && *p == '.') {
		num->is_int = false;
		p++;
		if (p >= jp->end || *p < '0' || *p > '9')
			return fail(jp);
		while (p < jp->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < jp->end && (*p == 'e' || *p == 'E')) {
		num->is_int = false;
		p++;
		if (p < jp->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= jp->end || *p < '0' || *p > '9')
			return fail(jp);
		while (p < jp->end && *p >= '0' && *p <= '9')
			p++;
	}
	jp->p = p;
	if (num->is_int) {
		num->overflow = num->overflow || acc > (neg ? UINT64_C(1) << 63 : (UINT64_C(1) << 63) - 1);
		if (!num->overflow) {
			num->i = neg ? (int64_t)(0 - acc) : (int64_t)acc;
			num->d = (double)num->i;
		}
		return true;
	}
	/* gpur never sets LC_NUMERIC, so strtod reads '.' as the decimal point. */
	char tmp[512];
	size_t n = (size_t)(p - s);
	if (n >= sizeof(tmp)) {
		num->overflow = true;
		return true;
	}
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	num->d = strtod(tmp, NULL);
	if (errno == ERANGE && isinf(num->d))
		num->overflow = true;
	return true;
}

bool jsonp_literal(struct jsonp_parser *jp, enum jsonp_type t)
{
	static const char *const words[] = {[JSONP_TRUE] = "true", [JSONP_FALSE] = "false", [JSONP_NULL] = "null"};
	const char *w = words[t];
	size_t n = strlen(w);

	if (jsonp_peek(jp) != t || (size_t)(jp->end - jp->p) < n || memcmp(jp->p, w, n) != 0)
		return fail(jp);
	jp->p += n;
	return true;
}

bool jsonp_skip(struct jsonp_parser *jp)
{
	struct jsonp_number num;
	char key[8];
	size_t klen;

	switch (jsonp_peek(jp)) {
	case JSONP_OBJECT:
		if (!jsonp_object_begin(jp))
			return false;
		while (jsonp_object_next(jp, key, sizeof(key), &klen))
			if (!jsonp_skip(jp))
				return false;
		return !jp->failed;
	case JSONP_ARRAY:
		if (!jsonp_array_begin(jp))
			return false;
		while (jsonp_array_next(jp))
			if (!jsonp_skip(jp))
				return false;
		return !jp->failed;
	case JSONP_STRING:
		return jsonp_string(jp, NULL, 0);
	case JSONP_NUMBER:
		return jsonp_number(jp, &num);
	case JSONP_TRUE:
	case JSONP_FALSE:
	case JSONP_NULL:
		return jsonp_literal(jp, jsonp_peek(jp));
	default:
		return fail(jp);
	}
}

bool jsonp_at_end(struct jsonp_parser *jp)
{
	ws(jp);
	return !jp->failed && jp->p == jp->end;
}
