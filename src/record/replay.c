/* replay: recorded frames, read one valid record per poll, across the files
 * of a timeline (a file, a rotated set, a directory), within a span. */
#include "record/replay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/instream.h"
#include "record/line_reader.h"
#include "record/record_decode.h"
#include "record/record_encode.h"
#include "record/seekindex.h"
#include "record/timeline.h"
#include "util/xalloc.h"

struct replay {
	char *path;
	struct timeline tl;
	size_t cur;          /* the file being read */
	int fd;              /* of tl.v[cur], or -1 */
	struct instream *in;
	struct line_reader lr;
	bool lr_live;        /* lr holds buffers */
	uint64_t lines_base; /* lines of the timeline before lr's first */
	const volatile sig_atomic_t *cancel;
	struct frame *first; /* the next record, already read (the one that proved the file, or a seek's) */
	struct frame *scratch; /* lines are decoded here, so a bad one never touches f */
	struct replay_stats stats;
	bool done;
	uint64_t from_ms, to_ms; /* the span, inclusive */
	bool span;
	uint64_t first_ts;
	bool first_ts_known;
	struct seekindex *index;
};

/* Exchanges the contents of a and b; each keeps its reference count. */
static void swap_frames(struct frame *a, struct frame *b)
{
	struct frame t = *a;
	int ra = atomic_load(&a->refs), rb = atomic_load(&b->refs);

	*a = *b;
	*b = t;
	atomic_store(&a->refs, ra);
	atomic_store(&b->refs, rb);
}

static void close_file(struct replay *r)
{
	if (r->lr_live) {
		r->lines_base += r->lr.lineno;
		line_reader_fini(&r->lr);
		r->lr_live = false;
	}
	instream_free(r->in);
	r->in = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* Starts the line reader on r->in when it is set, else on r->fd. Records may
 * span lines, as a pretty-printed object does, and a stop request ends a
 * blocked read. */
static void reader_start(struct replay *r)
{
	if (r->in)
		line_reader_init_stream(&r->lr, r->in, RECORD_MAX_LINE);
	else
		line_reader_init(&r->lr, r->fd, RECORD_MAX_LINE);
	line_reader_objects(&r->lr);
	r->lr.cancel = r->cancel;
	r->lr_live = true;
}

/* Opens file i of the timeline at raw offset off, where kind says what is
 * there; a fresh file is sniffed instead. Returns 0 or -errno. */
static int open_file(struct replay *r, size_t i, uint64_t off, bool sniff, enum instream_kind kind)
{
	close_file(r);
	r->cur = i;
	r->fd = open(r->tl.v[i].path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	if (off && lseek(r->fd, (off_t)off, SEEK_SET) < 0) {
		int e = -errno;
		close(r->fd);
		r->fd = -1;
		return e;
	}
	r->in = sniff ? instream_new(r->fd) : instream_new_at(r->fd, kind);
	reader_start(r);
	return 0;
}

/* Moves to the next file of the timeline, and returns false at the end. */
static bool next_file(struct replay *r)
{
	while (r->cur + 1 < r->tl.n) {
		int e = open_file(r, r->cur + 1, 0, true, INSTREAM_PLAIN);
		if (e == 0)
			return true;
		if (e != -ENOENT && !r->stats.read_error)
			r->stats.read_error = e; /* reported at the end, and the other files still play */
	}
	return false;
}

static bool in_span(const struct replay *r, const struct frame *f, bool *past)
{
	*past = false;
	if (!r->span)
		return true;
	if (!frame_has(f, FRAME_F_TS))
		return false;
	if (f->ts_ms > r->to_ms) {
		*past = true;
		return false;
	}
	return f->ts_ms >= r->from_ms;
}

static void finish(struct replay *r)
{
	r->done = true;
	/* The reader's buffers are no longer needed. Free them now, so that a
	 * held last frame costs only itself. */
	close_file(r);
	frame_unref(r->scratch);
	r->scratch = NULL;
}

/* Reads lines until one decodes into f, and returns 1. Returns 0, with f
 * untouched, at the end of the timeline or the span, or after a read error. */
static int read_record(struct replay *r, struct frame *f)
{
	const char *line;
	size_t len;
	int rc;

	if (r->done)
		return 0;
	for (;;) {
		uint64_t over = r->lr.oversized, torn = r->lr.torn;
		while ((rc = line_reader_next(&r->lr, &line, &len)) == 1) {
			r->stats.skipped += r->lr.oversized - over;
			r->stats.oversized += r->lr.oversized - over;
			over = r->lr.oversized;
			/* Blank lines are skipped silently. */
			size_t i = 0;
			while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
				i++;
			if (i == len)
				continue;
			int d = record_decode(r->scratch, line, len);
			if (d == 0) {
				bool past;
				if (!in_span(r, r->scratch, &past)) {
					if (past) {
						finish(r);
						return 0;
					}
					continue;
				}
				swap_frames(f, r->scratch);
				frame_reset(r->scratch); /* the previous record, freed now */
				for (size_t g = 0; g < f->ngpus; g++) {
					if (gpu_has(&f->gpus[g], GPU_F_DEVICE_ID))
						continue;
					char id[32];
					snprintf(id, sizeof(id), "replay:%zu", g);
					f->gpus[g].device_id = frame_str(f, id);
					gpu_set(&f->gpus[g], GPU_F_DEVICE_ID);
				}
				r->stats.records++;
				return 1;
			}
			/* An object over several lines is as many skipped lines. */
			r->stats.skipped += r->lr.nlines;
			if (d == -E2BIG)
				r->stats.too_big++;
		}
		r->stats.skipped += r->lr.oversized - over;
		r->stats.oversized += r->lr.oversized - over;
		/* A compressed file stopped decoding. What decoded has played, and
		 * the rest counts as one torn line, whether a piece was cut off or
		 * none. */
		if (rc == -EBADMSG) {
			r->stats.skipped += r->lr.torn - torn ? r->lr.torn - torn : 1;
			r->stats.torn++;
		} else if (rc < 0 && rc != -EINTR && r->tl.many && !r->stats.read_error) {
			r->stats.read_error = rc;
		} else if (rc < 0 && (rc == -EINTR || !r->tl.many)) {
			r->stats.read_error = rc;
			break;
		}
		if (!next_file(r))
			break;
	}
	finish(r);
	return 0;
}

/* Opens the first file and reads up to the first valid record. */
static int start(struct replay *r)
{
	r->lines_base = 0;
	r->fd = -1;
	/* A lone file is not sniffed through the decoder unless it is
	 * compressed, because a FIFO must lose no byte. */
	if (!r->tl.many) {
		r->cur = 0;
		r->fd = open(r->tl.v[0].path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0)
			return -errno;
		unsigned char magic[4];
		struct stat st;
		ssize_t n = fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(r->fd, magic, 4, 0) : 0;
		if (n > 0 && instream_sniff(magic, (size_t)n) != INSTREAM_PLAIN)
			r->in = instream_new(r->fd);
		reader_start(r);
		return 0;
	}
	r->cur = (size_t)-1;
	if (!next_file(r))
		return r->stats.read_error ? r->stats.read_error : -ENOENT;
	return 0;
}

struct replay *replay_open(const char *path, char *err, size_t errlen)
{
	struct replay *r = xcalloc(1, sizeof(*r));

	r->fd = -1;
	r->path = xstrdup(path);
	if (timeline_build(path, &r->tl, err, errlen) < 0) {
		free(r->path);
		free(r);
		return NULL;
	}
	int e = start(r);
	if (e < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-e));
		replay_free(r);
		return NULL;
	}
	r->first = frame_new();
	r->scratch = frame_new();
	if (read_record(r, r->first) != 1) {
		if (r->stats.read_error && !r->tl.many)
			snprintf(err, errlen, "%s: %s", path, strerror(-r->stats.read_error));
		else
			snprintf(err, errlen, "%s: no valid JSONL records", path);
		replay_free(r);
		return NULL;
	}
	r->first_ts_known = frame_has(r->first, FRAME_F_TS);
	r->first_ts = r->first->ts_ms;
	return r;
}

