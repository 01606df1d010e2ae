/* cli: getopt_long parsing and validation of every option. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "completions.h"
#include "report/report.h"
#include "serve/serve.h"

enum {
	OPT_BACKEND = 256, OPT_GPUS, OPT_LOG, OPT_REPLAY, OPT_SPEED, OPT_ONCE, OPT_JSON,
	OPT_HEADLESS, OPT_SERVE, OPT_PROMETHEUS, OPT_PROCFS, OPT_SYSFS, OPT_ROOTFS, OPT_READ_ONLY,
	OPT_HOSTNAME, OPT_NO_COLOR, OPT_SERVE_PROCESSES, OPT_LOG_MAX_SIZE, OPT_LOG_MAX_AGE, OPT_LOG_ZSTD_LEVEL,
	OPT_LOG_KEEP, OPT_LOG_MAX_TOTAL, OPT_FROM, OPT_TO, OPT_PROMETHEUS_MATCH, OPT_REPORT,
	OPT_COMPLETIONS,
};

/* The short options, for getopt_long: ':' first reports a missing argument
 * apart from an unknown option. */
static const char SHORT_OPTS[] = ":d:n:hV";

static const struct option LONG_OPTS[] = {
	{"interval", required_argument, NULL, 'd'},
	{"backend", required_argument, NULL, OPT_BACKEND},
	{"gpus", required_argument, NULL, OPT_GPUS},
	{"log", required_argument, NULL, OPT_LOG},
	{"log-max-size", required_argument, NULL, OPT_LOG_MAX_SIZE},
	{"log-max-age", required_argument, NULL, OPT_LOG_MAX_AGE},
	{"log-zstd-level", required_argument, NULL, OPT_LOG_ZSTD_LEVEL},
	{"log-keep", required_argument, NULL, OPT_LOG_KEEP},
	{"log-max-total", required_argument, NULL, OPT_LOG_MAX_TOTAL},
	{"replay", required_argument, NULL, OPT_REPLAY},
	{"from", required_argument, NULL, OPT_FROM},
	{"to", required_argument, NULL, OPT_TO},
	{"report", required_argument, NULL, OPT_REPORT},
	{"speed", required_argument, NULL, OPT_SPEED},
	{"once", no_argument, NULL, OPT_ONCE},
	{"json", no_argument, NULL, OPT_JSON},
	{"count", required_argument, NULL, 'n'},
	{"headless", no_argument, NULL, OPT_HEADLESS},
	{"serve", required_argument, NULL, OPT_SERVE},
	{"serve-processes", required_argument, NULL, OPT_SERVE_PROCESSES},
	{"prometheus", required_argument, NULL, OPT_PROMETHEUS},
	{"prometheus-match", required_argument, NULL, OPT_PROMETHEUS_MATCH},
	{"procfs", required_argument, NULL, OPT_PROCFS},
	{"sysfs", required_argument, NULL, OPT_SYSFS},
	{"rootfs", required_argument, NULL, OPT_ROOTFS},
	{"read-only", no_argument, NULL, OPT_READ_ONLY},
	{"hostname", required_argument, NULL, OPT_HOSTNAME},
	{"no-color", no_argument, NULL, OPT_NO_COLOR},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{"completions", required_argument, NULL, OPT_COMPLETIONS},
	{NULL, 0, NULL, 0},
};

/* What each option's argument is, its name in --help and a line about the
 * option: the shell completions are written from LONG_OPTS and this table.
 * A row is keyed by the option's getopt value; the words of --backend and
 * --completions come from their own tables (see cli_completion_options). */
