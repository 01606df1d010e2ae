/* record_decode: table-driven, bounded decoding of recorded frames. */
#include "record/record_decode.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "util/json_parse.h"
#include "record/record_foreign.h"

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

/* Each type's reader puts the value at the cursor into p. The value is
 * already known to be of a JSON type that the field takes. */
static enum decoded decode_str(struct decoder *d, const struct field *f, void *p)
{
	if (!jsonp_string(&d->jp, &d->s, f->max_len))
		return DEC_BAD;
	*(const char **)p = frame_strn(d->f, d->s.data ? d->s.data : "", d->s.len);
	return DEC_SET;
}

static enum decoded decode_u64(struct decoder *d, const struct field *f, void *p)
{
	struct jsonp_number num;
	int64_t iv;

	if (!jsonp_number(&d->jp, &num) || !integral(&num, f, &iv) || iv < 0)
		return DEC_BAD;
	*(uint64_t *)p = (uint64_t)iv;
	return DEC_SET;
}

/* An integer literal is taken exactly, so 2^53 + 1 stays itself, and
 * anything else is taken as its double. An integer literal outside int64 or
 * a real outside double overflows, and the value is unknown. */
static enum decoded decode_num(struct decoder *d, const struct field *f, void *p)
{
	struct jsonp_number num;

	if (!jsonp_number(&d->jp, &num) || num.overflow)
		return DEC_BAD;
	long double v = num.is_int ? (long double)num.i : (long double)num.d;
	if (!(v >= f->min && v <= f->max))
		return DEC_BAD;
	*(long double *)p = v;
	return DEC_SET;
}

static enum decoded decode_enum(struct decoder *d, const struct field *f, void *p)
{
	if (!jsonp_string(&d->jp, &d->s, 64))
		return DEC_BAD;
	const char *name = d->s.data ? d->s.data : "";
	int idx = field_name_index(f, name, d->s.len);
	if (idx < 0 && (f->flags & FIELD_NOCASE))
		idx = field_name_index_nocase(f, name, d->s.len);
	if (idx < 0)
		return DEC_BAD;
	*(uint8_t *)p = (uint8_t)idx;
	return DEC_SET;
}

/* An array of names, or one string of names joined by '+', as the original
 * gpur writes its throttle reasons. */
static enum decoded decode_flags(struct decoder *d, const struct field *f, void *p)
{
	struct jsonp_parser *jp = &d->jp;
	uint32_t v = 0;

	if (jsonp_peek(jp) == JSONP_STRING) {
		if (!jsonp_string(jp, &d->s, 256))
			return DEC_BAD;
		return record_foreign_flags(f, d->s.data ? d->s.data : "", d->s.len, p) ? DEC_SET : DEC_BAD;
	}
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

/* Whether a value of JSON type t can be read into a field of type ft. */
static bool type_fits(enum field_type ft, enum jsonp_type t)
{
	switch (ft) {
	case FIELD_STR:
	case FIELD_ENUM: return t == JSONP_STRING;
	case FIELD_U64:
	case FIELD_NUM: return t == JSONP_NUMBER;
	case FIELD_BOOL: return t == JSONP_TRUE || t == JSONP_FALSE;
	case FIELD_FLAGS: return t == JSONP_ARRAY || t == JSONP_STRING;
	}
	return false;
}

/* Reads the value at the cursor into obj's field f. */
static enum decoded decode_value(struct decoder *d, const struct field *f, void *obj)
{
	struct jsonp_parser *jp = &d->jp;
	enum jsonp_type t = jsonp_peek(jp);
	void *p = field_ptr(obj, f);

	if (t == JSONP_NULL) {
		jsonp_literal(jp, t);
		return DEC_NULL;
	}
	if (!type_fits(f->type, t)) {
		jsonp_skip(jp); /* a wrong type leaves the field unknown, and the record stays */
		return DEC_BAD;
	}
	switch (f->type) {
	case FIELD_STR: return decode_str(d, f, p);
	case FIELD_U64: return decode_u64(d, f, p);
	case FIELD_NUM: return decode_num(d, f, p);
	case FIELD_ENUM: return decode_enum(d, f, p);
	case FIELD_FLAGS: return decode_flags(d, f, p);
	case FIELD_BOOL:
		jsonp_literal(jp, t);
		*(bool *)p = t == JSONP_TRUE;
		return DEC_SET;
	}
	return DEC_BAD;
}

/* An object's table: its fields and another program's names for them. */
struct objtab {
	const struct field *tab;
	size_t n;
	const struct field_alias *aliases;
	size_t naliases;
};

/* What decoding an object saw, as masks of validity bits. */
struct seen {
	uint64_t bad; /* the key's last occurrence was present but unusable */
	uint64_t own; /* the field's own key was there, and it wins over an alias */
	uint64_t via; /* the value came under an alias */
};

/* Reads an alias's value into its field f of obj, scaled to our unit. */
static enum decoded decode_alias(struct decoder *d, const struct field *f, const struct field_alias *a, void *obj)
{
	enum decoded r = decode_value(d, f, obj);