void replay_free(struct replay *r)
{
	if (!r)
		return;
	seekindex_free(r->index);
	close_file(r);
	frame_unref(r->first);
	frame_unref(r->scratch);
	timeline_fini(&r->tl);
	free(r->path);
	free(r);
}

int replay_next(struct replay *r, struct frame *f)
{
	if (r->first) {
		swap_frames(f, r->first);
		frame_unref(r->first);
		r->first = NULL;
		return 1;
	}
	return read_record(r, f);
}

/* Goes back to the very start, with nothing read. Returns 0 or -errno. */
static int restart(struct replay *r)
{
	if (!r->tl.many && r->fd >= 0 && !r->in) {
		/* A lone plain file rewinds its descriptor, which a pipe cannot do. */
		if (lseek(r->fd, 0, SEEK_SET) < 0)
			return -errno;
		if (r->lr_live)
			line_reader_fini(&r->lr);
		reader_start(r);
		r->lines_base = 0;
	} else {
		close_file(r);
		int e = start(r);
		if (e < 0)
			return e;
	}
	if (!r->scratch)
		r->scratch = frame_new();
	frame_unref(r->first);
	r->first = NULL;
	r->done = false;
	return 0;
}

/* Skips whole files that end before from, because their successor starts at
 * or before it, then reads to the first record at or after it. */
static void skip_files_before(struct replay *r, uint64_t from)
{
	size_t i = r->cur;

	while (i + 1 < r->tl.n && r->tl.v[i + 1].first_ub_ms <= from)
		i++;
	if (i != r->cur) {
		uint64_t base = r->lines_base;
		if (open_file(r, i, 0, true, INSTREAM_PLAIN) == 0)
			r->lines_base = base; /* unknown lines were skipped, so the position counts from here */
	}
}

