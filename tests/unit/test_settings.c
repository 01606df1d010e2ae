/* test_settings: where the config file lives, the round trip, atomic and
 * private saves, and broken files: reported with file and line while the
 * lines that could be read still apply. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "view/settings.h"

#define ALL ((UINT32_C(1) << PROCTABLE__COUNT) - 1)
#define BIT(c) (UINT32_C(1) << (c))

struct fixture {
	char *dir;  /* XDG_CONFIG_HOME */
	char *gdir; /* dir/gpur */
	char *path; /* dir/gpur/config */
	char err[512];
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->dir = testutil_tmpdir();
	fx->gdir = testutil_path(fx->dir, "gpur");
	fx->path = testutil_path(fx->gdir, "config");
	setenv("XDG_CONFIG_HOME", fx->dir, 1);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	testutil_rmtree(fx->dir);
	free(fx->dir);
	free(fx->gdir);
	free(fx->path);
	free(fx);
	return 0;
}

/* Writes the config file (creating its directory). */
static void write_config(struct fixture *fx, const char *text, size_t len)
{
	mkdir(fx->gdir, 0700);
	testutil_write_file(fx->path, text, len);
}

static void assert_defaults(const struct settings *s)
{
	assert_int_equal(s->sort, PROCTABLE_GPUMEM);
	assert_false(s->reverse);
	assert_int_equal(s->columns, ALL);
	assert_int_equal(s->chart, HISTORY_UTIL);
	assert_false(s->session);
}

static void test_defaults_and_missing_file(void **state)
{
	struct fixture *fx = *state;
	struct settings s;

	memset(&s, 0x55, sizeof(s));
	settings_defaults(&s);
	assert_defaults(&s);
	memset(&s, 0x55, sizeof(s));
	assert_int_equal(settings_load(&s, fx->err, sizeof(fx->err)), 0);
	assert_defaults(&s);
	assert_string_equal(fx->err, "");
}

static void test_path(void **state)
{
	struct fixture *fx = *state;
	char buf[4096], *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	assert_string_equal(settings_path(buf, sizeof(buf)), fx->path);
	assert_null(settings_path(buf, strlen(fx->path))); /* does not fit */
	assert_non_null(settings_path(buf, strlen(fx->path) + 1));

	setenv("HOME", "/home/someone", 1);
	unsetenv("XDG_CONFIG_HOME");
	assert_string_equal(settings_path(buf, sizeof(buf)), "/home/someone/.config/gpur/config");
	setenv("XDG_CONFIG_HOME", "", 1);
	assert_string_equal(settings_path(buf, sizeof(buf)), "/home/someone/.config/gpur/config");
	setenv("XDG_CONFIG_HOME", "relative/dir", 1); /* invalid per the XDG spec */
	assert_string_equal(settings_path(buf, sizeof(buf)), "/home/someone/.config/gpur/config");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	assert_null(settings_path(buf, sizeof(buf)));
	struct settings s;
	assert_int_equal(settings_load(&s, fx->err, sizeof(fx->err)), -ENOENT);
	assert_defaults(&s);
	assert_int_equal(settings_save(&s, fx->err, sizeof(fx->err)), -ENOENT);

	if (home) {
		setenv("HOME", home, 1);
		free(home);
	}
	setenv("XDG_CONFIG_HOME", fx->dir, 1);
}

