/* cli_args: the parsers of the command-line options' arguments, which the
 * rows of cli_table.c name. Every parser checks its argument whole, with no
 * sign, unit or trailing byte it does not expect, and never clamps a
 * value. */
#include "cli_args.h"

#include <errno.h>
#include <math.h>
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
int cli_arg_flag(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	(void)arg, (void)err, (void)errlen;
	*(bool *)field_of(o, cfg) = true;
	return 0;
}

/* --once, --json and --headless each add to the mode chosen so far. --once
 * with --json is one JSON line, --json with --headless is --json, and --once
 * with --headless is a conflict that a rule of --once reports. */
int cli_arg_mode(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	enum cli_mode *mode = field_of(o, cfg), add = o->mode;
	bool once = cli_mode_once(*mode) || cli_mode_once(add);
	bool json = cli_mode_json(*mode) || cli_mode_json(add);

	(void)arg, (void)err, (void)errlen;
	*mode = once ? (json ? CLI_MODE_ONCE_JSON : CLI_MODE_ONCE) : json ? CLI_MODE_JSON : CLI_MODE_HEADLESS;
	return 0;
}

/* --interval takes a decimal number of seconds. Its range is checked once
 * every option is known (cli_check_interval), since 0 depends on the mode. */
int cli_arg_seconds(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
		    size_t errlen)
{
	if (!decimal_of(arg, field_of(o, cfg)))
		return bad_arg(o, arg, err, errlen);
	cfg->interval_set = true;
	return 0;
}

/* Values are never clamped, so an interval out of bounds is a usage
 * error. */
int cli_check_interval(const struct cli_option *o, const char *arg, const struct config *cfg, char *err,
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
int cli_arg_decimal(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
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
int cli_arg_whole(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
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
int cli_arg_size(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
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
int cli_arg_duration(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
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
int cli_arg_time(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	if (!when_parse(arg, field_of(o, cfg)))
		return bad_arg(o, arg, err, errlen);
	return 0;
}

/* --from after --to is an empty span. Two clock times are compared within a
 * day, but a clock time and an epoch time only once the recording's day is
 * known. */
int cli_check_span(const struct cli_option *o, const char *arg, const struct config *cfg, char *err,
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
int cli_arg_text(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	if (!*arg)
		return cli_table_error(err, errlen, "--%s: %s", o->name, o->what);
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --rootfs takes an existing directory. */
int cli_arg_dir(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
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
int cli_arg_backends(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
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

size_t cli_backend_words(const char **out, size_t max)
{
	size_t n = 0;

	for (; n < BACKEND_REGISTRY_LEN && n < max; n++)
		out[n] = BACKEND_REGISTRY[n]->name;
	return n;
}

/* --report takes a name whose extension says the format, or "-". */
int cli_arg_report(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
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
int cli_arg_addr(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	struct serve_addr a;

	if (serve_parse_addr(arg, &a, err, errlen) != 0)
		return -1;
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --serve-processes takes yes or no. */
int cli_arg_yes_no(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
		   size_t errlen)
{
	if (strcmp(arg, "no") != 0 && strcmp(arg, "yes") != 0)
		return bad_arg(o, arg, err, errlen);
	*(bool *)field_of(o, cfg) = strcmp(arg, "yes") == 0;
	return 0;
}

/* --serve-names takes one of FIELD_NAMES_WORDS, which the message of
 * another word lists. */
int cli_arg_names(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
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

size_t cli_names_words(const char **out, size_t max)
{
	size_t n = 0;

	for (; n < FIELD_NAMES__COUNT && n < max; n++)
		out[n] = FIELD_NAMES_WORDS[n];
	return n;
}

/* --prometheus takes an http:// or https:// URL of at most 1000 bytes
 * without white space. */
int cli_arg_url(const struct cli_option *o, const char *arg, struct config *cfg, char *err, size_t errlen)
{
	if (strncmp(arg, "http://", 7) != 0 && strncmp(arg, "https://", 8) != 0)
		return bad_arg(o, arg, err, errlen);
	if (strlen(arg) > 1000 || strpbrk(arg, " \t\r\n"))
		return cli_table_error(err, errlen, "--%s: '%.200s' is not a usable URL", o->name, arg);
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --prometheus-match takes a selector of 1 to 1000 bytes on one line. */
int cli_arg_selector(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
		     size_t errlen)
{
	if (!*arg || strlen(arg) > 1000 || strpbrk(arg, "\r\n"))
		return cli_table_error(err, errlen, "--%s: '%.200s' is not %s", o->name, arg, o->what);
	*(const char **)field_of(o, cfg) = arg;
	return 0;
}

/* --hostname takes 1 to 255 bytes without control characters. */
int cli_arg_hostname(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
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
int cli_arg_hook_kinds(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
		       size_t errlen)
{
	char why[512];

	if (hook_kinds_parse(arg, field_of(o, cfg), why, sizeof(why)) != 0)
		return cli_table_error(err, errlen, "--%s: %s", o->name, why);
	return 0;
}

/* --completions takes the name of a shell that completions.c writes for. */
int cli_arg_shell(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
		  size_t errlen)
{
	enum completions_shell *shell = field_of(o, cfg);

	*shell = completions_shell_find(arg);
	if (*shell == COMPLETIONS_NONE)
		return cli_table_error(err, errlen, "--%s: '%.200s' is not a shell: %s", o->name, arg,
				       COMPLETIONS_SHELL_LIST);
	return 0;
}

size_t cli_shell_words(const char **out, size_t max)
{
	size_t n = 0;

	for (int s = COMPLETIONS_BASH; s < COMPLETIONS_SHELL_END && n < max; s++)
		out[n++] = completions_shell_name((enum completions_shell)s);
	return n;
}

/* --min-free takes a size or a percentage of each GPU's total. */
int cli_arg_pick_size(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
		      size_t errlen)
{
	return pick_parse_size(arg, field_of(o, cfg)) ? 0 : bad_arg(o, arg, err, errlen);
}

/* --max-util takes a percentage. */
int cli_arg_pick_pct(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
		     size_t errlen)
{
	return pick_parse_pct(arg, field_of(o, cfg)) ? 0 : bad_arg(o, arg, err, errlen);
}

/* --stable and --timeout take a duration up to max seconds; only --stable
 * may be 0 (min 0). */
int cli_arg_pick_duration(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			  size_t errlen)
{
	if (!pick_parse_duration(arg, (uint64_t)(o->max * 1000.0), o->min == 0, field_of(o, cfg)))
		return bad_arg(o, arg, err, errlen);
	return 0;
}

int cli_arg_pick_format(const struct cli_option *o, const char *arg, struct config *cfg, char *err,
			size_t errlen)
{
	return pick_parse_format(arg, field_of(o, cfg)) ? 0 : bad_arg(o, arg, err, errlen);
}

/* --wait runs the command after "--", which must be there. */
int cli_check_command(const struct cli_option *o, const char *arg, const struct config *cfg, char *err,
		      size_t errlen)
{
	(void)arg;
	if (!cfg->pick.argv || !cfg->pick.argv[0] || !cfg->pick.argv[0][0])
		return cli_table_error(err, errlen, "--%s needs a command after --: gpur --wait N [OPTION]... -- CMD [ARG]...",
				       o->name);
	return 0;
}
