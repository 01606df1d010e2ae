/* record_encode: table-driven JSON writing of frames. */
#include "record/record_encode.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util/json_write.h"
#include "util/xalloc.h"

static void put_value(struct buf *out, const struct field *f, const void *obj)
{
	const void *p = field_cptr(obj, f);

	switch (f->type) {
	case FIELD_STR: {
		const char *s = *(const char *const *)p;
		json_put_string(out, s, strlen(s), f->max_len);
		break;
	}
	case FIELD_U64: json_put_u64(out, *(const uint64_t *)p); break;
	case FIELD_NUM: json_put_num(out, *(const long double *)p); break;
	case FIELD_BOOL: buf_puts(out, *(const bool *)p ? "true" : "false"); break;
	case FIELD_ENUM: {
		uint8_t v = *(const uint8_t *)p;
		buf_putc(out, '"');
		buf_puts(out, v < f->nnames ? f->names[v] : "");
		buf_putc(out, '"');
		break;
	}
	case FIELD_FLAGS: {
		uint32_t v = *(const uint32_t *)p;
		bool first = true;
		buf_putc(out, '[');
		for (unsigned i = 0; i < f->nnames; i++) {
			if (!(v >> i & 1u))
				continue;
			if (!first)
				buf_putc(out, ',');
			first = false;
			buf_putc(out, '"');
			buf_puts(out, f->names[i]);
			buf_putc(out, '"');
		}
		buf_putc(out, ']');
		break;
	}
	}
}

void record_encode_fields(struct buf *out, const struct field *tab, size_t n, const void *obj,
			  bool skip_readings, const char *skip_key)
{
	bool first = true;

	for (size_t i = 0; i < n; i++) {
		const struct field *f = &tab[i];
		if (!field_valid(obj, f))
			continue;
		if (skip_readings && (f->flags & FIELD_READING))
			continue;
		if (skip_key && strcmp(f->key, skip_key) == 0)
			continue;
		if (f->type == FIELD_STR && !*(const char *const *)field_cptr(obj, f))
			continue;
		/* No source should make a NaN, an infinity or a value past the
		 * double range, but if one does, it is unknown rather than null. */
		if (f->type == FIELD_NUM && !isfinite((double)*(const long double *)field_cptr(obj, f)))
			continue;
		if (!first)
			buf_putc(out, ',');
		first = false;
		buf_putc(out, '"');
		buf_puts(out, f->key);
		buf_puts(out, "\":");
		put_value(out, f, obj);
	}
}

/* Stops early, returning false, once the line passes cap bytes. */
static bool encode_capped(struct buf *out, const struct frame *f, unsigned flags, size_t cap)
{
	size_t start = out->len;

	buf_puts(out, "{\"schema\":1,");
	size_t mark = out->len;
	record_encode_fields(out, FRAME_FIELDS, FRAME_NFIELDS, f, false, NULL);
	if (out->len == mark) /* nothing known, since a NULL string is skipped, so no comma */
		out->len--;
	if (frame_has(f, FRAME_F_SYSTEM)) {
		buf_puts(out, ",\"system\":{");
		record_encode_fields(out, SYSTEM_FIELDS, SYSTEM_NFIELDS, &f->system, false, NULL);
		buf_putc(out, '}');
	}
	buf_puts(out, ",\"gpus\":[");
	for (size_t i = 0; i < f->ngpus; i++) {
		buf_puts(out, i ? ",{" : "{");
		record_encode_fields(out, GPU_FIELDS, GPU_NFIELDS, &f->gpus[i], gpu_is_unread(&f->gpus[i]), NULL);
		buf_putc(out, '}');
	}
	buf_puts(out, "],\"processes\":[");
	if (!(flags & RECORD_NO_PROCESSES)) {
		for (size_t i = 0; i < f->nprocs; i++) {
			buf_puts(out, i ? ",{" : "{");
			record_encode_fields(out, PROCESS_FIELDS, PROCESS_NFIELDS, &f->procs[i], false,
					     (flags & RECORD_NO_CMDLINES) ? "cmdline" : NULL);
			buf_putc(out, '}');
			if (out->len - start > cap)
				return false;
		}
	}
	buf_putc(out, ']');
	if (f->nevents) {
		buf_puts(out, ",\"events\":[");
		for (size_t i = 0; i < f->nevents; i++) {
			buf_puts(out, i ? ",{" : "{");
			record_encode_fields(out, EVENT_FIELDS, EVENT_NFIELDS, &f->events[i], false, NULL);
			buf_putc(out, '}');
		}
		buf_putc(out, ']');
	}
	buf_puts(out, "}\n");
	return out->len - start - 1 <= cap;
}

void record_encode(struct buf *out, const struct frame *f, unsigned flags)
{
	encode_capped(out, f, flags, SIZE_MAX);
}

bool record_encode_bounded(struct buf *out, const struct frame *f)
{
	static const char *const why[] = {
		NULL,
		"record over 8 MiB: command lines left out",
		"record over 8 MiB: process rows left out",
	};
	static const unsigned flags[] = {0, RECORD_NO_CMDLINES, RECORD_NO_CMDLINES | RECORD_NO_PROCESSES};
	size_t start = out->len;

	for (int step = 0; step < 3; step++) {
		struct frame tmp = *f;
		struct event *events = NULL;
		out->len = start;
		if (why[step]) {
			/* At the event limit the note takes the last event's place,
			 * because every reader would skip a record over the limit. */
			size_t keep = f->nevents < FRAME_MAX_EVENTS ? f->nevents : FRAME_MAX_EVENTS - 1;
			events = xreallocarray(NULL, keep + 1, sizeof(*events));
			if (keep)
				memcpy(events, f->events, keep * sizeof(*events));
			struct event *e = &events[keep];
			memset(e, 0, sizeof(*e));
			e->kind = EVENT_NOTE;
			e->detail = why[step];
			e->valid = UINT64_C(1) << EVENT_F_KIND | UINT64_C(1) << EVENT_F_DETAIL;
			tmp.events = events;
			tmp.nevents = keep + 1;
		}
		bool fits = encode_capped(out, &tmp, flags[step], RECORD_MAX_LINE);
		free(events);
		if (fits)
			return true;
	}
	return false;
}
