/* out: where a report is written. It is a buffer flushed to a descriptor as
 * it fills, with a sticky error checked once at the end, and text made safe
 * for HTML and SVG, because every string of a recording is untrusted. */
#ifndef GPUR_REPORT_OUT_H
#define GPUR_REPORT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/event.h"
#include "util/buf.h"

struct report_out {
	struct buf b;
	int fd;    /* -1 to keep everything in b, for tests and the fuzzer */
	int err;   /* the first write error (-errno), or 0 */
};

void report_out_init(struct report_out *o, int fd);
void report_out_fini(struct report_out *o);
/* Writes what is buffered when there is a lot of it, or all of it with force. */
void report_out_flush(struct report_out *o, bool force);
/* Writes s as HTML text, also fit for an attribute value in double quotes.
 * The text is valid UTF-8, with invalid bytes, controls and characters that
 * reorder or hide text as U+FFFD, and & < > " ' as character references.
 * NULL writes nothing. */
void report_out_text(struct report_out *o, const char *s);
/* Writes event e in one line as the dashboard describes it (event_describe),
 * made safe like report_out_text. An event with an XID names the number
 * once, with its meaning: gpur's own detail "XID 79: GPU has fallen off the
 * bus" gives "xid GPU 0 (nvml) XID 79: GPU has fallen off the bus", and an
 * XID recorded without a detail gets gpur's meaning of the number. */
void report_out_event(struct report_out *o, const struct event *e);
/* Writes an epoch-ms time as "2025-12-01 10:00:00Z" (UTC). */
void report_out_time(struct report_out *o, uint64_t ms);
/* Writes a duration as "2 h 03 min", "4 min 05 s" or "12.5 s". */
void report_out_duration(struct report_out *o, double ms);

#endif
