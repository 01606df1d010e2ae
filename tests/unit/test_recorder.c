/* test_recorder: the record format's rule 7 (docs/record-format.md): one write(2) per record, a log file made
 * 0600, failed writes dropped and counted with monitoring going on, a torn
 * piece never glued onto the next record, and no line over 8 MiB. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/frame.h"
#include "record/record_decode.h"
#include "record/record_encode.h"
#include "record/recorder.h"
#include "testutil.h"

struct fx {
	char *dir, *path;
	char err[512];
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->dir = testutil_tmpdir();
	fx->path = testutil_path(fx->dir, "log.jsonl");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	testutil_rmtree(fx->dir);
	free(fx->dir);
	free(fx->path);
	free(fx);
	return 0;
}

/* A small frame with its timestamp and a GPU whose name is pad bytes long. */
static struct frame *frame_ts(uint64_t ts, size_t pad)
{
	struct frame *f = frame_new();
	struct gpu *g = frame_add_gpu(f);
	char *name = malloc(pad + 1);

	assert_non_null(name);
	memset(name, 'n', pad);
	name[pad] = '\0';
	f->ts_ms = ts;
	frame_set(f, FRAME_F_TS);
	g->name = frame_str(f, name);
	gpu_set(g, GPU_F_NAME);
	free(name);
	return f;
}

/* The encoded record of f; the caller frees. */
static char *encoded(const struct frame *f)
{
	struct buf b;

	buf_init(&b);
	record_encode(&b, f, 0);
	char *s = strdup(buf_cstr(&b));
	assert_non_null(s);
	buf_fini(&b);
	return s;
}

static struct recorder *open_ok(struct fx *fx)
{
	struct recorder *r = recorder_open(fx->path, fx->err, sizeof(fx->err));

	if (!r)
		fail_msg("recorder_open: %s", fx->err);
	return r;
}

static off_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static void test_log_is_created_0600_and_appended(void **state)
{
	struct fx *fx = *state;
	struct stat st;

	mode_t old = umask(0); /* even with a permissive umask */
	struct recorder *r = open_ok(fx);
	umask(old);
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_string_equal(recorder_name(r), fx->path);

	struct frame *f1 = frame_ts(1, 4), *f2 = frame_ts(2, 4);
	/* A string with newlines stays on its line, escaped. */
	f2->host = frame_str(f2, "multi\nline\r\nhost");
	frame_set(f2, FRAME_F_HOST);
	assert_int_equal(recorder_write(r, f1), 0);
	assert_int_equal(recorder_write(r, f2), 0);
	recorder_free(r);

	/* A second run appends after what is there. */
	r = open_ok(fx);
	assert_int_equal(recorder_write(r, f1), 0);
	assert_int_equal(recorder_written(r), 1);
	assert_int_equal(recorder_dropped(r), 0);
	assert_int_equal(recorder_last_error(r), 0);
	recorder_free(r);

	char *e1 = encoded(f1), *e2 = encoded(f2);
	size_t len;
	char *got = testutil_read_file(fx->path, &len);
	char want[512];
	snprintf(want, sizeof(want), "%s%s%s", e1, e2, e1);
	assert_string_equal(got, want);
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += got[i] == '\n';
	assert_int_equal(lines, 3);
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	free(got);
	free(e1);
	free(e2);
	frame_unref(f1);
	frame_unref(f2);

	/* A path that cannot be opened says which and why. */
	char *bad = testutil_path(fx->dir, "no/such/dir.jsonl");
	assert_null(recorder_open(bad, fx->err, sizeof(fx->err)));
	snprintf(want, sizeof(want), "%s: No such file or directory", bad);
	assert_string_equal(fx->err, want);
	free(bad);
}

/* Over a SOCK_SEQPACKET socket every write(2) is one message: a record that
 * arrives as one message whole was written with one write(2). */
