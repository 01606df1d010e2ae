/* fdinfo_scan: the /proc sweep behind the fdinfo engine. It keeps, per (pid,
 * start time), which fd numbers are DRM device files. It lists a process's
 * fd directory again only when that directory's identity changed (inode,
 * size or mtime, where the size is the fd count on Linux >= 6.2), when a DRM
 * fd it knew stopped being one, or on its turn in a slow round-robin
 * (fdinfo_scan_set_rescan). It is not thread-safe; the engine holds its
 * lock. */
#ifndef GPUR_FDINFO_SCAN_H
#define GPUR_FDINFO_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drm/fdinfo.h"
#include "drm/fdinfo_parse.h"

/* Bounds on what one host can make us do. */
#define FDINFO_SCAN_MAX_LINKS 16384   /* fd entries looked at per listing of one process */
#define FDINFO_SCAN_MAX_DRM_FDS 256   /* DRM fds kept per process */
#define FDINFO_SCAN_MAX_HITS 4096     /* DRM fds read per sweep over all processes */
#define FDINFO_SCAN_MAX_PROCS 1048576 /* processes cached */
#define FDINFO_SCAN_FDINFO_MAX 16384  /* bytes of one fdinfo file read */
#define FDINFO_SCAN_RESCAN_DEFAULT 32

/* One DRM fd read in a sweep. */
struct fdinfo_scan_hit {
	unsigned pid;
	int fd;
	uint64_t start_ticks;
	bool service; /* pid 1, or a cmdline under /lib/systemd or /usr/lib/systemd */
	struct fdinfo_parsed p;
};

struct fdinfo_scan;

/* Returns a cache for the procfs at path procfs, which is copied. Free it
 * with fdinfo_scan_free, which accepts NULL. */
struct fdinfo_scan *fdinfo_scan_new(const char *procfs);
void fdinfo_scan_free(struct fdinfo_scan *s);

/* Re-lists the fd directory of a process whose directory looks unchanged once
 * in `every` sweeps; its turn comes when (sweep number + pid) is a multiple
 * of every. With 0, a directory is listed only when it looks changed. */
void fdinfo_scan_set_rescan(struct fdinfo_scan *s, unsigned every);

/* Makes one sweep. Every DRM fd's parsed fdinfo goes into *hits, which s owns
 * and which is valid until the next sweep; their count goes into *nhits, and
 * the work done into all of *st but st->clients. Processes that go during the
 * sweep, or whose files are unreadable (ENOENT, ESRCH, EACCES), are left out
 * silently. Returns 0, or -errno when procfs cannot be listed. */
int fdinfo_scan_sweep(struct fdinfo_scan *s, const struct fdinfo_scan_hit **hits, size_t *nhits,
		      struct fdinfo_stats *st);

#endif
