/* recorder: crash-safe JSON Lines output. */
#include "record/recorder.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "record/compressor.h"
#include "record/record_decode.h"
#include "record/record_encode.h"
#include "record/segment.h"
#include "util/buf.h"
#include "util/xalloc.h"

struct recorder {
	int fd;
	bool owned;      /* we opened fd, a --log file */
	bool need_nl;    /* a torn piece could not be removed, so start with \n */
	const volatile sig_atomic_t *cancel; /* stop waiting on a blocked write */
	struct buf line;
	uint64_t written, dropped;
	int last_err;
	char *name;
	/* Rotation, used only when rotating. */
	bool rotating;
	struct recorder_rotation rot;
	struct compressor *comp;
	uint64_t first_ts;  /* ts_ms of the active file's first record */
	bool have_first;
	uint64_t rotations;
	char note[512];
	bool note_new;
};

/* The ts_ms of the first line of the file open at fd, if any. */
static bool first_line_ts(int fd, uint64_t *ts)
{
	char b[4096];
	ssize_t n = pread(fd, b, sizeof(b), 0);

	if (n <= 0)
		return false;
	const char *nl = memchr(b, '\n', (size_t)n);
	return record_peek_ts(b, nl ? (size_t)(nl - b) : (size_t)n, ts);
}

static void queue_plain(const char *plain, void *ctx)
{
	compressor_add(ctx, plain);
}

struct recorder *recorder_open_rotating(const char *path, const struct recorder_rotation *rot, char *err, size_t errlen)
{
	struct recorder *r = recorder_open(path, err, errlen);

	if (!r || (!rot->max_size && !rot->max_age_ms))
		return r;
	r->rotating = true;
	r->rot = *rot;
	if (!r->rot.zstd_level)
		r->rot.zstd_level = 3;
	struct compressor_opts co = {.file = path, .level = r->rot.zstd_level, .keep = rot->keep, .max_total = rot->max_total};
	if (!(r->comp = compressor_new(&co))) {
		snprintf(err, errlen, "%s: cannot start the compression thread: %s", path, strerror(errno));
		recorder_free(r);
		return NULL;
	}
	/* A crash or a kill may have left plain segments or temporaries, so
	 * finish them. */
	segment_recover(path, queue_plain, r->comp);
	compressor_retain(r->comp);
	r->have_first = first_line_ts(r->fd, &r->first_ts);
	return r;
}

__attribute__((format(printf, 2, 3))) static void set_note(struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->note, sizeof(r->note), fmt, ap);
	va_end(ap);
	r->note_new = true;
}

/* Closes the active file as a segment and begins a new one. After a failure
 * the records go on to the active file, and the failure is reported once. */
static void rotate(struct recorder *r, uint64_t ts)
{
	char seg[4200];
	uint64_t start = r->have_first ? r->first_ts : ts;

	if (!segment_free_name(seg, sizeof(seg), r->name, start)) {
		set_note(r, "%s: cannot name a segment; the file goes on growing", r->name);
		return;
	}
	if (rename(r->name, seg) != 0) {
		set_note(r, "%s: cannot rotate: %s", r->name, strerror(errno));
		return;
	}
	int fd = open(r->name, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0) {
		/* The renamed file still takes the records, so keep it. */
		set_note(r, "%s: cannot begin a new file: %s", r->name, strerror(errno));
		return;
	}
	close(r->fd);
	r->fd = fd;
	r->need_nl = false; /* a torn piece stays with the segment it is in */
	r->have_first = false;
	r->rotations++;
	compressor_add(r->comp, seg);
}

bool recorder_take_note(struct recorder *r, char *out, size_t n)
{
	if (r->note_new) {
		snprintf(out, n, "%s", r->note);
		r->note_new = false;
		return true;
	}
	return r->comp && compressor_take_note(r->comp, out, n);
}

void recorder_drain(struct recorder *r)
{
	if (r->comp)
		compressor_drain(r->comp);
}

uint64_t recorder_rotations(const struct recorder *r)
{
	return r->rotations;
}

struct recorder *recorder_open(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct recorder *r = recorder_fdopen(fd, path);
	r->owned = true;
	return r;
}

