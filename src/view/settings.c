/* settings: reading and writing the dashboard's config file. Reading is
 * forgiving, so a bad line is reported and skipped and the rest applies.
 * Writing is atomic, so a crash never leaves half a file. */
#include "view/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/readfile.h"
#include "util/xalloc.h"

#define ALL_COLUMNS ((UINT32_C(1) << PROCTABLE__COUNT) - 1)

void settings_defaults(struct settings *s)
{
	s->sort = PROCTABLE_GPUMEM;
	s->reverse = false;
	s->columns = ALL_COLUMNS;
	s->chart = HISTORY_UTIL;
	s->group = GROUP_BY_NONE;
	s->session = false;
}

const char *settings_path(char *buf, size_t n)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	int len;

	/* Under the XDG base directory spec, a relative XDG_CONFIG_HOME is
	 * invalid and ignored. */
	if (xdg && xdg[0] == '/')
		len = snprintf(buf, n, "%s/gpur/config", xdg);
	else if (home && *home)
		len = snprintf(buf, n, "%s/.config/gpur/config", home);
	else
		return NULL;
	return len >= 0 && (size_t)len < n ? buf : NULL;
}

__attribute__((format(printf, 3, 4)))
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

struct load_state {
	const char *path;
	unsigned errors;
	char *err;
	size_t errlen;
};

