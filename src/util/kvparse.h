/* kvparse: bounded parsing of the text procfs, sysfs and DRM fdinfo give —
 * checked decimal numbers, "key: value unit" lines, blank-separated fields
 * and single-value files — over (buf, len), without allocation. */
#ifndef GPUR_KVPARSE_H
#define GPUR_KVPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bounds on untrusted text. A longer line is skipped whole, and a line whose
 * key is longer is not taken as a key line. */
#define KVPARSE_MAX_LINE 4096
#define KVPARSE_MAX_KEY 64

/* Parses the decimal number at the start of s[0..len), which is digits only,
 * with no sign and no blanks. Returns the bytes consumed (> 0) and sets *out;
 * returns 0 when s does not start with a digit, and -ERANGE, leaving *out
 * untouched, when the number is over max. */
ssize_t kvparse_u64(const char *s, size_t len, uint64_t max, uint64_t *out);
/* The same with an optional '+' or '-', within int64_t. A sign without a
 * digit after it returns 0, with nothing consumed. */
ssize_t kvparse_i64(const char *s, size_t len, int64_t *out);

/* A read position in a buffer; fields are taken from its front. Blanks are
 * space, tab, CR and LF. */
struct kvparse_cur {
	const char *p, *end;
};

void kvparse_cur_init(struct kvparse_cur *c, const char *buf, size_t len);
/* Skips blanks and takes the next run of non-blank bytes into *f, *flen.
 * Returns false, taking nothing, at the end. */
bool kvparse_field(struct kvparse_cur *c, const char **f, size_t *flen);
/* Takes the next field as a number that is all digits and at most max.
 * Returns false and leaves the cursor where it was when there is no field
 * or the field is not such a number. */
bool kvparse_field_u64(struct kvparse_cur *c, uint64_t max, uint64_t *out);

/* Lines of a buffer. The last needs no '\n'; a '\r' before the '\n' is not
 * part of the line. */
struct kvparse_iter {
	const char *p, *end;
};

/* One "key<sep>value" line. The key leaves out the blanks before sep, and the
 * value leaves out the blanks (space, tab) on either side. Both point into the
 * buffer. */
struct kvparse_kv {
	const char *key, *val;
	size_t klen, vlen;
};

void kvparse_iter_init(struct kvparse_iter *it, const char *buf, size_t len);
/* Returns how many of the len bytes read into a buffer of bufsize are worth
 * splitting into lines; one byte of the buffer is kept for a NUL, as
 * readfile's is. A read that filled the buffer may have cut its last line,
 * so that line is left out and the result ends just after the last '\n'. Otherwise
 * the result is len. */
size_t kvparse_complete(const char *buf, size_t len, size_t bufsize);
/* Takes the next line of at most KVPARSE_MAX_LINE bytes; longer ones are
 * skipped. Returns false at the end. */
bool kvparse_line(struct kvparse_iter *it, const char **line, size_t *len);
/* Takes the next line that splits at its first sep into a key of 1 to
 * KVPARSE_MAX_KEY bytes and a value, which may be empty; other lines are
 * skipped. A sep of ' ' splits at the first space or tab, as /proc/stat's
 * "btime 1700000000" needs. A sep of ':' serves /proc/meminfo,
 * /proc/PID/status and DRM fdinfo ("drm-memory-gtt: \t46356 KiB"). Returns
 * false at the end. */
bool kvparse_next(struct kvparse_iter *it, char sep, struct kvparse_kv *kv);
/* True when the key is exactly key (not one it is a prefix of). */
bool kvparse_key_is(const struct kvparse_kv *kv, const char *key);
/* The value of one hex digit (either case), or -1. */
int kvparse_hexval(char c);
/* True when the key starts with prefix and has more after it. *rest, unless
 * rest is NULL, gets the offset of what follows the prefix ("gfx" after
 * "drm-engine-" in "drm-engine-gfx"). */
bool kvparse_key_prefix(const struct kvparse_kv *kv, const char *prefix, size_t *rest);

enum kvparse_unit {
	KVPARSE_UNIT_NONE,  /* a bare number */
	KVPARSE_UNIT_BYTES, /* bytes without a unit; kB, KiB, MiB and GiB are powers of 1024 (procfs's kB is KiB) */
	KVPARSE_UNIT_NS,    /* no unit or ns */
	KVPARSE_UNIT_HZ,    /* Hz without a unit or with Hz; also KHz (or kHz), MHz and GHz */
};

/* Parses s[0..len) as "N" or "N unit", with blanks allowed around and
 * between, into the base unit of kind (bytes, ns or Hz). Returns 0; -EINVAL
 * when it is not a number, the unit is not one of kind's, or anything follows
 * it; and -ERANGE when the value is over UINT64_MAX before or after scaling. */
int kvparse_value(const char *s, size_t len, enum kvparse_unit kind, uint64_t *out);

/* Parses a sysfs attribute that holds one number ("52000\n", "-273150\n"),
 * which must be followed only by blanks. Returns 0, -ERANGE, or -EINVAL when
 * the text is empty, starts with blanks or has anything else after the
 * number. */
int kvparse_single_u64(const char *s, size_t len, uint64_t *out);
int kvparse_single_i64(const char *s, size_t len, int64_t *out);
/* Length of s[0..len) without its trailing blanks (a sysfs string). */
size_t kvparse_trim_end(const char *s, size_t len);

#endif
