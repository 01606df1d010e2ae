/* fuzz_record: libFuzzer harness for the record reader and writer. Arbitrary
 * bytes go to record_decode(); a record that decodes is encoded, decoded again
 * and re-encoded, and the two encodings must be byte-identical (the record format's
 * rule 8: a round trip is stable). Any difference abort()s. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/frame.h"
#include "record/record_decode.h"
#include "record/record_encode.h"
#include "util/buf.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, const struct buf *a, const struct buf *b)
{
	fprintf(stderr, "fuzz_record: %s\n", what);
	if (a)
		fprintf(stderr, "first:  %.*s", (int)(a->len < 4096 ? a->len : 4096), a->data);
	if (b)
		fprintf(stderr, "second: %.*s", (int)(b->len < 4096 ? b->len : 4096), b->data);
	abort();
}

/* What every decoded frame promises its readers (rule 4 and the limits). */
static void check_frame(const struct frame *f)
{
	if (f->ngpus > FRAME_MAX_GPUS || f->nprocs > FRAME_MAX_PROCESSES || f->nevents > FRAME_MAX_EVENTS)
		die("decoded frame over the record limits", NULL, NULL);
	for (size_t i = 0; i < f->nprocs; i++) {
		const struct gpu_process *p = &f->procs[i];
		if (!process_has(p, PROC_F_PID) || !process_has(p, PROC_F_GPU_INDEX) || p->gpu_index >= f->ngpus)
			die("decoded process row breaks rule 4", NULL, NULL);
	}
	for (size_t i = 0; i < f->nevents; i++)
		if (!event_has(&f->events[i], EVENT_F_KIND))
			die("decoded event without a kind", NULL, NULL);
	for (size_t i = 0; i < f->ngpus; i++)
		if (gpu_is_unread(&f->gpus[i]))
			for (size_t k = 0; k < GPU_NFIELDS; k++)
				if ((GPU_FIELDS[k].flags & FIELD_READING) && field_valid(&f->gpus[i], &GPU_FIELDS[k]))
					die("lost/suspended GPU kept a reading", NULL, NULL);
}

/* What every written line promises: one line, valid UTF-8, no raw C0
 * control characters. (The 8 MiB cap is record_encode_bounded's promise;
 * plain record_encode may go over it for a huge input.) */
static void check_line(const struct buf *b)
{
	if (b->len == 0 || b->data[b->len - 1] != '\n')
		die("encoded record does not end with a newline", b, NULL);
	for (size_t i = 0; i + 1 < b->len;) {
		unsigned char c = (unsigned char)b->data[i];
		if (c < 0x20) /* JSON requires these escaped; DEL and C1 may stay raw */
			die("encoded record holds a raw control character", b, NULL);
		uint32_t cp;
		size_t n = utf8_decode(b->data + i, b->len - 1 - i, &cp);
		if (cp == UTF8_REPLACEMENT && !(n == 3 && memcmp(b->data + i, "\xEF\xBF\xBD", 3) == 0))
			die("encoded record is not valid UTF-8", b, NULL);
		i += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Reused across inputs, as replay reuses its frame. */
	static struct frame *first, *second, *copy;
	struct buf a, b;

	if (size > RECORD_MAX_LINE)
		return 0;
	if (!first) {
		first = frame_new();
		second = frame_new();
		copy = frame_new();
	}
	if (record_decode(first, (const char *)data, size) != 0) {
		if (first->ngpus || first->nprocs || first->nevents || first->valid)
			die("failed decode left a non-empty frame", NULL, NULL);
		return 0;
	}
	check_frame(first);

	buf_init(&a);
	buf_init(&b);
	record_encode(&a, first, 0);
	check_line(&a);
	/* The reader sees the line without its newline. */
	if (record_decode(second, a.data, a.len - 1) != 0)
		die("gpur's own record does not decode", &a, NULL);
	check_frame(second);
	record_encode(&b, second, 0);
	if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
		die("round trip is not stable", &a, &b);

	/* The writers' path: a line within the cap is written as it is; a
	 * longer one is shed down to the cap (or refused). */
	buf_reset(&b);
	bool fits = record_encode_bounded(&b, first);
	if (a.len - 1 <= RECORD_MAX_LINE) {
		if (!fits || a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
			die("record_encode_bounded differs from record_encode", &a, &b);
	} else if (fits) {
		check_line(&b);
		if (b.len - 1 > RECORD_MAX_LINE || record_decode(second, b.data, b.len - 1) != 0)
			die("record_encode_bounded wrote an unreadable or oversized line", &b, NULL);
	}

	/* replay hands out its first record through frame_copy(). */
	frame_copy(copy, first);
	buf_reset(&b);
	record_encode(&b, copy, 0);
	if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
		die("frame_copy changed the record", &a, &b);

	/* The recorder's fallbacks for oversized records must stay readable. */
	static const unsigned flags[] = {RECORD_NO_CMDLINES, RECORD_NO_CMDLINES | RECORD_NO_PROCESSES};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		buf_reset(&b);
		record_encode(&b, first, flags[i]);
		check_line(&b);
		if (record_decode(second, b.data, b.len - 1) != 0)
			die("a record written without command lines/processes does not decode", &b, NULL);
		if (second->ngpus != first->ngpus || second->nevents != first->nevents)
			die("dropping command lines/processes changed GPUs or events", &a, &b);
	}

	buf_fini(&a);
	buf_fini(&b);
	return 0;
}
