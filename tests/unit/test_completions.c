/* test_completions: the option table the completion scripts are written
 * from agrees with what cli_parse accepts; names and words that a shell
 * could misread are refused; summaries with quotes, backslashes, brackets
 * and command substitutions reach zsh and fish intact (those shells run the
 * scripts when installed) and nothing in them is executed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "cli.h"
#include "completions.h"
#include "testutil.h"

static size_t all_options(struct completions_option *opts)
{
	size_t n = cli_completion_options(opts, CLI_OPTIONS_MAX);

	assert_true(n <= CLI_OPTIONS_MAX);
	assert_true(n >= 30);
	return n;
}

/* cli_parse of "gpur A [B]". */
static int parse(const char *a, const char *b, char *err, size_t errlen)
{
	char prog[] = "gpur", first[256], second[256];
	char *argv[] = {prog, first, second, NULL};
	struct config cfg;

	snprintf(first, sizeof(first), "%s", a);
	snprintf(second, sizeof(second), "%s", b ? b : "");
	if (!b)
		argv[2] = NULL;
	return cli_parse(b ? 3 : 2, argv, &cfg, err, errlen);
}

/* Whether option o takes an argument, asked of getopt_long through cli_parse:
 * "--name=x" is refused by an option without one, "--name" alone by an
 * option that needs one. */
static void test_table_matches_the_parser(void **state)
{
	struct completions_option opts[CLI_OPTIONS_MAX];
	size_t n = all_options(opts);
	char arg[128], err[512];

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct completions_option *o = &opts[i];

		assert_non_null(o->summary);
		assert_true(*o->summary);
		snprintf(arg, sizeof(arg), "--%s=x", o->name);
		if (o->arg == COMPLETIONS_ARG_NONE) {
			assert_null(o->metavar);
			if (strcmp(o->name, "help") != 0 && strcmp(o->name, "version") != 0) {
				assert_int_equal(parse(arg, NULL, err, sizeof(err)), -1);
				if (!strstr(err, "takes no argument"))
					fail_msg("--%s is NONE in the table but takes an argument (%s)", o->name, err);
			}
		} else {
			assert_non_null(o->metavar);
			snprintf(arg, sizeof(arg), "--%s", o->name);
			assert_int_equal(parse(arg, NULL, err, sizeof(err)), -1);
			if (!strstr(err, "missing argument"))
				fail_msg("--%s takes an argument in the table but not in the parser (%s)", o->name, err);
		}
		if (o->short_name) {
			/* The short name is the same option: same argument rule. */
			snprintf(arg, sizeof(arg), "-%c", o->short_name);
			int rc = parse(arg, NULL, err, sizeof(err));
			if (o->arg != COMPLETIONS_ARG_NONE)
				assert_non_null(strstr(err, "missing argument"));
			else
				assert_int_equal(rc, 0);
		}
	}
}

static const struct completions_option *find(const struct completions_option *opts, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(opts[i].name, name) == 0)
			return &opts[i];
	fail_msg("no option --%s in the table", name);
	return NULL;
}

