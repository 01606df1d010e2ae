/* cli_table: the table of gpur's command-line options and the parsers of
 * their arguments. Every parser checks its argument whole, with no sign,
 * unit or trailing byte it does not expect, and never clamps a value. */
#include "cli_table.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "output/hook_kinds.h"
#include "pick/pick.h"
#include "report/report.h"
#include "serve/serve.h"
#include "util/kvparse.h"

int cli_table_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The member of cfg that o's value lands in. */
static void *field_of(const struct cli_option *o, struct config *cfg)
{
	return (char *)cfg + o->offset;
}

/* Writes "--NAME: 'ARG' is not WHAT", the message of a bad argument. */
static int bad_arg(const struct cli_option *o, const char *arg, char *err, size_t errlen)
{
	return cli_table_error(err, errlen, "--%s: '%s' is not %s", o->name, arg, o->what);
}

/* The same for a number, with its range after WHAT, such as "from 1 to 19"
 * or ">= 1". */
static int bad_number(const struct cli_option *o, const char *arg, char *err, size_t errlen)
{
	if (o->max > 0)
		return cli_table_error(err, errlen, "--%s: '%s' is not %s from %.15g to %.15g", o->name, arg, o->what,
				       o->min, o->max);
	return cli_table_error(err, errlen, "--%s: '%s' is not %s >= %.15g", o->name, arg, o->what, o->min);
}

/* A plain decimal number ("1", "0.5", ".25") with nothing after it, and no
 * sign, exponent, hex, inf or nan. */
static bool decimal_of(const char *s, double *out)
{
	char *end;
	size_t digits = strspn(s, "0123456789");

	if (s[digits] == '.')
		digits += 1 + strspn(s + digits + 1, "0123456789");
	if (digits == 0 || s[digits] != '\0' || strcmp(s, ".") == 0)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !errno && *end == '\0' && isfinite(*out);
}

/* A whole number of decimal digits only, with an optional unit suffix, where
 * units[i] is a suffix letter and mult[i] its factor. Returns false when it
 * is not such a number, is 0, or does not fit in 64 bits. */
static bool scaled_of(const char *s, const char *units, const uint64_t *mult, uint64_t *out)
{
	uint64_t v, m = 1;
	ssize_t d = kvparse_u64(s, strlen(s), UINT64_MAX, &v);

	if (d <= 0)
		return false;
	if (s[d]) {
		const char *u = strchr(units, s[d]);
		if (!u || s[d + 1])
			return false;
		m = mult[u - units];
	}
	if (v == 0 || v > UINT64_MAX / m)
		return false;
	*out = v * m;
	return true;
}

/* --read-only, --no-color, --help and --version set a bool to true. */
static int parse_flag(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	(void)arg, (void)err, (void)errlen;
	*(bool *)field_of(o, cfg) = true;
	return 0;
}

/* --once, --json and --headless each add to the mode chosen so far. --once
 * with --json is one JSON line, --json with --headless is --json, and --once
 * with --headless is a conflict that a rule of --once reports. */
static int parse_mode(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	enum cli_mode *mode = field_of(o, cfg), add = o->mode;
	bool once = cli_mode_once(*mode) || cli_mode_once(add);
	bool json = cli_mode_json(*mode) || cli_mode_json(add);

	(void)arg, (void)err, (void)errlen;
	*mode = once ? (json ? CLI_MODE_ONCE_JSON : CLI_MODE_ONCE) : json ? CLI_MODE_JSON : CLI_MODE_HEADLESS;
	return 0;
}

/* --interval takes a decimal number of seconds. Its range is checked once
 * every option is known (check_interval), since 0 depends on the mode. */
static int parse_seconds(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			 size_t errlen)
{
	if (!decimal_of(arg, field_of(o, cfg)))
		return bad_arg(o, arg, err, errlen);
	cfg->interval_set = true;
	return 0;
}

/* Values are never clamped, so an interval out of bounds is a usage
 * error. */