static const struct {
	int val;
	struct completions_option doc;
} OPT_DOCS[] = {
	{'d', {.arg = COMPLETIONS_ARG_TEXT, .metavar = "SECONDS", .summary = "time between polls"}},
	{OPT_BACKEND, {.arg = COMPLETIONS_ARG_LIST, .metavar = "LIST", .summary = "live backends to try"}},
	{OPT_GPUS, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "LIST", .summary = "only these GPUs: indices, UUIDs or PCI bus ids"}},
	{OPT_LOG, {.arg = COMPLETIONS_ARG_FILE, .metavar = "FILE", .summary = "append every poll to FILE as one JSON line"}},
	{OPT_LOG_MAX_SIZE, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "SIZE", .summary = "rotate the log when it would pass SIZE"}},
	{OPT_LOG_MAX_AGE, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "DURATION", .summary = "rotate the log when its first record is DURATION old"}},
	{OPT_LOG_ZSTD_LEVEL, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "N", .summary = "zstd level of the log's segments, 1 to 19"}},
	{OPT_LOG_KEEP, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "N", .summary = "keep the newest N closed segments"}},
	{OPT_LOG_MAX_TOTAL, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "SIZE", .summary = "delete the oldest segments while they take more"}},
	{OPT_REPLAY, {.arg = COMPLETIONS_ARG_FILE, .metavar = "PATH", .summary = "play a recording back: a file, a rotated set or a directory"}},
	{OPT_FROM, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "TIME", .summary = "the start of a replay's span"}},
	{OPT_TO, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "TIME", .summary = "the end of a replay's span"}},
	{OPT_REPORT, {.arg = COMPLETIONS_ARG_FILE, .metavar = "OUT", .words = {".html", ".htm", ".json"}, .dash = true,
		      .summary = "with --replay: a report, HTML (OUT.html or -) or JSON (OUT.json)"}},
	{OPT_SPEED, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "X", .summary = "replay pace in the dashboard, 0.25 to 64"}},
	{OPT_ONCE, {.summary = "poll, print one snapshot, exit"}},
	{OPT_JSON, {.summary = "print every poll as one JSON line on stdout"}},
	{'n', {.arg = COMPLETIONS_ARG_TEXT, .metavar = "N", .summary = "stop after N polls"}},
	{OPT_HEADLESS, {.summary = "no TUI: poll and log until a signal, --count or the end of a replay"}},
	{OPT_SERVE, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "ADDR", .summary = "serve Prometheus metrics at host:port"}},
	{OPT_SERVE_PROCESSES, {.arg = COMPLETIONS_ARG_WORD, .metavar = "WHETHER", .words = {"no", "yes"},
			       .summary = "per-process series behind --serve (no: none)"}},
	{OPT_PROMETHEUS, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "URL", .summary = "fleet view: every host's GPUs from a Prometheus server"}},
	{OPT_PROMETHEUS_MATCH, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "SELECTOR", .summary = "narrow the fleet view (e.g. '{job=\"gpu\"}')"}},
	{OPT_PROCFS, {.arg = COMPLETIONS_ARG_DIR, .metavar = "PATH", .summary = "where procfs is mounted"}},
	{OPT_SYSFS, {.arg = COMPLETIONS_ARG_DIR, .metavar = "PATH", .summary = "where sysfs is mounted"}},
	{OPT_ROOTFS, {.arg = COMPLETIONS_ARG_DIR, .metavar = "PATH", .summary = "the host's root, where container and pod names are read"}},
	{OPT_READ_ONLY, {.summary = "never signal processes"}},
	{OPT_HOSTNAME, {.arg = COMPLETIONS_ARG_TEXT, .metavar = "NAME", .summary = "host name in records and the Hostname label"}},
	{OPT_NO_COLOR, {.summary = "no colours"}},
	{'h', {.alone = true, .summary = "this help"}},
	{'V', {.alone = true, .summary = "version"}},
	{OPT_COMPLETIONS, {.arg = COMPLETIONS_ARG_WORD, .metavar = "SHELL", .alone = true,
			   .summary = "print the completion script for SHELL"}},
};

