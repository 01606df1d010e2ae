/* cli_table: the table of gpur's command-line options, one row each; the
 * parsers its rows name are in cli_args.c. */
#include "cli_table.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "cli_args.h"
#include "output/hook_kinds.h"

int cli_table_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Where an option's value lands: the member's offset and size. */
#define FIELD(member) .offset = offsetof(struct config, member), .size = sizeof(((struct config *)NULL)->member)
/* The first rule of every --log-* option but --log itself. */
#define NEEDS_LOG {CLI_RULE_NEEDS, {CLI_OPT_LOG}, .metavar = true}
/* The retention options keep closed segments, so rotation must make them. */
#define NEEDS_ROTATION {CLI_RULE_NEEDS, {CLI_OPT_LOG_MAX_SIZE, CLI_OPT_LOG_MAX_AGE}, .why = "segments to keep"}
#define NO_HARDWARE "a replay reads no hardware"
#define ONLY_SOURCE "it is the only source"
#define SPAN "it selects a span of a recording"
/* The filters of --select and --wait. */
#define NEEDS_PICK {CLI_RULE_NEEDS, {CLI_OPT_SELECT, CLI_OPT_WAIT}, .metavar = true, .why = "it filters their choice"}
#define NEEDS_WAIT(reason) {CLI_RULE_NEEDS, {CLI_OPT_WAIT}, .metavar = true, .why = reason}
/* The modes that --select and --wait are instead of. */
#define PICK_MODES CLI_OPT_ONCE, CLI_OPT_JSON, CLI_OPT_HEADLESS, CLI_OPT_LOG, CLI_OPT_SERVE, CLI_OPT_COUNT