static void test_words_come_from_their_tables(void **state)
{
	struct completions_option opts[CLI_OPTIONS_MAX];
	size_t n = all_options(opts);
	const struct completions_option *o;
	char err[256];

	(void)state;
	o = find(opts, n, "backend");
	assert_int_equal(o->arg, COMPLETIONS_ARG_LIST);
	for (size_t i = 0; i < BACKEND_REGISTRY_LEN; i++)
		assert_string_equal(o->words[i], BACKEND_REGISTRY[i]->name);
	assert_null(o->words[BACKEND_REGISTRY_LEN]);

	o = find(opts, n, "completions");
	assert_int_equal(o->arg, COMPLETIONS_ARG_WORD);
	size_t k = 0;
	for (; o->words[k]; k++) {
		assert_int_not_equal(completions_shell_find(o->words[k]), COMPLETIONS_NONE);
		assert_int_equal(parse("--completions", o->words[k], err, sizeof(err)), 0);
	}
	assert_int_equal(k, 3);

	/* Every word offered for --serve-processes is one it accepts. */
	o = find(opts, n, "serve-processes");
	for (k = 0; o->words[k]; k++) {
		char arg[64];
		snprintf(arg, sizeof(arg), "--serve-processes=%s", o->words[k]);
		assert_int_equal(parse(arg, NULL, err, sizeof(err)), 0);
	}
	assert_int_equal(k, 2);

	/* And every word offered for --serve-names, all of them. */
	o = find(opts, n, "serve-names");
	assert_int_equal(o->arg, COMPLETIONS_ARG_WORD);
	for (k = 0; o->words[k]; k++) {
		char prog[] = "gpur", serve[] = "--serve=:9400", arg[64];
		snprintf(arg, sizeof(arg), "--serve-names=%s", o->words[k]);
		char *argv[] = {prog, serve, arg, NULL};
		struct config cfg;
		assert_int_equal(cli_parse(3, argv, &cfg, err, sizeof(err)), 0);
		assert_int_equal(cfg.serve_names, (enum field_names)k);
	}
	assert_int_equal(k, FIELD_NAMES__COUNT);

	o = find(opts, n, "report");
	assert_int_equal(o->arg, COMPLETIONS_ARG_FILE);
	assert_true(o->dash);
	for (k = 0; o->words[k]; k++) {
		char arg[64];
		snprintf(arg, sizeof(arg), "out%s", o->words[k]);
		/* A report name with this suffix passes the parser's check of it. */
		char prog[] = "gpur", replay[] = "--replay=x", report[] = "--report";
		char *argv[] = {prog, replay, report, arg, NULL};
		struct config cfg;
		assert_int_equal(cli_parse(4, argv, &cfg, err, sizeof(err)), 0);
	}
	assert_int_equal(find(opts, n, "procfs")->arg, COMPLETIONS_ARG_DIR);
	assert_int_equal(find(opts, n, "log")->arg, COMPLETIONS_ARG_FILE);
	assert_int_equal(find(opts, n, "interval")->short_name, 'd');
}

static void test_shell_names(void **state)
{
	(void)state;
	assert_int_equal(completions_shell_find("bash"), COMPLETIONS_BASH);
	assert_int_equal(completions_shell_find("zsh"), COMPLETIONS_ZSH);
	assert_int_equal(completions_shell_find("fish"), COMPLETIONS_FISH);
	assert_int_equal(completions_shell_find("Bash"), COMPLETIONS_NONE);
	assert_int_equal(completions_shell_find(""), COMPLETIONS_NONE);
	assert_int_equal(completions_shell_find("tcsh"), COMPLETIONS_NONE);
	assert_string_equal(completions_shell_name(COMPLETIONS_ZSH), "zsh");
	assert_null(completions_shell_name(COMPLETIONS_NONE));
	assert_null(completions_shell_name(COMPLETIONS_SHELL_END));
}

/* One option that breaks the rules; the writer must refuse it for every
 * shell and leave out untouched. */
static void expect_refused(const struct completions_option *bad, const char *why)
{
	struct completions_option opts[2] = {
		{.name = "once", .summary = "fine"},
		*bad,
	};
	char err[256];
	struct buf out;

	buf_init(&out);
	buf_puts(&out, "kept");
	for (int s = COMPLETIONS_BASH; s < COMPLETIONS_SHELL_END; s++) {
		err[0] = '\0';
		if (completions_write(&out, (enum completions_shell)s, opts, 2, err, sizeof(err)) != -EINVAL)
			fail_msg("%s: not refused for %s", why, completions_shell_name((enum completions_shell)s));
		assert_true(err[0]);
		assert_int_equal(out.len, 4);
	}
	buf_fini(&out);
}

