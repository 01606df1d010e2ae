/* replay: plays a --log recording back as a source of frames (the record
 * format's rules 2-6, docs/record-format.md §8). It never re-detects, never
 * turns live and never signals. */
#ifndef GPUR_REPLAY_H
#define GPUR_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

struct replay;

struct replay_stats {
	uint64_t records;   /* valid records returned */
	uint64_t skipped;   /* lines that were not one valid record */
	uint64_t oversized; /* of those, lines over the 8 MiB cap */
	uint64_t too_big;   /* of those, records over the GPU/process/event limits */
	uint64_t torn;      /* compressed files that stopped decoding, each counted as one skipped line */
	int read_error;     /* -errno of a read error that ended the file, or 0 */
};

/* Opens path and reads up to its first valid record. path is a plain, zstd or
 * gzip file (told apart by magic), a rotated set (FILE's segments, then FILE)
 * or a directory. Returns NULL on failure, with a one-line reason in err
 * ("FILE: no valid JSONL records", "FILE: No such file or directory"). The
 * caller frees the replay with replay_free(). */
struct replay *replay_open(const char *path, char *err, size_t errlen);
void replay_free(struct replay *r);
/* Reads the next record into f, which is reset first; the first call returns
 * the first record. Returns 1, or 0 at the end of the file and after a read
 * error, which replay_stats reports; f is then untouched. Missing device ids
 * are filled with "replay:<position>". */
int replay_next(struct replay *r, struct frame *f);
const struct replay_stats *replay_stats(const struct replay *r);
/* The ts_ms of the first valid record, or false when it has none. */
bool replay_first_ts(const struct replay *r, uint64_t *ts_ms);
/* Plays only records with from_ms <= ts_ms <= to_ms; a record without ts_ms
 * is outside any span. The replay ends at the first record after to_ms. Call
 * it before the first replay_next. Returns 0, or -ENODATA when no record is
 * in the span. */
int replay_set_span(struct replay *r, uint64_t from_ms, uint64_t to_ms);
/* Starts the background time index (seekindex.h). Returns 0 or -errno. */
int replay_index_start(struct replay *r);
struct seekindex *replay_index(struct replay *r);
/* Makes the next replay_next() return the first record at or after ts_ms
 * within the span, or the last record when none is that late. It uses the
 * index when that was started, and otherwise reads from the start.
 * *lines_before gets the lines of the timeline before that record, which is
 * its position. Returns 0, -ENODATA when there is no record, or -errno. */
int replay_seek_time(struct replay *r, uint64_t ts_ms, uint64_t *lines_before);
/* Files in the timeline. */
size_t replay_nfiles(const struct replay *r);
/* Goes back to the start of the file, so that the next replay_next() returns
 * the first valid record again. Returns 0, or -errno, as for a pipe, which
 * cannot rewind. */
int replay_rewind(struct replay *r);
/* While *cancel is set, a read blocked by a signal gives up, and the replay
 * ends with read_error -EINTR instead of waiting for more input. */
void replay_set_cancel(struct replay *r, const volatile sig_atomic_t *cancel);
/* Writes the driver line of a recorded frame into out, of size n:
 * "backend · driver", or whichever of the two exists. Returns NULL when
 * neither does. With ascii, " - " replaces the middle dot. */
const char *replay_driver_line(const struct frame *f, char *out, size_t n, bool ascii);

#define REPLAY_MAX_GAP_MS 5000
/* How long in ms the TUI waits before showing cur after prev. It is the
 * recorded ts_ms gap, capped at REPLAY_MAX_GAP_MS, divided by speed. When
 * either record lacks ts_ms, or time went backwards or stood still, it is
 * interval_ms divided by speed. */
uint64_t replay_delay_ms(const struct frame *prev, const struct frame *cur, double speed, uint64_t interval_ms);

#endif
