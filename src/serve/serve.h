/* serve: the --serve HTTP endpoint, on libmicrohttpd loaded when it starts.
 * The frame pipeline publishes every frame with serve_publish on the feed's
 * thread, and the frame's exposition is rendered and gzipped there, once,
 * into a reference-counted snapshot. A scrape only takes a reference to the
 * latest snapshot and adds its own counter, so it never touches hardware and
 * costs almost nothing. It serves GET /metrics (gzipped when accepted), GET /
 * (a page linking to it) and HEAD of both, and answers 404 or 405 otherwise.
 * Connections are bounded in number, per client address, in time and in
 * memory (docs/exporter.md). */
#ifndef GPUR_SERVE_H
#define GPUR_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

/* Limits of the HTTP side, each a libmicrohttpd option. */
#define SERVE_MAX_CONNECTIONS 1000
#define SERVE_MAX_PER_CLIENT 64   /* connections from one address */
#define SERVE_TIMEOUT_S 10        /* an idle or slow connection is closed */
#define SERVE_CONN_MEMORY (32 * 1024) /* a request's headers must fit */
#define SERVE_THREADS 2

/* ADDR as the command line gives it: host:port, ":port" (meaning
 * 127.0.0.1), or "[v6]:port". */
struct serve_addr {
	char host[256]; /* without brackets */
	uint16_t port;  /* 0 for any free port, for tests */
};

/* Checks ADDR's syntax without lookups. Returns 0, or -1 with a message
 * naming it. */
int serve_parse_addr(const char *addr, struct serve_addr *out, char *err, size_t errlen);

struct serve_opts {
	const char *addr;     /* as given to --serve */
	const char *hostname; /* the Hostname label (--hostname), or NULL for each frame's host */
	bool processes;       /* per-process series */
	bool live;            /* frames of a live source */
	enum field_names names; /* dcgm-exporter's legacy names or 4.10's (--serve-names) */
};

struct serve;

/* Binds ADDR, loads libmicrohttpd and starts serving, with 503 until the
 * first frame. Returns NULL with a message in err, without "gpur: ", when the
 * address does not resolve, the port is in use or the library is missing. */
struct serve *serve_start(const struct serve_opts *o, char *err, size_t errlen);
/* Renders f for the scrapes to come. records_dropped and have_records give
 * the run's --log and --json losses. One thread, the feed's, calls it. */
void serve_publish(struct serve *s, const struct frame *f, uint64_t records_dropped, bool have_records);
/* The address served with the bound port, as "127.0.0.1:9400" or
 * "[::1]:9400". */
const char *serve_where(const struct serve *s);
/* Stops the server and frees it. NULL is a no-op. */
void serve_stop(struct serve *s);

#endif
