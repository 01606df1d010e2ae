/* test_feed_hooks: --on-event's runner with real processes. The kinds a
 * list takes; the line on a hook's standard input and its variables; notes
 * for a hook that fails, is killed or hangs past its time, which never run a
 * hook themselves; at most four at once and a bounded queue whose overflow
 * is one note; the stop, which ends hooks that ignore SIGTERM too; and the
 * frame pipeline handing a replay's events over. Waits are for conditions
 * (the runner idle, a file written), never for a time. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "feed.h"
#include "output/hook_kinds.h"
#include "output/hooks.h"
#include "record/replay.h"
#include "testutil.h"

#define BIT(k) (UINT32_C(1) << HOOK_KIND_##k)

/* Polls until path exists and is not empty, for at most 30 s: a shell's
 * "echo $$ > path" creates the file before it writes to it. */
static void wait_file(const char *path)
{
	struct timespec ts = {0, 10000000};
	for (int i = 0; i < 3000; i++) {
		struct stat sb;
		if (stat(path, &sb) == 0 && sb.st_size > 0)
			return;
		nanosleep(&ts, NULL);
	}
	fail_msg("%s never appeared", path);
}

static pid_t read_pid(const char *path)
{
	char *s = testutil_read_file(path, NULL);
	pid_t pid = (pid_t)atoi(s);
	free(s);
	assert_true(pid > 0);
	return pid;
}

static bool gone(pid_t pid)
{
	return kill(pid, 0) != 0 && errno == ESRCH;
}

/* Whether pid has ended, reaped or a zombie. */
static bool dead(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return true;
	char buf[512];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *close = strrchr(buf, ')');
	return !close || close[1] != ' ' || close[2] == 'Z' || close[2] == 'X';
}

static struct hooks *start_hooks(const char *command, uint32_t kinds, uint64_t timeout_ms, uint64_t grace_ms)
{
	struct hooks_opts o = {
		.command = command, .kinds = kinds, .quiet = true, .timeout_ms = timeout_ms, .grace_ms = grace_ms};
	struct hooks *h = hooks_new(&o);
	assert_non_null(h);
	return h;
}

static struct event *add(struct frame *f, const char *kind)
{
	struct event *e = frame_add_event(f);
	assert_non_null(e);
	e->kind = frame_str(f, kind);
	e->valid |= UINT64_C(1) << EVENT_F_KIND;
	return e;
}

/* The notes the runner has now, taken into a fresh frame; the caller
 * unrefs it. */
static struct frame *take_notes(struct hooks *h)
{
	struct frame *f = frame_new();
	hooks_feed(h, f);
	for (size_t i = 0; i < f->nevents; i++)
		assert_string_equal(f->events[i].kind, EVENT_NOTE);
	return f;
}