	if (r == DEC_SET && a->scale != 1 && f->type == FIELD_NUM) {
		long double *v = field_ptr(obj, f);
		*v *= (long double)a->scale;
		if (!(*v >= f->min && *v <= f->max))
			r = DEC_BAD;
	}
	return r;
}

/* Decodes an object's known keys, ours and the aliases of t, into obj. */
static struct seen decode_object(struct decoder *d, const struct objtab *t, void *obj)
{
	struct jsonp_parser *jp = &d->jp;
	struct seen s = {0, 0, 0};
	char key[64];
	size_t klen, hint = 0;

	jsonp_object_begin(jp);
	while (jsonp_object_next(jp, key, sizeof(key), &klen)) {
		const struct field *f = field_find_from(t->tab, t->n, key, klen, &hint);
		const struct field_alias *a = NULL;
		enum decoded r;
		if (!f && (a = field_alias_find(t->aliases, t->naliases, key, klen)))
			f = field_by_bit(t->tab, t->n, a->bit);
		if (!f) {
			jsonp_skip(jp);
			continue;
		}
		uint64_t bit = UINT64_C(1) << f->bit;
		if (a && (s.own & bit)) {
			/* The record has our own key for it, which wins. */
			jsonp_skip(jp);
			continue;
		}
		r = a ? decode_alias(d, f, a, obj) : decode_value(d, f, obj);
		field_set_valid(obj, f, r == DEC_SET);
		s.bad = r == DEC_BAD ? s.bad | bit : s.bad & ~bit;
		s.own = a ? s.own : s.own | bit;
		s.via = a ? s.via | bit : s.via & ~bit;
	}
	return s;
}

static void decode_gpus(struct decoder *d)
{
	struct jsonp_parser *jp = &d->jp;

	d->f->ngpus = 0; /* for a duplicate key, the last one wins */
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
		if (jsonp_peek(jp) == JSONP_OBJECT) {
			struct objtab t = {GPU_FIELDS, GPU_NFIELDS, GPU_ALIASES, GPU_NALIASES};
			record_foreign_gpu(g, decode_object(d, &t, g).own);
		} else {
			jsonp_skip(jp);
		}
	}
}

/* At the next entry of a processes or events array, returns true when it is
 * an object to decode; any other entry is skipped. Every entry counts towards
 * max, whatever it is, and past max the record is too big (-E2BIG). */
static bool at_entry(struct decoder *d, size_t *count, size_t max)
{
	if (++*count > max) {
		d->err = -E2BIG;
		jsonp_skip(&d->jp);
		return false;
	}
	if (jsonp_peek(&d->jp) != JSONP_OBJECT) {
		jsonp_skip(&d->jp);
		return false;
	}
	return true;
}

static void decode_processes(struct decoder *d)
{
	struct jsonp_parser *jp = &d->jp;
	size_t count = 0;

	d->f->nprocs = 0;
	jsonp_array_begin(jp);
	while (jsonp_array_next(jp)) {
		if (!at_entry(d, &count, FRAME_MAX_PROCESSES))
			continue;
		struct gpu_process *p = frame_add_process(d->f);
		struct objtab t = {PROCESS_FIELDS, PROCESS_NFIELDS, PROCESS_ALIASES, PROCESS_NALIASES};
		struct seen s = decode_object(d, &t, p);
		record_foreign_process(p, s.via);
		/* Rule 4 requires an integer pid. A gpu_index that is missing or
		 * null reads as 0, and any other unusable one drops the row. */
		if (!process_has(p, PROC_F_PID) || (s.bad >> PROC_F_GPU_INDEX & 1u)) {
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
		if (!at_entry(d, &count, FRAME_MAX_EVENTS))
			continue;
		struct event *e = frame_add_event(d->f);
		struct objtab t = {EVENT_FIELDS, EVENT_NFIELDS, NULL, 0};
		decode_object(d, &t, e);
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
				struct objtab st = {SYSTEM_FIELDS, SYSTEM_NFIELDS, NULL, 0};
				decode_object(&d, &st, &f->system);
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
			/* A "gpus" that is null, or not an array, is empty, and so is a
			 * duplicate. */
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
	/* The original gpur writes 0 when it could not read the clock. */
	if (frame_has(f, FRAME_F_TS) && f->ts_ms == 0)
		f->valid &= ~(UINT64_C(1) << FRAME_F_TS);
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

static bool json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool record_peek_ts_end(const char *end, size_t len, uint64_t *ts_ms)
{
	static const char key[] = "\"ts_ms\":";
	size_t kl = sizeof(key) - 1, i = len, digits = 0;
	uint64_t v = 0, scale = 1;

	while (i && json_space(end[i - 1]))
		i--;
	if (!i || end[--i] != '}')
		return false;
	while (i && json_space(end[i - 1]))
		i--;
	for (; i && end[i - 1] >= '0' && end[i - 1] <= '9' && digits < 19; i--, digits++, scale *= 10)
		v += (uint64_t)(end[i - 1] - '0') * scale;
	if (!digits || (i && end[i - 1] >= '0' && end[i - 1] <= '9'))
		return false;
	while (i && json_space(end[i - 1]))
		i--;
	if (i < kl || memcmp(end + i - kl, key, kl) != 0)
		return false;
	*ts_ms = v;
	return true;
}