static int check_interval(const struct cli_option *o, const char *arg, const struct config *cfg, char *err,
			  size_t errlen)
{
	double v = *(const double *)((const char *)cfg + o->offset);

	if (v == 0 && cfg->mode == CLI_MODE_AUTO && !cfg->log_path)
		return cli_table_error(err, errlen, "--%s: 0 needs --headless, --json or --once", o->name);
	if (v > 0 && v < o->min)
		return cli_table_error(err, errlen, "--%s: '%s' is below the minimum of %.15g s", o->name, arg, o->min);
	if (v > o->max)
		return cli_table_error(err, errlen, "--%s: '%s' is above the maximum of %.15g s", o->name, arg, o->max);
	return 0;
}

/* --speed takes a decimal number in [min, max]. */
static int parse_decimal(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			 size_t errlen)
{
	double *v = field_of(o, cfg);

	if (!decimal_of(arg, v) || *v < o->min || *v > o->max)
		return bad_number(o, arg, err, errlen);
	return 0;
}

/* --count, --log-zstd-level and --log-keep take a whole number in
 * [min, max], with no maximum when max is 0, into a member of 4 or 8
 * bytes. */
static int parse_whole(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
		       size_t errlen)
{
	static const uint64_t one[] = {1};
	uint64_t v;

	if (!scaled_of(arg, "", one, &v) || v < (uint64_t)o->min || (o->max > 0 && v > (uint64_t)o->max))
		return bad_number(o, arg, err, errlen);
	if (o->size == sizeof(uint64_t))
		*(uint64_t *)field_of(o, cfg) = v;
	else
		*(unsigned *)field_of(o, cfg) = (unsigned)v;
	return 0;
}

/* --log-max-size and --log-max-total take bytes, or KiB, MiB or GiB with K,
 * M or G, and at least min bytes. */
static int parse_size(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	static const uint64_t mult[] = {1024, 1024, 1u << 20, 1u << 20, 1u << 30, 1u << 30};
	uint64_t *v = field_of(o, cfg);

	if (!scaled_of(arg, "KkMmGg", mult, v))
		return bad_arg(o, arg, err, errlen);
	if (*v < (uint64_t)o->min)
		return cli_table_error(err, errlen, "--%s: '%s' is below the minimum of %.15g bytes", o->name, arg,
				       o->min);
	return 0;
}

/* --log-max-age takes a duration with s, m, h or d, into milliseconds. A
 * bare number is seconds. */
static int parse_duration(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			  size_t errlen)
{
	static const uint64_t mult[] = {1000, 60000, 3600000, 86400000};
	uint64_t v;

	if (!scaled_of(arg, "smhd", mult, &v))
		return bad_arg(o, arg, err, errlen);
	if (!strchr("smhd", arg[strlen(arg) - 1])) {
		if (v > UINT64_MAX / 1000)
			return bad_arg(o, arg, err, errlen);
		v *= 1000;
	}
	*(uint64_t *)field_of(o, cfg) = v;
	return 0;
}

/* --from and --to take epoch ms, RFC 3339 or HH:MM[:SS]. */
static int parse_time(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	if (!when_parse(arg, field_of(o, cfg)))
		return bad_arg(o, arg, err, errlen);
	return 0;
}

/* --from after --to is an empty span. Two clock times are compared within a
 * day, but a clock time and an epoch time only once the recording's day is
 * known. */
static int check_span(const struct cli_option *o, const char *arg, const struct config *cfg, char *err,
		      size_t errlen)
{
	const struct when *from = &cfg->from, *to = &cfg->to;

	(void)o, (void)arg;
	if (from->set && to->set && from->clock == to->clock &&
	    (from->clock ? from->secs > to->secs : from->ms > to->ms))
		return cli_table_error(err, errlen, "--from is after --to (an empty span)");
	return 0;
}

/* --gpus, --log, --replay, --procfs and --sysfs take a string that is not
 * empty, and what is the message for an empty one. */