static void test_kinds(void **state)
{
	(void)state;
	uint32_t m;
	char err[512];

	assert_int_equal(hook_kinds_parse("lost,back,xid,idle,signal", &m, err, sizeof(err)), 0);
	assert_int_equal(m, HOOK_KINDS_DEFAULT);
	assert_true(hook_kinds_match(m, "gpu_lost") && hook_kinds_match(m, "backend_lost"));
	assert_true(hook_kinds_match(m, "gpu_back") && hook_kinds_match(m, "backend_back"));
	assert_false(hook_kinds_match(m, "note") || hook_kinds_match(m, "active") || hook_kinds_match(m, "mystery"));
	assert_false(hook_kinds_match(m, NULL));

	assert_int_equal(hook_kinds_parse("gpu_lost,note", &m, err, sizeof(err)), 0);
	assert_int_equal(m, BIT(GPU_LOST) | BIT(NOTE));
	assert_false(hook_kinds_match(m, "backend_lost"));
	assert_int_equal(hook_kinds_parse("all", &m, err, sizeof(err)), 0);
	assert_true(hook_kinds_match(m, "mystery") && hook_kinds_match(m, NULL) && hook_kinds_match(m, "note"));
	assert_int_equal(hook_kinds_parse("active", &m, err, sizeof(err)), 0);
	assert_true(hook_kinds_match(m, "active") && !hook_kinds_match(m, "idle"));

	assert_int_equal(hook_kinds_parse("xid,lostt", &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown kind 'lostt'"));
	assert_non_null(strstr(err, HOOK_KINDS_KNOWN));
	assert_int_equal(hook_kinds_parse("xid,", &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "empty item"));
	assert_int_equal(hook_kinds_parse("", &m, err, sizeof(err)), -1);
	assert_int_equal(hook_kinds_parse("XID", &m, err, sizeof(err)), -1);
	/* Completion offers the groups and the short kinds. */
	const char *w[8];
	assert_int_equal(hook_kinds_words(w, 8), 8);
	assert_string_equal(w[0], "all");
	assert_string_equal(w[1], "lost");
}

/* Each hook writes its standard input, then its environment, into a file
 * named for its pid. */
static char *capture_command(const char *dir)
{
	char *cmd = malloc(strlen(dir) * 2 + 128);
	sprintf(cmd, "{ cat; echo '--'; env; } > '%s'/out.$$.tmp && mv '%s'/out.$$.tmp '%s'/out.$$", dir, dir, dir);
	return cmd;
}

struct captured {
	json_t *line; /* the standard input, parsed */
	size_t lines; /* its number of newlines */
	char *env;    /* the environment, "NAME=VALUE\n" each */
};

/* The capture whose line has kind, read from dir; fails the test when there
 * is none. */
static struct captured find_capture(const char *dir, const char *kind)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct captured c = {0};

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "out.", 4) != 0 || strstr(de->d_name, ".tmp"))
			continue;
		char *path = testutil_path(dir, de->d_name);
		char *text = testutil_read_file(path, NULL);
		free(path);
		char *sep = strstr(text, "\n--\n");
		assert_non_null(sep);
		sep[1] = '\0';
		json_t *j = json_loads(text, 0, NULL);
		assert_non_null(j);
		if (strcmp(json_string_value(json_object_get(j, "kind")), kind) == 0) {
			c.line = j;
			for (char *p = text; *p; p++)
				c.lines += *p == '\n';
			c.env = strdup(sep + 4);
		} else {
			json_decref(j);
		}
		free(text);
		if (c.line)
			break;
	}
	closedir(d);
	if (!c.line)
		fail_msg("no hook saw a %s event", kind);
	return c;
}

/* The value of name in a captured environment, or NULL. */
static const char *env_of(const struct captured *c, const char *name, char *out, size_t n)
{
	size_t len = strlen(name);
	for (const char *p = c->env; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		if (l > len && strncmp(p, name, len) == 0 && p[len] == '=') {
			snprintf(out, n, "%.*s", (int)(l - len - 1), p + len + 1);
			return out;
		}
		p += l + (nl ? 1 : 0);
	}
	return NULL;
}

static size_t count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;
	assert_non_null(d);
	while ((de = readdir(d)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0 && !strstr(de->d_name, ".tmp"))
			n++;
	closedir(d);
	return n;
}

/* The line is the event object of the record format, with the frame's host
 * and ts_ms, on one line; GPUR_EVENT is the kind without controls, GPUR_GPU
 * and GPUR_PID are there only when the event names them, whatever gpur's
 * own environment held; a kind not chosen runs nothing. */
