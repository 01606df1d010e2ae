/* record_decode: table-driven, bounded decoding of recorded frames. */
#include "record/record_decode.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "record/json_parse.h"

enum decoded { DEC_SET, DEC_NULL, DEC_BAD };

struct decoder {
	struct jsonp_parser jp;
	struct frame *f;
	struct buf s; /* scratch for strings */
	int err;
};

static bool integral(const struct jsonp_number *n, const struct field *f, int64_t *out)
{
	if (n->overflow)
		return false;
	if (n->is_int) {
		*out = n->i;
	} else {
		if (n->d != trunc(n->d) || n->d < -9.2e18 || n->d > 9.2e18)
			return false;
		*out = (int64_t)n->d;
	}
	return (double)*out >= f->min && (double)*out <= f->max;
}

/* Reads the value at the cursor into obj's field f. */
static enum decoded decode_value(struct decoder *d, const struct field *f, void *obj)
{
	struct jsonp_parser *jp = &d->jp;
	enum jsonp_type t = jsonp_peek(jp);
	void *p = field_ptr(obj, f);
	struct jsonp_number num;
	int64_t iv;

	if (t == JSONP_NULL) {
		jsonp_literal(jp, t);
		return DEC_NULL;
	}
	switch (f->type) {
	case FIELD_STR:
		if (t != JSONP_STRING)
			break;
		if (!jsonp_string(jp, &d->s, f->max_len))
			return DEC_BAD;
		*(const char **)p = frame_strn(d->f, d->s.data ? d->s.data : "", d->s.len);
		return DEC_SET;
	case FIELD_U64:
		if (t != JSONP_NUMBER)
			break;
		if (!jsonp_number(jp, &num) || !integral(&num, f, &iv) || iv < 0)
			return DEC_BAD;
		*(uint64_t *)p = (uint64_t)iv;
		return DEC_SET;
	case FIELD_NUM: {
		long double v;
		if (t != JSONP_NUMBER)
			break;
		/* An integer literal is taken exactly (2^53 + 1 stays itself);
		 * anything else is its double. overflow: an integer literal
		 * outside int64 or a real outside double, both unknown. */
		if (!jsonp_number(jp, &num) || num.overflow)
			return DEC_BAD;
		v = num.is_int ? (long double)num.i : (long double)num.d;
		if (!(v >= f->min && v <= f->max))
			return DEC_BAD;
		*(long double *)p = v;
		return DEC_SET;
	}
	case FIELD_BOOL:
		if (t != JSONP_TRUE && t != JSONP_FALSE)
			break;
		jsonp_literal(jp, t);
		*(bool *)p = t == JSONP_TRUE;
		return DEC_SET;
	case FIELD_ENUM: {
		if (t != JSONP_STRING)
			break;
		if (!jsonp_string(jp, &d->s, 64))
			return DEC_BAD;
		int idx = field_name_index(f, d->s.data ? d->s.data : "", d->s.len);
		if (idx < 0)
			return DEC_BAD;
		*(uint8_t *)p = (uint8_t)idx;
		return DEC_SET;
	}
	case FIELD_FLAGS: {
		uint32_t v = 0;
		if (t != JSONP_ARRAY)
			break;
		jsonp_array_begin(jp);
		while (jsonp_array_next(jp)) {
			if (jsonp_peek(jp) != JSONP_STRING) {
				jsonp_skip(jp);
				continue;
			}
			if (!jsonp_string(jp, &d->s, 64))
				return DEC_BAD;
			int idx = field_name_index(f, d->s.data ? d->s.data : "", d->s.len);
			if (idx >= 0)
				v |= 1u << idx;
		}
		*(uint32_t *)p = v;
		return jp->failed ? DEC_BAD : DEC_SET;
	}
	}
	jsonp_skip(jp); /* wrong type: unknown, the record stays */
	return DEC_BAD;
}

/* Decodes an object's known keys into obj; returns the mask of keys whose
 * last occurrence was present but unusable. */
static uint64_t decode_object(struct decoder *d, const struct field *tab, size_t n, void *obj)
{
	struct jsonp_parser *jp = &d->jp;
	uint64_t bad = 0;
	char key[64];
	size_t klen, hint = 0;

	jsonp_object_begin(jp);
	while (jsonp_object_next(jp, key, sizeof(key), &klen)) {
		const struct field *f = field_find_from(tab, n, key, klen, &hint);
		if (!f) {
			jsonp_skip(jp);
			continue;
		}
		enum decoded r = decode_value(d, f, obj);
		field_set_valid(obj, f, r == DEC_SET);
		bad = r == DEC_BAD ? bad | (UINT64_C(1) << f->bit) : bad & ~(UINT64_C(1) << f->bit);
	}
	return bad;
}

static void decode_gpus(struct decoder *d)
{
	struct jsonp_parser *jp = &d->jp;

	d->f->ngpus = 0; /* a duplicate key: the last wins */
	jsonp_array_begin(jp);
	while (jsonp_array_next(jp)) {
		struct gpu *g = frame_add_gpu(d->f);
		if (!g) {
			d->err = -E2BIG;
			jsonp_skip(jp);
			continue;
		}
		/* A non-object entry keeps its position as an all-unknown GPU, so
		 * the rows after it still point at the devices they were recorded
		 * against. */
		if (jsonp_peek(jp) == JSONP_OBJECT)
			decode_object(d, GPU_FIELDS, GPU_NFIELDS, g);
		else
			jsonp_skip(jp);
	}
}

