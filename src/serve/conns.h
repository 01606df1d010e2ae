/* conns: the exporter's open connections, so that a scrape always finds
 * room. libmicrohttpd alone refuses a new connection once its limit is
 * reached, which lets idle or half-sent connections (a slowloris, or many
 * clients behind one NAT address) starve the scraper. Here every
 * connection is tracked from libmicrohttpd's notifications: when it opened,
 * whether a whole request has arrived, when its last answer went. Once more
 * than the soft limit are open, the connections that have waited longest
 * for a whole request, and at least the grace time, are shut down (shutdown(2),
 * so that libmicrohttpd closes them itself), until the count is back under
 * the limit. A connection being answered is never shut down. */
#ifndef GPUR_CONNS_H
#define GPUR_CONNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conns;
struct conn; /* one connection, the socket context of libmicrohttpd */

/* soft: connections above which the oldest waiting ones are shut down;
 * grace_ms: how long a connection may wait for a whole request before it
 * may be. */
struct conns *conns_new(size_t soft, uint64_t grace_ms);
/* Frees the tracker. Every connection must have been closed. */
void conns_free(struct conns *cs);

/* A connection on socket fd opened at now_ms. Returns its record, or NULL
 * when out of memory (the connection is then not tracked). It then shuts
 * down what it must to stay at the soft limit. */
struct conn *conns_opened(struct conns *cs, int fd, uint64_t now_ms);
/* A whole request arrived on c: it is being answered. */
void conns_request(struct conns *cs, struct conn *c);
/* The answer to c's request is done: it waits for the next, from now_ms. */
void conns_answered(struct conns *cs, struct conn *c, uint64_t now_ms);
/* c closed: its record is freed. NULL is a no-op. */
void conns_closed(struct conns *cs, struct conn *c);
/* Shuts down waiting connections older than the grace time, oldest first,
 * until at most soft are open. Returns how many it shut down. */
size_t conns_sweep(struct conns *cs, uint64_t now_ms);

/* Open connections now, those shut down so far, and whether more than soft
 * are open (so that a sweep is worth a timer). */
size_t conns_open(struct conns *cs);
uint64_t conns_shut(struct conns *cs);
bool conns_over(struct conns *cs);

#endif
