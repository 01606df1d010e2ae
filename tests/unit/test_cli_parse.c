/* test_cli_parse: cli_parse over every kind of argument the option table
 * knows (decimals, whole numbers in a range, sizes with K/M/G, durations
 * with s/m/h/d, times, lists, paths, addresses, URLs, names) with their
 * bounds, units and bad input, each with the exact usage message; the
 * accepted forms of getopt_long; every rule between options, with its
 * message; and the mode that --once, --json and --headless choose. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "cli.h"
#include "cli_table.h"

#define REC GPUR_FIXTURES "/recordings/canonical.jsonl"

/* One cli_parse: argv is copied into store, which the config's strings
 * point into. */
struct parsed {
	struct config cfg;
	char err[512];
	char store[8192];
	int rc;
};

/* Parses "gpur" and args (NULL after the last) into p; returns p->rc. */
static int parse_into(struct parsed *p, const char *const *args)
{
	char *argv[64];
	size_t used = 0;
	int argc = 0;

	argv[argc++] = strcpy(p->store, "gpur");
	used = strlen("gpur") + 1;
	for (; *args; args++) {
		size_t len = strlen(*args) + 1;
		assert_true(used + len <= sizeof(p->store) && argc < 63);
		argv[argc++] = memcpy(p->store + used, *args, len);
		used += len;
	}
	argv[argc] = NULL;
	p->err[0] = '\0';
	p->rc = cli_parse(argc, argv, &p->cfg, p->err, sizeof(p->err));
	return p->rc;
}

/* The words of an argument list: ARGS("--count", "2"). */
#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* args as one line, for messages. */
static const char *joined(const char *const *args, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (; *args && n < size; args++)
		n += (size_t)snprintf(buf + n, size - n, " %s", *args);
	return buf;
}

/* Parses args, which must be accepted; the result stays in *p. */
static void accepted(struct parsed *p, const char *const *args)
{
	char line[512];

	if (parse_into(p, args) != 0)
		fail_msg("gpur%s: refused: %s", joined(args, line, sizeof(line)), p->err);
}

/* Parses args, which must be refused with exactly the message want. */
static void refused(const char *want, const char *const *args)
{
	struct parsed p;
	char line[512];

	if (parse_into(&p, args) != -1)
		fail_msg("gpur%s: accepted, expected: %s", joined(args, line, sizeof(line)), want);
	if (strcmp(p.err, want) != 0)
		fail_msg("gpur%s:\n   said: %s\n wanted: %s", joined(args, line, sizeof(line)), p.err, want);
}

#define ACCEPTED(p, ...) accepted(p, ARGS(__VA_ARGS__))
#define REFUSED(want, ...) refused(want, ARGS(__VA_ARGS__))

static void test_defaults(void **state)
{
	struct parsed p;

	(void)state;
	accepted(&p, ARGS(NULL));
	assert_true(p.cfg.interval == 1.0 && !p.cfg.interval_set && p.cfg.speed == 1.0);
	assert_string_equal(p.cfg.procfs, "/proc");
	assert_string_equal(p.cfg.sysfs, "/sys");
	assert_string_equal(p.cfg.rootfs, "/");
	assert_true(p.cfg.serve_processes);
	assert_int_equal(p.cfg.serve_names, FIELD_NAMES_LEGACY);
	assert_int_equal(p.cfg.backends, (1u << BACKEND_REGISTRY_LEN) - 1);
	assert_int_equal(p.cfg.mode, CLI_MODE_AUTO);
	assert_int_equal(p.cfg.count, 0);
	assert_null(p.cfg.log_path);
}

