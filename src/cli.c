/* cli: the command line read with getopt_long, the rules between options
 * checked, --help written and the completion scripts' data made, all from
 * the table of options in cli_table.c. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "cli_table.h"
#include "completions.h"
#include "model/idle.h"

/* The options given so far: each one's last argument, which is "" for an
 * option without one and NULL when not given, and the options in the order
 * in which each first appeared. */
struct cli_given {
	const char *arg[CLI_OPT_END];
	enum cli_opt order[CLI_OPT_END];
	size_t n;
};

/* The column where --help's texts start. */
#define HELP_COLUMN 26

bool cli_mode_once(enum cli_mode mode)
{
	return mode == CLI_MODE_ONCE || mode == CLI_MODE_ONCE_JSON;
}

bool cli_mode_json(enum cli_mode mode)
{
	return mode == CLI_MODE_JSON || mode == CLI_MODE_ONCE_JSON;
}

/* getopt_long's value for option id: its short name, else 256 plus its
 * index, which is above every character so the two never meet. */
static int opt_val(enum cli_opt id)
{
	return CLI_TABLE[id].short_name ? CLI_TABLE[id].short_name : 256 + (int)id;
}

/* The option whose getopt_long value is val, or CLI_OPT_NONE for ':' and
 * '?'. */
static enum cli_opt opt_of_val(int val)
{
	for (enum cli_opt id = CLI_OPT_NONE + 1; id < CLI_OPT_END; id++)
		if (opt_val(id) == val)
			return id;
	return CLI_OPT_NONE;
}

/* getopt_long's long options, CLI_OPT_END entries with the terminator, and
 * its short option string, with room for 2 * CLI_OPT_END + 3. The string
 * starts with '+', so that the options end at the first word that is not
 * one (the command of --wait keeps its own), and ':', so that a missing
 * argument is told apart from an unknown option. */
static void getopt_tables(struct option *longs, char *shorts)
{
	size_t n = 0, k = 0;

	shorts[k++] = '+';
	shorts[k++] = ':';
	for (enum cli_opt id = CLI_OPT_NONE + 1; id < CLI_OPT_END; id++) {
		const struct cli_option *o = &CLI_TABLE[id];

		int has_arg = o->takes_arg ? required_argument : no_argument;

		longs[n++] = (struct option){o->name, has_arg, NULL, opt_val(id)};
		if (o->short_name) {
			shorts[k++] = o->short_name;
			if (o->takes_arg)
				shorts[k++] = ':';
		}
	}
	longs[n] = (struct option){NULL, 0, NULL, 0};
	shorts[k] = '\0';
}

static void config_defaults(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->interval = 1.0;
	cfg->speed = 1.0;
	cfg->procfs = "/proc";
	cfg->sysfs = "/sys";
	cfg->rootfs = "/";
	cfg->serve_processes = true;
	cfg->idle_mem = IDLE_MEM_DEFAULT;
	cfg->idle_after_ms = IDLE_AFTER_DEFAULT_MS;
	cfg->backends = (1u << BACKEND_REGISTRY_LEN) - 1;
}

/* The message for what getopt_long refused. c is ':' for a missing argument
 * and '?' for the rest, and argv[optind - 1] is the word it refused. */
static int getopt_error(int c, char **argv, char *err, size_t errlen)
{
	const char *word = argv[optind - 1];

	if (c == ':')
		return cli_table_error(err, errlen, "%s: missing argument (try --help)", word);
	/* A long option given an argument it does not take leaves its value
	 * in optopt, which is 256 or more, or the short name of --help and
	 * --version. */
	if (optopt >= 256 || (optopt && strncmp(word, "--", 2) == 0) || (optopt == 0 && strchr(word, '=')))
		return cli_table_error(err, errlen, "%.*s: takes no argument (try --help)", (int)strcspn(word, "="),
				       word);
	if (optopt)
		return cli_table_error(err, errlen, "unknown option '-%c' (try --help)", optopt);
	return cli_table_error(err, errlen, "unknown option '%s' (try --help)", word);
}

/* The first of r's others that was given, or CLI_OPT_NONE when none was. */
static enum cli_opt first_given(const struct cli_rule *r, const struct cli_given *g)
{
	for (size_t i = 0; i < CLI_RULE_OTHERS && r->others[i]; i++)
		if (g->arg[r->others[i]])
			return r->others[i];
	return CLI_OPT_NONE;
}