const struct cli_option CLI_TABLE[CLI_OPT_END] = {
	[CLI_OPT_INTERVAL] = {
		.name = "interval", .short_name = 'd', .takes_arg = true, .metavar = "SECONDS",
		.help = "time between polls (default 1; minimum 0.05;\n"
			"0 = as fast as possible, with --headless/--json/--once)",
		.summary = "time between polls",
		.parse = cli_arg_seconds, .check = cli_check_interval, FIELD(interval),
		.what = "a number of seconds", .min = 0.05, .max = 86400,
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_BACKEND] = {
		.name = "backend", .takes_arg = true, .metavar = "LIST",
		.help = "live backends to try: nvml,amdgpu,intel,drm (default all)",
		.summary = "live backends to try",
		.parse = cli_arg_backends, FIELD(backends),
		.complete = COMPLETIONS_ARG_LIST, .words_from = cli_backend_words,
	},
	[CLI_OPT_GPUS] = {
		.name = "gpus", .takes_arg = true, .metavar = "LIST",
		.help = "only these GPUs: indices, UUIDs or PCI bus ids",
		.summary = "only these GPUs: indices, UUIDs or PCI bus ids",
		.parse = cli_arg_text, FIELD(gpus), .what = "empty list",
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_LOG] = {
		.name = "log", .takes_arg = true, .metavar = "FILE",
		.help = "append every poll to FILE as one JSON line",
		.summary = "append every poll to FILE as one JSON line",
		.parse = cli_arg_text, FIELD(log_path), .what = "empty file name",
		.complete = COMPLETIONS_ARG_FILE,
	},
	[CLI_OPT_LOG_MAX_SIZE] = {
		.name = "log-max-size", .takes_arg = true, .metavar = "SIZE",
		.help = "rotate FILE into FILE.<UTC start>.zst segments when it would\n"
			"pass SIZE (K, M, G = KiB, MiB, GiB)",
		.summary = "rotate the log when it would pass SIZE",
		.parse = cli_arg_size, FIELD(log_max_size), .min = 4096,
		.what = "a size (a whole number of bytes > 0, or with K, M, G)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_LOG},
	},
	[CLI_OPT_LOG_MAX_AGE] = {
		.name = "log-max-age", .takes_arg = true, .metavar = "DURATION",
		.help = "rotate when its first record is DURATION old (s, m, h, d)",
		.summary = "rotate the log when its first record is DURATION old",
		.parse = cli_arg_duration, FIELD(log_max_age_ms),
		.what = "a duration (a whole number > 0 with s, m, h or d)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_LOG},
	},
	[CLI_OPT_LOG_ZSTD_LEVEL] = {
		.name = "log-zstd-level", .takes_arg = true, .metavar = "N",
		.help = "zstd level of the segments, 1 to 19 (default 3)",
		.summary = "zstd level of the log's segments, 1 to 19",
		.parse = cli_arg_whole, FIELD(log_zstd_level), .what = "a level", .min = 1, .max = 19,
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_LOG, NEEDS_ROTATION},
	},
	[CLI_OPT_LOG_KEEP] = {
		.name = "log-keep", .takes_arg = true, .metavar = "N",
		.help = "keep the newest N closed segments",
		.summary = "keep the newest N closed segments",
		.parse = cli_arg_whole, FIELD(log_keep), .what = "a number of segments", .min = 1, .max = 1000000,
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_LOG, NEEDS_ROTATION},
	},
	[CLI_OPT_LOG_MAX_TOTAL] = {
		.name = "log-max-total", .takes_arg = true, .metavar = "SIZE",
		.help = "delete the oldest closed segments while they take more",
		.summary = "delete the oldest segments while they take more",
		.parse = cli_arg_size, FIELD(log_max_total),
		.what = "a size (a whole number of bytes > 0, or with K, M, G)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_LOG, NEEDS_ROTATION},
	},
	[CLI_OPT_REPLAY] = {
		.name = "replay", .takes_arg = true, .metavar = "PATH",
		.help = "play a recording back instead of reading hardware: a file\n"
			"(plain, zstd or gzip), a rotated set (FILE) or a directory",
		.summary = "play a recording back: a file, a rotated set or a directory",
		.parse = cli_arg_text, FIELD(replay_path), .what = "empty file name",
		.complete = COMPLETIONS_ARG_FILE,
		.rules = {{CLI_RULE_EXCLUDES, {CLI_OPT_BACKEND, CLI_OPT_PROCFS, CLI_OPT_SYSFS, CLI_OPT_ROOTFS, CLI_OPT_NO_GPM},
			   .why = NO_HARDWARE}},
	},
	[CLI_OPT_FROM] = {
		.name = "from", .takes_arg = true, .metavar = "TIME",
		.help = "the start of a replay: epoch ms, RFC 3339, or HH:MM[:SS]\n"
			"on the recording's first day (local time)",
		.summary = "the start of a replay's span",
		.parse = cli_arg_time, .check = cli_check_span, FIELD(from),
		.what = "a time (epoch ms, RFC 3339 like 2024-05-01T10:00:00Z, or HH:MM[:SS])",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_REPLAY}, .why = SPAN}},
	},
	[CLI_OPT_TO] = {
		.name = "to", .takes_arg = true, .metavar = "TIME",
		.help = "the end of a replay, in the forms of --from",
		.summary = "the end of a replay's span",
		.parse = cli_arg_time, FIELD(to),
		.what = "a time (epoch ms, RFC 3339 like 2024-05-01T10:00:00Z, or HH:MM[:SS])",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_REPLAY}, .why = SPAN}},
	},
	[CLI_OPT_REPORT] = {
		.name = "report", .takes_arg = true, .metavar = "OUT",
		.help = "with --replay: a post-mortem report of the recording, HTML\n"
			"with plots (OUT.html, or - for stdout) or JSON (OUT.json)",
		.summary = "with --replay: a report, HTML (OUT.html or -) or JSON (OUT.json)",
		.parse = cli_arg_report, FIELD(report_path),
		.complete = COMPLETIONS_ARG_FILE, .words = {".html", ".htm", ".json"}, .dash = true,
		.rules = {
			{CLI_RULE_NEEDS, {CLI_OPT_REPLAY}, .metavar = true, .why = "a report is made from a recording"},
			{CLI_RULE_EXCLUDES, {CLI_OPT_ONCE, CLI_OPT_JSON, CLI_OPT_HEADLESS, CLI_OPT_LOG, CLI_OPT_SERVE,
					     CLI_OPT_COUNT}, .why = "it reads the whole span and exits"},
		},
	},
	[CLI_OPT_SPEED] = {
		.name = "speed", .takes_arg = true, .metavar = "X",
		.help = "replay pace in the dashboard, 0.25 to 64 (default 1)",
		.summary = "replay pace in the dashboard, 0.25 to 64",
		.parse = cli_arg_decimal, FIELD(speed), .what = "a pace", .min = 0.25, .max = 64,
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_ONCE] = {
		.name = "once",
		.help = "poll, print one snapshot, exit",
		.summary = "poll, print one snapshot, exit",
		.parse = cli_arg_mode, FIELD(mode), .mode = CLI_MODE_ONCE,
		.rules = {
			{CLI_RULE_CLASHES, {CLI_OPT_COUNT}, .why = "--once is one poll"},
			{CLI_RULE_CLASHES, {CLI_OPT_HEADLESS}, .why = NULL},
			{CLI_RULE_CLASHES, {CLI_OPT_SERVE}, .why = "--serve runs until stopped"},
		},
	},
	[CLI_OPT_JSON] = {
		.name = "json",
		.help = "print every poll as one JSON line on stdout",
		.summary = "print every poll as one JSON line on stdout",
		.parse = cli_arg_mode, FIELD(mode), .mode = CLI_MODE_JSON,
	},
	[CLI_OPT_COUNT] = {
		.name = "count", .short_name = 'n', .takes_arg = true, .metavar = "N",
		.help = "stop after N polls",
		.summary = "stop after N polls",
		.parse = cli_arg_whole, FIELD(count), .what = "a whole number of polls", .min = 1,
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_HEADLESS] = {
		.name = "headless",
		.help = "no TUI: poll and log until a signal, --count or end of replay",
		.summary = "no TUI: poll and log until a signal, --count or the end of a replay",
		.parse = cli_arg_mode, FIELD(mode), .mode = CLI_MODE_HEADLESS,
	},
	[CLI_OPT_SERVE] = {
		.name = "serve", .takes_arg = true, .metavar = "ADDR",
		.help = "Prometheus metrics at host:port (:9400 = 127.0.0.1:9400;\n"
			"0.0.0.0:9400 or [::]:9400 for every interface)",
		.summary = "serve Prometheus metrics at host:port",
		.parse = cli_arg_addr, FIELD(serve),
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_SERVE_PROCESSES] = {
		.name = "serve-processes", .takes_arg = true, .metavar = "WHETHER", .form = "=no",
		.help = "no per-process series behind --serve",
		.summary = "per-process series behind --serve (no: none)",
		.parse = cli_arg_yes_no, FIELD(serve_processes), .what = "yes or no",
		.complete = COMPLETIONS_ARG_WORD, .words = {"no", "yes"},
	},
	[CLI_OPT_SERVE_NAMES] = {
		.name = "serve-names", .takes_arg = true, .metavar = "NAMES",
		.help = "dcgm-exporter's metric and label names to serve: legacy\n"
			"(default; up to 4.8) or dcgm-4.10 (4.10's names and units)",
		.summary = "dcgm-exporter's names to serve: legacy or dcgm-4.10",
		.parse = cli_arg_names, FIELD(serve_names),
		.complete = COMPLETIONS_ARG_WORD, .words_from = cli_names_words,
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_SERVE}, .metavar = true}},
	},
	[CLI_OPT_WEB_CONFIG] = {
		.name = "web-config", .takes_arg = true, .metavar = "FILE",
		.help = "TLS, client certificates, basic auth and headers for --serve,\n"
			"in Prometheus's web config format (SIGHUP re-reads it)",
		.summary = "TLS and auth for --serve: an exporter-toolkit web config",
		.parse = cli_arg_text, FIELD(web_config), .what = "empty file name",
		.complete = COMPLETIONS_ARG_FILE, .words = {".yml", ".yaml"},
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_SERVE}, .metavar = true}},
	},
	[CLI_OPT_HEALTH_AUTH] = {
		.name = "health-auth",
		.help = "/health asks for the web config's credentials too\n"
			"(by default it does not: probes carry none)",
		.summary = "/health asks for the web config's credentials too",
		.parse = cli_arg_flag, FIELD(health_auth),
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_WEB_CONFIG}, .metavar = true}},
	},
	[CLI_OPT_PROMETHEUS] = {
		.name = "prometheus", .takes_arg = true, .metavar = "URL",
		.help = "fleet view: every host's GPUs from a Prometheus server",
		.summary = "fleet view: every host's GPUs from a Prometheus server",
		.parse = cli_arg_url, FIELD(prometheus), .what = "an http:// or https:// URL",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {
			{CLI_RULE_EXCLUDES, {CLI_OPT_REPLAY, CLI_OPT_BACKEND}, .why = ONLY_SOURCE},
			{CLI_RULE_EXCLUDES, {CLI_OPT_GPUS}, .why = "the fleet summary filters hosts with /"},
			{CLI_RULE_EXCLUDES, {CLI_OPT_SERVE}, .why = "it serves this machine's GPUs"},
		},
	},
	[CLI_OPT_PROMETHEUS_MATCH] = {
		.name = "prometheus-match", .takes_arg = true, .metavar = "SELECTOR",
		.help = "narrow the fleet view (e.g. '{job=\"gpu\"}')",
		.summary = "narrow the fleet view (e.g. '{job=\"gpu\"}')",
		.parse = cli_arg_selector, FIELD(prometheus_match), .what = "a selector",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_PROMETHEUS}, .metavar = true}},
	},
	[CLI_OPT_SELECT] = {
		.name = "select", .takes_arg = true, .metavar = "N",
		.help = "print the N best free GPUs (most memory free first) as a\n"
			"CUDA_VISIBLE_DEVICES value and exit; status 1 if too few are",
		.summary = "print the N best free GPUs for CUDA_VISIBLE_DEVICES",
		.parse = cli_arg_whole, FIELD(pick.select_n), .what = "a number of GPUs", .min = 1, .max = 65536,
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {
			{CLI_RULE_CLASHES, {CLI_OPT_WAIT}, .why = NULL},
			{CLI_RULE_EXCLUDES, {PICK_MODES}, .why = "it prints its choice and exits"},
			{CLI_RULE_EXCLUDES, {CLI_OPT_REPORT}, .why = "it prints its choice and exits"},
		},
	},
	[CLI_OPT_WAIT] = {
		.name = "wait", .takes_arg = true, .metavar = "N",
		.help = "wait until N GPUs are free, then run the command after --\n"
			"on them (CUDA_VISIBLE_DEVICES set) and exit with its status",
		.summary = "wait until N GPUs are free, then run the command after --",
		.parse = cli_arg_whole, .check = cli_check_command, FIELD(pick.wait_n), .what = "a number of GPUs", .min = 1,
		.max = 65536,
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {
			{CLI_RULE_EXCLUDES, {PICK_MODES}, .why = "it runs a command"},
			{CLI_RULE_EXCLUDES, {CLI_OPT_REPLAY, CLI_OPT_PROMETHEUS}, .why = "the command runs on this machine's GPUs"},
		},
	},
	[CLI_OPT_MIN_FREE] = {
		.name = "min-free", .takes_arg = true, .metavar = "SIZE",
		.help = "memory a free GPU has free: bytes, K, M, G, T (KiB...), or\n"
			"a % of its total (default 90%; 0 = any, unknown too)",
		.summary = "memory a free GPU has free (default 90%)",
		.parse = cli_arg_pick_size, FIELD(pick.min_free),
		.what = "a size (bytes, or with K, M, G, T) or a percentage (0% to 100%)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_PICK},
	},
	[CLI_OPT_MAX_UTIL] = {
		.name = "max-util", .takes_arg = true, .metavar = "PCT",
		.help = "utilisation a free GPU stays at or under, 0 to 100\n"
			"(default 10; 100 = any, unknown too)",
		.summary = "utilisation a free GPU stays at or under (default 10)",
		.parse = cli_arg_pick_pct, FIELD(pick.max_util), .what = "a percentage from 0 to 100",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_PICK},
	},
	[CLI_OPT_STABLE] = {
		.name = "stable", .takes_arg = true, .metavar = "DURATION",
		.help = "how long a GPU must have been free: the worst poll of that\n"
			"window counts (default 10s; ms, s, m, h; 0 = the last poll)",
		.summary = "how long a GPU must have been free (default 10s)",
		.parse = cli_arg_pick_duration, FIELD(pick.stable), .min = 0, .max = 86400,
		.what = "a duration (a number with ms, s, m or h, at most 24h)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_PICK},
	},
	[CLI_OPT_SHARED] = {
		.name = "shared",
		.help = "GPUs with processes of other users may be chosen too",
		.summary = "GPUs with other users' processes may be chosen",
		.parse = cli_arg_flag, FIELD(pick.shared),
		.rules = {NEEDS_PICK},
	},
	[CLI_OPT_SELECT_FORMAT] = {
		.name = "select-format", .takes_arg = true, .metavar = "FORMAT",
		.help = "uuid (default) or index: how the chosen GPUs are named",
		.summary = "how the chosen GPUs are named: uuid or index",
		.parse = cli_arg_pick_format, FIELD(pick.format), .what = "uuid or index",
		.complete = COMPLETIONS_ARG_WORD, .words = {"uuid", "index"},
		.rules = {NEEDS_PICK},
	},
	[CLI_OPT_LOCK] = {
		.name = "lock",
		.help = "with --wait: lock the chosen GPUs while the command runs;\n"
			"GPUs another gpur has locked are never chosen",
		.summary = "lock the chosen GPUs while the command runs",
		.parse = cli_arg_flag, FIELD(pick.lock),
		.rules = {NEEDS_WAIT("locks are held while its command runs")},
	},
	[CLI_OPT_TIMEOUT] = {
		.name = "timeout", .takes_arg = true, .metavar = "DURATION",
		.help = "with --wait: give up after DURATION (exit status 124)",
		.summary = "give up waiting after DURATION",
		.parse = cli_arg_pick_duration, FIELD(pick.timeout), .min = 1, .max = 366 * 86400.0,
		.what = "a duration (a number > 0 with ms, s, m, h or d)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_WAIT("it limits the wait")},
	},
	[CLI_OPT_PROCFS] = {
		.name = "procfs", .takes_arg = true, .metavar = "PATH",
		.help = "where procfs is mounted (default /proc)",
		.summary = "where procfs is mounted",
		.parse = cli_arg_text, FIELD(procfs), .what = "empty path",
		.complete = COMPLETIONS_ARG_DIR,
	},
	[CLI_OPT_SYSFS] = {
		.name = "sysfs", .takes_arg = true, .metavar = "PATH",
		.help = "where sysfs is mounted (default /sys)",
		.summary = "where sysfs is mounted",
		.parse = cli_arg_text, FIELD(sysfs), .what = "empty path",
		.complete = COMPLETIONS_ARG_DIR,
	},
	[CLI_OPT_ROOTFS] = {
		.name = "rootfs", .takes_arg = true, .metavar = "PATH",
		.help = "the host's root, where container and pod names are read\n"
			"(default /; /host in a container with the host's / there)",
		.summary = "the host's root, where container and pod names are read",
		.parse = cli_arg_dir, FIELD(rootfs), .what = "empty path",
		.complete = COMPLETIONS_ARG_DIR,
	},
	[CLI_OPT_IDLE_MEM] = {
		.name = "idle-mem", .takes_arg = true, .metavar = "SIZE",
		.help = "a process holding SIZE of GPU memory at 0% GPU is idle\n"
			"after --idle-after (default 1G; K, M, G)",
		.summary = "GPU memory an idle process holds at least (default 1G)",
		.parse = cli_arg_size, FIELD(idle_mem), .min = 1,
		.what = "a size (a whole number of bytes > 0, or with K, M, G)",
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_IDLE_AFTER] = {
		.name = "idle-after", .takes_arg = true, .metavar = "DURATION",
		.help = "how long a process must hold it at 0% to be idle\n"
			"(default 30m; s, m, h, d)",
		.summary = "how long at 0% before a process is idle (default 30m)",
		.parse = cli_arg_duration, FIELD(idle_after_ms),
		.what = "a duration (a whole number > 0 with s, m, h or d)",
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_READ_ONLY] = {
		.name = "read-only",
		.help = "never signal processes",
		.summary = "never signal processes",
		.parse = cli_arg_flag, FIELD(read_only),
	},
	[CLI_OPT_ON_EVENT] = {
		.name = "on-event", .takes_arg = true, .metavar = "CMD",
		.help = "run CMD with /bin/sh -c for each event of --on-event-kinds,\n"
			"the event as one JSON line on its stdin (at most 4 at once)",
		.summary = "run CMD for each event, given as JSON on its stdin",
		.parse = cli_arg_text, FIELD(on_event), .what = "empty command",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {{CLI_RULE_EXCLUDES, {CLI_OPT_ONCE, CLI_OPT_REPORT}, .why = "hooks run while gpur goes on"}},
	},
	[CLI_OPT_ON_EVENT_KINDS] = {
		.name = "on-event-kinds", .takes_arg = true, .metavar = "LIST",
		.help = "the event kinds that run --on-event (default lost,back,xid,\n"
			"idle,signal; all; or kinds such as gpu_lost,note)",
		.summary = "the event kinds that run --on-event",
		.parse = cli_arg_hook_kinds, FIELD(on_event_kinds),
		.complete = COMPLETIONS_ARG_LIST, .words_from = hook_kinds_words,
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_ON_EVENT}, .metavar = true}},
	},
	[CLI_OPT_HOSTNAME] = {
		.name = "hostname", .takes_arg = true, .metavar = "NAME",
		.help = "host name in records and the Hostname label\n"
			"(default $NODE_NAME, else the system's)",
		.summary = "host name in records and the Hostname label",
		.parse = cli_arg_hostname, FIELD(hostname),
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_NO_GPM] = {
		.name = "no-gpm",
		.help = "never use NVML's GPM (SM, tensor and DRAM activity), which\n"
			"shares its counters with DCGM's profiling",
		.summary = "never use NVML's GPM",
		.parse = cli_arg_flag, FIELD(no_gpm),
	},
	[CLI_OPT_NO_COLOR] = {
		.name = "no-color",
		.help = "no colours (NO_COLOR=1 does the same)",
		.summary = "no colours",
		.parse = cli_arg_flag, FIELD(no_color),
	},
	[CLI_OPT_HELP] = {
		.name = "help", .short_name = 'h',
		.help = "this help",
		.summary = "this help",
		.parse = cli_arg_flag, FIELD(help), .stops = true,
	},
	[CLI_OPT_VERSION] = {
		.name = "version", .short_name = 'V',
		.help = "version",
		.summary = "version",
		.parse = cli_arg_flag, FIELD(version), .stops = true,
	},
	[CLI_OPT_COMPLETIONS] = {
		.name = "completions", .takes_arg = true, .metavar = "SHELL",
		.help = "print the completion script for SHELL (bash, zsh, fish)\n"
			"on stdout; it takes no other option",
		.summary = "print the completion script for SHELL",
		.parse = cli_arg_shell, FIELD(completions),
		.complete = COMPLETIONS_ARG_WORD, .words_from = cli_shell_words,
		.rules = {{CLI_RULE_ALONE, .why = "it only prints a script"}},
	},
};
