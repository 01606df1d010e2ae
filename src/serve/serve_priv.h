/* serve_priv: what serve.c (the servers, their lifecycle and the
 * snapshots) and answer.c (each request's answer) share. */
#ifndef GPUR_SERVE_PRIV_H
#define GPUR_SERVE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "serve/conns.h"
#include "serve/gz.h"
#include "serve/mhd_lib.h"
#include "serve/prom.h"
#include "serve/serve.h"
#include "serve/webauth.h"
#include "serve/webcfg.h"
#include "serve/weblib.h"
#include "util/buf.h"

/* One frame's exposition, shared by the scrapes that answer with it. */
struct snap {
	atomic_uint refs;
	struct buf text;
	struct gz_open gz;
	bool have_gz;
};

/* One libmicrohttpd server and the web configuration it was started with.
 * A reload starts another on the same socket and lets this one drain. */
struct dctx {
	struct serve *s;
	struct MHD_Daemon *d;
	struct webcfg cfg;
	struct webauth *auth; /* NULL without basic_auth_users */
	const struct weblib_gnutls *g; /* with TLS */
	struct MHD_Response *index, *not_found, *not_allowed, *no_frame, *unauthorized, *too_many;
	pthread_mutex_t rate_mu; /* guards the token bucket */
	double tokens;
	uint64_t rate_ms;
	uint64_t drain_until_ms; /* while draining after a reload */
	struct dctx *next;       /* in the draining list */
};

struct serve {
	struct serve_opts o;
	char where[300];
	char web_config[4096];
	int fd; /* the listening socket; each server has its own duplicate */
	struct mhd_lib lib;
	size_t max_conns;
	struct conns *conns;
	pthread_mutex_t mu; /* guards latest, cur, draining and the health state */
	struct snap *latest;
	struct dctx *cur, *draining;
	atomic_uint_fast64_t scrapes;
	/* The health state of the newest frame. */
	uint64_t published_ms;
	size_t nbackends, nlost;
	char lost_names[256];
	uint64_t (*busy)(void *ctx, const char **name);
	void *busy_ctx;
	void (*note)(void *ctx, const char *text); /* guarded by mu; NULL: stderr */
	void *note_ctx;
	/* The thread that re-reads the web config and sweeps connections. */
	pthread_t thread;
	bool have_thread;
	int efd;           /* eventfd: SIGHUP, a sweep to start, or the stop */
	atomic_bool stop;
	/* Used by the feed's thread only. */
	struct prom_health health;
	size_t last_len; /* the previous exposition's size, so the next takes one allocation */
};

/* The monotonic clock in milliseconds. */
uint64_t serve_mono_ms(void);
/* Lets go of a reference to a snapshot, freeing it with the last. */
void serve_snap_unref(struct snap *p);

/* answer.c: libmicrohttpd's callbacks for a server x (cls), and the web
 * config's headers added to a response. */
enum MHD_Result serve_handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			     const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls);
void serve_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			 enum MHD_ConnectionNotificationCode code);
void serve_on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe);
void serve_add_headers(struct dctx *x, struct MHD_Response *r);

#endif
