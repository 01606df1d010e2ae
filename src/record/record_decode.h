/* record_decode: one JSON Lines record into a frame, applying the record
 * format's rules 2, 4 and 5 (docs/record-format.md §8). The input is
 * untrusted, so every count and length is bounded. */
#ifndef GPUR_RECORD_DECODE_H
#define GPUR_RECORD_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

/* Decodes line[0..len) into f, which is reset first. Returns 0; -EINVAL when
 * the line is not one JSON object; or -E2BIG when it holds more GPUs,
 * processes or events than the record limits allow. On an error f is left
 * empty. */
int record_decode(struct frame *f, const char *line, size_t len);
/* Takes a quick look for the time of a line gpur wrote, without decoding it,
 * by finding "ts_ms":<digits> among its first bytes; the recorder writes that
 * key second. Returns true with *ts_ms set. It is used where a wrong answer
 * costs only precision (rotation by age, the seek index), never for what a
 * replay shows. */
bool record_peek_ts(const char *line, size_t len, uint64_t *ts_ms);
/* The same at the end of a line, where the original gpur writes it because
 * its keys are in alphabetical order. The text ends "ts_ms":<digits>}, with
 * JSON whitespace allowed around the digits, around the brace and at the
 * end. */
bool record_peek_ts_end(const char *end, size_t len, uint64_t *ts_ms);

#endif
