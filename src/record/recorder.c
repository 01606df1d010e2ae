/* recorder: crash-safe JSON Lines output. */
#include "record/recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "record/record_encode.h"
#include "util/buf.h"
#include "util/xalloc.h"

struct recorder {
	int fd;
	bool owned;      /* we opened fd (a --log file) */
	bool need_nl;    /* a torn piece could not be removed: start with \n */
	const volatile sig_atomic_t *cancel; /* stop waiting on a blocked write */
	struct buf line;
	uint64_t written, dropped;
	int last_err;
	char *name;
};

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
	/* A torn piece that could not be removed gets its own line: the
	 * newline goes out in the same write as the record. */
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
				/* Stopping: the record is not lost to a fault, but a
				 * torn piece of it is undone like any other. */
				if (left < total && (before < 0 || ftruncate(r->fd, before) != 0))
					r->need_nl = true;
				return -EINTR;
			}
			continue;
		}
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			/* After a short write (file size limit, disk full) the torn
			 * piece is undone so the next record starts on a line of its
			 * own; where that is impossible, the next record starts with
			 * a newline. A pipe cannot be undone: it only loses bytes. */
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
