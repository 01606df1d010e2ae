/* record_decode: one JSON Lines record into a frame, applying the record
 * format's rules 2, 4 and 5 (docs/record-format.md §8; untrusted input:
 * every count and length is bounded). */
#ifndef GPUR_RECORD_DECODE_H
#define GPUR_RECORD_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

/* Decodes line[0..len) into f (reset first). Returns 0, or -EINVAL when the
 * line is not one JSON object, -E2BIG when it holds more than the record
 * limits of GPUs, processes or events; f is then empty. */
int record_decode(struct frame *f, const char *line, size_t len);
/* A quick look for the time of a line gpur wrote: "ts_ms":<digits> among
 * its first bytes (the recorder writes it second), without decoding it.
 * True with *ts_ms set. Used where a wrong answer costs only precision
 * (rotation by age, the seek index), never for what a replay shows. */
bool record_peek_ts(const char *line, size_t len, uint64_t *ts_ms);
/* The same at the end of a line, where the original gpur writes it (its
 * keys in alphabetical order): the text ends "ts_ms":<digits>} (JSON
 * whitespace allowed around the digits, the brace and at the end). */
bool record_peek_ts_end(const char *end, size_t len, uint64_t *ts_ms);

#endif