static void test_unsafe_names_and_words_are_refused(void **state)
{
	(void)state;
	expect_refused(&(struct completions_option){.name = "a$(x)"}, "a name with $(");
	expect_refused(&(struct completions_option){.name = "a b"}, "a name with a space");
	expect_refused(&(struct completions_option){.name = "Upper"}, "an upper-case name");
	expect_refused(&(struct completions_option){.name = "-lead"}, "a name starting with -");
	expect_refused(&(struct completions_option){.name = ""}, "an empty name");
	expect_refused(&(struct completions_option){.name = NULL}, "no name");
	expect_refused(&(struct completions_option){.name = "x", .short_name = ';'}, "a short name ;");
	expect_refused(&(struct completions_option){.name = "x", .arg = COMPLETIONS_ARG_TEXT, .metavar = "A:B"},
		       "a metavar with :");
	expect_refused(&(struct completions_option){.name = "x", .arg = COMPLETIONS_ARG_WORD, .words = {"ok", "n'o"}},
		       "a word with '");
	expect_refused(&(struct completions_option){.name = "x", .arg = COMPLETIONS_ARG_WORD, .words = {"a b"}},
		       "a word with a space");
	expect_refused(&(struct completions_option){.name = "x", .arg = COMPLETIONS_ARG_LIST, .words = {"$HOME"}},
		       "a word with $");
	expect_refused(&(struct completions_option){.name = "x", .arg = COMPLETIONS_ARG_LIST, .words = {"a,b"}},
		       "a word with the list's separator");
	expect_refused(&(struct completions_option){.name = "x", .arg = COMPLETIONS_ARG_WORD, .words = {"*"}},
		       "a glob as a word");
	expect_refused(&(struct completions_option){.name = "x", .arg = COMPLETIONS_ARG_WORD, .words = {"-o"}},
		       "a word that reads as an option");
	expect_refused(&(struct completions_option){.name = "x", .arg = COMPLETIONS_ARG_WORD}, "a word list without words");
	expect_refused(&(struct completions_option){.name = "x", .arg = COMPLETIONS_ARG_FILE, .words = {"json"}},
		       "a suffix without its dot");
}

/* A summary that quotes, escapes, substitutes and spans lines. */
#define HOSTILE "it's \"q\" \\ [b] c:d $(touch PWNED) `touch PWNED` $HOME;&|!{}*?~#%\nnext\tline"
/* The same as the shells must show it: control characters as spaces. */
#define HOSTILE_SHOWN "it's \"q\" \\ [b] c:d $(touch PWNED) `touch PWNED` $HOME;&|!{}*?~#% next line"

static const struct completions_option HOSTILE_OPTS[] = {
	{.name = "plain", .summary = "a plain option"},
	{.name = "hostile", .short_name = 'H', .arg = COMPLETIONS_ARG_TEXT, .metavar = "X", .summary = HOSTILE},
	{.name = "no-summary", .arg = COMPLETIONS_ARG_LIST, .metavar = "LIST", .words = {"a", "b.c", "d+e", "f_g"}},
	{.name = "report", .arg = COMPLETIONS_ARG_FILE, .metavar = "OUT", .words = {".json"}, .dash = true},
	{.name = "dir", .arg = COMPLETIONS_ARG_DIR, .summary = "'"},
};

/* Writes the script for shell with HOSTILE_OPTS into dir; the caller frees
 * the path. */
static char *write_script(const char *dir, enum completions_shell shell)
{
	struct buf out;
	char err[256];
	char *path = testutil_path(dir, completions_shell_name(shell));

	buf_init(&out);
	assert_int_equal(completions_write(&out, shell, HOSTILE_OPTS, sizeof(HOSTILE_OPTS) / sizeof(HOSTILE_OPTS[0]),
					   err, sizeof(err)), 0);
	assert_null(memchr(out.data, '\0', out.len));
	testutil_write_file(path, out.data, out.len);
	buf_fini(&out);
	return path;
}