/* --interval: a plain decimal number; 0.05 to 86400, or 0 with a mode. */
static void test_seconds(void **state)
{
	struct parsed p;

	(void)state;
	ACCEPTED(&p, "-d0.5");
	assert_true(p.cfg.interval == 0.5 && p.cfg.interval_set);
	ACCEPTED(&p, "--interval=.25");
	assert_true(p.cfg.interval == 0.25);
	ACCEPTED(&p, "--inter", "5.");
	assert_true(p.cfg.interval == 5.0);
	ACCEPTED(&p, "-d", "0.05");
	ACCEPTED(&p, "-d", "86400");
	ACCEPTED(&p, "-d", "0", "--json");
	ACCEPTED(&p, "-d", "0", "--once");
	ACCEPTED(&p, "-d", "0", "--headless");
	ACCEPTED(&p, "-d", "0", "--log", "x.jsonl");
	assert_true(p.cfg.interval == 0 && p.cfg.interval_set);
	static const char *const bad[] = {"1e3", "-1", "+1", "nan", "inf", "0x10", "1s", ".", "", " 1", "1,5"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];
		snprintf(want, sizeof(want), "--interval: '%s' is not a number of seconds", bad[i]);
		refused(want, ARGS("-d", bad[i]));
	}
	REFUSED("--interval: '0.049' is below the minimum of 0.05 s", "--interval", "0.049");
	REFUSED("--interval: '0.01' is below the minimum of 0.05 s", "-d0.01", "--json");
	REFUSED("--interval: '86400.5' is above the maximum of 86400 s", "-d", "86400.5");
	REFUSED("--interval: 0 needs --headless, --json or --once", "-d", "0");
	REFUSED("--interval: 0 needs --headless, --json or --once", "-d", "0", "--replay", "r.jsonl");
}

/* --speed: a decimal number from 0.25 to 64. */
static void test_decimal_range(void **state)
{
	struct parsed p;

	(void)state;
	ACCEPTED(&p, "--speed", "0.25");
	assert_true(p.cfg.speed == 0.25);
	ACCEPTED(&p, "--speed=64");
	assert_true(p.cfg.speed == 64);
	REFUSED("--speed: '0.24' is not a pace from 0.25 to 64", "--speed", "0.24");
	REFUSED("--speed: '64.01' is not a pace from 0.25 to 64", "--speed", "64.01");
	REFUSED("--speed: 'fast' is not a pace from 0.25 to 64", "--speed", "fast");
	REFUSED("--speed: '-1' is not a pace from 0.25 to 64", "--speed", "-1");
}

/* --count, --log-zstd-level, --log-keep: whole numbers within a range. */
static void test_whole_numbers(void **state)
{
	struct parsed p;

	(void)state;
	ACCEPTED(&p, "-n2");
	assert_int_equal(p.cfg.count, 2);
	ACCEPTED(&p, "--count=007");
	assert_int_equal(p.cfg.count, 7);
	ACCEPTED(&p, "-n", "18446744073709551615");
	assert_true(p.cfg.count == UINT64_MAX);
	static const char *const bad[] = {"0", "-1", "1.5", "abc", "", "2x", " 1", "18446744073709551616"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];
		snprintf(want, sizeof(want), "--count: '%s' is not a whole number of polls >= 1", bad[i]);
		refused(want, ARGS("--count", bad[i]));
	}
	REFUSED("--count: '=3' is not a whole number of polls >= 1", "-n=3");

	ACCEPTED(&p, "--log", "x", "--log-max-size", "1M", "--log-zstd-level", "19", "--log-keep", "1000000");
	assert_int_equal(p.cfg.log_zstd_level, 19);
	assert_int_equal(p.cfg.log_keep, 1000000);
	ACCEPTED(&p, "--log", "x", "--log-max-size", "1M", "--log-zstd-level", "1", "--log-keep", "1");
	assert_int_equal(p.cfg.log_zstd_level, 1);
	assert_int_equal(p.cfg.log_keep, 1);
	REFUSED("--log-zstd-level: '20' is not a level from 1 to 19", "--log-zstd-level", "20");
	REFUSED("--log-zstd-level: '0' is not a level from 1 to 19", "--log-zstd-level", "0");
	REFUSED("--log-zstd-level: '3k' is not a level from 1 to 19", "--log-zstd-level", "3k");
	REFUSED("--log-keep: '1000001' is not a number of segments from 1 to 1000000", "--log-keep", "1000001");
	REFUSED("--log-keep: '-1' is not a number of segments from 1 to 1000000", "--log-keep", "-1");
	REFUSED("--log-keep: '99999999999999999999' is not a number of segments from 1 to 1000000", "--log-keep",
		"99999999999999999999");
}

