/* fuzz_report: libFuzzer harness for the report's summary code. The input is
 * a recording: its lines go through record_decode() into the summary (each
 * valid record, every other one narrowed as --gpus would); the summary is
 * finished and written as JSON and as HTML into memory. The JSON must be one
 * valid JSON value (checked with gpur's strict parser) and both outputs
 * valid UTF-8; anything else abort()s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/frame.h"
#include "util/json_parse.h"
#include "record/record_decode.h"
#include "report/html.h"
#include "report/json_out.h"
#include "report/summary.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_utf8(const struct buf *b, const char *what)
{
	size_t i = 0;
	while (i < b->len) {
		uint32_t cp;
		size_t k = utf8_decode(b->data + i, b->len - i, &cp);
		if (cp == UTF8_REPLACEMENT && !(k == 3 && memcmp(b->data + i, "\xEF\xBF\xBD", 3) == 0)) {
			fprintf(stderr, "fuzz_report: invalid UTF-8 in the %s at byte %zu\n", what, i);
			abort();
		}
		i += k;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct summary *s = summary_new();
	uint32_t orig[FRAME_MAX_GPUS];
	size_t n = 0;

	while (p < end && n < 64) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct frame *f = frame_new();
		if (record_decode(f, p, len) == 0) {
			/* Every other record as if --gpus kept its odd positions. */
			if (n++ % 2 && f->ngpus > 1) {
				bool keep[FRAME_MAX_GPUS];
				size_t k = 0;
				for (size_t i = 0; i < f->ngpus; i++) {
					keep[i] = i % 2;
					if (keep[i])
						orig[k++] = (uint32_t)i;
				}
				frame_keep_gpus(f, keep);
				summary_add(s, f, orig);
			} else {
				summary_add(s, f, NULL);
			}
		}
		frame_unref(f);
		p += len + (nl != NULL);
	}
	summary_finish(s);
	struct report_out o;
	report_out_init(&o, -1);
	json_out_write(&o, s);
	struct jsonp_parser jp;
	jsonp_init(&jp, o.b.data, o.b.len);
	if (!jsonp_skip(&jp)) {
		fprintf(stderr, "fuzz_report: the JSON summary does not parse:\n%.*s\n", (int)(o.b.len < 4096 ? o.b.len : 4096),
			o.b.data);
		abort();
	}
	check_utf8(&o.b, "JSON");
	buf_reset(&o.b);
	html_write(&o, s, "fuzz");
	check_utf8(&o.b, "HTML");
	report_out_fini(&o);
	summary_free(s);
	return 0;
}
