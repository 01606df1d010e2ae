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
	uint64_t torn;      /* compressed files that stopped decoding (each one skipped line) */
	int read_error;     /* -errno of a read error that ended the file, or 0 */
};

/* Opens path — a plain, zstd or gzip file (by magic), a rotated set (FILE's
 * segments, then FILE) or a directory — and reads up to its first valid
 * record. NULL on failure with a
 * one-line reason in err ("FILE: no valid JSONL records", "FILE: No such
 * file or directory"). The caller frees with replay_free(). */
struct replay *replay_open(const char *path, char *err, size_t errlen);
void replay_free(struct replay *r);
/* The next record into f (reset first): the first call returns the first
 * record. Returns 1, or 0 at end of file (and after a read error, which
 * replay_stats reports); f is then untouched. Missing device ids are filled
 * with "replay:<position>". */
int replay_next(struct replay *r, struct frame *f);
const struct replay_stats *replay_stats(const struct replay *r);
/* The ts_ms of the first valid record; false when it has none. */
bool replay_first_ts(const struct replay *r, uint64_t *ts_ms);
/* Plays only records with from_ms <= ts_ms <= to_ms (a record without
 * ts_ms is outside any span); the replay ends at the first record after
 * to_ms. Call before the first replay_next. 0, or -ENODATA when no record
 * is in the span. */
int replay_set_span(struct replay *r, uint64_t from_ms, uint64_t to_ms);
/* Starts the background time index (seekindex.h). 0 or -errno. */
int replay_index_start(struct replay *r);
struct seekindex *replay_index(struct replay *r);
/* The next replay_next() returns the first record at or after ts_ms (within
 * the span), or the last record when none is that late. Uses the index when
 * started; otherwise reads from the start. *lines_before: the lines of the
 * timeline before that record (its position). 0, -ENODATA (no record), or
 * -errno. */
int replay_seek_time(struct replay *r, uint64_t ts_ms, uint64_t *lines_before);
/* Files in the timeline. */
size_t replay_nfiles(const struct replay *r);
/* Back to the start of the file: the next replay_next() returns the first
 * valid record again. 0, or -errno (a pipe cannot rewind). */
int replay_rewind(struct replay *r);
/* While *cancel is set, a read blocked by a signal gives up: the replay ends
 * (read_error -EINTR) instead of waiting for more input. */
void replay_set_cancel(struct replay *r, const volatile sig_atomic_t *cancel);
/* The driver line of a recorded frame: "backend · driver", whichever of the
 * two exists, or NULL. With ascii, " - " replaces the middle dot. Written
 * into out (size n). */
const char *replay_driver_line(const struct frame *f, char *out, size_t n, bool ascii);

#define REPLAY_MAX_GAP_MS 5000
/* How long the TUI waits before showing cur after prev, in ms: the recorded
 * ts_ms gap (capped at REPLAY_MAX_GAP_MS) divided by speed; interval_ms
 * (also divided by speed) when either record lacks ts_ms or time went
 * backwards or stood still. */
uint64_t replay_delay_ms(const struct frame *prev, const struct frame *cur, double speed, uint64_t interval_ms);

#endif
