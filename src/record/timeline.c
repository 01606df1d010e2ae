/* timeline: a --replay PATH into its files. */
#include "record/timeline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/frame.h"
#include "record/instream.h"
#include "record/line_reader.h"
#include "record/record_decode.h"
#include "record/record_encode.h"
#include "record/segment.h"
#include "util/xalloc.h"

static void add(struct timeline *tl, size_t *cap, const char *path, uint64_t ub)
{
	if (tl->n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		tl->v = xreallocarray(tl->v, *cap, sizeof(*tl->v));
	}
	tl->v[tl->n].path = xstrdup(path);
	tl->v[tl->n].first_ub_ms = ub;
	tl->n++;
}

void timeline_fini(struct timeline *tl)
{
	for (size_t i = 0; i < tl->n; i++)
		free(tl->v[i].path);
	free(tl->v);
	tl->v = NULL;
	tl->n = 0;
}

/* How many of a file's first records are looked at for a time. The original
 * gpur writes ts_ms 0, meaning no time, when it could not read the clock. */
#define TIMELINE_TS_LOOK 64

/* The ts_ms of the first valid record of path that has a time, decoded from
 * any encoding. It is UINT64_MAX when its first records have none, so that
 * the file plays after the timed ones. Returns false when the file has no
 * valid record. */
static bool first_ts(const char *path, uint64_t *ts)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	bool found = false;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	struct instream *in = instream_new(fd);
	struct line_reader lr;
	struct frame *f = frame_new();
	const char *line;
	size_t len;
	line_reader_init_stream(&lr, in, RECORD_MAX_LINE);
	line_reader_objects(&lr);
	size_t valid = 0;
	*ts = UINT64_MAX;
	while (valid < TIMELINE_TS_LOOK && line_reader_next(&lr, &line, &len) == 1) {
		if (record_decode(f, line, len) != 0)
			continue;
		found = true;
		valid++;
		if (frame_has(f, FRAME_F_TS)) {
			*ts = f->ts_ms;
			break;
		}
	}
	frame_unref(f);
	line_reader_fini(&lr);
	instream_free(in);
	close(fd);
	return found;
}

struct dir_item {
	char *path, *name;
	uint64_t ts;
};

static int cmp_item(const void *a, const void *b)
{
	const struct dir_item *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int build_dir(const char *path, struct timeline *tl, char *err, size_t errlen)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, cn = 0, cap = 0;

	if (!d) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	while ((de = readdir(d)) && nn < TIMELINE_MAX_FILES) {
		if (de->d_name[0] == '.') /* hidden, and gpur's compression temporaries */
			continue;
		if (nn == cn) {
			cn = cn ? cn * 2 : 32;
			names = xreallocarray(names, cn, sizeof(*names));
		}
		names[nn++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_name);
	struct dir_item *items = xcalloc(nn ? nn : 1, sizeof(*items));
	size_t ni = 0;
	for (size_t i = 0; i < nn; i++) {
		size_t l = strlen(names[i]);
		/* When X is beside X.zst, the .zst is the finished copy of X. */
		if (i + 1 < nn && strncmp(names[i + 1], names[i], l) == 0 && strcmp(names[i + 1] + l, ".zst") == 0)
			continue;
		char p[8300];
		snprintf(p, sizeof(p), "%s/%s", path, names[i]);
		uint64_t ts;
		if (!first_ts(p, &ts))
			continue;
		items[ni].path = xstrdup(p);
		items[ni].name = names[i];
		items[ni].ts = ts;
		ni++;
	}
	if (ni)
		qsort(items, ni, sizeof(*items), cmp_item);
	for (size_t i = 0; i < ni; i++) {
		add(tl, &cap, items[i].path, items[i].ts);
		free(items[i].path);
	}
	free(items);
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	tl->many = true;
	if (!tl->n) {
		snprintf(err, errlen, "%s: no valid JSONL records (no recording in the directory)", path);
		return -ENODATA;
	}
	return 0;
}

int timeline_build(const char *path, struct timeline *tl, char *err, size_t errlen)
{
	struct stat st;
	struct segment_list sl = {0};
	size_t cap = 0;
	bool exists = stat(path, &st) == 0;
	int e = errno;

	memset(tl, 0, sizeof(*tl));
	if (exists && S_ISDIR(st.st_mode))
		return build_dir(path, tl, err, errlen);
	/* Segments are looked for beside a regular file, or where no file is. */
	if ((!exists || S_ISREG(st.st_mode)) && segment_list(path, &sl) == 0) {
		for (size_t i = 0; i < sl.n && tl->n < TIMELINE_MAX_FILES; i++)
			add(tl, &cap, sl.v[i].path, (uint64_t)sl.v[i].start_s * 1000 + 999);
		segment_list_fini(&sl);
	}
	if (exists)
		add(tl, &cap, path, UINT64_MAX);
	if (!tl->n) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	tl->many = tl->n > 1;
	return 0;
}