static void decode_processes(struct decoder *d)
{
	struct jsonp_parser *jp = &d->jp;
	size_t count = 0;

	d->f->nprocs = 0;
	jsonp_array_begin(jp);
	while (jsonp_array_next(jp)) {
		if (++count > FRAME_MAX_PROCESSES) {
			d->err = -E2BIG;
			jsonp_skip(jp);
			continue;
		}
		if (jsonp_peek(jp) != JSONP_OBJECT) {
			jsonp_skip(jp);
			continue;
		}
		struct gpu_process *p = frame_add_process(d->f);
		uint64_t bad = decode_object(d, PROCESS_FIELDS, PROCESS_NFIELDS, p);
		/* Rule 4: an integer pid is required; gpu_index missing or null
		 * reads as 0, anything else unusable drops the row. */
		if (!process_has(p, PROC_F_PID) || (bad >> PROC_F_GPU_INDEX & 1u)) {
			d->f->nprocs--;
			continue;
		}
		if (!process_has(p, PROC_F_GPU_INDEX)) {
			p->gpu_index = 0;
			process_set(p, PROC_F_GPU_INDEX);
		}
	}
}

static void decode_events(struct decoder *d)
{
	struct jsonp_parser *jp = &d->jp;
	size_t count = 0;

	d->f->nevents = 0;
	jsonp_array_begin(jp);
	while (jsonp_array_next(jp)) {
		if (++count > FRAME_MAX_EVENTS) {
			d->err = -E2BIG;
			jsonp_skip(jp);
			continue;
		}
		if (jsonp_peek(jp) != JSONP_OBJECT) {
			jsonp_skip(jp);
			continue;
		}
		struct event *e = frame_add_event(d->f);
		decode_object(d, EVENT_FIELDS, EVENT_NFIELDS, e);
		if (!event_has(e, EVENT_F_KIND)) /* an event must say what it is */
			d->f->nevents--;
	}
}

int record_decode(struct frame *f, const char *line, size_t len)
{
	struct decoder d = {.f = f};
	struct jsonp_parser *jp = &d.jp;
	char key[64];
	size_t klen;

	frame_reset(f);
	buf_init(&d.s);
	jsonp_init(jp, line, len);
	if (jsonp_peek(jp) != JSONP_OBJECT) {
		d.err = -EINVAL;
		goto out;
	}
	jsonp_object_begin(jp);
	while (jsonp_object_next(jp, key, sizeof(key), &klen)) {
		const struct field *fd = field_find(FRAME_FIELDS, FRAME_NFIELDS, key, klen);
		enum jsonp_type t = jsonp_peek(jp);
		if (fd) {
			field_set_valid(f, fd, decode_value(&d, fd, f) == DEC_SET);
		} else if (klen == 6 && memcmp(key, "system", 6) == 0) {
			memset(&f->system, 0, sizeof(f->system));
			if (t == JSONP_OBJECT) {
				decode_object(&d, SYSTEM_FIELDS, SYSTEM_NFIELDS, &f->system);
				frame_set(f, FRAME_F_SYSTEM);
			} else {
				f->valid &= ~(UINT64_C(1) << FRAME_F_SYSTEM);
				jsonp_skip(jp);
			}
		} else if (t == JSONP_ARRAY && klen == 4 && memcmp(key, "gpus", 4) == 0) {
			decode_gpus(&d);
		} else if (t == JSONP_ARRAY && klen == 9 && memcmp(key, "processes", 9) == 0) {
			decode_processes(&d);
		} else if (t == JSONP_ARRAY && klen == 6 && memcmp(key, "events", 6) == 0) {
			decode_events(&d);
		} else {
			/* "gpus": null (or not an array) is empty; so is a duplicate. */
			if (klen == 4 && memcmp(key, "gpus", 4) == 0)
				f->ngpus = 0;
			else if (klen == 9 && memcmp(key, "processes", 9) == 0)
				f->nprocs = 0;
			else if (klen == 6 && memcmp(key, "events", 6) == 0)
				f->nevents = 0;
			jsonp_skip(jp);
		}
	}
	if (!jsonp_at_end(jp))
		d.err = -EINVAL;
	if (!d.err)
		frame_normalize(f);
out:
	buf_fini(&d.s);
	if (d.err)
		frame_reset(f);
	return d.err;
}

bool record_peek_ts(const char *line, size_t len, uint64_t *ts_ms)
{
	static const char key[] = "\"ts_ms\":";
	size_t kl = sizeof(key) - 1, lim = len < 256 ? len : 256;
	const char *p = lim >= kl ? memmem(line, lim, key, kl) : NULL;
	uint64_t v = 0;
	size_t i, digits = 0;

	if (!p)
		return false;
	i = (size_t)(p - line) + kl;
	while (i < len && line[i] == ' ')
		i++;
	for (; i < len && line[i] >= '0' && line[i] <= '9' && digits < 19; i++, digits++)
		v = v * 10 + (uint64_t)(line[i] - '0');
	if (!digits || (i < len && line[i] >= '0' && line[i] <= '9'))
		return false;
	*ts_ms = v;
	return true;
}
