/* completions: the bash, zsh and fish completion scripts of gpur, written
 * from a table of its options (cli_completion_options builds it from the
 * same data getopt_long parses), so no option can be left out of them. */
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
	COMPLETIONS_ARG_TEXT,  /* a number, a name or an address: nothing is offered */
	COMPLETIONS_ARG_FILE,  /* a file name, narrowed to suffixes when there are any */
	COMPLETIONS_ARG_DIR,   /* a directory */
	COMPLETIONS_ARG_WORD,  /* one of words */
	COMPLETIONS_ARG_LIST,  /* words joined by commas */
};

#define COMPLETIONS_MAX_WORDS 8

struct completions_option {
	const char *name;      /* the long name without "--": [a-z0-9-] */
	char short_name;       /* a letter or a digit; 0 when there is none */
	enum completions_arg arg;
	const char *metavar;   /* the argument's name in --help ("SECONDS"); NULL without one */
	/* WORD and LIST: the words offered; FILE: the suffixes a name may end
	 * in (".json"), none meaning any file. NULL after the last. Each word
	 * is made of [A-Za-z0-9._+-] only. */
	const char *words[COMPLETIONS_MAX_WORDS + 1];
	bool dash;             /* FILE: "-" (standard output) is offered too */
	bool alone;            /* nothing else is offered after it (--help) */
	const char *summary;   /* one line for the shells that show one; NULL: none */
};

/* The shell called name ("bash", "zsh", "fish"), or COMPLETIONS_NONE. */
enum completions_shell completions_shell_find(const char *name);
/* The name of shell (a static string); NULL for COMPLETIONS_NONE. */
const char *completions_shell_name(enum completions_shell shell);
/* The shells' names in the order of the enum, for messages: "bash, zsh or fish". */
extern const char COMPLETIONS_SHELL_LIST[];

/* Appends the completion script of shell for the n options of opts to out.
 * 0, or -EINVAL with a message in err when an option's name, short name or
 * word holds a character the script could not carry safely (nothing is
 * appended then). Summaries may hold anything: they are quoted for the
 * shell, and control characters become spaces. */
int completions_write(struct buf *out, enum completions_shell shell, const struct completions_option *opts,
		      size_t n, char *err, size_t errlen);

#endif
