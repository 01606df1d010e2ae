/* cli: the command line into a config, as the table of options in
 * cli_table.c describes it. Every check that needs no hardware happens here,
 * so usage errors exit 2 before anything starts. */
#ifndef GPUR_CLI_H
#define GPUR_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "completions.h"
#include "model/field.h"
#include "pick/pick.h"
#include "util/when.h"

/* What gpur does. --once, --json and --headless choose it while the command
 * line is read, and with none of them it stays CLI_MODE_AUTO until
 * cli_resolve_mode picks one. */
enum cli_mode {
	CLI_MODE_AUTO,      /* no mode option given */
	CLI_MODE_TUI,       /* the dashboard */
	CLI_MODE_ONCE,      /* one snapshot as a table (--once) */
	CLI_MODE_ONCE_JSON, /* one snapshot as one JSON line (--once --json) */
	CLI_MODE_JSON,      /* every poll as one JSON line on stdout, with no dashboard (--json) */
	CLI_MODE_HEADLESS,  /* poll, log and serve without a dashboard (--headless) */
};

struct config {
	double interval;        /* seconds, 0 for as fast as possible */
	bool interval_set;
	uint32_t backends;      /* bit i for BACKEND_REGISTRY[i], all when not given */
	const char *gpus;       /* raw --gpus list, parsed by gpusel */
	const char *log_path;
	const char *replay_path;
	const char *report_path; /* --report OUT, where "-" is stdout */
	/* Rotation and retention of --log, 0 when not given. */
	uint64_t log_max_size, log_max_age_ms, log_max_total;
	int log_zstd_level;
	unsigned log_keep;
	struct when from, to;   /* --from and --to, the span of a replay */
	double speed;
	uint64_t count;         /* 0 for no limit */
	const char *serve, *prometheus;
	const char *prometheus_match; /* --prometheus-match SELECTOR, or NULL */
	uint64_t idle_mem;      /* --idle-mem, bytes */
	uint64_t idle_after_ms; /* --idle-after */
	const char *web_config; /* --web-config FILE */
	bool health_auth;       /* --health-auth */
	bool serve_processes;   /* per-process series behind --serve, yes by default */
	enum field_names serve_names; /* --serve-names, legacy by default */
	const char *procfs, *sysfs;
	const char *rootfs;     /* the host's root, for container and pod names, "/" by default */
	bool read_only, no_color;
	const char *on_event;    /* --on-event CMD, or NULL */
	uint32_t on_event_kinds; /* --on-event-kinds as output/hook_kinds.h's bits, 0 when not given */
	bool no_gpm;            /* --no-gpm: NVML's GPM is never called */
	const char *hostname;   /* NULL for NODE_NAME, else gethostname */
	bool help, version;
	enum completions_shell completions; /* --completions SHELL, or COMPLETIONS_NONE when not given */
	struct pick_opts pick;  /* --select, --wait, their filters, and the command after "--" */
	enum cli_mode mode;     /* CLI_MODE_AUTO until cli_resolve_mode */
};

/* Parses argv into cfg. Returns 0, or -1 for a usage error, with a one-line
 * message without the "gpur: " prefix in err. argv strings are borrowed. */
int cli_parse(int argc, char **argv, struct config *cfg, char *err, size_t errlen);
/* The mode that runs. It is headless for --report, else the mode the options
 * chose, else the TUI on a terminal, else headless when --log, --serve or
 * --on-event is given, else --once. */
enum cli_mode cli_resolve_mode(const struct config *cfg, bool stdout_is_tty);
/* Checks what depends on the resolved mode, such as an interval of 0 in the
 * TUI. Returns 0, or -1 with a message in err. */
int cli_check_mode(const struct config *cfg, char *err, size_t errlen);
/* Whether mode takes one snapshot (--once, with or without --json). */
bool cli_mode_once(enum cli_mode mode);
/* Whether mode prints records as JSON lines on stdout (--json, with or
 * without --once). */
bool cli_mode_json(enum cli_mode mode);
/* Writes the --help text to out. */
void cli_usage(FILE *out);

/* Room for every option of the command line. */
#define CLI_OPTIONS_MAX 64
/* Fills out, which has room for max, with one entry per long option, in the
 * order of the table getopt_long parses and with each option's argument
 * kind. Returns the number of options; when that is more than max, only max
 * were written. The strings are static. */
size_t cli_completion_options(struct completions_option *out, size_t max);

#endif
