/* cli_table: one row per command-line option. A row says the option's
 * names, whether it takes an argument, where its value lands in struct
 * config and which parser reads it, its help and completion data, and the
 * options it needs or cannot go with. cli.c makes getopt_long's tables,
 * --help, the checks and the completion scripts' data from this table, and
 * a test holds the man page's OPTIONS section to it. */
#ifndef GPUR_CLI_TABLE_H
#define GPUR_CLI_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "completions.h"

/* The options, in the order of --help, the completion scripts and the man
 * page. CLI_OPT_NONE is no option, and it ends a rule's list of others. */
enum cli_opt {
	CLI_OPT_NONE,
	CLI_OPT_INTERVAL,
	CLI_OPT_BACKEND,
	CLI_OPT_GPUS,
	CLI_OPT_LOG,
	CLI_OPT_LOG_MAX_SIZE,
	CLI_OPT_LOG_MAX_AGE,
	CLI_OPT_LOG_ZSTD_LEVEL,
	CLI_OPT_LOG_KEEP,
	CLI_OPT_LOG_MAX_TOTAL,
	CLI_OPT_REPLAY,
	CLI_OPT_FROM,
	CLI_OPT_TO,
	CLI_OPT_REPORT,
	CLI_OPT_SPEED,
	CLI_OPT_ONCE,
	CLI_OPT_JSON,
	CLI_OPT_COUNT,
	CLI_OPT_HEADLESS,
	CLI_OPT_SERVE,
	CLI_OPT_SERVE_PROCESSES,
	CLI_OPT_SERVE_NAMES,
	CLI_OPT_WEB_CONFIG,
	CLI_OPT_HEALTH_AUTH,
	CLI_OPT_PROMETHEUS,
	CLI_OPT_PROMETHEUS_MATCH,
	CLI_OPT_SELECT,
	CLI_OPT_WAIT,
	CLI_OPT_MIN_FREE,
	CLI_OPT_MAX_UTIL,
	CLI_OPT_STABLE,
	CLI_OPT_SHARED,
	CLI_OPT_SELECT_FORMAT,
	CLI_OPT_LOCK,
	CLI_OPT_TIMEOUT,
	CLI_OPT_PROCFS,
	CLI_OPT_SYSFS,
	CLI_OPT_ROOTFS,
	CLI_OPT_NO_GPM,
	CLI_OPT_IDLE_MEM,
	CLI_OPT_IDLE_AFTER,
	CLI_OPT_READ_ONLY,
	CLI_OPT_ON_EVENT,
	CLI_OPT_ON_EVENT_KINDS,
	CLI_OPT_HOSTNAME,
	CLI_OPT_NO_COLOR,
	CLI_OPT_HELP,
	CLI_OPT_VERSION,
	CLI_OPT_COMPLETIONS,
	CLI_OPT_END, /* after the last */
};

/* How one option relates to others; the message of each kind, for an
 * option --a and the others --b, --c, is given beside it. */
enum cli_rule_kind {
	CLI_RULE_NONE,     /* no rule, which ends a row's list of rules */
	CLI_RULE_NEEDS,    /* "--a needs --b[ METAVAR][ or --c][ (why)]" unless one of the others is given */
	CLI_RULE_EXCLUDES, /* "--a cannot be combined with --b (why)", naming the first of the others given */
	CLI_RULE_CLASHES,  /* "--a and --b conflict[ (why)]", the same in other words */
	CLI_RULE_ALONE,    /* "--a cannot be combined with --b (why)", where --b is the first
			    * other option on the command line, whichever it is */
};

#define CLI_RULE_OTHERS 6
#define CLI_RULES_MAX 3

struct cli_rule {
	enum cli_rule_kind kind;
	enum cli_opt others[CLI_RULE_OTHERS]; /* CLI_OPT_NONE after the last */
	bool metavar;    /* for NEEDS, each other's metavar follows its name */
	const char *why; /* the reason in parentheses, or NULL for none */
};

struct cli_option {
	const char *name;  /* the long name without "--" */
	char short_name;   /* 0 when there is none */
	bool takes_arg;    /* required_argument for getopt_long, or else no_argument */
	const char *metavar; /* the argument's name in --help ("SECONDS"), or NULL without one */
	/* Shown after the name instead of " METAVAR" in --help and the man
	 * page ("=no" for --serve-processes=no); NULL for the metavar. */
	const char *form;
	const char *help;    /* --help's text, lines joined by '\n' */
	const char *summary; /* one line that shells show beside the option */

	/* Reads arg, NULL for an option without argument, into the member of
	 * cfg at offset, of size bytes. Returns 0, or -1 with a one-line
	 * message in err. */
	int (*parse)(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
	/* When set, checks once every option has been read what depends on
	 * other options: an interval of 0 needs a mode, and --from must not
	 * be after --to. arg is the option's last argument. Returns 0, or -1
	 * with a message in err. */
	int (*check)(const struct cli_option *o, const char *arg, const struct config *cfg, char *err,
		     size_t errlen);
	size_t offset, size;
	/* The end of the message for a bad argument, "--NAME: 'ARG' is not
	 * WHAT", where a number's range follows WHAT ("from 1 to 19", ">= 1").
	 * For a text that must not be empty, it is the message for an empty
	 * one. */
	const char *what;
	double min, max;     /* a number's range, with no maximum when max is 0 */
	enum cli_mode mode;  /* for --once, --json and --headless, the mode the option adds */
	bool stops;          /* parsing ends at this option (--help, --version) */

	/* Completion: what a shell offers for the argument. */
	enum completions_arg complete;
	const char *words[COMPLETIONS_MAX_WORDS + 1]; /* see struct completions_option */
	/* When set, writes the words instead, up to max, from another table
	 * such as the backends' names, and returns how many. */
	size_t (*words_from)(const char **out, size_t max);
	bool dash; /* a FILE argument may also be "-", standard output */

	struct cli_rule rules[CLI_RULES_MAX]; /* CLI_RULE_NONE after the last */
};

/* The rows, indexed by enum cli_opt; row CLI_OPT_NONE is empty. */
extern const struct cli_option CLI_TABLE[CLI_OPT_END];

/* Writes a usage message, formatted as printf does and without the "gpur: "
 * prefix, into err, and returns -1. */
__attribute__((format(printf, 3, 4))) int cli_table_error(char *err, size_t errlen, const char *fmt, ...);

#endif