static void test_line_and_environment(void **state)
{
	(void)state;
	char *dir = testutil_tmpdir(), *cmd = capture_command(dir), v[128];

	setenv("GPUR_GPU", "77", 1);
	setenv("GPUR_PID", "88", 1);
	setenv("HOOK_TEST_KEPT", "yes", 1);
	struct hooks *h = start_hooks(cmd, BIT(XID) | BIT(SIGNAL) | BIT(OTHER), 0, 0);
	unsetenv("GPUR_GPU");
	unsetenv("GPUR_PID");
	unsetenv("HOOK_TEST_KEPT");

	struct frame *f = frame_new();
	f->host = frame_str(f, "node-\"7\"\x01");
	f->ts_ms = 1700000000123;
	frame_set(f, FRAME_F_HOST);
	frame_set(f, FRAME_F_TS);
	struct event *e = add(f, EVENT_XID);
	e->gpu_index = 2;
	e->xid = 79;
	e->device_id = frame_str(f, "GPU-abc");
	e->detail = frame_str(f, "fell off\nthe bus \xff");
	e->valid |= UINT64_C(1) << EVENT_F_GPU_INDEX | UINT64_C(1) << EVENT_F_XID | UINT64_C(1) << EVENT_F_DEVICE_ID |
		    UINT64_C(1) << EVENT_F_DETAIL;
	e = add(f, EVENT_SIGNAL);
	e->pid = 4242;
	e->signal = frame_str(f, "SIGTERM");
	e->result = frame_str(f, "sent");
	e->valid |= UINT64_C(1) << EVENT_F_PID | UINT64_C(1) << EVENT_F_SIGNAL | UINT64_C(1) << EVENT_F_RESULT;
	add(f, EVENT_NOTE); /* not chosen */
	add(f, "we\x01ird\x1b[31m\xc2\x9f-kind");
	hooks_feed(h, f);
	assert_int_equal(f->nevents, 4); /* no note: nothing failed yet */
	assert_true(hooks_wait(h, NULL));
	assert_int_equal(count_files(dir, "out."), 3);

	struct captured c = find_capture(dir, "xid");
	assert_int_equal(c.lines, 1);
	assert_int_equal(json_object_size(c.line), 7);
	assert_int_equal(json_integer_value(json_object_get(c.line, "gpu_index")), 2);
	assert_int_equal(json_integer_value(json_object_get(c.line, "xid")), 79);
	assert_string_equal(json_string_value(json_object_get(c.line, "device_id")), "GPU-abc");
	assert_string_equal(json_string_value(json_object_get(c.line, "detail")), "fell off\nthe bus \xef\xbf\xbd");
	assert_string_equal(json_string_value(json_object_get(c.line, "host")), "node-\"7\"\x01");
	assert_true(json_integer_value(json_object_get(c.line, "ts_ms")) == 1700000000123);
	assert_string_equal(env_of(&c, "GPUR_EVENT", v, sizeof(v)), "xid");
	assert_string_equal(env_of(&c, "GPUR_GPU", v, sizeof(v)), "2");
	assert_null(env_of(&c, "GPUR_PID", v, sizeof(v)));
	assert_string_equal(env_of(&c, "HOOK_TEST_KEPT", v, sizeof(v)), "yes");
	json_decref(c.line);
	free(c.env);

	c = find_capture(dir, "signal");
	assert_int_equal(json_object_size(c.line), 6);
	assert_int_equal(json_integer_value(json_object_get(c.line, "pid")), 4242);
	assert_string_equal(json_string_value(json_object_get(c.line, "result")), "sent");
	assert_string_equal(env_of(&c, "GPUR_PID", v, sizeof(v)), "4242");
	assert_null(env_of(&c, "GPUR_GPU", v, sizeof(v)));
	json_decref(c.line);
	free(c.env);

	c = find_capture(dir, "we\x01ird\x1b[31m\xc2\x9f-kind");
	assert_string_equal(env_of(&c, "GPUR_EVENT", v, sizeof(v)), "weird[31m-kind");
	json_decref(c.line);
	free(c.env);

	hooks_free(h);
	frame_unref(f);
	testutil_rmtree(dir);
	free(dir);
	free(cmd);
}

/* A hook that exits non-zero or is killed by a signal becomes a note with
 * its status and the start of its standard error, in a later frame; the
 * notes never run a hook, even for "all"; a hook that leaves its standard
 * input unread and exits 0 is no failure. */
