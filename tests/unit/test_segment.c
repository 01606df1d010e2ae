/* test_segment: segment names and parsing, the compressor thread (jobs in
 * order, drain, retention sparing queued segments), recovery, and the
 * background seek index over a rotated set (the threaded parts run under
 * TSan: make test-tsan). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/replay.h"
#include "record/compressor.h"
#include "record/seekindex.h"
#include "record/segment.h"
#include "testutil.h"

/* n records 1 s apart from t0 into path, each padded to ~pad bytes. */
static void write_records(const char *path, unsigned n, uint64_t t0, size_t pad)
{
	FILE *f = fopen(path, "w");
	char *fill = malloc(pad + 1);

	memset(fill, 'x', pad);
	fill[pad] = '\0';
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "{\"schema\":1,\"ts_ms\":%llu,\"host\":\"%s\"}\n", (unsigned long long)(t0 + i * 1000ull), fill);
	fclose(f);
	free(fill);
}

static void test_names(void **state)
{
	char out[256];
	int64_t t;
	unsigned seq;
	bool zst;

	(void)state;
	assert_true(segment_name(out, sizeof(out), "/v/rec.jsonl", 1764583200123ull, 1));
	assert_string_equal(out, "/v/rec.jsonl.20251201T100000Z");
	assert_true(segment_name(out, sizeof(out), "rec.jsonl", 1764583200000ull, 3));
	assert_string_equal(out, "rec.jsonl.20251201T100000Z-3");
	assert_true(segment_parse("rec.jsonl", "rec.jsonl.20251201T100000Z.zst", &t, &seq, &zst));
	assert_int_equal(t, 1764583200);
	assert_int_equal(seq, 1);
	assert_true(zst);
	assert_true(segment_parse("rec.jsonl", "rec.jsonl.20251201T100000Z-12", &t, &seq, &zst));
	assert_int_equal(seq, 12);
	assert_false(zst);
	assert_false(segment_parse("rec.jsonl", "rec.jsonl.20251201T100000Z.zst.tmp", &t, &seq, &zst));
	assert_false(segment_parse("rec.jsonl", ".rec.jsonl.20251201T100000Z.zst.tmp", &t, &seq, &zst));
	assert_false(segment_parse("rec.jsonl", "rec.jsonl.20251301T100000Z", &t, &seq, &zst));
	assert_false(segment_parse("rec.jsonl", "rec.jsonl.20251201T100000Z-1", &t, &seq, &zst));
	assert_false(segment_parse("rec.jsonl", "rec.jsonl.backup", &t, &seq, &zst));
	assert_false(segment_parse("rec", "rec.jsonl.20251201T100000Z", &t, &seq, &zst));
}

/* Eight segments through the compressor, keep 3: the newest three, all
 * compressed, in order; other files untouched. */
static void test_compressor_and_retention(void **state)
{
	char *dir = testutil_tmpdir();
	char *file = testutil_path(dir, "rec.jsonl"), *other = testutil_path(dir, "notes.txt");
	struct compressor_opts o = {.file = file, .level = 1, .keep = 3};
	struct compressor *c = compressor_new(&o);
	char seg[512];

	(void)state;
	assert_non_null(c);
	testutil_write_str(other, "mine\n");
	for (unsigned i = 0; i < 8; i++) {
		uint64_t t0 = 1764583200000ull + i * 100000ull;
		assert_true(segment_free_name(seg, sizeof(seg), file, t0));
		write_records(seg, 100, t0, 200);
		compressor_add(c, seg);
	}
	compressor_drain(c);
	uint64_t done, failed;
	compressor_counts(c, &done, &failed);
	assert_int_equal(failed, 0);
	compressor_free(c);
	struct segment_list l;
	assert_int_equal(segment_list(file, &l), 0);
	assert_int_equal(l.n, 3);
	for (size_t i = 0; i < l.n; i++) {
		assert_true(l.v[i].zst);
		assert_int_equal(l.v[i].start_s, 1764583200 + (int64_t)(5 + i) * 100);
	}
	segment_list_fini(&l);
	assert_int_equal(access(other, F_OK), 0);
	testutil_rmtree(dir);
	free(file);
	free(other);
	free(dir);
}

static void add_todo(const char *plain, void *ctx)
{
	(*(int *)ctx)++;
	assert_int_equal(segment_compress(plain, 1, (char[64]){0}, 64), 0);
}

/* Recovery: a stray temporary goes, a plain copy beside its .zst goes, a
 * lone plain segment is handed back to compress. */
