/* segment: the closed pieces of a rotated --log FILE. This module names them
 * (FILE.<UTC start as YYYYMMDDTHHMMSSZ>[-N][.zst]), lists them in time order,
 * compresses one with zstd (a frame per ~2 MiB of lines, so that a reader can
 * restart inside it), applies retention and finishes what a crash left
 * behind. Nothing that does not match a segment name or gpur's own temporary
 * name is touched. */
#ifndef GPUR_SEGMENT_H
#define GPUR_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct segment {
	char *path;     /* the file to read, the .zst when both exist */
	char *plain;    /* the plain name (FILE.<time>[-N]), whether it exists or not */
	int64_t start_s; /* the time in the name, epoch seconds */
	unsigned seq;   /* 1, or the N of -N */
	bool zst;       /* path is compressed */
	bool plain_too; /* the plain one exists beside the .zst, after a crash between rename and unlink */
	uint64_t size;  /* bytes of path */
};

struct segment_list {
	struct segment *v;
	size_t n;
};

/* Frames of a compressed segment end at the first line end after this many
 * input bytes. */
#define SEGMENT_FRAME_BYTES (2u << 20)
/* The suffix of a compression's temporary file, which starts with a dot. */
#define SEGMENT_TMP_SUFFIX ".zst.tmp"

/* Writes FILE.<time of ts_ms>[-seq] into out, without a suffix when seq is 1.
 * Returns false if the name is too long. */
bool segment_name(char *out, size_t n, const char *file, uint64_t ts_ms, unsigned seq);
/* The first free name for a segment of FILE starting at ts_ms, one for which
 * neither the name nor its .zst exists. Returns false when there is none or
 * the name is too long. */
bool segment_free_name(char *out, size_t n, const char *file, uint64_t ts_ms);
/* True when name, a directory entry, is a segment of the file named base; it
 * then gives the segment's time, its seq and whether it ends in .zst. */
bool segment_parse(const char *base, const char *name, int64_t *start_s, unsigned *seq, bool *zst);
/* Lists the closed segments of FILE, oldest first by time and then seq. A
 * plain one with a .zst beside it is listed once, as the .zst. Returns 0, or
 * -errno when the directory cannot be read. Free the list with
 * segment_list_fini. */
int segment_list(const char *file, struct segment_list *out);
void segment_list_fini(struct segment_list *l);
/* The temporary name for compressing plain, DIR/.BASE.<time>[-N].zst.tmp. */
bool segment_tmp_name(char *out, size_t n, const char *plain);
/* Compresses the plain segment into plain.zst through the temporary name,
 * then removes plain. Returns 0, or -errno with the reason in err, the plain
 * segment left as it was and no temporary left behind. */
int segment_compress(const char *plain, int level, char *err, size_t errlen);
/* Cleans up what an interrupted run left for FILE. Stray temporaries are
 * removed, a plain segment beside its finished .zst is removed, and every
 * plain segment left is passed to todo to be compressed. Returns 0 or
 * -errno. */
int segment_recover(const char *file, void (*todo)(const char *plain, void *ctx), void *ctx);
/* Deletes the oldest closed segments of FILE while more than keep are left
 * or they take more than max_total bytes; a keep or max_total of 0 is no
 * limit. A plain segment counts like any other. One for which busy(path, ctx)
 * is true, because it is waiting to be compressed, counts but is not deleted.
 * Returns how many were deleted. */
size_t segment_retain(const char *file, unsigned keep, uint64_t max_total, bool (*busy)(const char *path, void *ctx),
		      void *ctx);

#endif
