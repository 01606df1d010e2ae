/* segment: names, listing, compression and retention of closed segments. */
#include "record/segment.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "util/xalloc.h"

#define SEGMENT_COMPRESS_SPARE (1u << 20) /* left free for recording while compressing */

#define SEGMENT_TIME_LEN 16 /* YYYYMMDDTHHMMSSZ */

/* Splits file into its directory and base name, in dir and base of
 * PATH_MAX bytes each. */
static void split_path(const char *file, char *dir, char *base, size_t n)
{
	const char *slash = strrchr(file, '/');

	if (!slash) {
		snprintf(dir, n, ".");
		snprintf(base, n, "%s", file);
	} else if (slash == file) {
		snprintf(dir, n, "/");
		snprintf(base, n, "%s", slash + 1);
	} else {
		snprintf(dir, n, "%.*s", (int)(slash - file), file);
		snprintf(base, n, "%s", slash + 1);
	}
}

bool segment_name(char *out, size_t n, const char *file, uint64_t ts_ms, unsigned seq)
{
	time_t t = (time_t)(ts_ms / 1000);
	struct tm tm;
	char when[32];
	int k;

	if (!gmtime_r(&t, &tm) || strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm) != SEGMENT_TIME_LEN)
		return false;
	if (seq <= 1)
		k = snprintf(out, n, "%s.%s", file, when);
	else
		k = snprintf(out, n, "%s.%s-%u", file, when, seq);
	return k > 0 && (size_t)k + 4 < n; /* room for ".zst" */
}

bool segment_free_name(char *out, size_t n, const char *file, uint64_t ts_ms)
{
	for (unsigned seq = 1; seq < 100000; seq++) {
		char zst[4200];
		if (!segment_name(out, n, file, ts_ms, seq))
			return false;
		snprintf(zst, sizeof(zst), "%s.zst", out);
		if (access(out, F_OK) != 0 && access(zst, F_OK) != 0)
			return true;
	}
	return false;
}

/* Reads "YYYYMMDDTHHMMSSZ" at p as epoch seconds. */
static bool parse_time(const char *p, int64_t *out)
{
	struct tm tm;

	for (int i = 0; i < SEGMENT_TIME_LEN; i++) {
		bool digit = p[i] >= '0' && p[i] <= '9';
		if (i == 8 ? p[i] != 'T' : i == 15 ? p[i] != 'Z' : !digit)
			return false;
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = (p[0] - '0') * 1000 + (p[1] - '0') * 100 + (p[2] - '0') * 10 + (p[3] - '0') - 1900;
	tm.tm_mon = (p[4] - '0') * 10 + (p[5] - '0') - 1;
	tm.tm_mday = (p[6] - '0') * 10 + (p[7] - '0');
	tm.tm_hour = (p[9] - '0') * 10 + (p[10] - '0');
	tm.tm_min = (p[11] - '0') * 10 + (p[12] - '0');
	tm.tm_sec = (p[13] - '0') * 10 + (p[14] - '0');
	if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return false;
	*out = (int64_t)timegm(&tm);
	return true;
}

bool segment_parse(const char *base, const char *name, int64_t *start_s, unsigned *seq, bool *zst)
{
	size_t bl = strlen(base);

	if (strncmp(name, base, bl) != 0 || name[bl] != '.')
		return false;
	const char *p = name + bl + 1;
	if (strlen(p) < SEGMENT_TIME_LEN || !parse_time(p, start_s))
		return false;
	p += SEGMENT_TIME_LEN;
	*seq = 1;
	if (*p == '-') {
		char *end;
		if (p[1] < '1' || p[1] > '9')
			return false;
		errno = 0;
		unsigned long v = strtoul(p + 1, &end, 10);
		if (errno || v < 2 || v > 1000000)
			return false;
		*seq = (unsigned)v;
		p = end;
	}
	*zst = strcmp(p, ".zst") == 0;
	return *zst || *p == '\0';
}

static int cmp_seg(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;

	if (x->start_s != y->start_s)
		return x->start_s < y->start_s ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (int)x->zst - (int)y->zst; /* plain before its .zst */
}

void segment_list_fini(struct segment_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].plain);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int segment_list(const char *file, struct segment_list *out)
{
	char dir[4096], base[4096];
	size_t cap = 0;
	DIR *d;
	struct dirent *de;

	out->v = NULL;
	out->n = 0;
	split_path(file, dir, base, sizeof(dir));
	if (!(d = opendir(dir)))
		return -errno;
	while ((de = readdir(d))) {
		struct segment s;
		char path[8300];
		struct stat st;
		memset(&s, 0, sizeof(s));
		if (!segment_parse(base, de->d_name, &s.start_s, &s.seq, &s.zst))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		s.size = (uint64_t)st.st_size;
		s.path = xstrdup(path);
		size_t pl = strlen(path) - (s.zst ? 4 : 0);
		s.plain = xmalloc(pl + 1);
		memcpy(s.plain, path, pl);
		s.plain[pl] = '\0';
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			out->v = xreallocarray(out->v, cap, sizeof(*out->v));
		}
		out->v[out->n++] = s;
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_seg);
	/* When a plain segment is followed by its own .zst, the .zst is
	 * finished, because it is renamed into place only once whole, and the
	 * plain one is left over. */
	size_t w = 0;
	for (size_t i = 0; i < out->n; i++) {
		struct segment *s = &out->v[i];
		if (!s->zst && i + 1 < out->n && out->v[i + 1].zst && out->v[i + 1].start_s == s->start_s &&
		    out->v[i + 1].seq == s->seq) {
			out->v[i + 1].plain_too = true;
			free(s->path);
			free(s->plain);
			continue;
		}
		out->v[w++] = *s;
	}
	out->n = w;
	return 0;
}

