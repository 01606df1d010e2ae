/* record_helpers: helpers shared by the record-format tests
 * (test_record_rules.c: rules 1-5, test_record_playback.c: rules 6 and 8):
 * decode/encode a record, parse with jansson (the independent oracle), a
 * temporary recording per test. */
#ifndef GPUR_TEST_RECORD_HELPERS_H
#define GPUR_TEST_RECORD_HELPERS_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "record/replay.h"
#include "model/frame.h"
#include "record/record_decode.h"
#include "record/record_encode.h"
#include "testutil.h"

#define FFFD "\xEF\xBF\xBD"
#define MiB8 ((size_t)8 << 20)

/* ---- helpers -------------------------------------------------------------- */

static inline struct frame *decode(const char *json)
{
	struct frame *f = frame_new();
	int rc = record_decode(f, json, strlen(json));

	if (rc != 0)
		fail_msg("record_decode: %d for %.200s", rc, json);
	return f;
}

/* Decode's result for json[0..len); a failed decode must leave f empty. */
static inline int decode_rc(const char *json, size_t len)
{
	struct frame *f = frame_new();
	int rc = record_decode(f, json, len);

	if (rc != 0)
		assert_true(f->valid == 0 && f->ngpus == 0 && f->nprocs == 0 && f->nevents == 0);
	frame_unref(f);
	return rc;
}

/* One encoded record: exactly one line ending in \n. The caller frees. */
static inline char *encode(const struct frame *f)
{
	struct buf b;

	buf_init(&b);
	record_encode(&b, f, 0);
	assert_true(b.len > 0 && b.data[b.len - 1] == '\n');
	assert_null(memchr(b.data, '\n', b.len - 1));
	char *s = strdup(buf_cstr(&b));
	assert_non_null(s);
	buf_fini(&b);
	return s;
}

static inline json_t *parse(const char *s)
{
	json_error_t err;
	json_t *j = json_loads(s, JSON_REJECT_DUPLICATES, &err);

	if (!j)
		fail_msg("jansson: %s in %.200s", err.text, s);
	return j;
}

/* The encoding of f parsed by jansson; the caller decrefs. */
static inline json_t *encode_json(const struct frame *f)
{
	char *s = encode(f);
	json_t *j = parse(s);

	free(s);
	return j;
}

static inline json_t *gpu_json(json_t *rec, size_t i)
{
	json_t *g = json_array_get(json_object_get(rec, "gpus"), i);

	assert_non_null(g);
	return g;
}

static inline const struct field *gpu_field(const char *key)
{
	const struct field *f = field_find(GPU_FIELDS, GPU_NFIELDS, key, strlen(key));

	assert_non_null(f);
	return f;
}

/* Per-test temporary directory and recording path. */
struct fx {
	char *dir, *path;
	char err[512];
};

static inline int fx_setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->dir = testutil_tmpdir();
	fx->path = testutil_path(fx->dir, "rec.jsonl");
	*state = fx;
	return 0;
}

static inline int fx_teardown(void **state)
{
	struct fx *fx = *state;

	testutil_rmtree(fx->dir);
	free(fx->dir);
	free(fx->path);
	free(fx);
	return 0;
}

static inline struct replay *open_ok(struct fx *fx)
{
	struct replay *r = replay_open(fx->path, fx->err, sizeof(fx->err));

	if (!r)
		fail_msg("replay_open: %s", fx->err);
	return r;
}

/* Plays fx's recording to its end; returns the records' ts_ms (0 where
 * unknown) in ts[] and their number. */
static inline size_t play_ts(struct fx *fx, uint64_t *ts, size_t max, struct replay_stats *st)
{
	struct replay *r = open_ok(fx);
	struct frame *f = frame_new();
	size_t n = 0;

	while (replay_next(r, f) == 1) {
		assert_true(n < max);
		ts[n++] = frame_has(f, FRAME_F_TS) ? f->ts_ms : 0;
	}
	if (st)
		*st = *replay_stats(r);
	frame_unref(f);
	replay_free(r);
	return n;
}

/* A growable text for building big records. */
static inline void put_n(struct buf *b, const char *s, size_t times)
{
	for (size_t i = 0; i < times; i++)
		buf_puts(b, s);
}

#endif
