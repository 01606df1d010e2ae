/* fleet: what a fleet source (--prometheus) read in one poll — one frame per
 * host, each a complete record of its own, so that a recording holds one
 * record per host per poll and the record limits hold at any fleet size —
 * and where the source stands (its URL, the last failure, the next retry).
 * It travels beside the poll's own frame, never inside it, and is shared
 * read-only once published, through a reference count. */
#ifndef GPUR_FLEET_H
#define GPUR_FLEET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"
#include "util/arena.h"

#define FLEET_MAX_HOSTS 4096   /* hosts kept of one poll; the rest are counted */
#define FLEET_NAME_MAX 128     /* bytes kept of a host or container name */

struct fleet_host {
	const char *name;     /* safe to show: no control characters, at most FLEET_NAME_MAX bytes */
	struct frame *frame;  /* a reference to the host's GPUs and rows, with host, backend, driver, ts_ms */
	/* The host's busiest container by GPU memory, or NULL when none is
	 * known. gpur exporters serve gpur_container_*, and dcgm-exporter
	 * targets have none. */
	const char *top_container;
	long double top_container_mem_bytes;
};

struct fleet {
	atomic_int refs;
	struct arena arena;
	struct fleet_host *hosts;
	size_t nhosts, cap;
	size_t hosts_left_out;  /* past FLEET_MAX_HOSTS */
	const char *url;        /* the server, for the status line */
	/* NULL when the last poll answered. Otherwise it says why not, in one
	 * line naming the URL; the hosts are then the last good poll's, read
	 * at good_ts_ms (0 when there has been none yet), and the next try is
	 * at retry_ms on the wall clock. */
	const char *error;
	bool stale;
	uint64_t good_ts_ms, retry_ms;
	uint64_t read_ms; /* how long the good poll's queries took, 0 when not known */
};

/* Returns a new empty fleet with one reference. url is copied. */
struct fleet *fleet_new(const char *url);
struct fleet *fleet_ref(struct fleet *fl);
/* Drops a reference. The last one frees the fleet and drops its host frames.
 * NULL is a no-op. */
void fleet_unref(struct fleet *fl);
/* Appends a host named name that holds a reference to frame. The name is made
 * safe: control characters become '?', and it is cut to FLEET_NAME_MAX bytes
 * on a UTF-8 boundary. Past FLEET_MAX_HOSTS it returns NULL without taking
 * the frame, and counts the host in hosts_left_out. */
struct fleet_host *fleet_add_host(struct fleet *fl, const char *name, struct frame *frame);
/* Returns a copy of s made safe the same way, in fl's arena, or NULL when s
 * is NULL. */
const char *fleet_str(struct fleet *fl, const char *s);
/* The host named name, or NULL. */
const struct fleet_host *fleet_find(const struct fleet *fl, const char *name);
/* Writes s made safe into out, n > 0 bytes with the NUL. Control characters
 * (C0, DEL, C1) become '?', and the text is cut on a UTF-8 boundary. */
void fleet_safe_name(char *out, size_t n, const char *s);

#endif
