/* seekindex: a sparse time index of a timeline (time → file and a place
 * where decoding can restart), built on a thread of its own while the
 * recording plays, so a jump into a day of recording reads at most one
 * step of it. Steps: about every SEEKINDEX_STEP decoded bytes, at a line
 * start (plain), at a frame start (zstd written by gpur, a frame per
 * ~2 MiB); a gzip file or a zstd file of one frame has only its start.
 * Memory: one entry per step, ~40 bytes. */
#ifndef GPUR_SEEKINDEX_H
#define GPUR_SEEKINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/instream.h"
#include "record/timeline.h"

#define SEEKINDEX_STEP (1u << 20)

struct seekindex_entry {
	uint64_t ts_ms;   /* of the first line at the place */
	uint64_t raw_off; /* where to start reading the file */
	uint64_t lines;   /* lines of the timeline before the place */
	uint32_t file;    /* index into the timeline */
	enum instream_kind kind;
};

struct seekindex;

/* Starts indexing tl (its paths are copied). NULL when the thread cannot start. */
struct seekindex *seekindex_start(const struct timeline *tl);
/* Stops (at once) and frees. NULL is a no-op. */
void seekindex_free(struct seekindex *x);
/* The last entry at or before ts_ms (the first entry when all are later).
 * False when nothing is indexed yet. */
bool seekindex_find(struct seekindex *x, uint64_t ts_ms, struct seekindex_entry *out);
/* The last entry indexed so far. False when none. */
bool seekindex_last(struct seekindex *x, struct seekindex_entry *out);
/* True once every file has been read; *entries counts them. */
bool seekindex_done(struct seekindex *x, size_t *entries);
/* Waits until done (tests, benchmarks). */
void seekindex_wait(struct seekindex *x);

#endif