/* The names in dir, sorted, space-separated. */
static void list_dir(const char *dir, char *out, size_t n)
{
	struct dirent **names;
	int count = scandir(dir, &names, NULL, alphasort);
	size_t len = 0;

	assert_true(count >= 0);
	out[0] = '\0';
	for (int i = 0; i < count; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
			len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", names[i]->d_name);
		free(names[i]);
	}
	free(names);
}

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct settings s, r;
	struct stat st;
	char names[256];

	settings_defaults(&s);
	s.sort = PROCTABLE_CPU;
	s.reverse = true;
	s.columns = BIT(PROCTABLE_PID) | BIT(PROCTABLE_TIME) | BIT(PROCTABLE_COMMAND);
	s.chart = HISTORY_TEMP;
	s.session = true;
	assert_int_equal(settings_save(&s, fx->err, sizeof(fx->err)), 0);
	assert_int_equal(settings_load(&r, fx->err, sizeof(fx->err)), 0);
	assert_int_equal(r.sort, PROCTABLE_CPU);
	assert_true(r.reverse);
	assert_int_equal(r.columns, s.columns);
	assert_int_equal(r.chart, HISTORY_TEMP);
	assert_true(r.session);

	/* Private: the directory 0700, the file 0600; no temporary file left. */
	assert_int_equal(stat(fx->gdir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	list_dir(fx->gdir, names, sizeof(names));
	assert_string_equal(names, "config");

	/* Saving again replaces the file, still leaving nothing else. */
	s.columns = 0; /* an empty list survives the trip too */
	s.reverse = false;
	s.chart = HISTORY_POWER;
	s.sort = PROCTABLE_USER;
	s.session = false;
	assert_int_equal(settings_save(&s, fx->err, sizeof(fx->err)), 0);
	list_dir(fx->gdir, names, sizeof(names));
	assert_string_equal(names, "config");
	assert_int_equal(settings_load(&r, fx->err, sizeof(fx->err)), 0);
	assert_int_equal(r.columns, 0);
	assert_false(r.reverse);
	assert_false(r.session);
	assert_int_equal(r.chart, HISTORY_POWER);
	assert_int_equal(r.sort, PROCTABLE_USER);

	/* Every column and metric by name. */
	for (int c = 0; c < PROCTABLE__COUNT; c++) {
		s.sort = (enum proctable_col)c;
		s.columns = BIT(c);
		s.chart = (enum history_metric)(c % HISTORY__COUNT);
		s.group = (enum group_by)(c % GROUP_BY__COUNT);
		assert_int_equal(settings_save(&s, fx->err, sizeof(fx->err)), 0);
		assert_int_equal(settings_load(&r, fx->err, sizeof(fx->err)), 0);
		assert_int_equal(r.sort, c);
		assert_int_equal(r.columns, BIT(c));
		assert_int_equal(r.chart, c % HISTORY__COUNT);
		assert_int_equal(r.group, c % GROUP_BY__COUNT);
	}
}

static void test_save_creates_parents(void **state)
{
	struct fixture *fx = *state;
	char *deep = testutil_path(fx->dir, "a/b");
	char *file = testutil_path(fx->dir, "a/b/gpur/config");
	struct settings s;
	struct stat st;

	setenv("XDG_CONFIG_HOME", deep, 1);
	settings_defaults(&s);
	assert_int_equal(settings_save(&s, fx->err, sizeof(fx->err)), 0);
	assert_int_equal(stat(file, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(deep, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	setenv("XDG_CONFIG_HOME", fx->dir, 1);
	free(deep);
	free(file);
}

static void test_save_error_names_path(void **state)
{
	struct fixture *fx = *state;
	char *blocker = testutil_path(fx->dir, "file");
	struct settings s;

	testutil_write_str(blocker, "not a directory\n");
	setenv("XDG_CONFIG_HOME", blocker, 1);
	settings_defaults(&s);
	assert_int_equal(settings_save(&s, fx->err, sizeof(fx->err)), -ENOTDIR);
	assert_non_null(strstr(fx->err, blocker));
	setenv("XDG_CONFIG_HOME", fx->dir, 1);

	s.sort = PROCTABLE__COUNT;
	assert_int_equal(settings_save(&s, fx->err, sizeof(fx->err)), -EINVAL);
	free(blocker);
}

static void test_format_leniency(void **state)
{
	struct fixture *fx = *state;
	static const char text[] =
		"# a comment\n"
		"\n"
		"   \t\n"
		"  Sort\t=  Time   # trailing comment\r\n"
		"reverse=YES\n"
		"columns = pid , user,, command,\n"
		"chart = mem\n"
		"chart = power\n" /* the later one wins */
		"group = Pod\n"
		"Session = on\n";
	struct settings s;

	write_config(fx, text, sizeof(text) - 1);
	assert_int_equal(settings_load(&s, fx->err, sizeof(fx->err)), 0);
	assert_int_equal(s.sort, PROCTABLE_TIME);
	assert_true(s.reverse);
	assert_int_equal(s.columns, BIT(PROCTABLE_PID) | BIT(PROCTABLE_USER) | BIT(PROCTABLE_COMMAND));
	assert_int_equal(s.chart, HISTORY_POWER);
	assert_int_equal(s.group, GROUP_BY_POD);
	assert_true(s.session);

	/* No newline at the end; reverse off by "0". */
	write_config(fx, "reverse = 0\nsort = pid", 22);
	assert_int_equal(settings_load(&s, fx->err, sizeof(fx->err)), 0);
	assert_false(s.reverse);
	assert_int_equal(s.sort, PROCTABLE_PID);
}

/* Loads text; expects -EINVAL and an error naming path:line. */
static void load_broken(struct fixture *fx, const char *text, size_t len, unsigned line, struct settings *s)
{
	char want[600];

	write_config(fx, text, len);
	assert_int_equal(settings_load(s, fx->err, sizeof(fx->err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:%u: ", fx->path, line);
	if (strncmp(fx->err, want, strlen(want)) != 0)
		fail_msg("error \"%s\" does not start \"%s\"", fx->err, want);
	assert_null(strchr(fx->err, '\n'));
}

static void test_broken_lines(void **state)
{
	struct fixture *fx = *state;
	struct settings s;

	static const char unknown_key[] = "sort = cpu\nbogus = 1\nchart = temp\n";
	load_broken(fx, unknown_key, sizeof(unknown_key) - 1, 2, &s);
	assert_non_null(strstr(fx->err, "bogus"));
	assert_null(strstr(fx->err, "more"));
	assert_int_equal(s.sort, PROCTABLE_CPU); /* the rest still applies */
	assert_int_equal(s.chart, HISTORY_TEMP);
	assert_int_equal(s.columns, ALL);

	static const char bad_values[] =
		"reverse = true\n"
		"sort = nosuchcolumn\n"
		"columns = pid,nosuch\n"
		"chart = fans\n"
		"reverse = maybe\n"
		"just words\n"
		"= value\n";
	load_broken(fx, bad_values, sizeof(bad_values) - 1, 2, &s);
	assert_non_null(strstr(fx->err, "nosuchcolumn"));
	assert_non_null(strstr(fx->err, "(and 5 more)"));
	assert_true(s.reverse); /* line 1 applied; line 5 kept it */
	assert_int_equal(s.sort, PROCTABLE_GPUMEM);
	assert_int_equal(s.columns, ALL);
	assert_int_equal(s.chart, HISTORY_UTIL);

	static const char bad_session[] = "session = true\nsession = sometimes\n";
	load_broken(fx, bad_session, sizeof(bad_session) - 1, 2, &s);
	assert_non_null(strstr(fx->err, "session: expected true or false"));
	assert_true(s.session); /* line 1 applied; line 2 kept it */

	/* Outside bytes in a message are made inert. */
	static const char control[] = "\x1b[31mkey = 1\n";
	load_broken(fx, control, sizeof(control) - 1, 1, &s);
	assert_null(strchr(fx->err, '\x1b'));

	/* A NUL inside a value is a bad value, not a shorter one. */
	static const char nul[] = "sort = cpu\0junk\nchart = mem\n";
	load_broken(fx, nul, sizeof(nul) - 1, 1, &s);
	assert_int_equal(s.sort, PROCTABLE_GPUMEM);
	assert_int_equal(s.chart, HISTORY_MEM);
}

static void test_long_line_and_big_file(void **state)
{
	struct fixture *fx = *state;
	struct settings s;
	char *text = malloc(SETTINGS_MAX_FILE + 4096);
	size_t len;

	assert_non_null(text);
	/* A 1025-byte comment line: over the limit, even as a comment. */
	len = (size_t)sprintf(text, "sort = cpu\n#");
	memset(text + len, 'x', SETTINGS_MAX_LINE);
	len += SETTINGS_MAX_LINE;
	len += (size_t)sprintf(text + len, "\nchart = temp\n");
	load_broken(fx, text, len, 2, &s);
	assert_non_null(strstr(fx->err, "1024"));
	assert_int_equal(s.sort, PROCTABLE_CPU);
	assert_int_equal(s.chart, HISTORY_TEMP);

	/* Exactly 1024 bytes is fine. */
	len = (size_t)sprintf(text, "#");
	memset(text + len, 'x', SETTINGS_MAX_LINE - 1);
	len += SETTINGS_MAX_LINE - 1;
	len += (size_t)sprintf(text + len, "\nchart = mem\n");
	write_config(fx, text, len);
	assert_int_equal(settings_load(&s, fx->err, sizeof(fx->err)), 0);
	assert_int_equal(s.chart, HISTORY_MEM);

	/* Over 64 KiB: the whole lines within the limit apply, the rest not. */
	len = (size_t)sprintf(text, "sort = pid\n");
	unsigned lines = 1;
	while (len + 100 < SETTINGS_MAX_FILE) {
		len += (size_t)sprintf(text + len, "# %097u\n", lines); /* 100 bytes */
		lines++;
	}
	/* A comment that ends 5 bytes short of the limit. */
	size_t fill = SETTINGS_MAX_FILE - 5 - len;
	text[len] = '#';
	memset(text + len + 1, 'y', fill - 2);
	text[len + fill - 1] = '\n';
	len += fill;
	lines++;
	len += (size_t)sprintf(text + len, "chart = power\n"); /* straddles the limit */
	len += (size_t)sprintf(text + len, "reverse = true\n");
	assert_true(len > SETTINGS_MAX_FILE);
	load_broken(fx, text, len, lines + 1, &s);
	assert_non_null(strstr(fx->err, "64 KiB"));
	assert_int_equal(s.sort, PROCTABLE_PID);
	assert_int_equal(s.chart, HISTORY_UTIL);
	assert_false(s.reverse);
	free(text);
}

static void test_not_a_regular_file(void **state)
{
	struct fixture *fx = *state;
	struct settings s;

	/* A directory in the file's place. */
	assert_int_equal(mkdir(fx->gdir, 0700), 0);
	assert_int_equal(mkdir(fx->path, 0700), 0);
	assert_int_equal(settings_load(&s, fx->err, sizeof(fx->err)), -EINVAL);
	assert_defaults(&s);
	assert_non_null(strstr(fx->err, fx->path));
	assert_non_null(strstr(fx->err, "not a regular file"));
	assert_int_equal(rmdir(fx->path), 0);

	/* A FIFO with no writer must not hang the load. */
	assert_int_equal(mkfifo(fx->path, 0600), 0);
	assert_int_equal(settings_load(&s, fx->err, sizeof(fx->err)), -EINVAL);
	assert_defaults(&s);
	assert_non_null(strstr(fx->err, "not a regular file"));

	/* No room for a message is fine too. */
	assert_int_equal(settings_load(&s, NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults_and_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_creates_parents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_error_names_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_format_leniency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_line_and_big_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_regular_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