static void test_failures_become_notes(void **state)
{
	(void)state;
	struct hooks *h = start_hooks("case $GPUR_PID in 1) printf 'bad\\tthing\\n\\nhappened' >&2; exit 3;; "
				      "2) kill -SEGV $$;; 3) exec 0<&-; exit 0;; esac",
				      HOOK_KINDS_ALL, 0, 0);
	struct frame *f = frame_new();
	for (uint64_t pid = 1; pid <= 3; pid++) {
		struct event *e = add(f, EVENT_SIGNAL);
		e->pid = pid;
		e->valid |= UINT64_C(1) << EVENT_F_PID;
	}
	hooks_feed(h, f);
	assert_true(hooks_wait(h, NULL));
	struct hooks_stats st;
	hooks_stats(h, &st);
	assert_int_equal(st.queued, 3);
	assert_int_equal(st.failed, 2);

	struct frame *n = take_notes(h);
	assert_int_equal(n->nevents, 2);
	bool status3 = false, segv = false;
	for (size_t i = 0; i < n->nevents; i++) {
		const char *d = n->events[i].detail;
		status3 |= strcmp(d, "--on-event: the hook for signal exited with status 3: bad thing happened") == 0;
		segv |= strcmp(d, "--on-event: the hook for signal was killed by SIGSEGV") == 0;
	}
	assert_true(status3 && segv);
	assert_true(hooks_wait(h, NULL));
	hooks_stats(h, &st);
	assert_int_equal(st.queued, 3); /* the notes ran nothing */
	frame_unref(n);
	n = take_notes(h);
	assert_int_equal(n->nevents, 0); /* each note once */
	frame_unref(n);
	hooks_free(h);
	frame_unref(f);
}

/* A hook that hangs is killed with its process group at its time, and
 * reaped, and says so in a note. */
static void test_timeout(void **state)
{
	(void)state;
	char *dir = testutil_tmpdir(), cmd[512];
	char *pidf = testutil_path(dir, "pid"), *kidf = testutil_path(dir, "kid");

	snprintf(cmd, sizeof(cmd), "sleep 1000 & echo $! > '%s'; echo $$ > '%s'; wait", kidf, pidf);
	/* 2 s: time enough for the shell to write both pids on a loaded
	 * machine (under a sanitizer, with the suite beside it) before it is
	 * killed. */
	struct hooks *h = start_hooks(cmd, HOOK_KINDS_DEFAULT, 2000, 0);
	struct frame *f = frame_new();
	add(f, EVENT_GPU_LOST);
	hooks_feed(h, f);
	assert_true(hooks_wait(h, NULL));
	wait_file(pidf);
	wait_file(kidf);
	assert_true(gone(read_pid(pidf)));
	/* The background sleep was in the hook's group, and was killed too,
	 * though another process reaps it. */
	pid_t kid = read_pid(kidf);
	struct timespec ts = {0, 10000000};
	for (int i = 0; i < 3000 && !dead(kid); i++)
		nanosleep(&ts, NULL);
	assert_true(dead(kid));
	struct frame *n = take_notes(h);
	assert_int_equal(n->nevents, 1);
	assert_string_equal(n->events[0].detail, "--on-event: the hook for gpu_lost was killed after 2 s (timeout)");
	frame_unref(n);
	hooks_free(h);
	frame_unref(f);
	testutil_rmtree(dir);
	free(dir);
	free(pidf);
	free(kidf);
}

/* 300 events at once: at most four hooks run, the queue holds 256, and the
 * rest are dropped and counted in one note once the queue has emptied. */
static void test_bounded(void **state)
{
	(void)state;
	char *dir = testutil_tmpdir(), cmd[512];
	char *gate = testutil_path(dir, "gate");

	snprintf(cmd, sizeof(cmd), "until [ -e '%s' ]; do sleep 0.01; done", gate);
	struct hooks *h = start_hooks(cmd, HOOK_KINDS_DEFAULT, 0, 0);
	struct frame *f = frame_new();
	for (int i = 0; i < 300; i++)
		add(f, EVENT_XID);
	hooks_feed(h, f);
	struct hooks_stats st;
	struct timespec ts = {0, 10000000};
	for (int i = 0; i < 3000; i++) {
		hooks_stats(h, &st);
		if (st.started == HOOKS_RUNNING_MAX)
			break;
		nanosleep(&ts, NULL);
	}
	hooks_stats(h, &st);
	assert_int_equal(st.started, HOOKS_RUNNING_MAX);
	assert_int_equal(st.running, HOOKS_RUNNING_MAX);
	assert_true(st.queued >= HOOKS_QUEUE_MAX && st.queued <= HOOKS_QUEUE_MAX + HOOKS_RUNNING_MAX);
	assert_int_equal(st.queued + st.dropped, 300);
	struct frame *n = take_notes(h);
	assert_int_equal(n->nevents, 0); /* the queue is still full */
	frame_unref(n);

	testutil_write_str(gate, "");
	assert_true(hooks_wait(h, NULL));
	hooks_stats(h, &st);
	assert_int_equal(st.started, st.queued);
	assert_int_equal(st.running_max, HOOKS_RUNNING_MAX);
	assert_int_equal(st.failed, 0);
	n = take_notes(h);
	assert_int_equal(n->nevents, 1);
	char want[128];
	snprintf(want, sizeof(want), "--on-event: %llu events dropped, with 256 waiting for a hook already",
		 (unsigned long long)st.dropped);
	assert_string_equal(n->events[0].detail, want);
	frame_unref(n);
	hooks_free(h);
	frame_unref(f);
	testutil_rmtree(dir);
	free(dir);
	free(gate);
}