int replay_rewind(struct replay *r)
{
	int e = restart(r);

	if (e < 0)
		return e;
	memset(&r->stats, 0, sizeof(r->stats));
	if (r->span)
		skip_files_before(r, r->from_ms);
	return 0;
}

int replay_set_span(struct replay *r, uint64_t from_ms, uint64_t to_ms)
{
	r->span = true;
	r->from_ms = from_ms;
	r->to_ms = to_ms;
	/* The record that proved the file may be outside the span. */
	bool past = false;
	if (r->first && in_span(r, r->first, &past))
		return 0;
	frame_unref(r->first);
	r->first = NULL;
	if (past || r->done)
		return -ENODATA;
	skip_files_before(r, from_ms);
	struct frame *f = frame_new();
	if (read_record(r, f) != 1) {
		frame_unref(f);
		return -ENODATA;
	}
	r->first = f;
	return 0;
}

bool replay_first_ts(const struct replay *r, uint64_t *ts_ms)
{
	*ts_ms = r->first_ts;
	return r->first_ts_known;
}

int replay_index_start(struct replay *r)
{
	if (r->index)
		return 0;
	r->index = seekindex_start(&r->tl);
	return r->index ? 0 : -errno;
}

struct seekindex *replay_index(struct replay *r)
{
	return r->index;
}

int replay_seek_time(struct replay *r, uint64_t ts_ms, uint64_t *lines_before)
{
	struct seekindex_entry e;
	int rc;

	if (r->span && ts_ms < r->from_ms)
		ts_ms = r->from_ms;
	if (r->span && ts_ms > r->to_ms)
		ts_ms = r->to_ms;
	if (r->index && seekindex_find(r->index, ts_ms, &e) && e.ts_ms <= ts_ms) {
		if (r->tl.many || r->in || e.raw_off) {
			if (!r->tl.many) {
				/* A lone file's descriptor is reused. */
				if (r->lr_live)
					line_reader_fini(&r->lr);
				r->lr_live = false;
				instream_free(r->in);
				r->in = NULL;
				if (lseek(r->fd, (off_t)e.raw_off, SEEK_SET) < 0)
					return -errno;
				if (e.kind != INSTREAM_PLAIN || e.raw_off)
					r->in = instream_new_at(r->fd, e.kind);
				reader_start(r);
				/* This is not the first line of the file, so it has no byte-order
				 * mark. */
				r->lr.bof_done = e.raw_off != 0;
			} else if ((rc = open_file(r, e.file, e.raw_off, e.raw_off == 0, e.kind)) < 0) {
				return rc;
			}
			r->lr.bof_done = e.raw_off != 0;
			r->lines_base = e.lines;
			if (!r->scratch)
				r->scratch = frame_new();
			frame_unref(r->first);
			r->first = NULL;
			r->done = false;
		} else if ((rc = restart(r)) < 0) {
			return rc;
		}
	} else if ((rc = restart(r)) < 0) {
		return rc;
	}
	/* Read forward to the first record at or after the time, or to the
	 * last one when the recording ends before it. */
	struct frame *f = frame_new(), *last = NULL;
	uint64_t at = 0;
	while (!(r->cancel && *r->cancel) && read_record(r, f) == 1) {
		bool reached = frame_has(f, FRAME_F_TS) && f->ts_ms >= ts_ms;
		frame_unref(last);
		last = f;
		f = frame_new();
		/* The lines before this record's first line. */
		at = r->lines_base + r->lr.first_line - 1;
		if (reached)
			break;
	}
	frame_unref(f);
	r->first = last;
	if (lines_before)
		*lines_before = at;
	return last ? 0 : -ENODATA;
}

void replay_set_cancel(struct replay *r, const volatile sig_atomic_t *cancel)
{
	r->cancel = cancel;
	if (r->lr_live)
		r->lr.cancel = cancel;
}

const struct replay_stats *replay_stats(const struct replay *r)
{
	return &r->stats;
}

size_t replay_nfiles(const struct replay *r)
{
	return r->tl.n;
}

const char *replay_driver_line(const struct frame *f, char *out, size_t n, bool ascii)
{
	bool hb = frame_has(f, FRAME_F_BACKEND), hd = frame_has(f, FRAME_F_DRIVER);

	if (hb && hd)
		snprintf(out, n, "%s%s%s", f->backend, ascii ? " - " : " \u00b7 ", f->driver);
	else if (hb || hd)
		snprintf(out, n, "%s", hb ? f->backend : f->driver);
	else
		return NULL;
	return out;
}

uint64_t replay_delay_ms(const struct frame *prev, const struct frame *cur, double speed, uint64_t interval_ms)
{
	uint64_t gap = interval_ms;

	if (prev && frame_has(prev, FRAME_F_TS) && frame_has(cur, FRAME_F_TS) && cur->ts_ms > prev->ts_ms) {
		gap = cur->ts_ms - prev->ts_ms;
		if (gap > REPLAY_MAX_GAP_MS)
			gap = REPLAY_MAX_GAP_MS;
	}
	if (!(speed > 0))
		speed = 1;
	return (uint64_t)((double)gap / speed + 0.5);
}
