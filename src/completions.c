/* completions: writes gpur's completion scripts for bash, zsh and fish from
 * a table of options. Names and words are checked against a safe character
 * set before anything is written; summaries are quoted for each shell. */
#include "completions.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PROG "gpur"

const char COMPLETIONS_SHELL_LIST[] = "bash, zsh or fish";

static const char *const SHELL_NAMES[COMPLETIONS_SHELL_END] = {
	[COMPLETIONS_BASH] = "bash",
	[COMPLETIONS_ZSH] = "zsh",
	[COMPLETIONS_FISH] = "fish",
};

enum completions_shell completions_shell_find(const char *name)
{
	for (int i = COMPLETIONS_BASH; i < COMPLETIONS_SHELL_END; i++)
		if (strcmp(name, SHELL_NAMES[i]) == 0)
			return (enum completions_shell)i;
	return COMPLETIONS_NONE;
}

const char *completions_shell_name(enum completions_shell shell)
{
	return shell > COMPLETIONS_NONE && shell < COMPLETIONS_SHELL_END ? SHELL_NAMES[shell] : NULL;
}

__attribute__((format(printf, 3, 4))) static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool all_of(const char *s, const char *set)
{
	return *s && s[strspn(s, set)] == '\0';
}

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define DIGIT "0123456789"

/* Every name, short name, metavar and word lands in the scripts unquoted, in
 * case patterns, compgen's word list, zsh's specs and fish's arguments, so
 * only characters that mean nothing to any of the three shells pass. */
static int check_options(const struct completions_option *opts, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const struct completions_option *o = &opts[i];

		if (!o->name || !all_of(o->name, LOWER DIGIT "-") || o->name[0] == '-')
			return bad(err, errlen, "completions: option %zu: the name must be made of a-z, 0-9 and -", i);
		if (o->short_name && !strchr(LOWER UPPER DIGIT, o->short_name))
			return bad(err, errlen, "completions: --%s: the short name must be a letter or a digit", o->name);
		if (o->arg != COMPLETIONS_ARG_NONE && o->metavar && !all_of(o->metavar, UPPER DIGIT "_-"))
			return bad(err, errlen, "completions: --%s: the argument's name must be made of A-Z, 0-9, _ and -",
				   o->name);
		for (size_t w = 0; w < COMPLETIONS_MAX_WORDS && o->words[w]; w++) {
			if (!all_of(o->words[w], LOWER UPPER DIGIT "._+-") || o->words[w][0] == '-')
				return bad(err, errlen, "completions: --%s: the word '%.40s' must be made of A-Z, a-z, "
					   "0-9, '.', '_', '+' and '-' (not first)", o->name, o->words[w]);
		}
		for (size_t w = 0; o->arg == COMPLETIONS_ARG_FILE && w < COMPLETIONS_MAX_WORDS && o->words[w]; w++) {
			if (o->words[w][0] != '.' || !o->words[w][1])
				return bad(err, errlen, "completions: --%s: the suffix '%s' must be '.' and a name",
					   o->name, o->words[w]);
		}
		if ((o->arg == COMPLETIONS_ARG_WORD || o->arg == COMPLETIONS_ARG_LIST) && !o->words[0])
			return bad(err, errlen, "completions: --%s: a word or list argument needs words", o->name);
	}
	return 0;
}