/* The long name of the option whose getopt value is val. */
static const char *opt_name(int val)
{
	for (const struct option *o = LONG_OPTS; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

size_t cli_completion_options(struct completions_option *out, size_t max)
{
	size_t n = 0;

	for (const struct option *o = LONG_OPTS; o->name; o++, n++) {
		struct completions_option c = {.arg = o->has_arg == no_argument ? COMPLETIONS_ARG_NONE : COMPLETIONS_ARG_TEXT};
		size_t k = 0;

		if (n >= max)
			continue;
		for (size_t i = 0; i < sizeof(OPT_DOCS) / sizeof(OPT_DOCS[0]); i++)
			if (OPT_DOCS[i].val == o->val)
				c = OPT_DOCS[i].doc;
		c.name = o->name;
		c.short_name = o->val > 0 && o->val < 256 && o->val != ':' && strchr(SHORT_OPTS, o->val) ? (char)o->val : 0;
		if (o->val == OPT_BACKEND)
			for (size_t i = 0; i < BACKEND_REGISTRY_LEN && k < COMPLETIONS_MAX_WORDS; i++)
				c.words[k++] = BACKEND_REGISTRY[i]->name;
		if (o->val == OPT_COMPLETIONS)
			for (int s = COMPLETIONS_BASH; s < COMPLETIONS_SHELL_END && k < COMPLETIONS_MAX_WORDS; s++)
				c.words[k++] = completions_shell_name((enum completions_shell)s);
		out[n] = c;
	}
	return n;
}

void cli_usage(void)
{
	fputs("Usage: gpur [OPTION]...\n"
	      "Monitor GPUs (NVIDIA via NVML; AMD and Intel via DRM), record and replay.\n"
	      "\n"
	      "  -d, --interval SECONDS  time between polls (default 1; minimum 0.05;\n"
	      "                          0 = as fast as possible, with --headless/--json/--once)\n"
	      "      --backend LIST      live backends to try: nvml,amdgpu,intel,drm (default all)\n"
	      "      --gpus LIST         only these GPUs: indices, UUIDs or PCI bus ids\n"
	      "      --log FILE          append every poll to FILE as one JSON line\n"
	      "      --log-max-size SIZE rotate FILE into FILE.<UTC start>.zst segments when it would\n"
	      "                          pass SIZE (K, M, G = KiB, MiB, GiB)\n"
	      "      --log-max-age DURATION  rotate when its first record is DURATION old (s, m, h, d)\n"
	      "      --log-zstd-level N  zstd level of the segments, 1 to 19 (default 3)\n"
	      "      --log-keep N        keep the newest N closed segments\n"
	      "      --log-max-total SIZE  delete the oldest closed segments while they take more\n"
	      "      --replay PATH       play a recording back instead of reading hardware: a file\n"
	      "                          (plain, zstd or gzip), a rotated set (FILE) or a directory\n"
	      "      --from TIME, --to TIME  the span of a replay: epoch ms, RFC 3339, or HH:MM[:SS]\n"
	      "                          on the recording's first day (local time)\n"
	      "      --report OUT        with --replay: a post-mortem report of the recording, HTML\n"
	      "                          with plots (OUT.html, or - for stdout) or JSON (OUT.json)\n"
	      "      --speed X           replay pace in the dashboard, 0.25 to 64 (default 1)\n"
	      "      --once              poll, print one snapshot, exit\n"
	      "      --json              print every poll as one JSON line on stdout\n"
	      "  -n, --count N           stop after N polls\n"
	      "      --headless          no TUI: poll and log until a signal, --count or end of replay\n"
	      "      --serve ADDR        Prometheus metrics at host:port (:9400 = 127.0.0.1:9400;\n"
	      "                          0.0.0.0:9400 or [::]:9400 for every interface)\n"
	      "      --serve-processes=no  no per-process series behind --serve\n"
	      "      --prometheus URL    fleet view: every host's GPUs from a Prometheus server\n"
	      "      --prometheus-match SELECTOR  narrow the fleet view (e.g. '{job=\"gpu\"}')\n"
	      "      --procfs PATH       where procfs is mounted (default /proc)\n"
	      "      --sysfs PATH        where sysfs is mounted (default /sys)\n"
	      "      --rootfs PATH       the host's root, where container and pod names are read\n"
	      "                          (default /; /host in a container with the host's / there)\n"
	      "      --read-only         never signal processes\n"
	      "      --hostname NAME     host name in records and the Hostname label\n"
	      "                          (default $NODE_NAME, else the system's)\n"
	      "      --no-color          no colours (NO_COLOR=1 does the same)\n"
	      "  -h, --help              this help\n"
	      "  -V, --version           version\n"
	      "      --completions SHELL print the completion script for SHELL (bash, zsh, fish)\n"
	      "                          on stdout; it takes no other option\n"
	      "\n"
	      "Exit status: 0 success, 1 runtime failure, 2 usage error.\n"
	      "Environment: GPUR_NVML_LIBRARY, NODE_NAME, NO_COLOR.\n",
	      stdout);
}

__attribute__((format(printf, 3, 4))) static int usage_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A plain decimal number ("1", "0.5", ".25") with nothing after it: no sign,
 * exponent, hex, inf or nan. */
static bool parse_double(const char *s, double *out)
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

/* A whole number with an optional unit suffix: units[i] is a suffix letter,
 * mult[i] its factor. False when not a number, too large or 0. */
static bool parse_scaled(const char *s, const char *units, const uint64_t *mult, uint64_t *out)
{
	size_t d = strspn(s, "0123456789");
	uint64_t v = 0, m = 1;

	if (d == 0 || d > 19)
		return false;
	for (size_t i = 0; i < d; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
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

static bool parse_size(const char *s, uint64_t *out)
{
	static const uint64_t mult[] = {1024, 1024, 1u << 20, 1u << 20, 1u << 30, 1u << 30};
	return parse_scaled(s, "KkMmGg", mult, out);
}

static bool parse_duration_ms(const char *s, uint64_t *out)
{
	static const uint64_t mult[] = {1000, 60000, 3600000, 86400000};
	uint64_t v;

	/* A bare number is seconds. */
	if (!parse_scaled(s, "smhd", mult, &v))
		return false;
	if (!strchr("smhd", s[strlen(s) - 1])) {
		if (v > UINT64_MAX / 1000)
			return false;
		v *= 1000;
	}
	*out = v;
	return true;
}

static int parse_backends(const char *list, uint32_t *mask, char *err, size_t errlen)
{
	const char *p = list;

	*mask = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const struct backend_ops *ops = backend_find(p, len);
		if (!ops) {
			char name[64];
			snprintf(name, sizeof(name), "%.*s", (int)(len < 60 ? len : 60), p);
			return usage_err(err, errlen, "--backend: unknown backend '%s' (known: %s)", name,
					 "nvml, amdgpu, intel, drm");
		}
		for (size_t i = 0; i < BACKEND_REGISTRY_LEN; i++)
			if (BACKEND_REGISTRY[i] == ops)
				*mask |= 1u << i;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int cli_parse(int argc, char **argv, struct config *cfg, char *err, size_t errlen)
{
	const char *interval_arg = NULL;
	bool backend_given = false, procfs_given = false, sysfs_given = false, rootfs_given = false;
	const char *other_opt = NULL; /* the first option that is not --completions */
	int c;

	memset(cfg, 0, sizeof(*cfg));
	cfg->interval = 1.0;
	cfg->speed = 1.0;
	cfg->procfs = "/proc";
	cfg->sysfs = "/sys";
	cfg->rootfs = "/";
	cfg->serve_processes = true;
	cfg->backends = (1u << BACKEND_REGISTRY_LEN) - 1;
	opterr = 0;
	/* 0, not 1: getopt then also forgets a group of short options it was
	 * inside ("-V" of an earlier call), so cli_parse can be called again. */
	optind = 0;
	while ((c = getopt_long(argc, argv, SHORT_OPTS, LONG_OPTS, NULL)) != -1) {
		if (!other_opt && c != OPT_COMPLETIONS && c != ':' && c != '?')
			other_opt = opt_name(c);
		switch (c) {
		case 'd':
			interval_arg = optarg;
			if (!parse_double(optarg, &cfg->interval))
				return usage_err(err, errlen, "--interval: '%s' is not a number of seconds%s", optarg, "");
			cfg->interval_set = true;
			break;
		case OPT_BACKEND:
			backend_given = true;
			if (parse_backends(optarg, &cfg->backends, err, errlen))
				return -1;
			break;
		case OPT_GPUS:
			if (!*optarg)
				return usage_err(err, errlen, "--gpus: empty list%s%s", "", "");
			cfg->gpus = optarg;
			break;
		case OPT_LOG:
			if (!*optarg)
				return usage_err(err, errlen, "--log: empty file name%s%s", "", "");
			cfg->log_path = optarg;
			break;
		case OPT_REPLAY:
			if (!*optarg)
				return usage_err(err, errlen, "--replay: empty file name%s%s", "", "");
			cfg->replay_path = optarg;
			break;
		case OPT_REPORT:
			if (report_format_of(optarg) == REPORT_FORMAT_UNKNOWN)
				return usage_err(err, errlen, "--report %.200s: the name must end in .html, .htm or .json "
						 "(or be - for HTML on stdout)%s", optarg, "");
			cfg->report_path = optarg;
			break;
		case OPT_LOG_MAX_SIZE:
		case OPT_LOG_MAX_TOTAL: {
			const char *name = c == OPT_LOG_MAX_SIZE ? "--log-max-size" : "--log-max-total";
			uint64_t *v = c == OPT_LOG_MAX_SIZE ? &cfg->log_max_size : &cfg->log_max_total;
			if (!parse_size(optarg, v))
				return usage_err(err, errlen, "%s: '%s' is not a size (a whole number of bytes > 0, or with K, M, G)",
						 name, optarg);
			if (c == OPT_LOG_MAX_SIZE && *v < 4096)
				return usage_err(err, errlen, "%s: '%s' is below the minimum of 4096 bytes%s", name, optarg, "");
			break;
		}
		case OPT_LOG_MAX_AGE:
			if (!parse_duration_ms(optarg, &cfg->log_max_age_ms))
				return usage_err(err, errlen, "--log-max-age: '%s' is not a duration (a whole number > 0 with s, m, h or d)%s",
						 optarg, "");
			break;
		case OPT_LOG_ZSTD_LEVEL: {
			uint64_t v;
			static const uint64_t one[] = {1};
			if (!parse_scaled(optarg, "", one, &v) || v > 19)
				return usage_err(err, errlen, "--log-zstd-level: '%s' is not a level from 1 to 19%s", optarg, "");
			cfg->log_zstd_level = (int)v;
			break;
		}
		case OPT_LOG_KEEP: {
			uint64_t v;
			static const uint64_t one[] = {1};
			if (!parse_scaled(optarg, "", one, &v) || v > 1000000)
				return usage_err(err, errlen, "--log-keep: '%s' is not a number of segments from 1 to 1000000%s", optarg, "");
			cfg->log_keep = (unsigned)v;
			break;
		}
		case OPT_FROM:
		case OPT_TO:
			if (!when_parse(optarg, c == OPT_FROM ? &cfg->from : &cfg->to))
				return usage_err(err, errlen, "%s: '%s' is not a time (epoch ms, RFC 3339 like 2024-05-01T10:00:00Z, or HH:MM[:SS])",
						 c == OPT_FROM ? "--from" : "--to", optarg);
			break;
		case OPT_SPEED:
			if (!parse_double(optarg, &cfg->speed) || cfg->speed < 0.25 || cfg->speed > 64)
				return usage_err(err, errlen, "--speed: '%s' is not a pace from 0.25 to 64", optarg);
			break;
		case OPT_ONCE:
			cfg->once = true;
			break;
		case OPT_JSON:
			cfg->json = true;
			break;
		case 'n': {
			char *end;
			errno = 0;
			if (*optarg < '0' || *optarg > '9')
				return usage_err(err, errlen, "--count: '%s' is not a whole number of polls >= 1%s", optarg, "");
			unsigned long long v = strtoull(optarg, &end, 10);
			if (errno || *end || v < 1)
				return usage_err(err, errlen, "--count: '%s' is not a whole number of polls >= 1%s", optarg, "");
			cfg->count = v;
			break;
		}
		case OPT_HEADLESS:
			cfg->headless = true;
			break;
		case OPT_SERVE: {
			struct serve_addr a;
			if (serve_parse_addr(optarg, &a, err, errlen) != 0)
				return -1;
			cfg->serve = optarg;
			break;
		}
		case OPT_SERVE_PROCESSES:
			if (strcmp(optarg, "no") != 0 && strcmp(optarg, "yes") != 0)
				return usage_err(err, errlen, "--serve-processes: '%s' is not yes or no%s", optarg, "");
			cfg->serve_processes = strcmp(optarg, "yes") == 0;
			break;
		case OPT_PROMETHEUS:
			if (strncmp(optarg, "http://", 7) != 0 && strncmp(optarg, "https://", 8) != 0)
				return usage_err(err, errlen, "--prometheus: '%s' is not an http:// or https:// URL%s",
						 optarg, "");
			if (strlen(optarg) > 1000 || strpbrk(optarg, " \t\r\n"))
				return usage_err(err, errlen, "--prometheus: '%.200s' is not a usable URL%s", optarg, "");
			cfg->prometheus = optarg;
			break;
		case OPT_PROMETHEUS_MATCH:
			if (!*optarg || strlen(optarg) > 1000 || strpbrk(optarg, "\r\n"))
				return usage_err(err, errlen, "--prometheus-match: '%.200s' is not a selector%s", optarg, "");
			cfg->prometheus_match = optarg;
			break;
		case OPT_PROCFS:
		case OPT_SYSFS:
			if (!*optarg)
				return usage_err(err, errlen, "%s: empty path%s", c == OPT_PROCFS ? "--procfs" : "--sysfs", "");
			if (c == OPT_PROCFS) {
				cfg->procfs = optarg;
				procfs_given = true;
			} else {
				cfg->sysfs = optarg;
				sysfs_given = true;
			}
			break;
		case OPT_ROOTFS: {
			struct stat st;
			if (!*optarg)
				return usage_err(err, errlen, "--rootfs: empty path%s%s", "", "");
			if (stat(optarg, &st) != 0)
				return usage_err(err, errlen, "--rootfs %s: %s", optarg, strerror(errno));
			if (!S_ISDIR(st.st_mode))
				return usage_err(err, errlen, "--rootfs %s: %s", optarg, strerror(ENOTDIR));
			cfg->rootfs = optarg;
			rootfs_given = true;
			break;
		}
		case OPT_READ_ONLY:
			cfg->read_only = true;
			break;
		case OPT_HOSTNAME: {
			size_t n = strlen(optarg);
			if (n == 0 || n > 255)
				return usage_err(err, errlen, "--hostname: must be 1 to 255 bytes%s%s", "", "");
			for (size_t i = 0; i < n; i++)
				if ((unsigned char)optarg[i] < 0x20 || optarg[i] == 0x7f)
					return usage_err(err, errlen, "--hostname: control characters are not allowed%s%s", "", "");
			cfg->hostname = optarg;
			break;
		}
		case OPT_NO_COLOR:
			cfg->no_color = true;
			break;
		case 'h':
			cfg->help = true;
			return 0;
		case 'V':
			cfg->version = true;
			return 0;
		case OPT_COMPLETIONS:
			cfg->completions = completions_shell_find(optarg);
			if (cfg->completions == COMPLETIONS_NONE)
				return usage_err(err, errlen, "--completions: '%.200s' is not a shell: %s", optarg,
						 COMPLETIONS_SHELL_LIST);
			break;
		case ':':
			return usage_err(err, errlen, "%s: missing argument (try --help)%s", argv[optind - 1], "");
		default:
			if (optopt >= 256 || (optopt == 0 && strchr(argv[optind - 1], '=')))
				return usage_err(err, errlen, "%.*s: takes no argument (try --help)",
						 (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
			if (optopt)
				return usage_err(err, errlen, "unknown option '-%c' (try --help)", optopt);
			return usage_err(err, errlen, "unknown option '%s' (try --help)%s", argv[optind - 1], "");
		}
	}
	if (optind < argc)
		return usage_err(err, errlen, "unexpected argument '%s' (try --help)%s", argv[optind], "");
	/* --completions only prints a script: another option would be silently
	 * ignored, so it is refused. --help and --version returned above. */
	if (cfg->completions && other_opt)
		return usage_err(err, errlen, "--completions cannot be combined with --%s (it only prints a script)%s",
				 other_opt, "");

	if (cfg->prometheus && (cfg->replay_path || backend_given))
		return usage_err(err, errlen, "--prometheus cannot be combined with %s (it is the only source)%s",
				 cfg->replay_path ? "--replay" : "--backend", "");
	if (cfg->prometheus && (cfg->gpus || cfg->serve))
		return usage_err(err, errlen, "--prometheus cannot be combined with %s (%s)", cfg->gpus ? "--gpus" : "--serve",
				 cfg->gpus ? "the fleet summary filters hosts with /" : "it serves this machine's GPUs");
	if (cfg->prometheus_match && !cfg->prometheus)
		return usage_err(err, errlen, "--prometheus-match needs --prometheus URL%s%s", "", "");
	if (cfg->replay_path && (backend_given || procfs_given || sysfs_given || rootfs_given))
		return usage_err(err, errlen, "--replay cannot be combined with %s (a replay reads no hardware)%s",
				 backend_given ? "--backend" : procfs_given ? "--procfs" : sysfs_given ? "--sysfs" : "--rootfs",
				 "");
	{
		const char *rot = cfg->log_max_size ? "--log-max-size" : cfg->log_max_age_ms ? "--log-max-age" : NULL;
		const char *ret = cfg->log_keep ? "--log-keep" : cfg->log_max_total ? "--log-max-total"
				: cfg->log_zstd_level ? "--log-zstd-level" : NULL;
		if ((rot || ret) && !cfg->log_path)
			return usage_err(err, errlen, "%s needs --log FILE%s", rot ? rot : ret, "");
		if (ret && !rot)
			return usage_err(err, errlen, "%s needs --log-max-size or --log-max-age (segments to keep)%s", ret, "");
	}
	if (cfg->report_path && !cfg->replay_path)
		return usage_err(err, errlen, "--report needs --replay PATH (a report is made from a recording)%s%s", "", "");
	if (cfg->report_path && (cfg->once || cfg->json || cfg->headless || cfg->log_path || cfg->serve || cfg->count))
		return usage_err(err, errlen, "--report cannot be combined with %s (it reads the whole span and exits)%s",
				 cfg->once ? "--once" : cfg->json ? "--json" : cfg->headless ? "--headless"
				 : cfg->log_path ? "--log" : cfg->serve ? "--serve" : "--count", "");
	if ((cfg->from.set || cfg->to.set) && !cfg->replay_path)
		return usage_err(err, errlen, "%s needs --replay (it selects a span of a recording)%s",
				 cfg->from.set ? "--from" : "--to", "");
	if (cfg->from.set && cfg->to.set && cfg->from.clock == cfg->to.clock &&
	    (cfg->from.clock ? cfg->from.secs > cfg->to.secs : cfg->from.ms > cfg->to.ms))
		return usage_err(err, errlen, "--from is after --to (an empty span)%s%s", "", "");
	if (cfg->once && cfg->count)
		return usage_err(err, errlen, "--once and --count conflict (--once is one poll)%s%s", "", "");
	if (cfg->once && cfg->headless)
		return usage_err(err, errlen, "--once and --headless conflict%s%s", "", "");
	if (cfg->once && cfg->serve)
		return usage_err(err, errlen, "--once and --serve conflict (--serve runs until stopped)%s%s", "", "");
	if (cfg->interval_set) {
		if (cfg->interval < 0)
			return usage_err(err, errlen, "--interval: '%s' is negative%s", interval_arg, "");
		if (cfg->interval == 0 && !(cfg->headless || cfg->json || cfg->once || cfg->log_path))
			return usage_err(err, errlen, "--interval: 0 needs --headless, --json or --once%s%s", "", "");
		if (cfg->interval > 0 && cfg->interval < 0.05)
			return usage_err(err, errlen, "--interval: '%s' is below the minimum of 0.05 s%s", interval_arg, "");
		if (cfg->interval > 86400)
			return usage_err(err, errlen, "--interval: '%s' is above the maximum of 86400 s%s", interval_arg, "");
	}
	return 0;
}

int cli_check_mode(const struct config *cfg, char *err, size_t errlen)
{
	/* --log alone records headless only when stdout is not a terminal. */
	if (cfg->interval_set && cfg->interval == 0 && cfg->mode == CLI_MODE_TUI)
		return usage_err(err, errlen, "--interval: 0 needs --headless, --json or --once%s%s", "", "");
	return 0;
}

enum cli_mode cli_resolve_mode(const struct config *cfg, bool stdout_is_tty)
{
	if (cfg->report_path)
		return CLI_MODE_HEADLESS; /* no dashboard: the report is written and gpur exits */
	if (cfg->once)
		return CLI_MODE_ONCE;
	if (cfg->json)
		return CLI_MODE_JSON;
	if (cfg->headless)
		return CLI_MODE_HEADLESS;
	if (stdout_is_tty)
		return CLI_MODE_TUI;
	return cfg->log_path || cfg->serve ? CLI_MODE_HEADLESS : CLI_MODE_ONCE;
}
