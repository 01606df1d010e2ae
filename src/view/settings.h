/* settings: the dashboard's persisted choices (sort column and direction,
 * visible columns, chart metric, grouping, the session line). They are kept
 * in $XDG_CONFIG_HOME/gpur/config, else $HOME/.config/gpur/config, as one
 * `key = value` per line with `#` comments. */
#ifndef GPUR_SETTINGS_H
#define GPUR_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "view/history.h"
#include "view/proctable.h"
#include "model/group.h"

/* Limits on what settings_load reads. */
#define SETTINGS_MAX_LINE 1024
#define SETTINGS_MAX_FILE (64 * 1024)

struct settings {
	enum proctable_col sort;
	bool reverse;     /* false for the column's natural order, numbers descending and text ascending */
	uint32_t columns; /* bit (1 << enum proctable_col) set when visible */
	enum history_metric chart;
	enum group_by group; /* how the process table is grouped (key g) */
	bool session;     /* whether each GPU's session peak and mean show (key S) */
};

/* The defaults: sort by GPU memory in its natural, descending order, with
 * every column visible, a utilisation chart, no grouping and no session
 * line. */
void settings_defaults(struct settings *s);

/* Sets s to the defaults, then applies the config file. A missing file is not
 * an error and returns 0. A broken file, with an unknown key, a bad value, a
 * line over SETTINGS_MAX_LINE bytes or more than SETTINGS_MAX_FILE bytes, or
 * one that is not a regular file, keeps the defaults for what could not be
 * read, applies the rest and returns -EINVAL. Other failures return -errno.
 * On an error err gets one line naming the file, and the line, of the first
 * problem. err may be NULL when errlen is 0. */
int settings_load(struct settings *s, char *err, size_t errlen);

/* Writes s to the config file atomically, through a temporary file in the
 * same directory, fsync and rename, with mode 0600. It creates the directory
 * (0700) and missing parents. Returns 0, or -errno with a line naming the
 * path in err. */
int settings_save(const struct settings *s, char *err, size_t errlen);

/* Writes the config file's path into buf and returns buf. Returns NULL when
 * neither an absolute XDG_CONFIG_HOME nor HOME is set, or the path does not
 * fit. */
const char *settings_path(char *buf, size_t n);

#endif
