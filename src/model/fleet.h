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
	struct frame *frame;  /* the host's GPUs (and rows) with host, backend, driver, ts_ms: a reference */
	/* The host's busiest container by GPU memory (gpur exporters serve
	 * gpur_container_*; dcgm-exporter targets have none): NULL = none known. */
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
	/* NULL: the last poll answered. Otherwise why not (one line naming the
	 * URL); the hosts are the last good poll's, read at good_ts_ms (0: none
	 * yet), and the next try is at retry_ms (wall clock). */
	const char *error;
	bool stale;
	uint64_t good_ts_ms, retry_ms;
	uint64_t read_ms; /* how long the good poll's queries took (0: not known) */
};

/* A new empty fleet with one reference; url is copied. */
struct fleet *fleet_new(const char *url);
struct fleet *fleet_ref(struct fleet *fl);
/* Drops a reference; at zero frees the fleet and drops its host frames.
 * NULL is a no-op. */
void fleet_unref(struct fleet *fl);
/* Appends a host named name (made safe: control characters become '?',
 * cut to FLEET_NAME_MAX bytes on a UTF-8 boundary) holding a reference to
 * frame. NULL (frame not taken) past FLEET_MAX_HOSTS: counted in
 * hosts_left_out. */
struct fleet_host *fleet_add_host(struct fleet *fl, const char *name, struct frame *frame);
/* A copy of s made safe the same way, in fl's arena (NULL for NULL). */
const char *fleet_str(struct fleet *fl, const char *s);
/* The host named name, or NULL. */
const struct fleet_host *fleet_find(const struct fleet *fl, const char *name);
/* Writes s made safe into out (n bytes, NUL included; n > 0): control
 * characters (C0, DEL, C1) become '?', cut on a UTF-8 boundary. */
void fleet_safe_name(char *out, size_t n, const char *s);

#endif
