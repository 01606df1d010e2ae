/* replay: recorded frames, read one valid record per poll. */
#include "backend/replay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/line_reader.h"
#include "record/record_decode.h"
#include "record/record_encode.h"
#include "util/xalloc.h"

struct replay {
	int fd;
	struct line_reader lr;
	struct frame *first; /* the record that proved the file, until returned */
	struct frame *scratch; /* lines are decoded here, so a bad one never touches f */
	struct replay_stats stats;
	bool done;
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

/* Reads lines until one decodes into f. 1, or 0 at end of file / read error
 * with f untouched. */
static int read_record(struct replay *r, struct frame *f)
{
	const char *line;
	size_t len;
	int rc;
	uint64_t over = r->lr.oversized;

	if (r->done)
		return 0;
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
			swap_frames(f, r->scratch);
			frame_reset(r->scratch); /* the previous record: free it now */
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
		r->stats.skipped++;
		if (d == -E2BIG)
			r->stats.too_big++;
	}
	r->stats.skipped += r->lr.oversized - over;
	r->stats.oversized += r->lr.oversized - over;
	if (rc < 0)
		r->stats.read_error = rc;
	r->done = true;
	/* The reader's buffers are no longer needed; free them now so a held
	 * last frame costs only itself. */
	line_reader_fini(&r->lr);
	frame_unref(r->scratch);
	r->scratch = NULL;
	return 0;
}

struct replay *replay_open(const char *path, char *err, size_t errlen)
{
	struct replay *r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	line_reader_init(&r->lr, fd, RECORD_MAX_LINE);
	r->first = frame_new();
	r->scratch = frame_new();
	if (read_record(r, r->first) != 1) {
		if (r->stats.read_error)
			snprintf(err, errlen, "%s: %s", path, strerror(-r->stats.read_error));
		else
			snprintf(err, errlen, "%s: no valid JSONL records", path);
		replay_free(r);
		return NULL;
	}
	return r;
}

void replay_free(struct replay *r)
{
	if (!r)
		return;
	if (!r->done)
		line_reader_fini(&r->lr);
	frame_unref(r->first);
	frame_unref(r->scratch);
	close(r->fd);
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

int replay_rewind(struct replay *r)
{
	if (lseek(r->fd, 0, SEEK_SET) < 0)
		return -errno;
	const volatile sig_atomic_t *cancel = r->lr.cancel;
	if (!r->done)
		line_reader_fini(&r->lr);
	line_reader_init(&r->lr, r->fd, RECORD_MAX_LINE);
	r->lr.cancel = cancel;
	if (!r->scratch)
		r->scratch = frame_new();
	frame_unref(r->first);
	r->first = NULL;
	r->done = false;
	memset(&r->stats, 0, sizeof(r->stats));
	return 0;
}

void replay_set_cancel(struct replay *r, const volatile sig_atomic_t *cancel)
{
	r->lr.cancel = cancel;
}

const struct replay_stats *replay_stats(const struct replay *r)
{
	return &r->stats;
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