static int parse_text(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	if (!*arg)
		return cli_table_error(err, errlen, "--%s: %s", o->name, o->what);
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --rootfs takes an existing directory. */
static int parse_dir(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	struct stat st;

	if (!*arg)
		return cli_table_error(err, errlen, "--%s: %s", o->name, o->what);
	if (stat(arg, &st) != 0)
		return cli_table_error(err, errlen, "--%s %s: %s", o->name, arg, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return cli_table_error(err, errlen, "--%s %s: %s", o->name, arg, strerror(ENOTDIR));
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --backend takes comma-separated names of the backend registry, into a mask
 * with bit i for BACKEND_REGISTRY[i]. */
static int parse_backends(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			  size_t errlen)
{
	uint32_t *mask = field_of(o, cfg);
	const char *p = arg;

	*mask = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const struct backend_ops *ops = backend_find(p, len);
		if (!ops)
			return cli_table_error(err, errlen, "--%s: unknown backend '%.*s' (known: %s)", o->name,
					       (int)(len < 60 ? len : 60), p, "nvml, amdgpu, intel, drm");
		for (size_t i = 0; i < BACKEND_REGISTRY_LEN; i++)
			if (BACKEND_REGISTRY[i] == ops)
				*mask |= 1u << i;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static size_t backend_words(const char **out, size_t max)
{
	size_t n = 0;

	for (; n < BACKEND_REGISTRY_LEN && n < max; n++)
		out[n] = BACKEND_REGISTRY[n]->name;
	return n;
}

/* --report takes a name whose extension says the format, or "-". */
static int parse_report(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			size_t errlen)
{
	if (report_format_of(arg) == REPORT_FORMAT_UNKNOWN)
		return cli_table_error(err, errlen, "--%s %.200s: the name must end in .html, .htm or .json "
				       "(or be - for HTML on stdout)", o->name, arg);
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --serve takes host:port, checked without a lookup. serve_parse_addr names
 * the option in its message. */
static int parse_addr(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	struct serve_addr a;

	if (serve_parse_addr(arg, &a, err, errlen) != 0)
		return -1;
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --serve-processes takes yes or no. */
static int parse_yes_no(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			size_t errlen)
{
	if (strcmp(arg, "no") != 0 && strcmp(arg, "yes") != 0)
		return bad_arg(o, arg, err, errlen);
	*(bool *)field_of(o, cfg) = strcmp(arg, "yes") == 0;
	return 0;
}

/* --serve-names takes one of FIELD_NAMES_WORDS, which the message of
 * another word lists. */
static int parse_names(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	char words[128];
	size_t len = 0;

	for (int n = 0; n < FIELD_NAMES__COUNT; n++) {
		if (strcmp(arg, FIELD_NAMES_WORDS[n]) == 0) {
			*(enum field_names *)field_of(o, cfg) = (enum field_names)n;
			return 0;
		}
		const char *sep = n == 0 ? "" : n == FIELD_NAMES__COUNT - 1 ? " or " : ", ";
		int w = snprintf(words + len, sizeof(words) - len, "%s%s", sep, FIELD_NAMES_WORDS[n]);
		if (w > 0 && (size_t)w < sizeof(words) - len)
			len += (size_t)w;
	}
	return cli_table_error(err, errlen, "--%s: '%.200s' is not %s", o->name, arg, words);
}

static size_t names_words(const char **out, size_t max)
{
	size_t n = 0;

	for (; n < FIELD_NAMES__COUNT && n < max; n++)
		out[n] = FIELD_NAMES_WORDS[n];
	return n;
}

/* --prometheus takes an http:// or https:// URL of at most 1000 bytes
 * without white space. */
static int parse_url(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	if (strncmp(arg, "http://", 7) != 0 && strncmp(arg, "https://", 8) != 0)
		return bad_arg(o, arg, err, errlen);
	if (strlen(arg) > 1000 || strpbrk(arg, " \t\r\n"))
		return cli_table_error(err, errlen, "--%s: '%.200s' is not a usable URL", o->name, arg);
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --prometheus-match takes a selector of 1 to 1000 bytes on one line. */
static int parse_selector(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			  size_t errlen)
{
	if (!*arg || strlen(arg) > 1000 || strpbrk(arg, "\r\n"))
		return cli_table_error(err, errlen, "--%s: '%.200s' is not %s", o->name, arg, o->what);
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --hostname takes 1 to 255 bytes without control characters. */
static int parse_hostname(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			  size_t errlen)
{
	size_t n = strlen(arg);

	if (n == 0 || n > 255)
		return cli_table_error(err, errlen, "--%s: must be 1 to 255 bytes", o->name);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)arg[i] < 0x20 || arg[i] == 0x7f)
			return cli_table_error(err, errlen, "--%s: control characters are not allowed", o->name);
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --on-event-kinds takes a comma-separated list of event kinds and the
 * groups lost, back and all. */
static int parse_hook_kinds(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			    size_t errlen)
{
	char why[512];

	if (hook_kinds_parse(arg, field_of(o, cfg), why, sizeof(why)) != 0)
		return cli_table_error(err, errlen, "--%s: %s", o->name, why);
	return 0;
}

/* --completions takes the name of a shell that completions.c writes for. */
static int parse_shell(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
		       size_t errlen)
{
	enum completions_shell *shell = field_of(o, cfg);

	*shell = completions_shell_find(arg);
	if (*shell == COMPLETIONS_NONE)
		return cli_table_error(err, errlen, "--%s: '%.200s' is not a shell: %s", o->name, arg,
				       COMPLETIONS_SHELL_LIST);
	return 0;
}

static size_t shell_words(const char **out, size_t max)
{
	size_t n = 0;

	for (int s = COMPLETIONS_BASH; s < COMPLETIONS_SHELL_END && n < max; s++)
		out[n++] = completions_shell_name((enum completions_shell)s);
	return n;
}

/* --min-free takes a size or a percentage of each GPU's total. */
static int parse_pick_size(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			   size_t errlen)
{
	return pick_parse_size(arg, field_of(o, cfg)) ? 0 : bad_arg(o, arg, err, errlen);
}

/* --max-util takes a percentage. */
static int parse_pick_pct(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			  size_t errlen)
{
	return pick_parse_pct(arg, field_of(o, cfg)) ? 0 : bad_arg(o, arg, err, errlen);
}

/* --stable and --timeout take a duration up to max seconds; only --stable
 * may be 0 (min 0). */
static int parse_pick_duration(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			       size_t errlen)
{
	if (!pick_parse_duration(arg, (uint64_t)(o->max * 1000.0), o->min == 0, field_of(o, cfg)))
		return bad_arg(o, arg, err, errlen);
	return 0;
}

static int parse_pick_format(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			     size_t errlen)
{
	return pick_parse_format(arg, field_of(o, cfg)) ? 0 : bad_arg(o, arg, err, errlen);
}

/* --wait runs the command after "--", which must be there. */
static int check_command(const struct cli_option *o, const char *arg, const struct config *cfg, char *err,
			 size_t errlen)
{
	(void)arg;
	if (!cfg->pick.argv || !cfg->pick.argv[0] || !cfg->pick.argv[0][0])
		return cli_table_error(err, errlen, "--%s needs a command after --: gpur --wait N [OPTION]... -- CMD [ARG]...",
				       o->name);
	return 0;
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
		.parse = parse_seconds, .check = check_interval, FIELD(interval),
		.what = "a number of seconds", .min = 0.05, .max = 86400,
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_BACKEND] = {
		.name = "backend", .takes_arg = true, .metavar = "LIST",
		.help = "live backends to try: nvml,amdgpu,intel,drm (default all)",
		.summary = "live backends to try",
		.parse = parse_backends, FIELD(backends),
		.complete = COMPLETIONS_ARG_LIST, .words_from = backend_words,
	},
	[CLI_OPT_GPUS] = {
		.name = "gpus", .takes_arg = true, .metavar = "LIST",
		.help = "only these GPUs: indices, UUIDs or PCI bus ids",
		.summary = "only these GPUs: indices, UUIDs or PCI bus ids",
		.parse = parse_text, FIELD(gpus), .what = "empty list",
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_LOG] = {
		.name = "log", .takes_arg = true, .metavar = "FILE",
		.help = "append every poll to FILE as one JSON line",
		.summary = "append every poll to FILE as one JSON line",
		.parse = parse_text, FIELD(log_path), .what = "empty file name",
		.complete = COMPLETIONS_ARG_FILE,
	},
	[CLI_OPT_LOG_MAX_SIZE] = {
		.name = "log-max-size", .takes_arg = true, .metavar = "SIZE",
		.help = "rotate FILE into FILE.<UTC start>.zst segments when it would\n"
			"pass SIZE (K, M, G = KiB, MiB, GiB)",
		.summary = "rotate the log when it would pass SIZE",
		.parse = parse_size, FIELD(log_max_size), .min = 4096,
		.what = "a size (a whole number of bytes > 0, or with K, M, G)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_LOG},
	},
	[CLI_OPT_LOG_MAX_AGE] = {
		.name = "log-max-age", .takes_arg = true, .metavar = "DURATION",
		.help = "rotate when its first record is DURATION old (s, m, h, d)",
		.summary = "rotate the log when its first record is DURATION old",
		.parse = parse_duration, FIELD(log_max_age_ms),
		.what = "a duration (a whole number > 0 with s, m, h or d)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_LOG},
	},
	[CLI_OPT_LOG_ZSTD_LEVEL] = {
		.name = "log-zstd-level", .takes_arg = true, .metavar = "N",
		.help = "zstd level of the segments, 1 to 19 (default 3)",
		.summary = "zstd level of the log's segments, 1 to 19",
		.parse = parse_whole, FIELD(log_zstd_level), .what = "a level", .min = 1, .max = 19,
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_LOG, NEEDS_ROTATION},
	},
	[CLI_OPT_LOG_KEEP] = {
		.name = "log-keep", .takes_arg = true, .metavar = "N",
		.help = "keep the newest N closed segments",
		.summary = "keep the newest N closed segments",
		.parse = parse_whole, FIELD(log_keep), .what = "a number of segments", .min = 1, .max = 1000000,
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_LOG, NEEDS_ROTATION},
	},
	[CLI_OPT_LOG_MAX_TOTAL] = {
		.name = "log-max-total", .takes_arg = true, .metavar = "SIZE",
		.help = "delete the oldest closed segments while they take more",
		.summary = "delete the oldest segments while they take more",
		.parse = parse_size, FIELD(log_max_total),
		.what = "a size (a whole number of bytes > 0, or with K, M, G)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_LOG, NEEDS_ROTATION},
	},
	[CLI_OPT_REPLAY] = {
		.name = "replay", .takes_arg = true, .metavar = "PATH",
		.help = "play a recording back instead of reading hardware: a file\n"
			"(plain, zstd or gzip), a rotated set (FILE) or a directory",
		.summary = "play a recording back: a file, a rotated set or a directory",
		.parse = parse_text, FIELD(replay_path), .what = "empty file name",
		.complete = COMPLETIONS_ARG_FILE,
		.rules = {{CLI_RULE_EXCLUDES, {CLI_OPT_BACKEND, CLI_OPT_PROCFS, CLI_OPT_SYSFS, CLI_OPT_ROOTFS, CLI_OPT_NO_GPM},
			   .why = NO_HARDWARE}},
	},
	[CLI_OPT_FROM] = {
		.name = "from", .takes_arg = true, .metavar = "TIME",
		.help = "the start of a replay: epoch ms, RFC 3339, or HH:MM[:SS]\n"
			"on the recording's first day (local time)",
		.summary = "the start of a replay's span",
		.parse = parse_time, .check = check_span, FIELD(from),
		.what = "a time (epoch ms, RFC 3339 like 2024-05-01T10:00:00Z, or HH:MM[:SS])",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_REPLAY}, .why = SPAN}},
	},
	[CLI_OPT_TO] = {
		.name = "to", .takes_arg = true, .metavar = "TIME",
		.help = "the end of a replay, in the forms of --from",
		.summary = "the end of a replay's span",
		.parse = parse_time, FIELD(to),
		.what = "a time (epoch ms, RFC 3339 like 2024-05-01T10:00:00Z, or HH:MM[:SS])",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_REPLAY}, .why = SPAN}},
	},
	[CLI_OPT_REPORT] = {
		.name = "report", .takes_arg = true, .metavar = "OUT",
		.help = "with --replay: a post-mortem report of the recording, HTML\n"
			"with plots (OUT.html, or - for stdout) or JSON (OUT.json)",
		.summary = "with --replay: a report, HTML (OUT.html or -) or JSON (OUT.json)",
		.parse = parse_report, FIELD(report_path),
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
		.parse = parse_decimal, FIELD(speed), .what = "a pace", .min = 0.25, .max = 64,
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_ONCE] = {
		.name = "once",
		.help = "poll, print one snapshot, exit",
		.summary = "poll, print one snapshot, exit",
		.parse = parse_mode, FIELD(mode), .mode = CLI_MODE_ONCE,
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
		.parse = parse_mode, FIELD(mode), .mode = CLI_MODE_JSON,
	},
	[CLI_OPT_COUNT] = {
		.name = "count", .short_name = 'n', .takes_arg = true, .metavar = "N",
		.help = "stop after N polls",
		.summary = "stop after N polls",
		.parse = parse_whole, FIELD(count), .what = "a whole number of polls", .min = 1,
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_HEADLESS] = {
		.name = "headless",
		.help = "no TUI: poll and log until a signal, --count or end of replay",
		.summary = "no TUI: poll and log until a signal, --count or the end of a replay",
		.parse = parse_mode, FIELD(mode), .mode = CLI_MODE_HEADLESS,
	},
	[CLI_OPT_SERVE] = {
		.name = "serve", .takes_arg = true, .metavar = "ADDR",
		.help = "Prometheus metrics at host:port (:9400 = 127.0.0.1:9400;\n"
			"0.0.0.0:9400 or [::]:9400 for every interface)",
		.summary = "serve Prometheus metrics at host:port",
		.parse = parse_addr, FIELD(serve),
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_SERVE_PROCESSES] = {
		.name = "serve-processes", .takes_arg = true, .metavar = "WHETHER", .form = "=no",
		.help = "no per-process series behind --serve",
		.summary = "per-process series behind --serve (no: none)",
		.parse = parse_yes_no, FIELD(serve_processes), .what = "yes or no",
		.complete = COMPLETIONS_ARG_WORD, .words = {"no", "yes"},
	},
	[CLI_OPT_SERVE_NAMES] = {
		.name = "serve-names", .takes_arg = true, .metavar = "NAMES",
		.help = "dcgm-exporter's metric and label names to serve: legacy\n"
			"(default; up to 4.8) or dcgm-4.10 (4.10's names and units)",
		.summary = "dcgm-exporter's names to serve: legacy or dcgm-4.10",
		.parse = parse_names, FIELD(serve_names),
		.complete = COMPLETIONS_ARG_WORD, .words_from = names_words,
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_SERVE}, .metavar = true}},
	},
	[CLI_OPT_WEB_CONFIG] = {
		.name = "web-config", .takes_arg = true, .metavar = "FILE",
		.help = "TLS, client certificates, basic auth and headers for --serve,\n"
			"in Prometheus's web config format (SIGHUP re-reads it)",
		.summary = "TLS and auth for --serve: an exporter-toolkit web config",
		.parse = parse_text, FIELD(web_config), .what = "empty file name",
		.complete = COMPLETIONS_ARG_FILE, .words = {".yml", ".yaml"},
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_SERVE}, .metavar = true}},
	},
	[CLI_OPT_HEALTH_AUTH] = {
		.name = "health-auth",
		.help = "/health asks for the web config's credentials too\n"
			"(by default it does not: probes carry none)",
		.summary = "/health asks for the web config's credentials too",
		.parse = parse_flag, FIELD(health_auth),
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_WEB_CONFIG}, .metavar = true}},
	},
	[CLI_OPT_PROMETHEUS] = {
		.name = "prometheus", .takes_arg = true, .metavar = "URL",
		.help = "fleet view: every host's GPUs from a Prometheus server",
		.summary = "fleet view: every host's GPUs from a Prometheus server",
		.parse = parse_url, FIELD(prometheus), .what = "an http:// or https:// URL",
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
		.parse = parse_selector, FIELD(prometheus_match), .what = "a selector",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_PROMETHEUS}, .metavar = true}},
	},
	[CLI_OPT_SELECT] = {
		.name = "select", .takes_arg = true, .metavar = "N",
		.help = "print the N best free GPUs (most memory free first) as a\n"
			"CUDA_VISIBLE_DEVICES value and exit; status 1 if too few are",
		.summary = "print the N best free GPUs for CUDA_VISIBLE_DEVICES",
		.parse = parse_whole, FIELD(pick.select_n), .what = "a number of GPUs", .min = 1, .max = 65536,
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
		.parse = parse_whole, .check = check_command, FIELD(pick.wait_n), .what = "a number of GPUs", .min = 1,
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
		.parse = parse_pick_size, FIELD(pick.min_free),
		.what = "a size (bytes, or with K, M, G, T) or a percentage (0% to 100%)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_PICK},
	},
	[CLI_OPT_MAX_UTIL] = {
		.name = "max-util", .takes_arg = true, .metavar = "PCT",
		.help = "utilisation a free GPU stays at or under, 0 to 100\n"
			"(default 10; 100 = any, unknown too)",
		.summary = "utilisation a free GPU stays at or under (default 10)",
		.parse = parse_pick_pct, FIELD(pick.max_util), .what = "a percentage from 0 to 100",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_PICK},
	},
	[CLI_OPT_STABLE] = {
		.name = "stable", .takes_arg = true, .metavar = "DURATION",
		.help = "how long a GPU must have been free: the worst poll of that\n"
			"window counts (default 10s; ms, s, m, h; 0 = the last poll)",
		.summary = "how long a GPU must have been free (default 10s)",
		.parse = parse_pick_duration, FIELD(pick.stable), .min = 0, .max = 86400,
		.what = "a duration (a number with ms, s, m or h, at most 24h)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_PICK},
	},
	[CLI_OPT_SHARED] = {
		.name = "shared",
		.help = "GPUs with processes of other users may be chosen too",
		.summary = "GPUs with other users' processes may be chosen",
		.parse = parse_flag, FIELD(pick.shared),
		.rules = {NEEDS_PICK},
	},
	[CLI_OPT_SELECT_FORMAT] = {
		.name = "select-format", .takes_arg = true, .metavar = "FORMAT",
		.help = "uuid (default) or index: how the chosen GPUs are named",
		.summary = "how the chosen GPUs are named: uuid or index",
		.parse = parse_pick_format, FIELD(pick.format), .what = "uuid or index",
		.complete = COMPLETIONS_ARG_WORD, .words = {"uuid", "index"},
		.rules = {NEEDS_PICK},
	},
	[CLI_OPT_LOCK] = {
		.name = "lock",
		.help = "with --wait: lock the chosen GPUs while the command runs;\n"
			"GPUs another gpur has locked are never chosen",
		.summary = "lock the chosen GPUs while the command runs",
		.parse = parse_flag, FIELD(pick.lock),
		.rules = {NEEDS_WAIT("locks are held while its command runs")},
	},
	[CLI_OPT_TIMEOUT] = {
		.name = "timeout", .takes_arg = true, .metavar = "DURATION",
		.help = "with --wait: give up after DURATION (exit status 124)",
		.summary = "give up waiting after DURATION",
		.parse = parse_pick_duration, FIELD(pick.timeout), .min = 1, .max = 366 * 86400.0,
		.what = "a duration (a number > 0 with ms, s, m, h or d)",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {NEEDS_WAIT("it limits the wait")},
	},
	[CLI_OPT_PROCFS] = {
		.name = "procfs", .takes_arg = true, .metavar = "PATH",
		.help = "where procfs is mounted (default /proc)",
		.summary = "where procfs is mounted",
		.parse = parse_text, FIELD(procfs), .what = "empty path",
		.complete = COMPLETIONS_ARG_DIR,
	},
	[CLI_OPT_SYSFS] = {
		.name = "sysfs", .takes_arg = true, .metavar = "PATH",
		.help = "where sysfs is mounted (default /sys)",
		.summary = "where sysfs is mounted",
		.parse = parse_text, FIELD(sysfs), .what = "empty path",
		.complete = COMPLETIONS_ARG_DIR,
	},
	[CLI_OPT_ROOTFS] = {
		.name = "rootfs", .takes_arg = true, .metavar = "PATH",
		.help = "the host's root, where container and pod names are read\n"
			"(default /; /host in a container with the host's / there)",
		.summary = "the host's root, where container and pod names are read",
		.parse = parse_dir, FIELD(rootfs), .what = "empty path",
		.complete = COMPLETIONS_ARG_DIR,
	},
	[CLI_OPT_IDLE_MEM] = {
		.name = "idle-mem", .takes_arg = true, .metavar = "SIZE",
		.help = "a process holding SIZE of GPU memory at 0% GPU is idle\n"
			"after --idle-after (default 1G; K, M, G)",
		.summary = "GPU memory an idle process holds at least (default 1G)",
		.parse = parse_size, FIELD(idle_mem), .min = 1,
		.what = "a size (a whole number of bytes > 0, or with K, M, G)",
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_IDLE_AFTER] = {
		.name = "idle-after", .takes_arg = true, .metavar = "DURATION",
		.help = "how long a process must hold it at 0% to be idle\n"
			"(default 30m; s, m, h, d)",
		.summary = "how long at 0% before a process is idle (default 30m)",
		.parse = parse_duration, FIELD(idle_after_ms),
		.what = "a duration (a whole number > 0 with s, m, h or d)",
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_READ_ONLY] = {
		.name = "read-only",
		.help = "never signal processes",
		.summary = "never signal processes",
		.parse = parse_flag, FIELD(read_only),
	},
	[CLI_OPT_ON_EVENT] = {
		.name = "on-event", .takes_arg = true, .metavar = "CMD",
		.help = "run CMD with /bin/sh -c for each event of --on-event-kinds,\n"
			"the event as one JSON line on its stdin (at most 4 at once)",
		.summary = "run CMD for each event, given as JSON on its stdin",
		.parse = parse_text, FIELD(on_event), .what = "empty command",
		.complete = COMPLETIONS_ARG_TEXT,
		.rules = {{CLI_RULE_EXCLUDES, {CLI_OPT_ONCE, CLI_OPT_REPORT}, .why = "hooks run while gpur goes on"}},
	},
	[CLI_OPT_ON_EVENT_KINDS] = {
		.name = "on-event-kinds", .takes_arg = true, .metavar = "LIST",
		.help = "the event kinds that run --on-event (default lost,back,xid,\n"
			"idle,signal; all; or kinds such as gpu_lost,note)",
		.summary = "the event kinds that run --on-event",
		.parse = parse_hook_kinds, FIELD(on_event_kinds),
		.complete = COMPLETIONS_ARG_LIST, .words_from = hook_kinds_words,
		.rules = {{CLI_RULE_NEEDS, {CLI_OPT_ON_EVENT}, .metavar = true}},
	},
	[CLI_OPT_HOSTNAME] = {
		.name = "hostname", .takes_arg = true, .metavar = "NAME",
		.help = "host name in records and the Hostname label\n"
			"(default $NODE_NAME, else the system's)",
		.summary = "host name in records and the Hostname label",
		.parse = parse_hostname, FIELD(hostname),
		.complete = COMPLETIONS_ARG_TEXT,
	},
	[CLI_OPT_NO_GPM] = {
		.name = "no-gpm",
		.help = "never use NVML's GPM (SM, tensor and DRAM activity), which\n"
			"shares its counters with DCGM's profiling",
		.summary = "never use NVML's GPM",
		.parse = parse_flag, FIELD(no_gpm),
	},
	[CLI_OPT_NO_COLOR] = {
		.name = "no-color",
		.help = "no colours (NO_COLOR=1 does the same)",
		.summary = "no colours",
		.parse = parse_flag, FIELD(no_color),
	},
	[CLI_OPT_HELP] = {
		.name = "help", .short_name = 'h',
		.help = "this help",
		.summary = "this help",
		.parse = parse_flag, FIELD(help), .stops = true,
	},
	[CLI_OPT_VERSION] = {
		.name = "version", .short_name = 'V',
		.help = "version",
		.summary = "version",
		.parse = parse_flag, FIELD(version), .stops = true,
	},
	[CLI_OPT_COMPLETIONS] = {
		.name = "completions", .takes_arg = true, .metavar = "SHELL",
		.help = "print the completion script for SHELL (bash, zsh, fish)\n"
			"on stdout; it takes no other option",
		.summary = "print the completion script for SHELL",
		.parse = parse_shell, FIELD(completions),
		.complete = COMPLETIONS_ARG_WORD, .words_from = shell_words,
		.rules = {{CLI_RULE_ALONE, .why = "it only prints a script"}},
	},
};