static void test_recover(void **state)
{
	char *dir = testutil_tmpdir();
	char *file = testutil_path(dir, "rec.jsonl");
	char a[512], b[512], tmp[600];
	int todo = 0;

	(void)state;
	segment_name(a, sizeof(a), file, 1764583200000ull, 1);
	segment_name(b, sizeof(b), file, 1764583300000ull, 1);
	write_records(a, 10, 1764583200000ull, 10);
	assert_int_equal(segment_compress(a, 1, (char[64]){0}, 64), 0);
	write_records(a, 10, 1764583200000ull, 10); /* as if the unlink never happened */
	write_records(b, 10, 1764583300000ull, 10);
	segment_tmp_name(tmp, sizeof(tmp), b);
	testutil_write_str(tmp, "half");
	assert_int_equal(segment_recover(file, add_todo, &todo), 0);
	assert_int_equal(todo, 1);
	assert_int_not_equal(access(a, F_OK), 0);
	assert_int_not_equal(access(tmp, F_OK), 0);
	struct segment_list l;
	assert_int_equal(segment_list(file, &l), 0);
	assert_int_equal(l.n, 2);
	assert_true(l.v[0].zst && l.v[1].zst);
	segment_list_fini(&l);
	testutil_rmtree(dir);
	free(file);
	free(dir);
}

/* The index over a set of big segments (several zstd frames each) finds a
 * place at or before any time, and a seek lands on the exact record. */
static void test_seek_index(void **state)
{
	char *dir = testutil_tmpdir();
	char *file = testutil_path(dir, "rec.jsonl");
	char seg[512], err[256];
	uint64_t t0 = 1764583200000ull;

	(void)state;
	for (unsigned s = 0; s < 3; s++) {
		uint64_t st = t0 + s * 6000 * 1000ull;
		segment_name(seg, sizeof(seg), file, st, 1);
		write_records(seg, 6000, st, 1000); /* ~6 MiB: three frames */
		if (s < 2)
			assert_int_equal(segment_compress(seg, 1, err, sizeof(err)), 0);
	}
	write_records(file, 100, t0 + 18000 * 1000ull, 100);
	struct replay *r = replay_open(file, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(replay_nfiles(r), 4);
	assert_int_equal(replay_index_start(r), 0);
	seekindex_wait(replay_index(r));
	size_t n = 0;
	assert_true(seekindex_done(replay_index(r), &n));
	assert_true(n > 8); /* frames of the .zst and steps of the plain one */
	struct frame *f = frame_new();
	static const unsigned targets[] = {0, 1, 2999, 6000, 9123, 13500, 17999, 18000, 18099};
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		uint64_t before;
		assert_int_equal(replay_seek_time(r, t0 + targets[i] * 1000ull, &before), 0);
		assert_int_equal(replay_next(r, f), 1);
		assert_int_equal(f->ts_ms, t0 + targets[i] * 1000ull);
		assert_int_equal(before, targets[i]);
		/* And on from there, across borders. */
		assert_int_equal(replay_next(r, f), targets[i] == 18099 ? 0 : 1);
		if (targets[i] != 18099)
			assert_int_equal(f->ts_ms, t0 + (targets[i] + 1) * 1000ull);
	}
	frame_unref(f);
	replay_free(r);
	testutil_rmtree(dir);
	free(file);
	free(dir);
}

/* The original gpur's lines have ts_ms last (keys in alphabetical order),
 * past the head a place's peek reads: the index takes it from the line's
 * end, so a seek reads one step, not the file. */
static void test_seek_index_time_at_the_end(void **state)
{
	char *dir = testutil_tmpdir();
	char *file = testutil_path(dir, "rust.jsonl");
	char err[256];
	uint64_t t0 = 1764583200000ull;
	FILE *fp = fopen(file, "w");
	char pad[1001];

	(void)state;
	assert_non_null(fp);
	memset(pad, 'x', 1000);
	pad[1000] = '\0';
	for (unsigned i = 0; i < 4000; i++) /* ~4 MiB: several steps */
		fprintf(fp, "{\"backend\":\"nvml\",\"driver\":\"%s\",\"gpus\":[],\"processes\":[],\"ts_ms\":%llu}\n", pad,
			(unsigned long long)(t0 + i * 1000ull));
	fclose(fp);
	struct replay *r = replay_open(file, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(replay_index_start(r), 0);
	seekindex_wait(replay_index(r));
	size_t n = 0;
	assert_true(seekindex_done(replay_index(r), &n));
	assert_true(n >= 4); /* the file's start and a place every step */
	struct seekindex_entry e;
	assert_true(seekindex_find(replay_index(r), t0 + 3500 * 1000ull, &e));
	assert_true(e.ts_ms > t0 && e.ts_ms <= t0 + 3500 * 1000ull);
	struct frame *f = frame_new();
	uint64_t before;
	assert_int_equal(replay_seek_time(r, t0 + 3500 * 1000ull, &before), 0);
	assert_int_equal(replay_next(r, f), 1);
	assert_int_equal(f->ts_ms, t0 + 3500 * 1000ull);
	assert_int_equal(before, 3500);
	frame_unref(f);
	replay_free(r);
	testutil_rmtree(dir);
	free(file);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_compressor_and_retention),
		cmocka_unit_test(test_recover),
		cmocka_unit_test(test_seek_index),
		cmocka_unit_test(test_seek_index_time_at_the_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
