/* json_parse: a strict, bounded pull parser over one in-memory JSON text.
 * It allocates nothing itself: strings are decoded into a caller's buffer,
 * so the record reader's memory is bounded by the structs it fills. */
#ifndef GPUR_JSON_PARSE_H
#define GPUR_JSON_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define JSON_MAX_DEPTH 512

enum json_type { JSON_ERROR, JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_NUMBER, JSON_TRUE, JSON_FALSE, JSON_NULL };

struct json_parser {
	const char *p, *end;
	unsigned depth;
	bool failed; /* sticky: the text is not valid JSON (or too deep) */
	unsigned char first[JSON_MAX_DEPTH / 8 + 1]; /* per level: no element yet */
};

struct json_number {
	bool is_int;   /* written without fraction or exponent */
	bool overflow; /* an integer outside int64, or a real outside double */
	int64_t i;     /* valid when is_int && !overflow */
	double d;      /* the value as a double (when !overflow) */
};

void json_init(struct json_parser *jp, const char *buf, size_t len);
/* Type of the next value (after whitespace), JSON_ERROR at end or on bad input. */
enum json_type json_peek(struct json_parser *jp);
/* Object iteration: json_object_begin() consumes '{'; json_object_next()
 * returns true with the decoded key (cut at keymax-1 bytes, *truncated set)
 * positioned at its value, or false after consuming '}' (or on error). */
bool json_object_begin(struct json_parser *jp);
bool json_object_next(struct json_parser *jp, char *key, size_t keymax, size_t *keylen);
/* Array iteration: begin consumes '['; next returns true before each element. */
bool json_array_begin(struct json_parser *jp);
bool json_array_next(struct json_parser *jp);
/* Decodes a string value into out (reset first): escapes resolved, invalid
 * UTF-8 and lone surrogates as U+FFFD, \u0000 as U+FFFD; at most max bytes
 * are kept (cut on a character boundary), the rest is validated and dropped. */
bool json_string(struct json_parser *jp, struct buf *out, size_t max);
bool json_number(struct json_parser *jp, struct json_number *num);
/* Consumes true/false/null. */
bool json_literal(struct json_parser *jp, enum json_type t);
/* Validates and skips any value. */
bool json_skip(struct json_parser *jp);
/* True when only whitespace remains. */
bool json_at_end(struct json_parser *jp);

#endif
