/* kvparse: bounded parsing of the text procfs, sysfs and DRM fdinfo give —
 * checked decimal numbers, "key: value unit" lines, blank-separated fields
 * and single-value files — over (buf, len), without allocation. */
#ifndef GPUR_KVPARSE_H
#define GPUR_KVPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bounds on untrusted text: a longer line is skipped whole, a line whose
 * key is longer is not a key line. */
#define KVPARSE_MAX_LINE 4096
#define KVPARSE_MAX_KEY 64

/* The decimal number at the start of s[0..len): digits only, no sign, no
 * blanks. Returns the bytes consumed (> 0) with *out set; 0 when s does not
 * start with a digit; -ERANGE when the number is over max (*out untouched). */
ssize_t kvparse_u64(const char *s, size_t len, uint64_t max, uint64_t *out);
/* The same with an optional '+' or '-', within int64_t. A sign without a
 * digit after it is 0 (nothing consumed). */
ssize_t kvparse_i64(const char *s, size_t len, int64_t *out);

/* A read position in a buffer; fields are taken from its front. Blanks are
 * space, tab, CR and LF. */
struct kvparse_cur {
	const char *p, *end;
};

void kvparse_cur_init(struct kvparse_cur *c, const char *buf, size_t len);
/* Skips blanks and takes the next run of non-blank bytes into *f, *flen.
 * False (nothing taken) at the end. */
bool kvparse_field(struct kvparse_cur *c, const char **f, size_t *flen);
/* Takes the next field as a number that is all digits and at most max.
 * False, the cursor unmoved, when there is no field or it is not one. */
bool kvparse_field_u64(struct kvparse_cur *c, uint64_t max, uint64_t *out);

/* Lines of a buffer. The last needs no '\n'; a '\r' before the '\n' is not
 * part of the line. */
struct kvparse_iter {
	const char *p, *end;
};

/* One "key<sep>value" line: key without the blanks before sep, value without
 * blanks (space, tab) either side. Both point into the buffer. */
struct kvparse_kv {
	const char *key, *val;
	size_t klen, vlen;
};

void kvparse_iter_init(struct kvparse_iter *it, const char *buf, size_t len);
/* The bytes of a read worth splitting into lines: a read of len bytes into
 * a buffer of bufsize (one byte kept for a NUL, as readfile's) that filled
 * it may have cut its last line, which is then left out (everything up to
 * the last '\n'); otherwise all len. */
size_t kvparse_complete(const char *buf, size_t len, size_t bufsize);
/* The next line of at most KVPARSE_MAX_LINE bytes (longer ones are
 * skipped). False at the end. */
bool kvparse_line(struct kvparse_iter *it, const char **line, size_t *len);
/* The next line that splits at its first sep into a key of 1 to
 * KVPARSE_MAX_KEY bytes and a value (possibly empty); other lines are
 * skipped. sep ' ' splits at the first space or tab (/proc/stat's
 * "btime 1700000000"); ':' serves /proc/meminfo, /proc/PID/status and DRM
 * fdinfo ("drm-memory-gtt: \t46356 KiB"). False at the end. */
bool kvparse_next(struct kvparse_iter *it, char sep, struct kvparse_kv *kv);
/* True when the key is exactly key (not one it is a prefix of). */
bool kvparse_key_is(const struct kvparse_kv *kv, const char *key);
/* The value of one hex digit (either case), or -1. */
int kvparse_hexval(char c);
/* True when the key starts with prefix and has more after it; *rest (may be
 * NULL) gets the offset of that rest ("drm-engine-" in "drm-engine-gfx"). */
bool kvparse_key_prefix(const struct kvparse_kv *kv, const char *prefix, size_t *rest);

enum kvparse_unit {
	KVPARSE_UNIT_NONE,  /* a bare number */
	KVPARSE_UNIT_BYTES, /* no unit: bytes; kB, KiB, MiB, GiB: powers of 1024 (procfs's kB is KiB) */
	KVPARSE_UNIT_NS,    /* no unit or ns */
	KVPARSE_UNIT_HZ,    /* no unit or Hz; KHz (kHz), MHz, GHz */
};

/* s[0..len) as "N" or "N unit" (blanks around and between) in the base
 * unit of kind (bytes, ns, Hz). 0; -EINVAL when it is not a number, the
 * unit is not one of kind's or anything follows it; -ERANGE when the value
 * is over UINT64_MAX, before or after scaling. */
int kvparse_value(const char *s, size_t len, enum kvparse_unit kind, uint64_t *out);

/* A sysfs attribute holding one number ("52000\n", "-273150\n"): the
 * number, then only blanks. 0, -EINVAL (empty, leading blanks, anything
 * else after it), -ERANGE. */
int kvparse_single_u64(const char *s, size_t len, uint64_t *out);
int kvparse_single_i64(const char *s, size_t len, int64_t *out);
/* Length of s[0..len) without its trailing blanks (a sysfs string). */
size_t kvparse_trim_end(const char *s, size_t len);

#endif
