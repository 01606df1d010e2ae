/* cli_args: the parsers that the rows of cli_table.c name (struct
 * cli_option's parse, check and words_from): each reads an option's
 * argument whole into its member of struct config, or says in err why it
 * cannot, naming the option. */
#ifndef GPUR_CLI_ARGS_H
#define GPUR_CLI_ARGS_H

#include <stddef.h>

#include "cli_table.h"

/* Parsers: read arg into the member of cfg that o names. Each returns 0,
 * or -1 with a one-line message in err. */
int cli_arg_addr(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_backends(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_decimal(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_dir(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_duration(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_flag(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_hook_kinds(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_hostname(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_mode(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_names(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_pick_duration(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_pick_format(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_pick_pct(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_pick_size(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_report(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_seconds(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_selector(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_shell(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_size(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_text(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_time(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_url(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_whole(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);
int cli_arg_yes_no(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen);

/* Checks made once every option is read (struct cli_option's check). */
int cli_check_command(const struct cli_option *o, const char *arg, const struct config *cfg, char *err, size_t errlen);
int cli_check_interval(const struct cli_option *o, const char *arg, const struct config *cfg, char *err, size_t errlen);
int cli_check_span(const struct cli_option *o, const char *arg, const struct config *cfg, char *err, size_t errlen);

/* The words a shell completes for an argument, from another table
 * (struct cli_option's words_from). */
size_t cli_backend_words(const char **out, size_t max);
size_t cli_names_words(const char **out, size_t max);
size_t cli_shell_words(const char **out, size_t max);

#endif
