/* serve: the --serve HTTP endpoint, on libmicrohttpd loaded when it starts.
 * The frame pipeline publishes every frame with serve_publish on the feed's
 * thread, and the frame's exposition is rendered and gzipped there, once,
 * into a reference-counted snapshot. A scrape only takes a reference to the
 * latest snapshot and adds its own counter, so it never touches hardware and
 * costs almost nothing. It serves GET /metrics (gzipped when accepted), GET /
 * (a page linking to it), GET /health (whether the served frame is fresh)
 * and HEAD of each, and answers 404 or 405 otherwise.
 *
 * With --web-config it serves HTTPS, checks client certificates and basic
 * auth, and adds the configured headers (webcfg.h); SIGHUP re-reads the
 * file, and a new server on the same socket takes over while the old one
 * finishes its connections. Connections are bounded in number, in time and
 * in memory, and idle or half-sent ones make room for new ones (conns.h;
 * docs/exporter.md). A thread of its own re-reads the file and sweeps the
 * connections, and sleeps without a timer otherwise. */
#ifndef GPUR_SERVE_H
#define GPUR_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

/* Limits of the HTTP side. There is no limit per client address: behind a
 * NAT or a node-local agent every client has the scraper's address. */
#define SERVE_MAX_CONNECTIONS 8192 /* at most, and fewer when descriptors are short */
#define SERVE_FD_RESERVE 512       /* descriptors kept for the rest of gpur */
#define SERVE_TIMEOUT_S 10         /* a connection silent this long is closed */
#define SERVE_GRACE_MS 3000        /* a connection may wait this long for a whole request */
#define SERVE_CONN_MEMORY (36 * 1024) /* a request's headers must fit; above 32 KiB it is mapped lazily */
#define SERVE_THREADS 2

/* What a SIGHUP handler adds to serve_reload_fd's count; a smaller count
 * only wakes the thread. */
#define SERVE_EFD_RELOAD ((uint64_t)1 << 32)

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
	const char *addr;       /* as given to --serve */
	const char *hostname;   /* the Hostname label (--hostname), or NULL for each frame's host */
	bool processes;         /* per-process series */
	bool live;              /* frames of a live source */
	const char *web_config; /* --web-config FILE, or NULL */
	bool health_auth;       /* /health asks for credentials too (--health-auth) */
	uint64_t interval_ms;   /* the poll interval, for /health */
	enum field_names names; /* dcgm-exporter's legacy names or 4.10's (--serve-names) */
};

struct serve;

/* Binds ADDR, loads libmicrohttpd and starts serving, with 503 until the
 * first frame. Returns NULL with a message in err, without "gpur: ", when the
 * address does not resolve, the port is in use, the library is missing or
 * the web config is bad (*usage is then set: exit status 2). */
struct serve *serve_start(const struct serve_opts *o, bool *usage, char *err, size_t errlen);
/* Where a SIGHUP handler writes (an 8-byte count, as to an eventfd) to have
 * the web config re-read, or -1 without --web-config. */
int serve_reload_fd(const struct serve *s);
/* From now on /health asks busy() how long a backend has not answered
 * (source_busy_ms's contract); any thread may call it until serve_stop. */
void serve_watch(struct serve *s, uint64_t (*busy)(void *ctx, const char **name), void *ctx);
/* Renders f for the scrapes to come. records_dropped and have_records give
 * the run's --log and --json losses. One thread, the feed's, calls it. */
void serve_publish(struct serve *s, const struct frame *f, uint64_t records_dropped, bool have_records);
/* The address served with the bound port, as "127.0.0.1:9400" or
 * "[::1]:9400". */
const char *serve_where(const struct serve *s);
/* From now on the exporter's messages (a re-read web config) go to
 * note(ctx, text) instead of stderr, as when a dashboard owns the terminal;
 * NULL restores stderr. note may be called from the exporter's thread. */
void serve_notes(struct serve *s, void (*note)(void *ctx, const char *text), void *ctx);
/* "https" when the web config it started with has TLS, else "http". */
const char *serve_scheme(struct serve *s);
/* Stops the server and frees it. NULL is a no-op. */
void serve_stop(struct serve *s);

#endif