/* Writes the message "--a needs --b[ METAVAR][ or --c ...][ (why)]". */
static int needs_error(enum cli_opt id, const struct cli_rule *r, char *err, size_t errlen)
{
	char list[256];
	size_t len = 0;

	list[0] = '\0';
	for (size_t i = 0; i < CLI_RULE_OTHERS && r->others[i] && len < sizeof(list); i++) {
		const struct cli_option *other = &CLI_TABLE[r->others[i]];
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s--%s%s%s", i ? " or " : "", other->name,
					r->metavar ? " " : "", r->metavar ? other->metavar : "");
	}
	return cli_table_error(err, errlen, "--%s needs %s%s%s%s", CLI_TABLE[id].name, list, r->why ? " (" : "",
			       r->why ? r->why : "", r->why ? ")" : "");
}

/* Checks one rule of option id, which was given. Returns 0, or -1 with the
 * rule's message in err. */
static int check_rule(enum cli_opt id, const struct cli_rule *r, const struct cli_given *g, char *err, size_t errlen)
{
	enum cli_opt other = CLI_OPT_NONE;
	const char *why = r->why ? r->why : "";
	const char *open = r->why ? " (" : "", *close = r->why ? ")" : "";

	switch (r->kind) {
	case CLI_RULE_NONE:
		return 0;
	case CLI_RULE_NEEDS:
		return first_given(r, g) ? 0 : needs_error(id, r, err, errlen);
	case CLI_RULE_EXCLUDES:
	case CLI_RULE_CLASHES:
		other = first_given(r, g);
		break;
	case CLI_RULE_ALONE:
		for (size_t i = 0; i < g->n && !other; i++)
			if (g->order[i] != id)
				other = g->order[i];
		break;
	}
	if (!other)
		return 0;
	if (r->kind == CLI_RULE_CLASHES)
		return cli_table_error(err, errlen, "--%s and --%s conflict%s%s%s", CLI_TABLE[id].name,
				       CLI_TABLE[other].name, open, why, close);
	return cli_table_error(err, errlen, "--%s cannot be combined with --%s%s%s%s", CLI_TABLE[id].name,
			       CLI_TABLE[other].name, open, why, close);
}

/* Checks the rules of every option given, in the table's order: the ALONE
 * rules when alone is true, else the rest. The ALONE rules come first,
 * because with an option that takes no other, the others' rules do not
 * matter. */
static int check_rules(const struct cli_given *g, bool alone, char *err, size_t errlen)
{
	for (enum cli_opt id = CLI_OPT_NONE + 1; id < CLI_OPT_END; id++) {
		const struct cli_rule *rules = CLI_TABLE[id].rules;

		if (!g->arg[id])
			continue;
		for (size_t k = 0; k < CLI_RULES_MAX && rules[k].kind; k++)
			if ((rules[k].kind == CLI_RULE_ALONE) == alone && check_rule(id, &rules[k], g, err, errlen))
				return -1;
	}
	return 0;
}

/* Runs the checks of the options given that have one, in the table's order. */
static int check_values(const struct cli_given *g, const struct config *cfg, char *err, size_t errlen)
{
	for (enum cli_opt id = CLI_OPT_NONE + 1; id < CLI_OPT_END; id++) {
		const struct cli_option *o = &CLI_TABLE[id];

		if (g->arg[id] && o->check && o->check(o, g->arg[id], cfg, err, errlen))
			return -1;
	}
	return 0;
}

int cli_parse(int argc, char **argv, struct config *cfg, char *err, size_t errlen)
{
	struct option longs[CLI_OPT_END];
	char shorts[2 * CLI_OPT_END + 3];
	struct cli_given g;
	const char *last_arg = NULL;
	int c;

	memset(&g, 0, sizeof(g));
	config_defaults(cfg);
	getopt_tables(longs, shorts);
	opterr = 0;
	/* 0, not 1, because getopt then also forgets a group of short options
	 * it was inside, such as "-V" of an earlier call, so that cli_parse
	 * can be called again. */
	optind = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		enum cli_opt id = opt_of_val(c);
		const struct cli_option *o = &CLI_TABLE[id];

		if (id == CLI_OPT_NONE)
			return getopt_error(c, argv, err, errlen);
		if (o->parse(o, optarg, cfg, err, errlen) != 0)
			return -1;
		if (!g.arg[id])
			g.order[g.n++] = id;
		g.arg[id] = optarg ? optarg : "";
		last_arg = optarg;
		if (o->stops)
			return 0;
	}
	/* What follows "--" (not an option's argument) is --wait's command. */
	if (g.arg[CLI_OPT_WAIT] && optind > 0 && strcmp(argv[optind - 1], "--") == 0 && argv[optind - 1] != last_arg)
		cfg->pick.argv = optind < argc ? argv + optind : NULL;
	else if (optind < argc && g.arg[CLI_OPT_WAIT])
		return cli_table_error(err, errlen, "unexpected argument '%s' (--wait's command follows --: "
				       "gpur --wait N [OPTION]... -- CMD [ARG]...)", argv[optind]);
	else if (optind < argc)
		return cli_table_error(err, errlen, "unexpected argument '%s' (try --help)", argv[optind]);
	if (check_rules(&g, true, err, errlen) || check_rules(&g, false, err, errlen))
		return -1;
	return check_values(&g, cfg, err, errlen);
}