/* --log-max-size, --log-max-total: bytes, KiB, MiB or GiB. */
static void test_sizes(void **state)
{
	struct parsed p;

	(void)state;
	ACCEPTED(&p, "--log", "x", "--log-max-size", "4096", "--log-max-total", "1");
	assert_int_equal(p.cfg.log_max_size, 4096);
	assert_int_equal(p.cfg.log_max_total, 1);
	ACCEPTED(&p, "--log", "x", "--log-max-size", "4k", "--log-max-total", "3K");
	assert_int_equal(p.cfg.log_max_size, 4096);
	assert_int_equal(p.cfg.log_max_total, 3072);
	ACCEPTED(&p, "--log", "x", "--log-max-size", "5M", "--log-max-total", "2g");
	assert_int_equal(p.cfg.log_max_size, 5u << 20);
	assert_true(p.cfg.log_max_total == 2ull << 30);
	ACCEPTED(&p, "--log", "x", "--log-max-size", "17179869183G");
	assert_true(p.cfg.log_max_size == 17179869183ull << 30);
	const char *what = "is not a size (a whole number of bytes > 0, or with K, M, G)";
	static const char *const bad[] = {"0", "0K", "12X", "1T", "1KB", "-1", "1.5M", "", "K", "17179869184G",
					  "18446744073709551616"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[160];
		snprintf(want, sizeof(want), "--log-max-total: '%s' %s", bad[i], what);
		refused(want, ARGS("--log-max-total", bad[i]));
	}
	REFUSED("--log-max-size: '4095' is below the minimum of 4096 bytes", "--log-max-size", "4095");
	REFUSED("--log-max-size: '3k' is below the minimum of 4096 bytes", "--log-max-size", "3k");
}

/* --log-max-age: s, m, h, d; a bare number is seconds; into ms. */
static void test_durations(void **state)
{
	static const struct {
		const char *arg;
		uint64_t ms;
	} good[] = {{"10", 10000}, {"10s", 10000}, {"2m", 120000}, {"3h", 10800000}, {"1d", 86400000},
		    {"18446744073709551", 18446744073709551000ull}, {"213503982334d", 213503982334ull * 86400000}};
	struct parsed p;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		accepted(&p, ARGS("--log", "x", "--log-max-age", good[i].arg));
		assert_true(p.cfg.log_max_age_ms == good[i].ms);
	}
	static const char *const bad[] = {"0", "0s", "5y", "1.5h", "-1s", "", "s", "1S", "18446744073709552",
					  "213503982335d"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[160];
		snprintf(want, sizeof(want),
			 "--log-max-age: '%s' is not a duration (a whole number > 0 with s, m, h or d)", bad[i]);
		refused(want, ARGS("--log-max-age", bad[i]));
	}
}

/* --from, --to: epoch ms, RFC 3339 or a clock time; not an empty span. */
static void test_times(void **state)
{
	struct parsed p;

	(void)state;
	ACCEPTED(&p, "--replay", "r", "--from", "10:00", "--to", "1764583210000");
	assert_true(p.cfg.from.set && p.cfg.from.clock && p.cfg.from.secs == 36000);
	assert_true(p.cfg.to.set && !p.cfg.to.clock && p.cfg.to.ms == 1764583210000ull);
	ACCEPTED(&p, "--replay", "r", "--from", "10:00", "--to", "10:00");
	ACCEPTED(&p, "--replay", "r", "--from=2025-12-01T10:00:30Z");
	assert_true(p.cfg.from.ms == 1764583230000ull);
	REFUSED("--from: '25:00' is not a time (epoch ms, RFC 3339 like 2024-05-01T10:00:00Z, or HH:MM[:SS])",
		"--from", "25:00", "--replay", "r");
	REFUSED("--to: 'yesterday' is not a time (epoch ms, RFC 3339 like 2024-05-01T10:00:00Z, or HH:MM[:SS])",
		"--to", "yesterday");
	REFUSED("--from is after --to (an empty span)", "--replay", "r", "--from", "11:00", "--to", "10:00");
	REFUSED("--from is after --to (an empty span)", "--replay", "r", "--from", "2", "--to", "1");
}