static bool have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s > /dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* Runs cmd with sh in dir; its standard output, which the caller frees. */
static char *run_in(const char *dir, const char *cmd)
{
	char *full;
	struct buf out;
	char chunk[4096];
	size_t got;

	assert_true(asprintf(&full, "cd '%s' && %s", dir, cmd) > 0);
	FILE *p = popen(full, "r");
	assert_non_null(p);
	buf_init(&out);
	while ((got = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf_append(&out, chunk, got);
	int status = pclose(p);
	if (status != 0)
		fail_msg("'%s' failed (%d): %s", full, status, buf_cstr(&out));
	free(full);
	char *s = strdup(buf_cstr(&out));
	buf_fini(&out);
	return s;
}

static void expect_no_pwned(const char *dir)
{
	char *p = testutil_path(dir, "PWNED");
	struct stat st;

	if (stat(p, &st) == 0)
		fail_msg("a summary was executed: %s exists", p);
	free(p);
}

static void test_bash_runs_hostile_table(void **state)
{
	char *dir = testutil_tmpdir(), *script, *got;

	(void)state;
	script = write_script(dir, COMPLETIONS_BASH);
	got = run_in(dir, "bash --norc --noprofile -c '. ./bash && COMP_WORDS=(gpur --no-summary a,) COMP_CWORD=2 "
			  "&& _gpur && printf \"%s\\n\" \"${COMPREPLY[@]}\"'");
	assert_string_equal(got, "a,b.c\na,d+e\na,f_g\n");
	free(got);
	expect_no_pwned(dir);
	free(script);
	testutil_rmtree(dir);
	free(dir);
}

static void test_zsh_reads_summaries_intact(void **state)
{
	char *dir, *script, *got;

	(void)state;
	if (!have("zsh")) {
		printf("SKIP: zsh is not installed\n");
		return;
	}
	dir = testutil_tmpdir();
	script = write_script(dir, COMPLETIONS_ZSH);
	got = run_in(dir, "zsh -n ./zsh && echo ok");
	assert_string_equal(got, "ok\n");
	free(got);
	/* _arguments prints the specs as zsh read them out of the quotes. */
	got = run_in(dir, "zsh -f -c 'compdef() { :; }; _arguments() { print -rl -- \"$@\"; }; . ./zsh; _gpur'");
	assert_string_equal(got,
			    "-s\n"
			    ":\n"
			    "--plain[a plain option]\n"
			    "(-H --hostile)-H+[it's \"q\" \\\\ \\[b\\] c\\:d $(touch PWNED) `touch PWNED` "
			    "$HOME;&|!{}*?~#% next line]:X: \n"
			    "(-H --hostile)--hostile=[it's \"q\" \\\\ \\[b\\] c\\:d $(touch PWNED) `touch PWNED` "
			    "$HOME;&|!{}*?~#% next line]:X: \n"
			    "--no-summary=:LIST:_gpur_arg_no_summary\n"
			    "--report=:OUT:_gpur_arg_report\n"
			    "--dir=[']:value:_files -/\n");
	free(got);
	got = run_in(dir, "zsh -f -c '. ./zsh; functions _gpur_arg_no_summary _gpur_arg_report' 2>&1");
	assert_non_null(strstr(got, "_values -s , LIST a b.c d+e f_g"));
	assert_non_null(strstr(got, "_alternative 'files:file:_files -g \"*.json\"' 'stdout:standard output:(-)'"));
	free(got);
	expect_no_pwned(dir);
	free(script);
	testutil_rmtree(dir);
	free(dir);
}

static void test_fish_reads_summaries_intact(void **state)
{
	char *dir, *script, *got;

	(void)state;
	if (!have("fish")) {
		printf("SKIP: fish is not installed\n");
		return;
	}
	dir = testutil_tmpdir();
	script = write_script(dir, COMPLETIONS_FISH);
	got = run_in(dir, "fish --no-config -n ./fish && echo ok");
	assert_string_equal(got, "ok\n");
	free(got);
	got = run_in(dir, "HOME=. fish --no-config -c 'source ./fish; complete -C \"gpur --hostile\"; "
			  "complete -C \"gpur --no-summary b.c,\"'");
	assert_string_equal(got, "--hostile\t" HOSTILE_SHOWN "\n"
				 "b.c,a\nb.c,d+e\nb.c,f_g\n");
	free(got);
	expect_no_pwned(dir);
	free(script);
	testutil_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_matches_the_parser),
		cmocka_unit_test(test_words_come_from_their_tables),
		cmocka_unit_test(test_shell_names),
		cmocka_unit_test(test_unsafe_names_and_words_are_refused),
		cmocka_unit_test(test_bash_runs_hostile_table),
		cmocka_unit_test(test_zsh_reads_summaries_intact),
		cmocka_unit_test(test_fish_reads_summaries_intact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
