/* timeline: the files one --replay PATH stands for, in playing order: a
 * plain, zstd or gzip file alone; a rotated set (FILE's closed segments in
 * time order, then FILE itself); or a directory (every recording in it, by
 * its first ts_ms). A plain segment beside its own finished .zst is left out,
 * so every record is read once. */
#ifndef GPUR_TIMELINE_H
#define GPUR_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct timeline_file {
	char *path;
	/* An upper bound in ms on the time of this file's first record: the
	 * name's second + 999 for a segment, the first ts_ms in a directory,
	 * or UINT64_MAX when unknown. */
	uint64_t first_ub_ms;
};

struct timeline {
	struct timeline_file *v;
	size_t n;
	bool many; /* a set or a directory, in which a file that fails is passed over */
};

#define TIMELINE_MAX_FILES 100000

/* Builds the timeline of path. Returns 0, or -errno with the reason in err:
 * -ENOENT when nothing is there, and -ENODATA for a directory with no
 * recording. */
int timeline_build(const char *path, struct timeline *tl, char *err, size_t errlen);
void timeline_fini(struct timeline *tl);

#endif