/* --backend: a list of the registry's names. */
static void test_lists(void **state)
{
	struct parsed p;

	(void)state;
	for (size_t i = 0; i < BACKEND_REGISTRY_LEN; i++) {
		accepted(&p, ARGS("--backend", BACKEND_REGISTRY[i]->name));
		assert_int_equal(p.cfg.backends, 1u << i);
	}
	char all[128] = "";
	for (size_t i = BACKEND_REGISTRY_LEN; i-- > 0;)
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", BACKEND_REGISTRY[i]->name, i ? "," : "");
	accepted(&p, ARGS("--backend", all));
	assert_int_equal(p.cfg.backends, (1u << BACKEND_REGISTRY_LEN) - 1);
	REFUSED("--backend: unknown backend 'cuda' (known: nvml, amdgpu, intel, drm)", "--backend", "cuda");
	REFUSED("--backend: unknown backend 'bogus' (known: nvml, amdgpu, intel, drm)", "--backend", "nvml,bogus");
	REFUSED("--backend: unknown backend '' (known: nvml, amdgpu, intel, drm)", "--backend", "nvml,");
	REFUSED("--backend: unknown backend '' (known: nvml, amdgpu, intel, drm)", "--backend", "");
}

/* Paths and names: --gpus, --log, --replay, --procfs, --sysfs, --rootfs,
 * --report, --hostname. */
static void test_paths_and_names(void **state)
{
	struct parsed p;
	char long_name[300];

	(void)state;
	ACCEPTED(&p, "--gpus", "0,GPU-1", "--log", "a.jsonl", "--procfs", "/host/proc", "--sysfs", "/host/sys",
		 "--rootfs", GPUR_FIXTURES, "--hostname", "node-1");
	assert_string_equal(p.cfg.gpus, "0,GPU-1");
	assert_string_equal(p.cfg.log_path, "a.jsonl");
	assert_string_equal(p.cfg.procfs, "/host/proc");
	assert_string_equal(p.cfg.sysfs, "/host/sys");
	assert_string_equal(p.cfg.rootfs, GPUR_FIXTURES);
	assert_string_equal(p.cfg.hostname, "node-1");
	REFUSED("--gpus: empty list", "--gpus", "");
	REFUSED("--log: empty file name", "--log", "");
	REFUSED("--replay: empty file name", "--replay", "");
	REFUSED("--procfs: empty path", "--procfs", "");
	REFUSED("--sysfs: empty path", "--sysfs", "");
	REFUSED("--rootfs: empty path", "--rootfs", "");
	REFUSED("--rootfs /nonexistent-gpur: No such file or directory", "--rootfs", "/nonexistent-gpur");
	REFUSED("--rootfs " REC ": Not a directory", "--rootfs", REC);

	ACCEPTED(&p, "--replay", "r", "--report", "-");
	assert_string_equal(p.cfg.report_path, "-");
	ACCEPTED(&p, "--replay", "r", "--report", "out.HTML");
	ACCEPTED(&p, "--replay", "r", "--report", "out.json");
	REFUSED("--report x.txt: the name must end in .html, .htm or .json (or be - for HTML on stdout)", "--replay",
		"r", "--report", "x.txt");

	memset(long_name, 'h', 255);
	long_name[255] = '\0';
	ACCEPTED(&p, "--hostname", long_name);
	long_name[255] = 'h';
	long_name[256] = '\0';
	REFUSED("--hostname: must be 1 to 255 bytes", "--hostname", long_name);
	REFUSED("--hostname: must be 1 to 255 bytes", "--hostname", "");
	REFUSED("--hostname: control characters are not allowed", "--hostname", "a\tb");
	REFUSED("--hostname: control characters are not allowed", "--hostname", "a\177");
}