/* The summary with control characters as spaces, or "" when there is none. */
static const char *plain_summary(const struct completions_option *o, char *tmp, size_t len)
{
	size_t i = 0;

	if (!o->summary)
		return "";
	for (; o->summary[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)o->summary[i];
		tmp[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	tmp[i] = '\0';
	return tmp;
}

/* Writes s in POSIX single quotes for bash and zsh, with each ' written as
 * '\''. */
static void put_squoted(struct buf *out, const char *s)
{
	buf_putc(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(out, "'\\''");
		else
			buf_putc(out, *s);
	}
	buf_putc(out, '\'');
}

/* Writes s in fish's single quotes, where \ and ' are the two escapes. */
static void put_fish_quoted(struct buf *out, const char *s)
{
	buf_putc(out, '\'');
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			buf_putc(out, '\\');
		buf_putc(out, *s);
	}
	buf_putc(out, '\'');
}

/* Writes the words of o joined by sep. */
static void put_words(struct buf *out, const struct completions_option *o, const char *sep)
{
	for (size_t w = 0; w < COMPLETIONS_MAX_WORDS && o->words[w]; w++) {
		if (w)
			buf_puts(out, sep);
		buf_puts(out, o->words[w]);
	}
}

static void put_bash_pattern(struct buf *out, const struct completions_option *o)
{
	if (o->short_name)
		buf_printf(out, "-%c|", o->short_name);
	buf_printf(out, "--%s", o->name);
}

/* Writes the bash script up to the case of the option whose argument is
 * being completed: its header, its helpers and the start of _gpur. */
static const char BASH_HEAD[] =
	"# bash completion for " PROG ", written by '" PROG " --completions bash'.\n"
	"# Load it with: source <(" PROG " --completions bash)\n"
	"\n"
	"# _gpur_words PREFIX WORD SEPARATOR WORDS: the replies are the WORDS that\n"
	"# complete WORD, each after PREFIX; with a SEPARATOR, WORD is a list:\n"
	"# its last item is completed, with the WORDS it does not hold yet.\n"
	"_gpur_words()\n"
	"{\n"
	"\tlocal pre=$1 cur=$2 sep=$3 words=$4 have w\n"
	"\tif [[ -n $sep && $cur == *\"$sep\"* ]]; then\n"
	"\t\thave=${cur%\"$sep\"*}\n"
	"\t\tpre+=$have$sep\n"
	"\t\tcur=${cur##*\"$sep\"}\n"
	"\t\twords=\n"
	"\t\tfor w in $4; do\n"
	"\t\t\t[[ $sep$have$sep == *\"$sep$w$sep\"* ]] || words+=\" $w\"\n"
	"\t\tdone\n"
	"\tfi\n"
	"\tmapfile -t COMPREPLY < <(compgen -W \"$words\" -P \"$pre\" -- \"$cur\")\n"
	"}\n"
	"\n"
	"# _gpur_files PREFIX WORD DASH [SUFFIX]...: the files (with SUFFIXes, the\n"
	"# directories and the files ending in one) that complete WORD, and \"-\"\n"
	"# when DASH is 1.\n"
	"_gpur_files()\n"
	"{\n"
	"\tlocal pre=$1 cur=$2 dash=$3 s\n"
	"\tshift 3\n"
	"\tmapfile -t COMPREPLY < <(\n"
	"\t\tif (($# == 0)); then\n"
	"\t\t\tcompgen -f -P \"$pre\" -- \"$cur\"\n"
	"\t\telse\n"
	"\t\t\tcompgen -d -P \"$pre\" -- \"$cur\"\n"
	"\t\t\tfor s; do compgen -f -X \"!*$s\" -P \"$pre\" -- \"$cur\"; done\n"
	"\t\tfi\n"
	"\t\tif [[ $dash == 1 && - == \"$cur\"* ]]; then printf '%s\\n' \"$pre-\"; fi\n"
	"\t)\n"
	"}\n"
	"\n"
	"_gpur()\n"
	"{\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= opt= pre= split=\n"
	"\tif ((COMP_CWORD > 0)); then prev=${COMP_WORDS[COMP_CWORD - 1]}; fi\n"
	"\tCOMPREPLY=()\n"
	"\t# The option whose argument is being completed: \"--opt ARG\", \"--opt=ARG\"\n"
	"\t# split into three words at '=' (COMP_WORDBREAKS holds it by default),\n"
	"\t# or \"--opt=ARG\" as one word, whose replies keep the \"--opt=\".\n"
	"\tif [[ $cur == = ]]; then\n"
	"\t\topt=$prev cur= split=1\n"
	"\telif [[ $prev == = ]] && ((COMP_CWORD > 1)); then\n"
	"\t\topt=${COMP_WORDS[COMP_CWORD - 2]} split=1\n"
	"\telif [[ $cur == --*=* ]]; then\n"
	"\t\topt=${cur%%=*} pre=${cur%%=*}= cur=${cur#*=} split=1\n"
	"\telse\n"
	"\t\topt=$prev\n"
	"\tfi\n"
	"\tcase $opt in\n";

/* Writes the case of o, an option whose argument bash completes from words,
 * files or directories. */
static void put_bash_case(struct buf *out, const struct completions_option *o)
{
	buf_puts(out, "\t");
	put_bash_pattern(out, o);
	buf_puts(out, ")\n");
	switch (o->arg) {
	case COMPLETIONS_ARG_WORD:
	case COMPLETIONS_ARG_LIST:
		/* A list's item is followed by a ',' or by the end of the word. */
		if (o->arg == COMPLETIONS_ARG_LIST)
			buf_puts(out, "\t\tcompopt -o nospace 2> /dev/null\n");
		buf_printf(out, "\t\t_gpur_words \"$pre\" \"$cur\" '%s' '", o->arg == COMPLETIONS_ARG_LIST ? "," : "");
		put_words(out, o, " ");
		buf_puts(out, "'\n");
		break;
	case COMPLETIONS_ARG_FILE:
		buf_puts(out, "\t\tcompopt -o filenames 2> /dev/null\n");
		buf_printf(out, "\t\t_gpur_files \"$pre\" \"$cur\" %d", o->dash ? 1 : 0);
		if (o->words[0])
			buf_puts(out, " ");
		put_words(out, o, " ");
		buf_puts(out, "\n");
		break;
	case COMPLETIONS_ARG_DIR:
		buf_puts(out, "\t\tcompopt -o filenames 2> /dev/null\n"
			      "\t\tmapfile -t COMPREPLY < <(compgen -d -P \"$pre\" -- \"$cur\")\n");
		break;
	case COMPLETIONS_ARG_NONE:
	case COMPLETIONS_ARG_TEXT:
		break;
	}
	buf_puts(out, "\t\treturn 0;;\n");
}

static void write_bash(struct buf *out, const struct completions_option *opts, size_t n)
{
	bool any = false;

	buf_puts(out, BASH_HEAD);
	for (size_t i = 0; i < n; i++)
		if (opts[i].arg != COMPLETIONS_ARG_NONE && opts[i].arg != COMPLETIONS_ARG_TEXT)
			put_bash_case(out, &opts[i]);
	/* The rest take a number, a name or an address, so nothing is
	 * offered. */
	for (size_t i = 0; i < n; i++) {
		if (opts[i].arg != COMPLETIONS_ARG_TEXT)
			continue;
		buf_puts(out, any ? "|" : "\t");
		put_bash_pattern(out, &opts[i]);
		any = true;
	}
	if (any)
		buf_puts(out, ")\n"
			      "\t\treturn 0;;\n");
	buf_puts(out,
		 "\tesac\n"
		 "\t# An option that takes no argument was given one: nothing to offer.\n"
		 "\tif [[ -n $split ]]; then return 0; fi\n"
		 "\t_gpur_words '' \"$cur\" '' '");
	for (size_t i = 0; i < n; i++)
		buf_printf(out, "%s--%s", i ? " " : "", opts[i].name);
	for (size_t i = 0; i < n; i++)
		if (opts[i].short_name)
			buf_printf(out, " -%c", opts[i].short_name);
	buf_puts(out, "'\n"
		      "}\n"
		      "\n"
		      "complete -F _gpur " PROG "\n");
}

/* Writes the name of zsh's helper for o's argument, "_gpur_arg_" and the name
 * with '-' as '_'. */
static void put_zsh_helper_name(struct buf *out, const struct completions_option *o)
{
	buf_puts(out, "_gpur_arg_");
	for (const char *p = o->name; *p; p++)
		buf_putc(out, *p == '-' ? '_' : *p);
}

static bool zsh_needs_helper(const struct completions_option *o)
{
	return o->arg == COMPLETIONS_ARG_LIST || (o->arg == COMPLETIONS_ARG_FILE && (o->words[0] || o->dash));
}

static void write_zsh_helper(struct buf *out, const struct completions_option *o)
{
	put_zsh_helper_name(out, o);
	buf_puts(out, "() {\n\t");
	if (o->arg == COMPLETIONS_ARG_LIST) {
		buf_printf(out, "_values -s , %s ", o->metavar ? o->metavar : "value");
		put_words(out, o, " ");
		buf_puts(out, "\n}\n\n");
		return;
	}
	/* For a FILE with suffixes, "-" or both, the pattern is
	 * "*.(html|json)", or "*.json" for one suffix. */
	if (o->dash)
		buf_puts(out, "_alternative 'files:file:_files");
	else
		buf_puts(out, "_files");
	if (o->words[0]) {
		bool several = o->words[1] != NULL;
		buf_printf(out, " -g %s*.%s", o->dash ? "\"" : "'", several ? "(" : "");
		for (size_t w = 0; w < COMPLETIONS_MAX_WORDS && o->words[w]; w++)
			buf_printf(out, "%s%s", w ? "|" : "", o->words[w] + 1);
		buf_printf(out, "%s%s", several ? ")" : "", o->dash ? "\"" : "'");
	}
	if (o->dash)
		buf_puts(out, "' 'stdout:standard output:(-)'");
	buf_puts(out, "\n}\n\n");
}

/* Appends s with \ and each character of special preceded by \. */
static void put_backslashed(struct buf *out, const char *s, const char *special)
{
	for (; *s; s++) {
		if (*s == '\\' || strchr(special, *s))
			buf_putc(out, '\\');
		buf_putc(out, *s);
	}
}

/* Writes one _arguments spec, (exclusions)-x+[summary]:METAVAR:action,
 * single-quoted. */
static void put_zsh_spec(struct buf *out, const struct completions_option *o, bool as_short, const char *summary)
{
	struct buf spec;

	buf_init(&spec);
	if (o->alone)
		buf_puts(&spec, "(- *)");
	else if (o->short_name)
		buf_printf(&spec, "(-%c --%s)", o->short_name, o->name);
	if (as_short)
		buf_printf(&spec, "-%c%s", o->short_name, o->arg == COMPLETIONS_ARG_NONE ? "" : "+");
	else
		buf_printf(&spec, "--%s%s", o->name, o->arg == COMPLETIONS_ARG_NONE ? "" : "=");
	if (*summary) {
		buf_putc(&spec, '[');
		put_backslashed(&spec, summary, "[]:");
		buf_putc(&spec, ']');
	}
	if (o->arg != COMPLETIONS_ARG_NONE) {
		buf_printf(&spec, ":%s:", o->metavar ? o->metavar : "value");
		switch (o->arg) {
		case COMPLETIONS_ARG_WORD:
			buf_putc(&spec, '(');
			put_words(&spec, o, " ");
			buf_putc(&spec, ')');
			break;
		case COMPLETIONS_ARG_DIR:
			buf_puts(&spec, "_files -/");
			break;
		case COMPLETIONS_ARG_FILE:
		case COMPLETIONS_ARG_LIST:
			if (zsh_needs_helper(o))
				put_zsh_helper_name(&spec, o);
			else
				buf_puts(&spec, "_files");
			break;
		case COMPLETIONS_ARG_TEXT:
		case COMPLETIONS_ARG_NONE:
			/* With a single space, the argument's name is shown and nothing is
			 * offered. */
			buf_putc(&spec, ' ');
			break;
		}
	}
	buf_puts(out, " \\\n\t\t");
	put_squoted(out, buf_cstr(&spec));
	buf_fini(&spec);
}

static void write_zsh(struct buf *out, const struct completions_option *opts, size_t n)
{
	char tmp[512];

	buf_puts(out,
		 "#compdef " PROG "\n"
		 "# zsh completion for " PROG ", written by '" PROG " --completions zsh'.\n"
		 "# Put it in a directory of $fpath as _" PROG ", or load it after compinit\n"
		 "# with: source <(" PROG " --completions zsh)\n"
		 "\n");
	for (size_t i = 0; i < n; i++)
		if (zsh_needs_helper(&opts[i]))
			write_zsh_helper(out, &opts[i]);
	buf_puts(out, "_gpur() {\n"
		      "\t_arguments -s :");
	for (size_t i = 0; i < n; i++) {
		const char *summary = plain_summary(&opts[i], tmp, sizeof(tmp));
		if (opts[i].short_name)
			put_zsh_spec(out, &opts[i], true, summary);
		put_zsh_spec(out, &opts[i], false, summary);
	}
	buf_puts(out,
		 "\n"
		 "}\n"
		 "\n"
		 "# Autoloaded from $fpath, this file is the body of _gpur: complete now.\n"
		 "# Sourced, it registers _gpur for " PROG ".\n"
		 "if [[ ${funcstack[1]-} == _gpur ]]; then\n"
		 "\t_gpur \"$@\"\n"
		 "elif (( $+functions[compdef] )); then\n"
		 "\tcompdef _gpur " PROG "\n"
		 "else\n"
		 "\tprint -u2 '" PROG ": run compinit before loading these completions'\n"
		 "fi\n");
}

/* The fish script before its options: its header, its helpers, and the
 * lines that erase gpur's old completions and turn file completion off. */
static const char FISH_HEAD[] =
	"# fish completion for " PROG ", written by '" PROG " --completions fish'.\n"
	"# Put it in ~/.config/fish/completions/" PROG ".fish, or load it with:\n"
	"# " PROG " --completions fish | source\n"
	"\n"
	"# The token being completed, without a leading --option=.\n"
	"function __gpur_token\n"
	"\tcommandline -ct | string replace -r -- '^--[a-z0-9-]+=' ''\n"
	"end\n"
	"\n"
	"# __gpur_list WORD...: the words the token does not list yet, each after\n"
	"# the items it lists.\n"
	"function __gpur_list\n"
	"\tset -l tok (__gpur_token)\n"
	"\tset -l pre ''\n"
	"\tset -l have\n"
	"\tif string match -q -- '*,*' \"$tok\"\n"
	"\t\tset pre (string replace -r -- '[^,]*$' '' \"$tok\")\n"
	"\t\tset have (string split , -- $pre)\n"
	"\tend\n"
	"\tfor w in $argv\n"
	"\t\tcontains -- $w $have; or printf '%s\\n' $pre$w\n"
	"\tend\n"
	"end\n"
	"\n"
	"# __gpur_files DASH SUFFIX...: the directories and the files ending in a\n"
	"# SUFFIX that complete the token, and \"-\" when DASH is 1.\n"
	"function __gpur_files\n"
	"\tset -l tok (__gpur_token)\n"
	"\tif test \"$argv[1]\" = 1\n"
	"\t\tprintf '%s\\t%s\\n' - 'standard output'\n"
	"\tend\n"
	"\tfor f in (complete -C\"__gpur_no_such_command $tok\" | string split -f1 \\t)\n"
	"\t\tif test (count $argv) -lt 2\n"
	"\t\t\tprintf '%s\\n' $f\n"
	"\t\tend\n"
	"\t\tfor s in $argv[2..-1]\n"
	"\t\t\tif string match -q -- '*/' $f; or string match -q -- \"*$s\" $f\n"
	"\t\t\t\tprintf '%s\\n' $f\n"
	"\t\t\t\tbreak\n"
	"\t\t\tend\n"
	"\t\tend\n"
	"\tend\n"
	"end\n"
	"\n"
	"complete -c " PROG " -e\n"
	"complete -c " PROG " -f\n";

/* Writes the complete line of o, with summary, or none when summary is "". */
static void put_fish_option(struct buf *out, const struct completions_option *o, const char *summary)
{
	buf_puts(out, "complete -c " PROG);
	if (o->short_name)
		buf_printf(out, " -s %c", o->short_name);
	buf_printf(out, " -l %s", o->name);
	switch (o->arg) {
	case COMPLETIONS_ARG_NONE:
		break;
	case COMPLETIONS_ARG_TEXT:
		buf_puts(out, " -x");
		break;
	case COMPLETIONS_ARG_FILE:
		if (o->words[0] || o->dash) {
			buf_printf(out, " -x -a '(__gpur_files %d", o->dash ? 1 : 0);
			if (o->words[0])
				buf_puts(out, " ");
			put_words(out, o, " ");
			buf_puts(out, ")'");
		} else {
			buf_puts(out, " -r -F");
		}
		break;
	case COMPLETIONS_ARG_DIR:
		buf_puts(out, " -x -a '(__fish_complete_directories (__gpur_token))'");
		break;
	case COMPLETIONS_ARG_WORD:
		buf_puts(out, " -x -a '");
		put_words(out, o, " ");
		buf_puts(out, "'");
		break;
	case COMPLETIONS_ARG_LIST:
		buf_puts(out, " -x -a '(__gpur_list ");
		put_words(out, o, " ");
		buf_puts(out, ")'");
		break;
	}
	if (*summary) {
		buf_puts(out, " -d ");
		put_fish_quoted(out, summary);
	}
	buf_puts(out, "\n");
}

static void write_fish(struct buf *out, const struct completions_option *opts, size_t n)
{
	char tmp[512];

	buf_puts(out, FISH_HEAD);
	for (size_t i = 0; i < n; i++)
		put_fish_option(out, &opts[i], plain_summary(&opts[i], tmp, sizeof(tmp)));
}

int completions_write(struct buf *out, enum completions_shell shell, const struct completions_option *opts,
		      size_t n, char *err, size_t errlen)
{
	int rc = check_options(opts, n, err, errlen);

	if (rc)
		return rc;
	switch (shell) {
	case COMPLETIONS_BASH:
		write_bash(out, opts, n);
		return 0;
	case COMPLETIONS_ZSH:
		write_zsh(out, opts, n);
		return 0;
	case COMPLETIONS_FISH:
		write_fish(out, opts, n);
		return 0;
	case COMPLETIONS_NONE:
	case COMPLETIONS_SHELL_END:
		break;
	}
	return bad(err, errlen, "completions: no such shell%s", "");
}
