/* fdinfo: the DRM client engine shared by every DRM backend (amdgpu, intel,
 * drm). It makes one sweep of /proc per poll for all drivers together. The
 * sweep finds which fds of which (pid, start time) are DRM clients, cached so
 * that an unchanged process is not rescanned, and reads their
 * /proc/PID/fdinfo/FD in every format from kernel 5.14 to today. It
 * deduplicates clients on (drm-pdev, drm-client-id), or on (drm-driver,
 * drm-client-id) on platform GPUs, with one owner per client. It turns engine
 * counters into percentages: ns deltas over wall time ÷ drm-engine-capacity,
 * and for xe cycles over total cycles. A client's first sample has no rate,
 * so its engines are unknown, never 0, and so does a sample taken too soon
 * after the client's baseline (fdinfo_set_rate_window), which then stays the
 * baseline.
 *
 * It is thread-safe. The three DRM backends poll on their own workers and
 * share one engine per procfs (fdinfo_acquire), and a sweep asked for within
 * `reuse_ns` of the last one returns that one. */
#ifndef GPUR_FDINFO_H
#define GPUR_FDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDINFO_MAX_ENGINES 16
#define FDINFO_MAX_REGIONS 12
#define FDINFO_NAMELEN 24

struct fdinfo_engine {
	char name[FDINFO_NAMELEN]; /* "gfx", "render", "video", "rcs", "vcs", "enc", "dec", ... as printed,
				     with amdgpu per-ring names like gfx0 summed into gfx */
	bool known;                /* false on a client's first sample, except for legacy 5.14–5.18
				      amdgpu percentages, the kernel's own rates, known at once */
	long double pct;           /* 0–100 of the whole class, divided by capacity */
};

struct fdinfo_region {
	char name[FDINFO_NAMELEN]; /* "vram", "gtt", "cpu", "local0", "system0", "vram0", "memory", ... */
	bool resident_known, total_known;
	long double resident_bytes, total_bytes;
};

/* One deduplicated client, charged to one owner process. */
struct fdinfo_client {
	unsigned pid;
	uint64_t start_ticks;          /* the owner's /proc/PID/stat starttime */
	char driver[FDINFO_NAMELEN];   /* drm-driver */
	char pdev[16];                 /* "0000:03:00.0", "" on platform GPUs */
	uint64_t client_id;
	size_t nengines;
	struct fdinfo_engine engines[FDINFO_MAX_ENGINES];
	size_t nregions;
	struct fdinfo_region regions[FDINFO_MAX_REGIONS];
};

/* What the last sweep cost, for bench/fdinfo and for the tests that prove a
 * later poll rescans nothing it already knows. */
struct fdinfo_stats {
	uint64_t pids_listed;    /* /proc entries seen */
	uint64_t fd_dirs_read;   /* /proc/PID/fd directories listed */
	uint64_t links_read;     /* readlink() calls on fd entries */
	uint64_t fdinfo_read;    /* fdinfo files read */
	uint64_t clients;        /* clients after deduplication */
	/* Added with the engine. */
	uint64_t fd_dir_stats;   /* fstatat() of /proc/PID/fd, the identity of a process's fd table */
	uint64_t stat_read;      /* /proc/PID/stat reads, whose start time detects pid reuse */
	uint64_t cmdline_read;   /* /proc/PID/cmdline reads for the owner choice, once per (pid, start) */
	uint64_t dropped;        /* fd entries, DRM fds or processes left out by a bound (FDINFO_SCAN_MAX_*) */
};

struct fdinfo;

/* Returns the shared, reference-counted engine for procfs. fdinfo_release()
 * drops a reference. */
struct fdinfo *fdinfo_acquire(const char *procfs);
void fdinfo_release(struct fdinfo *e);

/* Sweeps /proc at monotonic time now_ns, unless a sweep happened within
 * reuse_ns before it. Returns 0, or -errno when procfs is unreadable. */
int fdinfo_sweep(struct fdinfo *e, uint64_t now_ns, uint64_t reuse_ns);

/* Copies into out up to max clients of the last sweep whose driver is
 * `driver` and whose pdev is `pdev`. A NULL driver or pdev matches any, and a
 * pdev of "" matches platform GPUs. Returns how many matched, which may
 * exceed max. */
size_t fdinfo_clients(struct fdinfo *e, const char *driver, const char *pdev, struct fdinfo_client *out,
		      size_t max);

void fdinfo_last_stats(struct fdinfo *e, struct fdinfo_stats *out);

/* Added with the engine. A process whose fd directory looks unchanged, with
 * the same inode, size and mtime (the size is the fd count on Linux >= 6.2),
 * is not listed again except on its turn, once in `every` sweeps (default
 * 32). The turn finds a DRM device opened without the fd count changing, and
 * anything on kernels before 6.2, whose fd directories have size 0. An every
 * of 0 means no turns, for tests. It applies to every user of the engine. */
void fdinfo_set_rescan(struct fdinfo *e, unsigned every);

/* Engine rates come only from windows of at least min_ns between a client's
 * baseline sample and the sweep (util/ratewin.h). A shorter window leaves the
 * client's engines unknown and keeps its baseline, so that a later sweep
 * measures over a window long enough. The default, 0, allows any window that
 * is not empty. It applies to every user of the engine. */
void fdinfo_set_rate_window(struct fdinfo *e, uint64_t min_ns);

#endif
