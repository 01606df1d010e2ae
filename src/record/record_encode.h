/* record_encode: a frame as one JSON Lines record (docs/record-format.md),
 * driven by the field tables. */
#ifndef GPUR_RECORD_ENCODE_H
#define GPUR_RECORD_ENCODE_H

#include "model/frame.h"
#include "util/buf.h"

#define RECORD_SCHEMA 1
#define RECORD_MAX_LINE (8u << 20) /* 8 MiB, the longest line written or read */

enum {
	RECORD_NO_CMDLINES = 1u << 0,  /* leave out every process's cmdline */
	RECORD_NO_PROCESSES = 1u << 1, /* leave out every process row */
};

/* Appends f as JSON with a trailing newline to out. */
void record_encode(struct buf *out, const struct frame *f, unsigned flags);
/* Appends f to out as a line of at most RECORD_MAX_LINE bytes before its \n.
 * While the line is longer, it sheds command lines and then process rows,
 * each time adding a note event that says so. Returns false when even that
 * does not fit; out then holds a partial line that the caller discards. */
bool record_encode_bounded(struct buf *out, const struct frame *f);
/* Appends the "key":value pairs of obj's known fields, without braces. It
 * skips the readings when skip_readings is set, and the cmdline-like fields
 * that skip_key names. */
void record_encode_fields(struct buf *out, const struct field *tab, size_t n, const void *obj,
			  bool skip_readings, const char *skip_key);

#endif