/* --serve, --serve-processes, --prometheus, --prometheus-match,
 * --completions. */
static void test_addresses_and_words(void **state)
{
	struct parsed p;
	char url[1100];

	(void)state;
	ACCEPTED(&p, "--serve", ":9400", "--serve-processes=no");
	assert_string_equal(p.cfg.serve, ":9400");
	assert_false(p.cfg.serve_processes);
	ACCEPTED(&p, "--serve-processes", "yes");
	assert_true(p.cfg.serve_processes);
	REFUSED("--serve: '9400' is not host:port (e.g. :9400, 0.0.0.0:9400, [::]:9400)", "--serve", "9400");
	REFUSED("--serve-processes: 'maybe' is not yes or no", "--serve-processes=maybe");
	REFUSED("--serve-processes: '' is not yes or no", "--serve-processes=");
	ACCEPTED(&p, "--serve", ":9400", "--serve-names", "dcgm-4.10");
	assert_int_equal(p.cfg.serve_names, FIELD_NAMES_DCGM_4_10);
	ACCEPTED(&p, "--serve-names=legacy", "--serve", ":9400");
	assert_int_equal(p.cfg.serve_names, FIELD_NAMES_LEGACY);
	REFUSED("--serve-names: 'dcgm-4.9' is not legacy or dcgm-4.10", "--serve", ":9400", "--serve-names", "dcgm-4.9");
	REFUSED("--serve-names: 'Legacy' is not legacy or dcgm-4.10", "--serve", ":9400", "--serve-names=Legacy");
	REFUSED("--serve-names: '' is not legacy or dcgm-4.10", "--serve", ":9400", "--serve-names=");
	REFUSED("--serve-names needs --serve ADDR", "--serve-names", "dcgm-4.10");

	ACCEPTED(&p, "--prometheus", "https://prom:9090", "--prometheus-match", "{job=\"gpu\"}");
	assert_string_equal(p.cfg.prometheus, "https://prom:9090");
	assert_string_equal(p.cfg.prometheus_match, "{job=\"gpu\"}");
	REFUSED("--prometheus: 'ftp://h' is not an http:// or https:// URL", "--prometheus", "ftp://h");
	REFUSED("--prometheus: 'http://a b' is not a usable URL", "--prometheus", "http://a b");
	/* A URL over 1000 bytes; the message shows its first 200. */
	char want[300];
	snprintf(url, sizeof(url), "http://%01000d", 0);
	snprintf(want, sizeof(want), "--prometheus: '%.200s' is not a usable URL", url);
	assert_int_equal(strlen(want), strlen("--prometheus: '' is not a usable URL") + 200);
	refused(want, ARGS("--prometheus", url));
	REFUSED("--prometheus-match: '' is not a selector", "--prometheus", "http://p", "--prometheus-match", "");
	REFUSED("--prometheus-match: 'a\nb' is not a selector", "--prometheus", "http://p", "--prometheus-match",
		"a\nb");

	ACCEPTED(&p, "--completions", "zsh");
	assert_int_equal(p.cfg.completions, COMPLETIONS_ZSH);
	REFUSED("--completions: 'tcsh' is not a shell: bash, zsh or fish", "--completions", "tcsh");
}