static void test_one_write_per_record(void **state)
{
	int sv[2];
	char msg[4096];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	struct recorder *r = recorder_fdopen(sv[0], "stdout");
	for (uint64_t ts = 1; ts <= 3; ts++) {
		struct frame *f = frame_ts(ts, 1000);
		char *want = encoded(f);
		assert_int_equal(recorder_write(r, f), 0);
		ssize_t n = recv(sv[1], msg, sizeof(msg), MSG_DONTWAIT);
		assert_int_equal(n, strlen(want));
		assert_memory_equal(msg, want, (size_t)n);
		free(want);
		frame_unref(f);
	}
	assert_int_equal(recorder_written(r), 3);
	assert_string_equal(recorder_name(r), "stdout");
	recorder_free(r);
	/* The descriptor stays the caller's. */
	assert_int_equal(fcntl(sv[0], F_GETFD), FD_CLOEXEC);
	close(sv[0]);
	close(sv[1]);
}

static void test_disk_full_drops_and_counts(void **state)
{
	char err[256];
	struct frame *f = frame_ts(1, 4);

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	struct recorder *r = recorder_open("/dev/full", err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(recorder_write(r, f), -ENOSPC);
	assert_int_equal(recorder_write(r, f), -ENOSPC); /* monitoring goes on */
	assert_int_equal(recorder_dropped(r), 2);
	assert_int_equal(recorder_written(r), 0);
	assert_int_equal(recorder_last_error(r), ENOSPC);
	recorder_free(r);
	frame_unref(f);
}

/* Writes f through r with the file size limit at limit bytes (SIGXFSZ
 * ignored), restoring both before returning recorder_write's result. */
static int write_with_fsize_limit(struct recorder *r, const struct frame *f, rlim_t limit)
{
	struct rlimit old, lim;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < limit)
		skip();
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = limit;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int rc = recorder_write(r, f);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_handler);
	return rc;
}

static void test_short_write_is_truncated_away(void **state)
{
	struct fx *fx = *state;
	struct recorder *r = open_ok(fx);
	struct frame *a = frame_ts(1, 10), *b = frame_ts(2, 2000), *c = frame_ts(3, 10);
	char *ea = encoded(a), *eb = encoded(b), *ec = encoded(c);

	assert_int_equal(recorder_write(r, a), 0);
	off_t good = file_size(fx->path);
	assert_int_equal(good, strlen(ea));
	/* The limit falls in the middle of b: write(2) stores half, then fails. */
	assert_int_equal(write_with_fsize_limit(r, b, (rlim_t)good + strlen(eb) / 2), -EFBIG);
	assert_int_equal(recorder_dropped(r), 1);
	assert_int_equal(recorder_last_error(r), EFBIG);
	assert_int_equal(file_size(fx->path), good); /* the torn half is gone */
	/* With room again, the next record is a clean line of its own. */
	assert_int_equal(recorder_write(r, c), 0);
	recorder_free(r);

	char *got = testutil_read_file(fx->path, NULL);
	char want[256];
	snprintf(want, sizeof(want), "%s%s", ea, ec);
	assert_string_equal(got, want);
	free(got);
	free(ea);
	free(eb);
	free(ec);
	frame_unref(a);
	frame_unref(b);
	frame_unref(c);
}

/* Where the torn piece cannot be truncated (a descriptor gpur did not open),
 * the next record starts with \n: the torn piece is a bad line of its own. */