bool segment_tmp_name(char *out, size_t n, const char *plain)
{
	char dir[4096], base[4096];
	int k;

	split_path(plain, dir, base, sizeof(dir));
	k = snprintf(out, n, "%s/.%s" SEGMENT_TMP_SUFFIX, dir, base);
	return k > 0 && (size_t)k < n;
}

/* Writes all of p to fd, and returns 0 or -errno. */
static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Compresses in_fd into out_fd, ending a frame at the first line end after
 * every SEGMENT_FRAME_BYTES of input. Returns 0 or -errno. */
static int compress_fd(int in_fd, int out_fd, int level, char *err, size_t errlen)
{
	size_t in_cap = 256u << 10, out_cap = ZSTD_CStreamOutSize();
	char *in = xmalloc(in_cap), *out = xmalloc(out_cap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t in_frame = 0;
	int rc = 0;

	if (!cc) {
		rc = -ENOMEM;
		goto out;
	}
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	for (;;) {
		ssize_t n = read(in_fd, in, in_cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			snprintf(err, errlen, "read: %s", strerror(errno));
			goto out;
		}
		size_t pos = 0, len = (size_t)n;
		while (pos < len || n == 0) {
			/* Up to the first \n past the frame size, or all of it. */
			size_t take = len - pos;
			ZSTD_EndDirective mode = n == 0 ? ZSTD_e_end : ZSTD_e_continue;
			if (n > 0 && in_frame + take >= SEGMENT_FRAME_BYTES) {
				size_t from = in_frame < SEGMENT_FRAME_BYTES ? SEGMENT_FRAME_BYTES - in_frame : 0;
				const char *nl = from < take ? memchr(in + pos + from, '\n', take - from) : NULL;
				if (nl) {
					take = (size_t)(nl - (in + pos)) + 1;
					mode = ZSTD_e_end;
				}
			}
			ZSTD_inBuffer ib = {in + pos, take, 0};
			size_t left;
			do {
				ZSTD_outBuffer ob = {out, out_cap, 0};
				left = ZSTD_compressStream2(cc, &ob, &ib, mode);
				if (ZSTD_isError(left)) {
					rc = -EIO;
					snprintf(err, errlen, "zstd: %s", ZSTD_getErrorName(left));
					goto out;
				}
				if ((rc = write_all(out_fd, out, ob.pos)) < 0) {
					snprintf(err, errlen, "%s", strerror(-rc));
					goto out;
				}
			} while (mode == ZSTD_e_end ? left != 0 : ib.pos < ib.size);
			pos += take;
			in_frame = mode == ZSTD_e_end ? 0 : in_frame + take;
			if (n == 0)
				break;
		}
		if (n == 0)
			break;
	}
out:
	ZSTD_freeCCtx(cc);
	free(in);
	free(out);
	return rc;
}

int segment_compress(const char *plain, int level, char *err, size_t errlen)
{
	char tmp[8300], final[8300];
	int in = -1, out = -1, rc;

	snprintf(final, sizeof(final), "%s.zst", plain);
	if (!segment_tmp_name(tmp, sizeof(tmp), plain)) {
		snprintf(err, errlen, "name too long");
		return -ENAMETOOLONG;
	}
	if ((in = open(plain, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		return rc;
	}
	/* The compressed copy is written beside the segment before the
	 * segment goes, and it may be as large, as with random data. Without
	 * room for both and some to spare, compressing would take the space
	 * that the recording needs, and records would be dropped while it
	 * lasts. */
	struct stat st;
	struct statvfs vfs;
	if (fstat(in, &st) == 0 && fstatvfs(in, &vfs) == 0 && vfs.f_frsize) {
		unsigned long long avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
		unsigned long long need = (unsigned long long)st.st_size + SEGMENT_COMPRESS_SPARE;
		if (avail < need) {
			snprintf(err, errlen, "%s: %llu KiB free, %llu KiB needed to compress beside it", strerror(ENOSPC),
				 avail / 1024, need / 1024);
			close(in);
			return -ENOSPC;
		}
	}
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0600);
	if (out < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		close(in);
		return rc;
	}
	rc = compress_fd(in, out, level, err, errlen);
	/* The copy is whole on disk before it takes the segment's place. */
	if (rc == 0 && fsync(out) != 0) {
		rc = -errno;
		snprintf(err, errlen, "fsync: %s", strerror(errno));
	}
	if (close(out) != 0 && rc == 0) {
		rc = -errno;
		snprintf(err, errlen, "close: %s", strerror(errno));
	}
	close(in);
	if (rc == 0 && rename(tmp, final) != 0) {
		rc = -errno;
		snprintf(err, errlen, "rename: %s", strerror(errno));
	}
	if (rc < 0) {
		unlink(tmp);
		return rc;
	}
	/* From here on the .zst holds the records, and a reader that finds
	 * both takes the .zst. */
	unlink(plain);
	return 0;
}

int segment_recover(const char *file, void (*todo)(const char *plain, void *ctx), void *ctx)
{
	char dir[4096], base[4096];
	DIR *d;
	struct dirent *de;
	struct segment_list l;

	split_path(file, dir, base, sizeof(dir));
	if (!(d = opendir(dir)))
		return -errno;
	/* Stray temporaries, named .BASE.<time>[-N].zst.tmp */
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name), sl = strlen(SEGMENT_TMP_SUFFIX);
		int64_t t;
		unsigned seq;
		bool zst;
		char name[4096], path[8300];
		if (de->d_name[0] != '.' || n <= sl + 1 || strcmp(de->d_name + n - sl, SEGMENT_TMP_SUFFIX) != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - sl - 1), de->d_name + 1);
		if (!segment_parse(base, name, &t, &seq, &zst) || zst)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	int rc = segment_list(file, &l);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < l.n; i++) {
		if (l.v[i].plain_too)
			unlink(l.v[i].plain);
		else if (!l.v[i].zst && todo)
			todo(l.v[i].plain, ctx);
	}
	segment_list_fini(&l);
	return 0;
}

size_t segment_retain(const char *file, unsigned keep, uint64_t max_total, bool (*busy)(const char *path, void *ctx),
		      void *ctx)
{
	struct segment_list l;
	uint64_t total = 0;
	size_t gone = 0;

	if ((!keep && !max_total) || segment_list(file, &l) < 0)
		return 0;
	for (size_t i = 0; i < l.n; i++)
		total += l.v[i].size;
	for (size_t i = 0; i < l.n; i++) {
		size_t left = l.n - i;
		if (!((keep && left > keep) || (max_total && total > max_total)))
			break;
		if (busy && !l.v[i].zst && busy(l.v[i].path, ctx))
			continue;
		if (unlink(l.v[i].path) == 0 || errno == ENOENT) {
			if (l.v[i].plain_too)
				unlink(l.v[i].plain);
			gone++;
		}
		total -= l.v[i].size;
	}
	segment_list_fini(&l);
	return gone;
}
