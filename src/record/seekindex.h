/* seekindex: a sparse time index of a timeline, mapping a time to a file and
 * a place where decoding can restart. It is built on a thread of its own
 * while the recording plays, so a jump into a day of recording reads at most
 * one step of it. A step comes about every SEEKINDEX_STEP decoded bytes, at a
 * line start in a plain file and at a frame start in zstd written by gpur,
 * which ends a frame every ~2 MiB. A gzip file, or a zstd file of one frame,
 * has only its start. Each step costs one entry of about 40 bytes. */
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

/* Starts indexing tl, whose paths are copied. Returns NULL when the thread
 * cannot start. */
struct seekindex *seekindex_start(const struct timeline *tl);
/* Stops at once and frees. NULL is a no-op. */
void seekindex_free(struct seekindex *x);
/* The last entry at or before ts_ms, or the first entry when all are later.
 * Returns false when nothing is indexed yet. */
bool seekindex_find(struct seekindex *x, uint64_t ts_ms, struct seekindex_entry *out);
/* The last entry indexed so far, or false when there is none. */
bool seekindex_last(struct seekindex *x, struct seekindex_entry *out);
/* True once every file has been read; *entries gets the number of entries. */
bool seekindex_done(struct seekindex *x, size_t *entries);
/* Waits until the index is done, for tests and benchmarks. */
void seekindex_wait(struct seekindex *x);

#endif
