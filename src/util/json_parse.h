/* json_parse: a strict, bounded pull parser over one in-memory JSON text.
 * It allocates nothing itself: strings are decoded into a caller's buffer,
 * so the record reader's memory is bounded by the structs it fills. */
#ifndef GPUR_JSON_PARSE_H
#define GPUR_JSON_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <stdint.h>

#include "util/buf.h"

#define JSONP_MAX_DEPTH 512 /* nested arrays and objects allowed */

enum jsonp_type { JSONP_ERROR, JSONP_OBJECT, JSONP_ARRAY, JSONP_STRING, JSONP_NUMBER, JSONP_TRUE, JSONP_FALSE, JSONP_NULL };

struct jsonp_parser {
	const char *p, *end;
	unsigned depth;
	bool failed; /* sticky; the text is not valid JSON or nests too deep */
	unsigned char first[JSONP_MAX_DEPTH / 8 + 1]; /* per level: no element yet */
};

struct jsonp_number {
	bool is_int;   /* written without fraction or exponent */
	bool overflow; /* an integer outside int64, or a real outside double */
	int64_t i;     /* valid when is_int && !overflow */
	double d;      /* the value as a double (when !overflow) */
};

void jsonp_init(struct jsonp_parser *jp, const char *buf, size_t len);
/* The type of the next value after whitespace, or JSONP_ERROR at the end or
 * on bad input. */
enum jsonp_type jsonp_peek(struct jsonp_parser *jp);
/* Object iteration. jsonp_object_begin() consumes the '{'. Each
 * jsonp_object_next() then returns true with the decoded key, cut at keymax-1
 * bytes, and the cursor at its value; it returns false once it has consumed
 * the '}', or on an error. */
bool jsonp_object_begin(struct jsonp_parser *jp);
/* Enters the object at the cursor, for a caller that takes only objects.
 * Returns 1 when the value is an object, to be iterated with
 * jsonp_object_next; 0 when it is some other value, which is skipped; and -1
 * on invalid JSON. */
int jsonp_object_enter(struct jsonp_parser *jp);
bool jsonp_object_next(struct jsonp_parser *jp, char *key, size_t keymax, size_t *keylen);
/* Takes the next key of the object being iterated and looks it up in
 * names[0..n). Returns its index, or n for a key that is not among them; either
 * way the key's value is at the cursor, to be read or skipped. Returns -1
 * after the object's end or on an error. A key over 63 bytes matches none. */
int jsonp_object_key(struct jsonp_parser *jp, const char *const *names, size_t n);
/* Whether the key jsonp_object_next gave (key[0..keylen)) is want. */
static inline bool jsonp_key_is(const char *key, size_t keylen, const char *want)
{
	return keylen == strlen(want) && memcmp(key, want, keylen) == 0;
}
/* Array iteration. jsonp_array_begin() consumes the '[', and
 * jsonp_array_next() returns true before each element. */
bool jsonp_array_begin(struct jsonp_parser *jp);
bool jsonp_array_next(struct jsonp_parser *jp);
/* Decodes a string value into out, which is reset first. Escapes are
 * resolved, and invalid UTF-8, lone surrogates and \u0000 become U+FFFD. At
 * most max bytes are kept, cut on a character boundary; the rest is validated
 * and dropped. */
bool jsonp_string(struct jsonp_parser *jp, struct buf *out, size_t max);
bool jsonp_number(struct jsonp_parser *jp, struct jsonp_number *num);
/* Consumes true/false/null. */
bool jsonp_literal(struct jsonp_parser *jp, enum jsonp_type t);
/* Validates and skips any value. */
bool jsonp_skip(struct jsonp_parser *jp);
/* True when only whitespace remains. */
bool jsonp_at_end(struct jsonp_parser *jp);

#endif
