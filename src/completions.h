/* completions: the bash, zsh and fish completion scripts of gpur, written
 * from a table of its options, which cli_completion_options builds from the
 * same data getopt_long parses, so no option can be left out of them. */
#ifndef GPUR_COMPLETIONS_H
#define GPUR_COMPLETIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* The shells a script is written for; 0 means none (--completions not given). */
enum completions_shell {
	COMPLETIONS_NONE,
	COMPLETIONS_BASH,
	COMPLETIONS_ZSH,
	COMPLETIONS_FISH,
	COMPLETIONS_SHELL_END, /* after the last */
};

/* What an option's argument is, which decides what a shell offers for it. */
enum completions_arg {
	COMPLETIONS_ARG_NONE,  /* the option takes no argument */
	COMPLETIONS_ARG_TEXT,  /* a number, a name or an address, for which nothing is offered */
	COMPLETIONS_ARG_FILE,  /* a file name, narrowed to suffixes when there are any */
	COMPLETIONS_ARG_DIR,   /* a directory */
	COMPLETIONS_ARG_WORD,  /* one of words */
	COMPLETIONS_ARG_LIST,  /* words joined by commas */
};

#define COMPLETIONS_MAX_WORDS 8

struct completions_option {
	const char *name;      /* the long name without "--", of [a-z0-9-] */
	char short_name;       /* a letter or a digit, or 0 when there is none */
	enum completions_arg arg;
	const char *metavar;   /* the argument's name in --help ("SECONDS"), or NULL without one */
	/* For WORD and LIST, the words offered; for FILE, the suffixes a name
	 * may end in (".json"), where none means any file. NULL follows the
	 * last. Each word is made of [A-Za-z0-9._+-] only. */
	const char *words[COMPLETIONS_MAX_WORDS + 1];
	bool dash;             /* for FILE, "-" (standard output) is offered too */
	bool alone;            /* nothing else is offered after it (--help) */
	const char *summary;   /* one line for the shells that show one, or NULL for none */
};

/* The shell called name ("bash", "zsh", "fish"), or COMPLETIONS_NONE. */
enum completions_shell completions_shell_find(const char *name);
/* The name of shell as a static string, or NULL for COMPLETIONS_NONE. */
const char *completions_shell_name(enum completions_shell shell);
/* The shells' names in the order of the enum, for messages: "bash, zsh or fish". */
extern const char COMPLETIONS_SHELL_LIST[];

/* Appends the completion script of shell for the n options of opts to out.
 * Returns 0, or -EINVAL with a message in err, appending nothing, when an
 * option's name, short name or word holds a character the script could not
 * carry safely. Summaries may hold anything, because they are quoted for the
 * shell and control characters become spaces. */
int completions_write(struct buf *out, enum completions_shell shell, const struct completions_option *opts,
		      size_t n, char *err, size_t errlen);

#endif