struct recorder *recorder_fdopen(int fd, const char *name)
{
	struct recorder *r = xcalloc(1, sizeof(*r));

	r->fd = fd;
	r->name = xstrdup(name);
	buf_init(&r->line);
	return r;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	/* A clean exit finishes compressing every segment it closed. */
	compressor_free(r->comp);
	if (r->owned)
		close(r->fd);
	buf_fini(&r->line);
	free(r->name);
	free(r);
}

int recorder_drop(struct recorder *r, int err)
{
	r->dropped++;
	r->last_err = err;
	return -err;
}

int recorder_write(struct recorder *r, const struct frame *f)
{
	buf_reset(&r->line);
	if (!record_encode_bounded(&r->line, f))
		return recorder_drop(r, EFBIG);
	int rc = recorder_write_line(r, r->line.data, r->line.len);
	/* Do not keep the memory of one huge record for the rest of the run. */
	if (r->line.cap > (1u << 20) && r->line.len < (1u << 18))
		buf_fini(&r->line);
	return rc;
}

int recorder_write_line(struct recorder *r, const char *line, size_t len)
{
	struct stat st;
	off_t before = -1;
	struct iovec iov[2];
	size_t total = len, left;
	int niov = 0;

	if (r->owned && fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode))
		before = st.st_size;
	if (r->rotating && before >= 0) {
		uint64_t ts = 0;
		bool have_ts = record_peek_ts(line, len, &ts);
		bool full = r->rot.max_size && before > 0 && (uint64_t)before + len > r->rot.max_size;
		bool old = r->rot.max_age_ms && have_ts && r->have_first && ts >= r->first_ts + r->rot.max_age_ms;
		if (full || old) {
			rotate(r, ts);
			if (fstat(r->fd, &st) == 0)
				before = st.st_size;
		}
		if (before == 0 || !r->have_first) {
			r->first_ts = ts;
			r->have_first = have_ts;
		}
	}
	/* A torn piece that could not be removed gets its own line, with the
	 * newline going out in the same write as the record. */
	if (r->need_nl) {
		static char nl[] = "\n";
		iov[niov++] = (struct iovec){nl, 1};
		total++;
	}
	iov[niov++] = (struct iovec){(void *)(uintptr_t)line, len}; /* writev only reads it */
	left = total;
	while (left) {
		ssize_t n = writev(r->fd, iov, niov);
		if (n < 0 && errno == EINTR) {
			if (r->cancel && *r->cancel) {
				/* When stopping, the record is not lost to a fault, but
				 * a torn piece of it is undone like any other. */
				if (left < total && (before < 0 || ftruncate(r->fd, before) != 0))
					r->need_nl = true;
				return -EINTR;
			}
			continue;
		}
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			/* After a short write, from a file size limit or a full disk,
			 * the torn piece is undone so that the next record starts on a
			 * line of its own; where that is impossible, the next record
			 * starts with a newline. A pipe cannot be undone, so it only
			 * loses bytes. */
			if (left < total && (before < 0 || ftruncate(r->fd, before) != 0))
				r->need_nl = true;
			return recorder_drop(r, e);
		}
		left -= (size_t)n;
		/* Advance the vector past what was written. */
		size_t done = (size_t)n;
		while (niov && done >= iov[0].iov_len) {
			done -= iov[0].iov_len;
			iov[0] = iov[1];
			niov--;
		}
		if (niov) {
			iov[0].iov_base = (char *)iov[0].iov_base + done;
			iov[0].iov_len -= done;
		}
	}
	r->need_nl = false;
	r->written++;
	return 0;
}

void recorder_set_cancel(struct recorder *r, const volatile sig_atomic_t *cancel)
{
	r->cancel = cancel;
}

uint64_t recorder_written(const struct recorder *r)
{
	return r->written;
}

uint64_t recorder_dropped(const struct recorder *r)
{
	return r->dropped;
}

const char *recorder_name(const struct recorder *r)
{
	return r->name;
}

int recorder_last_error(const struct recorder *r)
{
	return r->last_err;
}
