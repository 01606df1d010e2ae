/* recorder: appends frames as JSON lines to a --log file or to stdout
 * (--json), as the record format's rule 7 says: one write(2) per record, a
 * torn piece never glued to the next record, failures counted and
 * monitoring going on. */
#ifndef GPUR_RECORDER_H
#define GPUR_RECORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

struct recorder;

/* Rotation of a --log file (all 0: none; then the file only grows). */
struct recorder_rotation {
	uint64_t max_size;   /* --log-max-size, bytes: a record that would pass it starts a new file */
	uint64_t max_age_ms; /* --log-max-age: a record this much newer than the file's first starts a new one */
	int zstd_level;      /* --log-zstd-level (3 when 0) */
	unsigned keep;       /* --log-keep N: closed segments kept, 0 = all */
	uint64_t max_total;  /* --log-max-total, bytes of closed segments, 0 = no limit */
};

/* Opens path for appending (created mode 0600). NULL with the reason in err. */
struct recorder *recorder_open(const char *path, char *err, size_t errlen);
/* The same, rotated as rot says: the file is renamed to a segment
 * (segment.h) and a new one begun, the segment compressed on a thread of
 * its own. What an earlier run left (a plain segment, a temporary) is
 * finished first, on that thread. */
struct recorder *recorder_open_rotating(const char *path, const struct recorder_rotation *rot, char *err, size_t errlen);
/* A message about rotation or compression not yet said (a full disk while
 * compressing): true with it in out, once. */
bool recorder_take_note(struct recorder *r, char *out, size_t n);
/* Waits until every closed segment is compressed (or failed). */
void recorder_drain(struct recorder *r);
/* Segments closed so far by rotation. */
uint64_t recorder_rotations(const struct recorder *r);
/* Writes to an inherited descriptor (stdout for --json); name is for messages. */
struct recorder *recorder_fdopen(int fd, const char *name);
void recorder_free(struct recorder *r);
/* Writes one record. 0, or -errno when the record was dropped (counted; a
 * partial write was undone). -EPIPE means the reader went away. */
int recorder_write(struct recorder *r, const struct frame *f);
/* Writes an already encoded record (line ends with \n, at most
 * RECORD_MAX_LINE + 1 bytes): the same guarantees as recorder_write, so one
 * encoding can go to several outputs. */
int recorder_write_line(struct recorder *r, const char *line, size_t len);
/* While *cancel is set, a write blocked by a signal gives up (-EINTR, not
 * counted as lost) instead of waiting. */
void recorder_set_cancel(struct recorder *r, const volatile sig_atomic_t *cancel);
/* Counts a record that cannot be written at all (err: an errno). Returns -err. */
int recorder_drop(struct recorder *r, int err);
uint64_t recorder_written(const struct recorder *r);
uint64_t recorder_dropped(const struct recorder *r);
/* Name for messages: the file path, or "stdout". */
const char *recorder_name(const struct recorder *r);
/* Errno of the last failure, 0 if none. */
int recorder_last_error(const struct recorder *r);

#endif
