/* recorder: crash-safe JSON Lines output. */
#include "record/recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/record_encode.h"
#include "util/buf.h"
#include "util/xalloc.h"

struct recorder {
	int fd;
	bool owned;      /* we opened fd (a --log file) */
	bool need_nl;    /* a torn piece could not be removed: start with \n */
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

/* Encodes f, shedding command lines and then process rows (with a note
 * saying so) while the line is over the cap. Returns false when even that
 * does not fit. */
static bool encode_bounded(struct recorder *r, const struct frame *f)
{
	static const char *const why[] = {
		NULL,
		"record over 8 MiB: command lines left out",
		"record over 8 MiB: process rows left out",
	};
	static const unsigned flags[] = {0, RECORD_NO_CMDLINES, RECORD_NO_CMDLINES | RECORD_NO_PROCESSES};

	for (int step = 0; step < 3; step++) {
		struct frame tmp = *f;
		struct event *events = NULL;
		buf_reset(&r->line);
		if (r->need_nl)
			buf_putc(&r->line, '\n');
		if (why[step]) {
			/* At the event limit the note takes the last event's place:
			 * a record over the limit would be skipped by every reader. */
			size_t keep = f->nevents < FRAME_MAX_EVENTS ? f->nevents : FRAME_MAX_EVENTS - 1;
			events = xreallocarray(NULL, keep + 1, sizeof(*events));
			if (keep)
				memcpy(events, f->events, keep * sizeof(*events));
			struct event *e = &events[keep];
			memset(e, 0, sizeof(*e));
			e->kind = EVENT_NOTE;
			e->detail = why[step];
			e->valid = UINT64_C(1) << EVENT_F_KIND | UINT64_C(1) << EVENT_F_DETAIL;
			tmp.events = events;
			tmp.nevents = keep + 1;
		}
		record_encode(&r->line, &tmp, flags[step]);
		free(events);
		/* The cap is on the line's bytes before its \n. */
		if (r->line.len - (r->need_nl ? 1 : 0) - 1 <= RECORD_MAX_LINE)
			return true;
	}
	return false;
}

static int drop(struct recorder *r, int err)
{
	r->dropped++;
	r->last_err = err;
	return -err;
}

int recorder_write(struct recorder *r, const struct frame *f)
{
	struct stat st;
	off_t before = -1;

	if (!encode_bounded(r, f))
		return drop(r, EFBIG);
	if (r->owned && fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode))
		before = st.st_size;

	const char *p = r->line.data;
	size_t left = r->line.len;
	while (left) {
		ssize_t n = write(r->fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			/* After a short write (file size limit, disk full) the torn
			 * piece is undone so the next record starts on a line of its
			 * own; where that is impossible, the next record starts with
			 * a newline. A pipe cannot be undone: it only loses bytes. */
			if (left < r->line.len && (before < 0 || ftruncate(r->fd, before) != 0))
				r->need_nl = true;
			return drop(r, e);
		}
		p += n;
		left -= (size_t)n;
	}
	r->need_nl = false;
	r->written++;
	return 0;
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