/* The stop drops what waits and ends what runs: SIGTERM, then SIGKILL
 * after the grace for a hook that ignores it; no note is made of either. */
static void test_stop(void **state)
{
	(void)state;
	char *dir = testutil_tmpdir(), cmd[512];

	snprintf(cmd, sizeof(cmd), "[ \"$GPUR_PID\" = 1 ] && trap '' TERM; echo $$ > '%s'/pid.$GPUR_PID; exec sleep 1000",
		 dir);
	struct hooks *h = start_hooks(cmd, HOOK_KINDS_DEFAULT, 0, 200);
	struct frame *f = frame_new();
	for (uint64_t pid = 1; pid <= 6; pid++) {
		struct event *e = add(f, EVENT_SIGNAL);
		e->pid = pid;
		e->valid |= UINT64_C(1) << EVENT_F_PID;
	}
	hooks_feed(h, f);
	/* Wait until the four that run at once have each written their pid,
	 * so that the count below does not race a shell still starting. */
	pid_t run[HOOKS_RUNNING_MAX];
	for (int i = 0; i < HOOKS_RUNNING_MAX; i++) {
		char name[32];
		snprintf(name, sizeof(name), "pid.%d", i + 1);
		char *p = testutil_path(dir, name);
		wait_file(p);
		run[i] = read_pid(p);
		free(p);
	}
	hooks_free(h);
	for (int i = 0; i < HOOKS_RUNNING_MAX; i++)
		assert_true(gone(run[i]));
	assert_int_equal(count_files(dir, "pid."), HOOKS_RUNNING_MAX); /* pids 5 and 6 never ran */
	frame_unref(f);
	testutil_rmtree(dir);
	free(dir);
}

/* Through the frame pipeline: a replay's events reach the hook, with the
 * record's host and ts_ms. */
static void test_through_feed(void **state)
{
	(void)state;
	char *dir = testutil_tmpdir(), *cmd = capture_command(dir), err[256];
	char *rec = testutil_path(dir, "rec.jsonl");

	testutil_write_str(rec, "{\"ts_ms\":1000,\"host\":\"a\",\"gpus\":[{\"name\":\"A\"}]}\n"
				"{\"ts_ms\":2000,\"host\":\"a\",\"gpus\":[{\"name\":\"A\",\"state\":\"lost\"}],"
				"\"events\":[{\"kind\":\"gpu_lost\",\"gpu_index\":0}]}\n");
	struct replay *r = replay_open(rec, err, sizeof(err));
	assert_non_null(r);
	struct source *src = source_replay(r, true);
	struct hooks *h = start_hooks(cmd, HOOK_KINDS_DEFAULT, 0, 0);
	struct feed *feed = feed_start(&(struct feed_opts){.source = src, .hooks = h, .interval = 1});
	assert_non_null(feed);
	feed_wait(feed, NULL);
	feed_stop(feed);
	assert_true(hooks_wait(h, NULL));
	hooks_free(h);
	struct captured c = find_capture(dir, "gpu_lost");
	assert_int_equal(json_integer_value(json_object_get(c.line, "ts_ms")), 2000);
	assert_string_equal(json_string_value(json_object_get(c.line, "host")), "a");
	assert_int_equal(json_integer_value(json_object_get(c.line, "gpu_index")), 0);
	json_decref(c.line);
	free(c.env);
	source_free(src);
	replay_free(r);
	testutil_rmtree(dir);
	free(dir);
	free(cmd);
	free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_line_and_environment),
		cmocka_unit_test(test_failures_become_notes),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_through_feed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
