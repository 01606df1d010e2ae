/* test_cli_table: the table of options is whole (every row has help text,
 * a summary and a parser, a metavar exactly when it takes an argument, a
 * long and short name no other row has, and rules that name other real
 * rows); --help lists every row and no option that is not one; and the man
 * page's OPTIONS section describes every row, with the same metavar and
 * short name, and nothing the table lacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "cli.h"
#include "cli_table.h"
#include "completions.h"
#include "testutil.h"

#define MAN_PAGE GPUR_FIXTURES "/../../docs/gpur.1"

static bool all_of(const char *s, const char *set)
{
	return *s && s[strspn(s, set)] == '\0';
}

/* The row called name; NULL when there is none. */
static const struct cli_option *row_named(const char *name, size_t len)
{
	for (int id = CLI_OPT_NONE + 1; id < CLI_OPT_END; id++)
		if (strlen(CLI_TABLE[id].name) == len && strncmp(CLI_TABLE[id].name, name, len) == 0)
			return &CLI_TABLE[id];
	return NULL;
}

static void check_rules(int id)
{
	const struct cli_option *o = &CLI_TABLE[id];
	bool ended = false;

	for (size_t k = 0; k < CLI_RULES_MAX; k++) {
		const struct cli_rule *r = &o->rules[k];
		size_t n = 0;

		if (r->kind == CLI_RULE_NONE) {
			ended = true;
			continue;
		}
		if (ended)
			fail_msg("--%s: rule %zu follows an empty one (it is never checked)", o->name, k);
		assert_true(r->kind <= CLI_RULE_ALONE);
		for (; n < CLI_RULE_OTHERS && r->others[n]; n++) {
			int other = r->others[n];
			if (other <= CLI_OPT_NONE || other >= CLI_OPT_END || !CLI_TABLE[other].name)
				fail_msg("--%s: rule %zu names row %d, which is not an option", o->name, k, other);
			if (other == id)
				fail_msg("--%s: rule %zu names the option itself", o->name, k);
			if (r->metavar && !CLI_TABLE[other].metavar)
				fail_msg("--%s: rule %zu shows the metavar of --%s, which has none", o->name, k,
					 CLI_TABLE[other].name);
		}
		for (size_t m = n; m < CLI_RULE_OTHERS; m++)
			if (r->others[m])
				fail_msg("--%s: rule %zu has an option after the end of its list", o->name, k);
		if ((r->kind == CLI_RULE_ALONE) != (n == 0))
			fail_msg("--%s: rule %zu: an ALONE rule names no option, every other kind some", o->name, k);
	}
}

static void test_every_row_is_whole(void **state)
{
	(void)state;
	assert_null(CLI_TABLE[CLI_OPT_NONE].name);
	for (int id = CLI_OPT_NONE + 1; id < CLI_OPT_END; id++) {
		const struct cli_option *o = &CLI_TABLE[id];

		if (!o->name)
			fail_msg("row %d has no option", id);
		if (!all_of(o->name, "abcdefghijklmnopqrstuvwxyz0123456789-") || o->name[0] == '-')
			fail_msg("--%s: a long name is made of a-z, 0-9 and - (not first)", o->name);
		if (!o->help || !*o->help || !o->summary || !*o->summary)
			fail_msg("--%s has no help text or no summary", o->name);
		if (strchr(o->summary, '\n') || o->help[strlen(o->help) - 1] == '\n')
			fail_msg("--%s: the summary is one line, the help ends without a newline", o->name);
		if (!o->parse)
			fail_msg("--%s has no parser", o->name);
		if (o->takes_arg != (o->metavar != NULL))
			fail_msg("--%s: a metavar exactly when it takes an argument", o->name);
		if (o->metavar && !all_of(o->metavar, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"))
			fail_msg("--%s: the metavar '%s' is made of A-Z, 0-9, _ and -", o->name, o->metavar);
		if (o->form && !o->takes_arg)
			fail_msg("--%s: a form without an argument", o->name);
		if (o->takes_arg != (o->complete != COMPLETIONS_ARG_NONE))
			fail_msg("--%s: shells complete an argument exactly when it takes one", o->name);
		if ((o->complete == COMPLETIONS_ARG_WORD || o->complete == COMPLETIONS_ARG_LIST) && !o->words[0] &&
		    !o->words_from)
			fail_msg("--%s: a word or list argument needs words", o->name);
		if (o->short_name && !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
					     o->short_name))
			fail_msg("--%s: the short name must be a letter or a digit", o->name);
		for (int j = CLI_OPT_NONE + 1; j < id; j++) {
			if (strcmp(CLI_TABLE[j].name, o->name) == 0)
				fail_msg("rows %d and %d are both --%s", j, id, o->name);
			if (o->short_name && CLI_TABLE[j].short_name == o->short_name)
				fail_msg("--%s and --%s are both -%c", CLI_TABLE[j].name, o->name, o->short_name);
		}
		check_rules(id);
	}
}

/* The completion scripts get every row, in the table's order. */
static void test_completions_get_every_row(void **state)
{
	struct completions_option opts[CLI_OPTIONS_MAX];
	size_t n = cli_completion_options(opts, CLI_OPTIONS_MAX);

	(void)state;
	assert_int_equal(n, CLI_OPT_END - 1);
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &CLI_TABLE[i + 1];
		assert_string_equal(opts[i].name, o->name);
		assert_int_equal(opts[i].short_name, o->short_name);
		assert_ptr_equal(opts[i].summary, o->summary);
	}
	/* Fewer places than options: only those are written, all are counted. */
	assert_int_equal(cli_completion_options(opts, 3), CLI_OPT_END - 1);
}

