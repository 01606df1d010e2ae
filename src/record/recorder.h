/* recorder: appends frames as JSON lines to a --log file or to stdout
 * (--json), as the record format's rule 7 says. Each record is one write(2),
 * a torn piece is never glued to the next record, and failures are counted
 * while monitoring goes on. */
#ifndef GPUR_RECORDER_H
#define GPUR_RECORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

struct recorder;

/* Rotation of a --log file. With all of it 0 there is none, and the file
 * only grows. */
struct recorder_rotation {
	uint64_t max_size;   /* --log-max-size in bytes; a record that would pass it starts a new file */
	uint64_t max_age_ms; /* --log-max-age; a record this much newer than the file's first starts a new one */
	int zstd_level;      /* --log-zstd-level, 3 when 0 */
	unsigned keep;       /* --log-keep N, the closed segments kept, 0 for all */
	uint64_t max_total;  /* --log-max-total in bytes of closed segments, 0 for no limit */
};

/* Opens path for appending, creating it with mode 0600. Returns NULL with the
 * reason in err. */
struct recorder *recorder_open(const char *path, char *err, size_t errlen);
/* The same, rotated as rot says. At a rotation the file is renamed to a
 * segment (segment.h) and a new one is begun, and the segment is compressed
 * on a thread of its own. What an earlier run left, a plain segment or a
 * temporary, is finished first on that thread. */
struct recorder *recorder_open_rotating(const char *path, const struct recorder_rotation *rot, char *err, size_t errlen);
/* Takes a message about rotation or compression that was not yet given, such
 * as a full disk while compressing, into out and returns true. Each message
 * is given once. */
bool recorder_take_note(struct recorder *r, char *out, size_t n);
/* Waits until every closed segment is compressed or has failed. */
void recorder_drain(struct recorder *r);
/* The number of segments closed so far by rotation. */
uint64_t recorder_rotations(const struct recorder *r);
/* Writes to an inherited descriptor, stdout for --json; name is for messages. */
struct recorder *recorder_fdopen(int fd, const char *name);
void recorder_free(struct recorder *r);
/* Writes one record. Returns 0, or -errno when the record was dropped; a
 * dropped record is counted, and a partial write of it was undone. -EPIPE
 * means the reader went away. */
int recorder_write(struct recorder *r, const struct frame *f);
/* Writes an already encoded record, a line that ends with \n and is at most
 * RECORD_MAX_LINE + 1 bytes, with the same guarantees as recorder_write, so
 * one encoding can go to several outputs. */
int recorder_write_line(struct recorder *r, const char *line, size_t len);
/* While *cancel is set, a write blocked by a signal gives up with -EINTR
 * instead of waiting, and the record is not counted as lost. */
void recorder_set_cancel(struct recorder *r, const volatile sig_atomic_t *cancel);
/* Counts a record that cannot be written at all, err being an errno, and
 * returns -err. */
int recorder_drop(struct recorder *r, int err);
uint64_t recorder_written(const struct recorder *r);
uint64_t recorder_dropped(const struct recorder *r);
/* The name for messages, which is the file path or "stdout". */
const char *recorder_name(const struct recorder *r);
/* The errno of the last failure, or 0 if there was none. */
int recorder_last_error(const struct recorder *r);

#endif
