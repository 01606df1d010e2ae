/* report: gpur --replay PATH --report OUT. The whole span of a recording is
 * read once, streaming, into a summary (summary.h), which is written as one
 * HTML page with plots or as one JSON object (docs/report.md). */
#ifndef GPUR_REPORT_H
#define GPUR_REPORT_H

#include <signal.h>

#include "record/replay.h"
#include "model/gpusel.h"
#include "model/idle.h"

enum report_format { REPORT_FORMAT_HTML, REPORT_FORMAT_JSON, REPORT_FORMAT_UNKNOWN };

/* The format OUT asks for by its extension, case-insensitively. .html and
 * .htm are HTML, .json is JSON, and "-" (stdout) is HTML; anything else is
 * unknown. */
enum report_format report_format_of(const char *out);
/* Reads every record left in r, narrowed by sel, which may be NULL, and
 * writes the report to out through a temporary file beside it, renamed over
 * it at the end, so that a failure leaves no half report. source names the
 * recording in the page. It stops reading early when *stop is set, and the
 * report then covers what was read. Messages go to stderr, each naming the
 * file or option. Returns the exit status: 0; 1 when it cannot write or
 * nothing in the span matches --gpus; or 2 when out is the recording. */
int report_run(struct replay *r, const struct gpusel *sel, const struct idle_opts *idle, const char *out,
	       const char *source, const volatile sig_atomic_t *stop);

#endif