/* What getopt_long accepts and refuses, and the messages. */
static void test_getopt_forms(void **state)
{
	struct parsed p;

	(void)state;
	ACCEPTED(&p, "--no-colo", "--read-only", "--vers");
	assert_true(p.cfg.no_color && p.cfg.read_only && p.cfg.version);
	ACCEPTED(&p, "-hV");
	assert_true(p.cfg.help && !p.cfg.version);
	/* --help and --version end the parsing, whatever follows. */
	ACCEPTED(&p, "--help", "--bogus", "-d", "0");
	assert_true(p.cfg.help);
	ACCEPTED(&p, "--completions", "bash", "--help");
	assert_true(p.cfg.help);
	REFUSED("unknown option '--bogus' (try --help)", "--bogus", "--help");
	REFUSED("unknown option '--co' (try --help)", "--co", "2");
	REFUSED("unknown option '--he' (try --help)", "--he");
	REFUSED("unknown option '-x' (try --help)", "-x");
	REFUSED("--once: takes no argument (try --help)", "--once=1");
	REFUSED("--help: takes no argument (try --help)", "--help=1");
	REFUSED("--version: takes no argument (try --help)", "--version=");
	REFUSED("--interval: missing argument (try --help)", "--interval");
	REFUSED("-d: missing argument (try --help)", "-d");
	REFUSED("unexpected argument 'stray' (try --help)", "stray");
	REFUSED("unexpected argument '--once' (try --help)", "--", "--once");
}

static void test_modes(void **state)
{
	static const struct {
		const char *a, *b;
		enum cli_mode mode;
	} cases[] = {
		{"--once", NULL, CLI_MODE_ONCE},     {"--json", NULL, CLI_MODE_JSON},
		{"--headless", NULL, CLI_MODE_HEADLESS}, {"--once", "--json", CLI_MODE_ONCE_JSON},
		{"--json", "--once", CLI_MODE_ONCE_JSON}, {"--json", "--headless", CLI_MODE_JSON},
		{"--headless", "--json", CLI_MODE_JSON}, {"--json", "--json", CLI_MODE_JSON},
	};
	struct parsed p;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		accepted(&p, ARGS(cases[i].a, cases[i].b));
		if (p.cfg.mode != cases[i].mode)
			fail_msg("%s %s: mode %d, want %d", cases[i].a, cases[i].b ? cases[i].b : "", p.cfg.mode,
				 cases[i].mode);
		/* A mode option is kept, whatever stdout is. */
		assert_int_equal(cli_resolve_mode(&p.cfg, true), cases[i].mode);
		assert_int_equal(cli_resolve_mode(&p.cfg, false), cases[i].mode);
	}
	assert_true(cli_mode_once(CLI_MODE_ONCE) && cli_mode_once(CLI_MODE_ONCE_JSON) && !cli_mode_once(CLI_MODE_JSON));
	assert_true(cli_mode_json(CLI_MODE_JSON) && cli_mode_json(CLI_MODE_ONCE_JSON) && !cli_mode_json(CLI_MODE_ONCE));
	assert_false(cli_mode_json(CLI_MODE_HEADLESS) || cli_mode_once(CLI_MODE_TUI) || cli_mode_json(CLI_MODE_AUTO));

	/* Without one: the TUI on a terminal, else headless to record or serve, else --once. */
	accepted(&p, ARGS(NULL));
	assert_int_equal(cli_resolve_mode(&p.cfg, true), CLI_MODE_TUI);
	assert_int_equal(cli_resolve_mode(&p.cfg, false), CLI_MODE_ONCE);
	ACCEPTED(&p, "--log", "x");
	assert_int_equal(cli_resolve_mode(&p.cfg, false), CLI_MODE_HEADLESS);
	ACCEPTED(&p, "--serve", ":0");
	assert_int_equal(cli_resolve_mode(&p.cfg, false), CLI_MODE_HEADLESS);
	ACCEPTED(&p, "--replay", "r", "--report", "-");
	assert_int_equal(cli_resolve_mode(&p.cfg, true), CLI_MODE_HEADLESS);

	/* --interval 0 with --log alone: headless is fine, the TUI is not. */
	ACCEPTED(&p, "-d", "0", "--log", "x");
	struct config headless = p.cfg, tui = p.cfg;
	headless.mode = cli_resolve_mode(&p.cfg, false);
	assert_int_equal(cli_check_mode(&headless, p.err, sizeof(p.err)), 0);
	tui.mode = cli_resolve_mode(&p.cfg, true);
	assert_int_equal(cli_check_mode(&tui, p.err, sizeof(p.err)), -1);
	assert_string_equal(p.err, "--interval: 0 needs --headless, --json or --once");
}