static void test_short_write_untruncatable_starts_next_record_on_new_line(void **state)
{
	struct fx *fx = *state;
	int fd = open(fx->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	struct frame *a = frame_ts(1, 10), *b = frame_ts(2, 2000), *c = frame_ts(3, 10), *d = frame_ts(4, 10);
	char *ea = encoded(a), *eb = encoded(b), *ec = encoded(c), *ed = encoded(d);

	assert_true(fd >= 0);
	struct recorder *r = recorder_fdopen(fd, "stdout");
	assert_int_equal(recorder_write(r, a), 0);
	size_t half = strlen(eb) / 2;
	assert_int_equal(write_with_fsize_limit(r, b, strlen(ea) + half), -EFBIG);
	assert_int_equal(recorder_write(r, c), 0);
	assert_int_equal(recorder_write(r, d), 0); /* only the first after the tear */
	recorder_free(r);
	close(fd);

	char *got = testutil_read_file(fx->path, NULL);
	char want[4096];
	snprintf(want, sizeof(want), "%s%.*s\n%s%s", ea, (int)half, eb, ec, ed);
	assert_string_equal(got, want);
	/* Every line but the torn one is a whole record. */
	struct frame *f = frame_new();
	char *line = got;
	int good = 0, bad = 0;
	for (char *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		if (record_decode(f, line, (size_t)(nl - line)) == 0)
			good++;
		else
			bad++;
	}
	assert_int_equal(good, 3);
	assert_int_equal(bad, 1);
	frame_unref(f);
	free(got);
	free(ea);
	free(eb);
	free(ec);
	free(ed);
	frame_unref(a);
	frame_unref(b);
	frame_unref(c);
	frame_unref(d);
}

static void test_closed_pipe_is_epipe(void **state)
{
	int p[2];
	struct frame *f = frame_ts(1, 4);

	(void)state;
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	struct recorder *r = recorder_fdopen(p[1], "stdout");
	assert_int_equal(recorder_write(r, f), -EPIPE);
	signal(SIGPIPE, old);
	assert_int_equal(recorder_dropped(r), 1);
	assert_int_equal(recorder_last_error(r), EPIPE);
	recorder_free(r);
	close(p[1]);
	frame_unref(f);
}

/* Reads the single record in path back; the caller unrefs. */
static struct frame *read_back(const char *path, size_t *line_len)
{
	size_t len;
	char *data = testutil_read_file(path, &len);
	struct frame *f = frame_new();

	assert_true(len > 0 && data[len - 1] == '\n');
	assert_ptr_equal(memchr(data, '\n', len), data + len - 1);
	*line_len = len - 1;
	assert_int_equal(record_decode(f, data, len - 1), 0);
	free(data);
	return f;
}

static const struct event *last_event(const struct frame *f)
{
	assert_true(f->nevents > 0);
	return &f->events[f->nevents - 1];
}

/* nprocs rows on GPU 0, every string field of each row set to s. */
static struct frame *frame_with_rows(size_t nprocs, const char *s, bool cmdline_only)
{
	struct frame *f = frame_ts(1, 4);
	const char *str = frame_str(f, s);

	for (size_t i = 0; i < nprocs; i++) {
		struct gpu_process *p = frame_add_process(f);
		assert_non_null(p);
		p->pid = i + 1;
		process_set(p, PROC_F_PID);
		process_set(p, PROC_F_GPU_INDEX);
		p->cmdline = str;
		process_set(p, PROC_F_CMDLINE);
		if (cmdline_only)
			continue;
		p->name = p->user = p->container = p->pod = p->unit = str;
		process_set(p, PROC_F_NAME);
		process_set(p, PROC_F_USER);
		process_set(p, PROC_F_CONTAINER);
		process_set(p, PROC_F_POD);
		process_set(p, PROC_F_UNIT);
	}
	return f;
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* The bytes of the first "cmdline" value written to path (escapes are not
 * expected here); the caller frees. */
static char *written_cmdline(const char *path)
{
	char *data = testutil_read_file(path, NULL);
	char *start = strstr(data, "\"cmdline\":\"");

	assert_non_null(start);
	start += strlen("\"cmdline\":\"");
	char *end = strchr(start, '"');
	assert_non_null(end);
	char *s = strndup(start, (size_t)(end - start));
	assert_non_null(s);
	free(data);
	return s;
}

static void test_cmdline_capped_at_4kib(void **state)
{
	struct fx *fx = *state;
	char *s = repeat('c', 10000);
	struct frame *f = frame_with_rows(1, s, true);
	struct recorder *r = open_ok(fx);

	assert_int_equal(recorder_write(r, f), 0);
	recorder_free(r);
	char *got = written_cmdline(fx->path);
	assert_int_equal(strlen(got), PROCESS_CMDLINE_MAX);
	free(got);
	frame_unref(f);
	free(s);

	/* "a" then 3,000 two-byte characters: cut after the last whole one. */
	unlink(fx->path);
	s = malloc(1 + 2 * 3000 + 1);
	assert_non_null(s);
	s[0] = 'a';
	for (size_t i = 0; i < 3000; i++)
		memcpy(s + 1 + 2 * i, "\xC3\xA9", 2);
	s[1 + 2 * 3000] = '\0';
	f = frame_with_rows(1, s, true);
	r = open_ok(fx);
	assert_int_equal(recorder_write(r, f), 0);
	recorder_free(r);
	got = written_cmdline(fx->path);
	assert_int_equal(strlen(got), PROCESS_CMDLINE_MAX - 1);
	assert_memory_equal(got, s, PROCESS_CMDLINE_MAX - 1);
	free(got);
	frame_unref(f);
	free(s);
}

static void test_over_8mib_drops_cmdlines_then_rows(void **state)
{
	struct fx *fx = *state;
	char *s = repeat('c', PROCESS_CMDLINE_MAX);
	struct frame *f, *back;
	struct recorder *r;
	size_t len;

	/* 2,100 rows of 4 KiB command lines: over 8 MiB only with them. */
	f = frame_with_rows(2100, s, true);
	r = open_ok(fx);
	assert_int_equal(recorder_write(r, f), 0);
	recorder_free(r);
	back = read_back(fx->path, &len);
	assert_true(len <= RECORD_MAX_LINE);
	assert_int_equal(back->nprocs, 2100);
	for (size_t i = 0; i < back->nprocs; i++)
		assert_false(process_has(&back->procs[i], PROC_F_CMDLINE));
	assert_int_equal(back->nevents, 1);
	assert_string_equal(last_event(back)->kind, "note");
	assert_string_equal(last_event(back)->detail, "record over 8 MiB: command lines left out");
	frame_unref(back);
	frame_unref(f);
	free(s);
	unlink(fx->path);

	/* 16,384 rows of five 250-byte strings: over 8 MiB even without command lines. */
	s = repeat('s', 250);
	f = frame_with_rows(FRAME_MAX_PROCESSES, s, false);
	frame_note(f, "gpu_lost", NULL);
	r = open_ok(fx);
	assert_int_equal(recorder_write(r, f), 0);
	assert_int_equal(recorder_written(r), 1);
	recorder_free(r);
	back = read_back(fx->path, &len);
	assert_true(len <= RECORD_MAX_LINE);
	assert_int_equal(back->nprocs, 0);
	assert_int_equal(back->ngpus, 1);
	assert_int_equal(back->nevents, 2); /* the frame's own events stay */
	assert_string_equal(back->events[0].kind, "gpu_lost");
	assert_string_equal(last_event(back)->detail, "record over 8 MiB: process rows left out");
	frame_unref(back);
	/* The frame itself is not changed by the writer. */
	assert_int_equal(f->nprocs, FRAME_MAX_PROCESSES);
	assert_int_equal(f->nevents, 1);
	frame_unref(f);
	free(s);
}

/* A frame already holding the most events a record may carry: the note must
 * not push the record over the limit, or no reader would accept it. */
static void test_over_8mib_note_keeps_within_event_limit(void **state)
{
	struct fx *fx = *state;
	char *s = repeat('c', PROCESS_CMDLINE_MAX);
	struct frame *f = frame_with_rows(2100, s, true);
	size_t len;

	for (int i = 0; i < FRAME_MAX_EVENTS; i++)
		assert_non_null(frame_note(f, "signal", "event %d", i));
	struct recorder *r = open_ok(fx);
	assert_int_equal(recorder_write(r, f), 0);
	recorder_free(r);
	struct frame *back = read_back(fx->path, &len);
	assert_int_equal(back->nevents, FRAME_MAX_EVENTS);
	assert_string_equal(last_event(back)->detail, "record over 8 MiB: command lines left out");
	assert_string_equal(back->events[0].detail, "event 0");
	frame_unref(back);
	frame_unref(f);
	free(s);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_log_is_created_0600_and_appended),
		T(test_one_write_per_record),
		T(test_disk_full_drops_and_counts),
		T(test_short_write_is_truncated_away),
		T(test_short_write_untruncatable_starts_next_record_on_new_line),
		T(test_closed_pipe_is_epipe),
		T(test_cmdline_capped_at_4kib),
		T(test_over_8mib_drops_cmdlines_then_rows),
		T(test_over_8mib_note_keeps_within_event_limit),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
