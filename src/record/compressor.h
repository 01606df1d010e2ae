/* compressor: the thread that compresses closed segments of a rotated --log
 * (segment_compress) and then applies retention, off the poll path. Jobs run
 * in the order given; compressor_free finishes every job queued before it
 * (a clean exit leaves nothing plain that was closed). A failure (disk full)
 * keeps the plain segment and leaves one note, taken once. */
#ifndef GPUR_COMPRESSOR_H
#define GPUR_COMPRESSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct compressor_opts {
	const char *file;   /* the active --log FILE (copied) */
	int level;          /* zstd level */
	unsigned keep;      /* --log-keep, 0 = no limit */
	uint64_t max_total; /* --log-max-total bytes, 0 = no limit */
};

struct compressor;

/* Starts the thread. NULL (errno set) when it cannot. */
struct compressor *compressor_new(const struct compressor_opts *o);
/* Finishes every queued job, then joins. NULL is a no-op. */
void compressor_free(struct compressor *c);
/* Queues the plain segment at path (copied) for compression. */
void compressor_add(struct compressor *c, const char *path);
/* Queues a retention pass (after a rotation, with nothing to compress). */
void compressor_retain(struct compressor *c);
/* Blocks until every job queued so far is done (tests, clean exit). */
void compressor_drain(struct compressor *c);
/* The newest failure not yet taken: true with it in out (size n). */
bool compressor_take_note(struct compressor *c, char *out, size_t n);
/* Segments compressed and failed so far. */
void compressor_counts(struct compressor *c, uint64_t *done, uint64_t *failed);

#endif