/* Every rule of the table, with its message. */
static void test_rules(void **state)
{
	(void)state;
	REFUSED("--log-max-size needs --log FILE", "--log-max-size", "1M");
	REFUSED("--log-max-age needs --log FILE", "--log-max-age", "1h");
	REFUSED("--log-zstd-level needs --log FILE", "--log-zstd-level", "3");
	REFUSED("--log-keep needs --log FILE", "--log-keep", "3");
	REFUSED("--log-max-total needs --log FILE", "--log-max-total", "1G");
	REFUSED("--log-keep needs --log-max-size or --log-max-age (segments to keep)", "--log", "x", "--log-keep", "3");
	REFUSED("--log-max-total needs --log-max-size or --log-max-age (segments to keep)", "--log", "x",
		"--log-max-total", "1G");
	REFUSED("--log-zstd-level needs --log-max-size or --log-max-age (segments to keep)", "--log", "x",
		"--log-zstd-level", "3");
	static const char *const hardware[][2] = {
		{"--backend", "nvml"}, {"--procfs", "/proc"}, {"--sysfs", "/sys"}, {"--rootfs", "/"}};
	for (size_t i = 0; i < 4; i++) {
		char want[128];
		snprintf(want, sizeof(want), "--replay cannot be combined with %s (a replay reads no hardware)",
			 hardware[i][0]);
		refused(want, ARGS(hardware[i][0], hardware[i][1], "--replay", "r"));
	}
	REFUSED("--from needs --replay (it selects a span of a recording)", "--from", "10:00");
	REFUSED("--to needs --replay (it selects a span of a recording)", "--to", "10:00");
	REFUSED("--report needs --replay PATH (a report is made from a recording)", "--report", "x.json");
	static const char *const whole_span[][2] = {
		{"--once", NULL}, {"--json", NULL}, {"--headless", NULL},
		{"--log", "x"},   {"--serve", ":0"}, {"--count", "3"}};
	for (size_t i = 0; i < 6; i++) {
		char want[128], opt[32];
		snprintf(want, sizeof(want), "--report cannot be combined with %s (it reads the whole span and exits)",
			 whole_span[i][0]);
		snprintf(opt, sizeof(opt), "%s%s%s", whole_span[i][0], whole_span[i][1] ? "=" : "",
			 whole_span[i][1] ? whole_span[i][1] : "");
		refused(want, ARGS("--replay", "r", "--report", "-", opt));
	}
	REFUSED("--once and --count conflict (--once is one poll)", "--once", "-n", "1");
	REFUSED("--once and --headless conflict", "--headless", "--once");
	REFUSED("--once and --serve conflict (--serve runs until stopped)", "--once", "--serve", ":0");
	REFUSED("--prometheus cannot be combined with --replay (it is the only source)", "--prometheus", "http://p",
		"--replay", "r");
	REFUSED("--prometheus cannot be combined with --backend (it is the only source)", "--prometheus", "http://p",
		"--backend", "nvml");
	REFUSED("--prometheus cannot be combined with --gpus (the fleet summary filters hosts with /)", "--prometheus",
		"http://p", "--gpus", "0");
	REFUSED("--prometheus cannot be combined with --serve (it serves this machine's GPUs)", "--prometheus",
		"http://p", "--serve", ":0");
	REFUSED("--prometheus-match needs --prometheus URL", "--prometheus-match", "{}");
	REFUSED("--completions cannot be combined with --once (it only prints a script)", "--completions", "bash",
		"--once");
	REFUSED("--completions cannot be combined with --interval (it only prints a script)", "-d", "1", "--once",
		"--completions", "fish");
	/* An option that takes no other is checked before the others' rules. */
	REFUSED("--completions cannot be combined with --once (it only prints a script)", "--completions", "bash",
		"--once", "-n", "2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_decimal_range),
		cmocka_unit_test(test_whole_numbers),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_paths_and_names),
		cmocka_unit_test(test_addresses_and_words),
		cmocka_unit_test(test_getopt_forms),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