/* Records a problem at line. Only the first problem's text is kept. */
__attribute__((format(printf, 3, 4)))
static void load_error(struct load_state *st, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (st->errors++ || !st->errlen)
		return;
	int n = snprintf(st->err, st->errlen, "%s:%u: ", st->path, line);
	if (n < 0 || (size_t)n >= st->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(st->err + n, st->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Up to 32 bytes of file text for a message, in printable ASCII only. */
static const char *quote(const char *s, size_t len, char out[40])
{
	size_t i, n = len > 32 ? 32 : len;

	for (i = 0; i < n; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	strcpy(out + i, len > n ? "..." : "");
	return out;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void trim(const char **p, size_t *len)
{
	while (*len && is_space(**p)) {
		(*p)++;
		(*len)--;
	}
	while (*len && is_space((*p)[*len - 1]))
		(*len)--;
}

/* Whether s[0..len) equals lit, ignoring ASCII case. */
static bool word_is(const char *s, size_t len, const char *lit)
{
	size_t i;

	for (i = 0; i < len && lit[i]; i++) {
		char a = s[i], b = lit[i];
		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (a != b)
			return false;
	}
	return i == len && !lit[i];
}

static int parse_bool(const char *v, size_t len, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (word_is(v, len, yes[i]) || word_is(v, len, no[i])) {
			*out = word_is(v, len, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

/* Reads a comma-separated list of column names as a mask, skipping empty
 * items. Returns -1, with the offending item, when a name is unknown. */
static int parse_columns(const char *v, size_t len, uint32_t *out, const char **bad, size_t *badlen)
{
	uint32_t mask = 0;
	const char *end = v + len;

	while (v <= end) {
		const char *comma = memchr(v, ',', (size_t)(end - v));
		const char *item = v;
		size_t n = (size_t)((comma ? comma : end) - v);

		trim(&item, &n);
		if (n) {
			int c = proctable_col_by_name(item, n);
			if (c < 0) {
				*bad = item;
				*badlen = n;
				return -1;
			}
			mask |= UINT32_C(1) << c;
		}
		if (!comma)
			break;
		v = comma + 1;
	}
	*out = mask;
	return 0;
}

static void parse_line(struct load_state *st, struct settings *s, unsigned line, const char *p, size_t len)
{
	char q[40];
	const char *hash = memchr(p, '#', len);

	if (hash)
		len = (size_t)(hash - p);
	trim(&p, &len);
	if (!len)
		return;
	const char *eq = memchr(p, '=', len);
	if (!eq || eq == p) {
		load_error(st, line, "expected \"key = value\"");
		return;
	}
	const char *key = p, *val = eq + 1;
	size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
	trim(&key, &klen);
	trim(&val, &vlen);

	if (word_is(key, klen, "sort")) {
		int c = proctable_col_by_name(val, vlen);
		if (c < 0)
			load_error(st, line, "sort: unknown column \"%s\"", quote(val, vlen, q));
		else
			s->sort = (enum proctable_col)c;
	} else if (word_is(key, klen, "reverse")) {
		if (parse_bool(val, vlen, &s->reverse) < 0)
			load_error(st, line, "reverse: expected true or false, not \"%s\"", quote(val, vlen, q));
	} else if (word_is(key, klen, "session")) {
		if (parse_bool(val, vlen, &s->session) < 0)
			load_error(st, line, "session: expected true or false, not \"%s\"", quote(val, vlen, q));
	} else if (word_is(key, klen, "columns")) {
		const char *bad;
		size_t badlen;
		if (parse_columns(val, vlen, &s->columns, &bad, &badlen) < 0)
			load_error(st, line, "columns: unknown column \"%s\"", quote(bad, badlen, q));
	} else if (word_is(key, klen, "chart")) {
		int m;
		for (m = 0; m < HISTORY__COUNT; m++) {
			if (word_is(val, vlen, history_metric_name((enum history_metric)m)))
				break;
		}
		if (m == HISTORY__COUNT)
			load_error(st, line, "chart: expected util, mem, temp, power, sm or tensor, not \"%s\"", quote(val, vlen, q));
		else
			s->chart = (enum history_metric)m;
	} else if (word_is(key, klen, "group")) {
		int m;
		for (m = 0; m < GROUP_BY__COUNT; m++) {
			if (word_is(val, vlen, group_name((enum group_by)m)))
				break;
		}
		if (m == GROUP_BY__COUNT)
			load_error(st, line, "group: expected none, container, pod, job or user, not \"%s\"",
				   quote(val, vlen, q));
		else
			s->group = (enum group_by)m;
	} else {
		load_error(st, line, "unknown key \"%s\"", quote(key, klen, q));
	}
}

/* Reads up to n bytes, and returns the count or -errno. */
static ssize_t read_upto(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int settings_load(struct settings *s, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct load_state st = {path, 0, err, errlen};
	struct stat sb;
	char *data = NULL;
	int fd, rc = 0;

	settings_defaults(s);
	if (errlen)
		err[0] = '\0';
	if (!settings_path(path, sizeof(path))) {
		set_err(err, errlen, "no config file: neither XDG_CONFIG_HOME nor HOME is set");
		return -ENOENT;
	}
	/* O_NONBLOCK, because a FIFO in the file's place must not hang the
	 * dashboard. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &sb) < 0) {
		rc = -errno;
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		rc = -EINVAL;
		set_err(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	data = xmalloc(SETTINGS_MAX_FILE + 1);
	ssize_t got = read_upto(fd, data, SETTINGS_MAX_FILE + 1);
	if (got < 0) {
		rc = (int)got;
		set_err(err, errlen, "%s: %s", path, strerror((int)-got));
		goto out;
	}

	/* Over the limit, apply the whole lines that fit and report the
	 * rest. */
	size_t len = (size_t)got;
	bool too_big = len > SETTINGS_MAX_FILE;
	if (too_big) {
		const char *nl = memrchr(data, '\n', SETTINGS_MAX_FILE);
		len = nl ? (size_t)(nl - data) + 1 : 0;
	}
	unsigned line = 0;
	for (const char *p = data, *end = data + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		line++;
		if (n > SETTINGS_MAX_LINE)
			load_error(&st, line, "line longer than %d bytes", SETTINGS_MAX_LINE);
		else
			parse_line(&st, s, line, p, n);
		p += n + (nl != NULL);
	}
	if (too_big)
		load_error(&st, line + 1, "file larger than %d KiB; ignored from here", SETTINGS_MAX_FILE / 1024);
	if (st.errors) {
		rc = -EINVAL;
		size_t used = errlen ? strlen(err) : 0;
		if (st.errors > 1 && used < errlen)
			snprintf(err + used, errlen - used, " (and %u more)", st.errors - 1);
	}
out:
	free(data);
	close(fd);
	return rc;
}

/* Does mkdir -p for dir, which is modified in place and restored, making new
 * directories with mode 0700. */
static int make_dirs(char *dir)
{
	if (mkdir(dir, 0700) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -errno;
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return -ENOENT;
	*slash = '\0';
	int rc = make_dirs(dir);
	*slash = '/';
	if (rc)
		return rc;
	return mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -errno;
}

static void format_settings(const struct settings *s, struct buf *b)
{
	const char *sep = "";

	buf_puts(b, "# gpur dashboard settings (written by gpur; keys: sort, reverse, columns, chart, group, session)\n");
	buf_printf(b, "sort = %s\n", PROCTABLE_COLS[s->sort].name);
	buf_printf(b, "reverse = %s\n", s->reverse ? "true" : "false");
	buf_puts(b, "columns = ");
	for (int c = 0; c < PROCTABLE__COUNT; c++) {
		if (s->columns & (UINT32_C(1) << c)) {
			buf_printf(b, "%s%s", sep, PROCTABLE_COLS[c].name);
			sep = ",";
		}
	}
	buf_printf(b, "\nchart = %s\n", history_metric_name(s->chart));
	buf_printf(b, "group = %s\n", group_name(s->group));
	buf_printf(b, "session = %s\n", s->session ? "true" : "false");
}

int settings_save(const struct settings *s, char *err, size_t errlen)
{
	char path[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 16];
	struct buf b;
	bool made = false; /* tmp exists and is not renamed yet */
	int fd = -1, rc;

	if (errlen)
		err[0] = '\0';
	if ((unsigned)s->sort >= PROCTABLE__COUNT || (unsigned)s->chart >= HISTORY__COUNT ||
	    (unsigned)s->group >= GROUP_BY__COUNT) {
		set_err(err, errlen, "settings: sort column, chart or grouping out of range");
		return -EINVAL;
	}
	if (!settings_path(path, sizeof(path))) {
		set_err(err, errlen, "no config file: neither XDG_CONFIG_HOME nor HOME is set");
		return -ENOENT;
	}
	strcpy(dir, path);
	*strrchr(dir, '/') = '\0'; /* the path always ends in "/gpur/config" */
	rc = make_dirs(dir);
	if (rc) {
		set_err(err, errlen, "%s: cannot create the directory: %s", dir, strerror(-rc));
		return rc;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path);

	buf_init(&b);
	format_settings(s, &b);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		set_err(err, errlen, "%s: cannot create a temporary file: %s", path, strerror(errno));
		goto out;
	}
	made = true;
	/* mkstemp's mode is 0600 less the umask, so make it exactly 0600. */
	if (fchmod(fd, 0600) < 0 || (rc = writefile_all(fd, b.data, b.len)) < 0 || fsync(fd) < 0) {
		rc = rc ? rc : -errno;
		set_err(err, errlen, "%s: cannot write: %s", path, strerror(-rc));
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		rc = -errno;
		set_err(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		rc = -errno;
		set_err(err, errlen, "%s: cannot replace: %s", path, strerror(errno));
		goto out;
	}
	made = false;
	/* Make the rename itself durable. The file is in place either way. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
out:
	if (fd >= 0)
		close(fd);
	if (made)
		unlink(tmp);
	buf_fini(&b);
	return rc;
}
