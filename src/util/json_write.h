/* json_write: JSON scalars into a buf, exactly and safely: strings always come
 * out as valid UTF-8 with control characters escaped, integers exactly, other
 * numbers in the shortest form that reads back as the same double. */
#ifndef GPUR_JSON_WRITE_H
#define GPUR_JSON_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Writes s[0..n) as a JSON string with invalid UTF-8 as U+FFFD, keeping at
 * most max bytes of content, cut on a character boundary. */
void json_put_string(struct buf *b, const char *s, size_t n, size_t max);
void json_put_u64(struct buf *b, uint64_t v);
void json_put_i64(struct buf *b, int64_t v);
/* Finite doubles only; integral values below 2^63 print as integers. */
void json_put_double(struct buf *b, double d);
/* Writes a FIELD_NUM value. An integral value within int64 is written as that
 * exact integer, so 9007199254740993 stays itself; any other value is written
 * as its nearest double in json_put_double()'s shortest form. Only finite
 * values may be passed, because the encoder leaves the others out. */
void json_put_num(struct buf *b, long double v);

#endif