/* --help, as cli_usage writes it; the caller frees. */
static char *help_text(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	cli_usage(f);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* How --help names o: "  -d, --interval SECONDS", "      --serve-processes=no". */
static void help_names(const struct cli_option *o, char *out, size_t size)
{
	int n = o->short_name ? snprintf(out, size, "  -%c, --%s", o->short_name, o->name)
			      : snprintf(out, size, "      --%s", o->name);
	snprintf(out + n, size - (size_t)n, "%s%s", o->form ? "" : o->metavar ? " " : "",
		 o->form ? o->form : o->metavar ? o->metavar : "");
}

static void test_help_lists_every_row(void **state)
{
	char *text = help_text();
	char names[128];
	int lines_of[CLI_OPT_END] = {0};

	(void)state;
	/* Every line that starts with an option is a row's, once per row. */
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		/* Other lines are prose or the rest of an option's text. */
		if (strncmp(line, "  -", 3) != 0 && strncmp(line, "      --", 8) != 0)
			continue;
		const char *p = strstr(line, "--");
		const struct cli_option *o = row_named(p + 2, strcspn(p + 2, " ="));
		if (!o)
			fail_msg("--help has an option that is not a row: %s", line);
		help_names(o, names, sizeof(names));
		if (strncmp(line, names, strlen(names)) != 0 || line[strlen(names)] != ' ')
			fail_msg("--help names --%s as '%s', the table as '%s'", o->name, line, names);
		lines_of[o - CLI_TABLE]++;
	}
	for (int id = CLI_OPT_NONE + 1; id < CLI_OPT_END; id++)
		if (lines_of[id] != 1)
			fail_msg("--help has %d lines for --%s, not 1", lines_of[id], CLI_TABLE[id].name);
	free(text);

	/* Every option that --help names anywhere, in prose too, is a row. */
	text = help_text();
	for (const char *p = strstr(text, "--"); p; p = strstr(p + 2, "--")) {
		size_t len = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
		if (len && !row_named(p + 2, len))
			fail_msg("--help names --%.*s, which is not a row", (int)len, p + 2);
	}
	free(text);
}

/* A man macro line's text: its arguments (a quoted one may hold spaces)
 * joined as .B (with spaces) or .BR (alternating fonts, no spaces) joins
 * them, without font escapes and with \- as -. */
static void man_text(const char *line, char *out, size_t size)
{
	bool spaced = strncmp(line, ".B ", 3) == 0;
	const char *p = strchr(line, ' ');
	size_t n = 0;

	assert_true(spaced || strncmp(line, ".BR ", 4) == 0);
	while (p && *p && n + 1 < size) {
		bool quoted;
		p += strspn(p, " ");
		if (!*p)
			break;
		if (n && spaced)
			out[n++] = ' ';
		quoted = *p == '"';
		p += quoted;
		for (; *p && (quoted ? *p != '"' : *p != ' ') && n + 1 < size; p++) {
			if (p[0] == '\\' && p[1] == 'f' && p[2]) {
				p += 2;
			} else if (p[0] == '\\' && p[1] == '-') {
				out[n++] = '-';
				p++;
			} else {
				out[n++] = *p;
			}
		}
		p += quoted && *p == '"';
	}
	out[n] = '\0';
}

/* Checks one option of a man page tag ("--interval=seconds"), after the
 * short name short_name (0 for none); counts it in seen. */
static void man_option(const char *item, char short_name, int *seen)
{
	const char *eq = strchr(item, '=');
	size_t len = eq ? (size_t)(eq - item - 2) : strlen(item) - 2;
	const struct cli_option *o = row_named(item + 2, len);

	if (strncmp(item, "--", 2) != 0 || !o)
		fail_msg("the man page describes %s, which is not a row", item);
	seen[o - CLI_TABLE]++;
	if (short_name != o->short_name)
		fail_msg("the man page gives %s the short name '%c', the table '%c'", item,
			 short_name ? short_name : ' ', o->short_name ? o->short_name : ' ');
	if (o->form) {
		if (!eq || strcmp(eq, o->form) != 0)
			fail_msg("the man page shows %s, the table --%s%s", item, o->name, o->form);
	} else if (o->metavar ? !eq || strcasecmp(eq + 1, o->metavar) != 0 : eq != NULL) {
		fail_msg("the man page shows %s, the table's metavar is %s", item, o->metavar ? o->metavar : "none");
	}
}

static void test_man_page_describes_every_row(void **state)
{
	char *page = testutil_read_file(MAN_PAGE, NULL);
	int seen[CLI_OPT_END] = {0};
	bool in_options = false, tag = false;
	char text[512];

	(void)state;
	for (char *line = strtok(page, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, ".SH ", 4) == 0) {
			in_options = strcmp(line, ".SH OPTIONS") == 0;
		} else if (in_options && strcmp(line, ".TP") == 0) {
			tag = true;
		} else if (tag) {
			char short_name = 0;
			tag = false;
			man_text(line, text, sizeof(text));
			/* "-d, --interval=seconds", "--from=time, --to=time". */
			char *save = NULL;
			for (char *item = strtok_r(text, ", ", &save); item; item = strtok_r(NULL, ", ", &save)) {
				if (item[0] == '-' && item[1] != '-' && item[1] && !item[2]) {
					short_name = item[1];
				} else {
					man_option(item, short_name, seen);
					short_name = 0;
				}
			}
		}
	}
	for (int id = CLI_OPT_NONE + 1; id < CLI_OPT_END; id++)
		if (seen[id] != 1)
			fail_msg("the man page's OPTIONS has %d entries for --%s, not 1", seen[id], CLI_TABLE[id].name);
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row_is_whole),
		cmocka_unit_test(test_completions_get_every_row),
		cmocka_unit_test(test_help_lists_every_row),
		cmocka_unit_test(test_man_page_describes_every_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