int cli_check_mode(const struct config *cfg, char *err, size_t errlen)
{
	/* --log alone records headless only when stdout is not a terminal. */
	if (cfg->interval_set && cfg->interval == 0 && cfg->mode == CLI_MODE_TUI)
		return cli_table_error(err, errlen, "--interval: 0 needs --headless, --json or --once");
	return 0;
}

enum cli_mode cli_resolve_mode(const struct config *cfg, bool stdout_is_tty)
{
	if (cfg->report_path || pick_wanted(&cfg->pick))
		return CLI_MODE_HEADLESS; /* no dashboard: a report, a choice of GPUs */
	if (cfg->mode != CLI_MODE_AUTO)
		return cfg->mode;
	if (stdout_is_tty)
		return CLI_MODE_TUI;
	return cfg->log_path || cfg->serve || cfg->on_event ? CLI_MODE_HEADLESS : CLI_MODE_ONCE;
}

/* Writes one option's lines of --help: its names and argument, then its text
 * from HELP_COLUMN on, or two spaces further when the names reach that
 * far. */
static void usage_option(FILE *out, const struct cli_option *o)
{
	char names[80];
	int n;

	if (o->short_name)
		n = snprintf(names, sizeof(names), "  -%c, --%s", o->short_name, o->name);
	else
		n = snprintf(names, sizeof(names), "      --%s", o->name);
	if (o->form)
		n += snprintf(names + n, sizeof(names) - (size_t)n, "%s", o->form);
	else if (o->metavar)
		n += snprintf(names + n, sizeof(names) - (size_t)n, " %s", o->metavar);
	fprintf(out, "%s%*s", names, n < HELP_COLUMN ? HELP_COLUMN - n : 2, "");
	for (const char *p = o->help; *p; p++) {
		fputc(*p, out);
		if (*p == '\n')
			fprintf(out, "%*s", HELP_COLUMN, "");
	}
	fputc('\n', out);
}

void cli_usage(FILE *out)
{
	fputs("Usage: gpur [OPTION]...\n"
	      "  or:  gpur --wait N [OPTION]... -- CMD [ARG]...\n"
	      "Monitor GPUs (NVIDIA via NVML; AMD and Intel via DRM), record and replay.\n"
	      "\n", out);
	for (enum cli_opt id = CLI_OPT_NONE + 1; id < CLI_OPT_END; id++)
		usage_option(out, &CLI_TABLE[id]);
	fputs("\n"
	      "Exit status: 0 success, 1 runtime failure, 2 usage error.\n"
	      "Environment: GPUR_NVML_LIBRARY, NODE_NAME, NO_COLOR.\n", out);
}

/* What the completion scripts say of o. */
static struct completions_option completion_of(const struct cli_option *o)
{
	struct completions_option c = {
		.name = o->name,
		.short_name = o->short_name,
		.arg = o->complete,
		.metavar = o->metavar,
		.dash = o->dash,
		.alone = o->stops, /* and below, this is for an option with an ALONE rule */
		.summary = o->summary,
	};

	for (size_t k = 0; k < CLI_RULES_MAX; k++)
		if (o->rules[k].kind == CLI_RULE_ALONE)
			c.alone = true;
	memcpy(c.words, o->words, sizeof(c.words));
	if (o->words_from)
		c.words[o->words_from(c.words, COMPLETIONS_MAX_WORDS)] = NULL;
	return c;
}

size_t cli_completion_options(struct completions_option *out, size_t max)
{
	size_t n = 0;

	for (enum cli_opt id = CLI_OPT_NONE + 1; id < CLI_OPT_END; id++, n++)
		if (n < max)
			out[n] = completion_of(&CLI_TABLE[id]);
	return n;
}
