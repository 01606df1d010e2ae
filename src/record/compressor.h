/* compressor: the thread that compresses closed segments of a rotated --log
 * (segment_compress) and then applies retention, off the poll path. Jobs run
 * in the order given, and compressor_free finishes every job queued before
 * it, so a clean exit leaves no closed segment plain. A failure such as a
 * full disk keeps the plain segment and leaves one note, to be taken once. */
#ifndef GPUR_COMPRESSOR_H
#define GPUR_COMPRESSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct compressor_opts {
	const char *file;   /* the active --log FILE, copied */
	int level;          /* zstd level */
	unsigned keep;      /* --log-keep, 0 for no limit */
	uint64_t max_total; /* --log-max-total in bytes, 0 for no limit */
};

struct compressor;

/* Starts the thread. Returns NULL, with errno set, when it cannot. */
struct compressor *compressor_new(const struct compressor_opts *o);
/* Finishes every queued job, then joins. NULL is a no-op. */
void compressor_free(struct compressor *c);
/* Queues the plain segment at path for compression; path is copied. */
void compressor_add(struct compressor *c, const char *path);
/* Queues a retention pass, for a rotation with nothing to compress. */
void compressor_retain(struct compressor *c);
/* Blocks until every job queued so far is done, for tests and a clean exit. */
void compressor_drain(struct compressor *c);
/* Takes the newest failure not yet taken into out, of size n, and returns
 * true; returns false when there is none. */
bool compressor_take_note(struct compressor *c, char *out, size_t n);
/* The numbers of segments compressed and failed so far. */
void compressor_counts(struct compressor *c, uint64_t *done, uint64_t *failed);

#endif
