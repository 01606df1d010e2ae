/* serve: snapshots, the servers on the listening socket (listen.c) and the
 * request handler; client certificates are checked in webcheck.c. */
#include "serve/serve.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "serve/conns.h"
#include "serve/gz.h"
#include "serve/health.h"
#include "serve/listen.h"
#include "serve/mhd_lib.h"
#include "serve/prom.h"
#include "serve/webauth.h"
#include "serve/webcheck.h"
#include "serve/webcfg.h"
#include "serve/weblib.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/xalloc.h"

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

/* The per-scrape part, after the snapshot's text (see gz.h). */
#define TAIL_MAX 256

struct reply {
	struct snap *snap;
	char tail[TAIL_MAX + GZ_CLOSE_OVERHEAD];
};

static uint64_t mono_ms(void)
{
	return clock_mono_ns() / 1000000u;
}

static void snap_unref(struct snap *p)
{
	if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
		return;
	buf_fini(&p->text);
	if (p->have_gz)
		gz_fini(&p->gz);
	free(p);
}

/* Accept-Encoding names gzip without q=0 (RFC 9110 §12.5.3). */
static bool wants_gzip(const char *ae)
{
	while (ae && *ae) {
		size_t len = strcspn(ae, ",");
		const char *t = ae;
		while (len && (*t == ' ' || *t == '\t'))
			t++, len--;
		size_t nlen = strcspn(t, ";, \t");
		if (nlen > len)
			nlen = len;
		if ((nlen == 4 && strncasecmp(t, "gzip", 4) == 0) || (nlen == 6 && strncasecmp(t, "x-gzip", 6) == 0)) {
			const char *q = t + nlen;
			const char *stop = t + len;
			bool zero = false;
			for (; q < stop; q++) {
				if ((*q == 'q' || *q == 'Q') && q + 1 < stop && q[1] == '=') {
					zero = strtod(q + 2, NULL) == 0.0;
					break;
				}
			}
			return !zero;
		}
		ae = t + len;
		if (*ae == ',')
			ae++;
	}
	return false;
}

static void reply_free(void *cls)
{
	struct reply *r = cls;
	snap_unref(r->snap);
	free(r);
}

/* Adds the web config's headers to a response. */
static void add_headers(struct dctx *x, struct MHD_Response *r)
{
	for (size_t i = 0; i < x->cfg.nheaders; i++)
		x->s->lib.add_response_header(r, x->cfg.headers[i].name, x->cfg.headers[i].value);
}

static enum MHD_Result answer_metrics(struct dctx *x, struct MHD_Connection *c)
{
	struct serve *s = x->s;
	pthread_mutex_lock(&s->mu);
	struct snap *p = s->latest;
	if (p)
		atomic_fetch_add(&p->refs, 1);
	pthread_mutex_unlock(&s->mu);
	if (!p)
		return s->lib.queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, x->no_frame);

	uint64_t n = atomic_fetch_add(&s->scrapes, 1) + 1;
	struct reply *r = malloc(sizeof(*r));
	if (!r) {
		snap_unref(p);
		return MHD_NO;
	}
	r->snap = p;
	char tail[TAIL_MAX];
	size_t tn = prom_render_tail(tail, sizeof(tail), n);
	const char *ae = s->lib.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	bool gz = p->have_gz && wants_gzip(ae);
	struct MHD_IoVec iov[2];
	if (gz) {
		iov[0].iov_base = p->gz.data.data;
		iov[0].iov_len = p->gz.data.len;
		iov[1].iov_len = gz_close(&p->gz, tail, tn, r->tail);
	} else {
		iov[0].iov_base = p->text.data;
		iov[0].iov_len = p->text.len;
		memcpy(r->tail, tail, tn);
		iov[1].iov_len = tn;
	}
	iov[1].iov_base = r->tail;
	struct MHD_Response *resp;
	if (s->lib.response_from_iovec) {
		resp = s->lib.response_from_iovec(iov, 2, reply_free, r);
	} else {
		/* An older libmicrohttpd makes one copy of the body. */
		char *all = malloc(iov[0].iov_len + iov[1].iov_len);
		resp = NULL;
		if (all) {
			memcpy(all, iov[0].iov_base, iov[0].iov_len);
			memcpy(all + iov[0].iov_len, iov[1].iov_base, iov[1].iov_len);
			resp = s->lib.response_from_buffer(iov[0].iov_len + iov[1].iov_len, all, MHD_RESPMEM_MUST_FREE);
			if (!resp)
				free(all);
		}
		reply_free(r);
	}
	if (!resp) {
		if (s->lib.response_from_iovec)
			reply_free(r);
		return MHD_NO;
	}
	s->lib.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, PROM_CONTENT_TYPE);
	s->lib.add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	if (gz)
		s->lib.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	add_headers(x, resp);
	enum MHD_Result rc = s->lib.queue_response(c, MHD_HTTP_OK, resp);
	s->lib.destroy_response(resp);
	return rc;
}

/* The health of the served frame, as health.h rules. */
static bool healthy(struct serve *s, char *why, size_t n)
{
	struct health_in in = {.live = s->o.live, .interval_ms = s->o.interval_ms, .now_ms = mono_ms()};
	char lost[sizeof(s->lost_names)];

	pthread_mutex_lock(&s->mu);
	in.have_frame = s->latest != NULL;
	in.published_ms = s->published_ms;
	in.nbackends = s->nbackends;
	in.nlost = s->nlost;
	memcpy(lost, s->lost_names, sizeof(lost));
	uint64_t (*busy)(void *, const char **) = s->busy;
	void *ctx = s->busy_ctx;
	pthread_mutex_unlock(&s->mu);
	in.lost_names = lost;
	if (busy)
		in.busy_ms = busy(ctx, &in.busy_name);
	return health_check(&in, why, n);
}

static enum MHD_Result answer_health(struct dctx *x, struct MHD_Connection *c)
{
	char why[300];
	bool ok = healthy(x->s, why, sizeof(why) - 1);
	if (ok)
		snprintf(why, sizeof(why), "ok");
	strcat(why, "\n");
	struct MHD_Response *r = x->s->lib.response_from_buffer(strlen(why), why, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	x->s->lib.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	x->s->lib.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	add_headers(x, r);
	enum MHD_Result rc = x->s->lib.queue_response(c, ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE, r);
	x->s->lib.destroy_response(r);
	return rc;
}

/* The rate_limit token bucket: true when the request may go on. */
static bool rate_ok(struct dctx *x)
{
	if (x->cfg.rate_interval_s <= 0)
		return true;
	pthread_mutex_lock(&x->rate_mu);
	uint64_t now = mono_ms();
	x->tokens += (double)(now - x->rate_ms) / 1000.0 / x->cfg.rate_interval_s;
	if (x->tokens > x->cfg.rate_burst)
		x->tokens = x->cfg.rate_burst;
	x->rate_ms = now;
	bool ok = x->tokens >= 1;
	if (ok)
		x->tokens -= 1;
	pthread_mutex_unlock(&x->rate_mu);
	return ok;
}

static struct conn *conn_of(struct dctx *x, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = x->s->lib.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct dctx *x = cls;
	struct serve *s = x->s;
	(void)version;
	(void)upload_data;

	bool metrics = strcmp(url, "/metrics") == 0, index = strcmp(url, "/") == 0, health = strcmp(url, "/health") == 0;
	if (!*con_cls) {
		/* The whole request head is here. */
		conns_request(s->conns, conn_of(x, c));
		bool guarded = !health || s->o.health_auth;
		/* A client without an accepted certificate gets no answer at
		 * all: the connection is closed. */
		if (guarded && !webcheck_client_cert(&x->cfg, x->g, &x->s->lib, c))
			return MHD_NO;
		/* The rate limit comes before the password, as in the
		 * exporter-toolkit, so that wrong passwords cannot make the
		 * server run bcrypt without bound. */
		if (!health && !rate_ok(x))
			return s->lib.queue_response(c, MHD_HTTP_TOO_MANY_REQUESTS, x->too_many);
		if (guarded && x->auth &&
		    !webauth_check(x->auth, s->lib.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION)))
			return s->lib.queue_response(c, MHD_HTTP_UNAUTHORIZED, x->unauthorized);
		/* A wrong path or method is answered at once, and the
		 * connection is closed with it, so nothing of its body is
		 * read. */
		if (!metrics && !index && !health)
			return s->lib.queue_response(c, MHD_HTTP_NOT_FOUND, x->not_found);
		if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
			return s->lib.queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, x->not_allowed);
		/* A GET is answered on the call after its headers, because an
		 * answer queued on the first call makes libmicrohttpd close the
		 * connection, and Prometheus keeps its connections alive. */
		*con_cls = x;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0; /* a GET's body is not ours to read */
		return MHD_YES;
	}
	if (index)
		return s->lib.queue_response(c, MHD_HTTP_OK, x->index);
	if (health)
		return answer_health(x, c);
	return answer_metrics(x, c);
}

/* libmicrohttpd's word that a connection opened or closed. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct dctx *x = cls;
	struct serve *s = x->s;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		conns_closed(s->conns, *socket_context);
		*socket_context = NULL;
		return;
	}
	const union MHD_ConnectionInfo *ci = s->lib.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	*socket_context = ci ? conns_opened(s->conns, ci->connect_fd, mono_ms()) : NULL;
	if (x->cfg.tls && x->cfg.client_auth != WEBCFG_NO_CLIENT_CERT) {
		/* The handshake asks for a certificate, and the request is
		 * judged by cert_accepted, so that /health can go without. */
		ci = s->lib.get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
		if (ci && ci->tls_session)
			x->g->server_set_request((gnutls_session_t)ci->tls_session, GNUTLS_CERT_REQUEST);
	}
	if (conns_over(s->conns)) {
		uint64_t one = 1;
		ssize_t w = write(s->efd, &one, sizeof(one)); /* the thread sweeps until under */
		(void)w;
	}
}

/* A request's answer is done: the connection waits for the next. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct dctx *x = cls;
	(void)con_cls;
	(void)toe;
	conns_answered(x->s->conns, conn_of(x, c), mono_ms());
}

static const char INDEX_HTML[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpur exporter</title></head>\n"
	"<body><h1>gpur exporter</h1>\n<p>GPU metrics for Prometheus: <a href=\"/metrics\">/metrics</a>; "
	"health: <a href=\"/health\">/health</a></p>\n</body></html>\n";

static struct MHD_Response *fixed(struct dctx *x, const char *body, const char *type)
{
	struct MHD_Response *r = x->s->lib.response_from_buffer(strlen(body), (void *)(uintptr_t)body,
								 MHD_RESPMEM_PERSISTENT);
	if (r) {
		x->s->lib.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
		add_headers(x, r);
	}
	return r;
}

static void dctx_free(struct dctx *x)
{
	if (!x)
		return;
	if (x->d)
		x->s->lib.stop_daemon(x->d); /* joins its threads, and every reply is freed */
	struct MHD_Response *fixed_ones[] = {x->index, x->not_found, x->not_allowed, x->no_frame, x->unauthorized,
					     x->too_many};
	for (size_t i = 0; i < sizeof(fixed_ones) / sizeof(fixed_ones[0]); i++)
		if (fixed_ones[i])
			x->s->lib.destroy_response(fixed_ones[i]);
	webauth_free(x->auth);
	webcfg_free(&x->cfg);
	pthread_mutex_destroy(&x->rate_mu);
	free(x);
}

/* Starts a server with cfg (taken over: freed with the server) on a
 * duplicate of the listening socket. Returns NULL with the reason in err. */
/* Starts libmicrohttpd's daemon on fd for x, with TLS when x's web config
 * has it, and returns it, or NULL when it does not start. */
static struct MHD_Daemon *start_daemon(struct serve *s, struct dctx *x, int fd)
{
	struct MHD_Daemon *d;
	struct MHD_OptionItem opts[16];
	size_t n = 0;
#define OPT(o, v, p) opts[n++] = (struct MHD_OptionItem){o, (intptr_t)(v), (void *)(p)}
	OPT(MHD_OPTION_LISTEN_SOCKET, fd, NULL);
	OPT(MHD_OPTION_THREAD_POOL_SIZE, SERVE_THREADS, NULL);
	OPT(MHD_OPTION_CONNECTION_LIMIT, s->max_conns, NULL);
	OPT(MHD_OPTION_CONNECTION_TIMEOUT, SERVE_TIMEOUT_S, NULL);
	OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, SERVE_CONN_MEMORY, NULL);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, x);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, x);
	unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC;
	if (x->cfg.tls) {
		flags |= MHD_USE_TLS;
		OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, x->cfg.cert_pem);
		OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, x->cfg.key_pem);
		OPT(MHD_OPTION_HTTPS_PRIORITIES, 0, x->cfg.priorities);
		if (x->cfg.client_ca_pem)
			OPT(MHD_OPTION_HTTPS_MEM_TRUST, 0, x->cfg.client_ca_pem);
	}
	OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
	/* The server's threads take no signals, which stay the main thread's. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* A function pointer goes through MHD_OPTION_ARRAY as an intptr_t, as
	 * libmicrohttpd's own documentation has it. */
	d = s->lib.start_daemon(flags, 0, NULL, NULL, handle, x, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

/* Makes the answers that never change, once per server: the index, the
 * errors and their headers. Returns false when one cannot be made. */
static bool make_responses(struct serve *s, struct dctx *x)
{
	x->index = fixed(x, INDEX_HTML, "text/html; charset=utf-8");
	x->not_found = fixed(x, "not found; metrics are at /metrics\n", "text/plain; charset=utf-8");
	x->not_allowed = fixed(x, "method not allowed: GET or HEAD\n", "text/plain; charset=utf-8");
	x->no_frame = fixed(x, "no frame yet; try again in a moment\n", "text/plain; charset=utf-8");
	x->unauthorized = fixed(x, "", "text/plain; charset=utf-8");
	x->too_many = fixed(x, "too many requests (rate_limit of the web config)\n", "text/plain; charset=utf-8");
	if (!x->index || !x->not_found || !x->not_allowed || !x->no_frame || !x->unauthorized || !x->too_many)
		return false;
	s->lib.add_response_header(x->not_allowed, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	s->lib.add_response_header(x->no_frame, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	s->lib.add_response_header(x->unauthorized, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic realm=\"gpur\"");
	s->lib.add_response_header(x->too_many, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	return true;
}

static struct dctx *dctx_start(struct serve *s, struct webcfg *cfg, char *err, size_t errlen)
{
	struct dctx *x = xcalloc(1, sizeof(*x));
	x->s = s;
	x->cfg = *cfg;
	memset(cfg, 0, sizeof(*cfg));
	pthread_mutex_init(&x->rate_mu, NULL);
	x->tokens = x->cfg.rate_burst;
	x->rate_ms = mono_ms();
	if (x->cfg.nusers && !(x->auth = webauth_new(&x->cfg, err, errlen)))
		goto fail;
	if (x->cfg.tls) {
		if (s->lib.is_feature_supported && s->lib.is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			snprintf(err, errlen, "--web-config %s: this libmicrohttpd was built without TLS", s->web_config);
			goto fail;
		}
		if (weblib_gnutls(&x->g, err, errlen) != 0)
			goto fail;
	}
	if (!make_responses(s, x)) {
		snprintf(err, errlen, "--serve: out of memory");
		goto fail;
	}

	int fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "--serve %s: dup: %s", s->o.addr, strerror(errno));
		goto fail;
	}
	x->d = start_daemon(s, x, fd);
	if (!x->d) {
		close(fd);
		if (x->cfg.tls)
			snprintf(err, errlen, "--web-config %s: libmicrohttpd did not start with this TLS configuration",
				 s->web_config);
		else
			snprintf(err, errlen, "--serve %s: libmicrohttpd did not start", s->o.addr);
		goto fail;
	}
	return x;
fail:
	dctx_free(x);
	return NULL;
}

/* Takes a running server out of service: it accepts no more, and is stopped
 * once its connections are gone or after the connection timeout. */
static void dctx_retire(struct serve *s, struct dctx *x)
{
	if (s->lib.quiesce_daemon) {
		MHD_socket fd = s->lib.quiesce_daemon(x->d);
		if (fd != MHD_INVALID_SOCKET)
			close(fd);
		x->drain_until_ms = mono_ms() + (SERVE_TIMEOUT_S + 1) * 1000u;
		x->next = s->draining;
		s->draining = x;
	} else {
		dctx_free(x);
	}
}

static size_t daemon_conns(struct serve *s, struct dctx *x)
{
	if (!s->lib.get_daemon_info)
		return 0;
	const union MHD_DaemonInfo *di = s->lib.get_daemon_info(x->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	return di ? di->num_connections : 0;
}

/* Stops the draining servers whose connections are gone or whose time is
 * up. Returns whether some are left. */
static bool reap_draining(struct serve *s)
{
	uint64_t now = mono_ms();
	struct dctx **pp = &s->draining;
	while (*pp) {
		struct dctx *x = *pp;
		if (now >= x->drain_until_ms || daemon_conns(s, x) == 0) {
			*pp = x->next;
			dctx_free(x);
		} else {
			pp = &x->next;
		}
	}
	return s->draining != NULL;
}

/* One message from the exporter's thread: to the dashboard's events line
 * when one owns the terminal, else to stderr. */
static void say(struct serve *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct serve *s, const char *fmt, ...)
{
	char text[1400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&s->mu);
	if (s->note)
		s->note(s->note_ctx, text);
	else
		msg_error("%s", text);
	pthread_mutex_unlock(&s->mu);
}

/* SIGHUP: the file again. A bad file keeps the running server, with one
 * message. */
static void reload(struct serve *s)
{
	struct webcfg cfg;
	char err[1024];

	if (webcfg_load(s->web_config, &cfg, err, sizeof(err)) != 0) {
		say(s, "%s; still serving with the previous configuration", err);
		return;
	}
	struct dctx *x = dctx_start(s, &cfg, err, sizeof(err));
	webcfg_free(&cfg);
	if (!x) {
		say(s, "%s; still serving with the previous configuration", err);
		return;
	}
	pthread_mutex_lock(&s->mu);
	struct dctx *old = s->cur;
	s->cur = x;
	pthread_mutex_unlock(&s->mu);
	dctx_retire(s, old);
	say(s, "--web-config %s: re-read; serving with it%s", s->web_config, x->cfg.tls ? " over HTTPS" : "");
}

static void *serve_thread(void *arg)
{
	struct serve *s = arg;
	bool reload_asked = false;

	while (!atomic_load(&s->stop)) {
		bool over = conns_over(s->conns);
		int timeout = over || s->draining ? 250 : -1;
		struct pollfd pfd = {s->efd, POLLIN, 0};
		int r = poll(&pfd, 1, timeout);
		if (r > 0) {
			uint64_t v;
			if (read(s->efd, &v, sizeof(v)) == sizeof(v) && v >= SERVE_EFD_RELOAD)
				reload_asked = true;
		}
		if (atomic_load(&s->stop))
			break;
		if (reload_asked && s->web_config[0]) {
			reload_asked = false;
			reload(s);
		}
		conns_sweep(s->conns, mono_ms());
		reap_draining(s);
	}
	return NULL;
}

/* How many connections the descriptors allow: the soft RLIMIT_NOFILE is
 * raised to the hard one (up to what SERVE_MAX_CONNECTIONS needs) and
 * SERVE_FD_RESERVE are kept for the rest of gpur. */
static size_t connection_limit(void)
{
	struct rlimit rl;
	rlim_t want = SERVE_MAX_CONNECTIONS + SERVE_FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 64;
	if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return SERVE_MAX_CONNECTIONS;
	return rl.rlim_cur > SERVE_FD_RESERVE + 64 ? (size_t)(rl.rlim_cur - SERVE_FD_RESERVE) : 64;
}

struct serve *serve_start(const struct serve_opts *o, bool *usage, char *err, size_t errlen)
{
	struct serve_addr a;
	struct serve *s;
	struct webcfg cfg;

	*usage = false;
	memset(&cfg, 0, sizeof(cfg));
	if (serve_parse_addr(o->addr, &a, err, errlen) != 0) {
		*usage = true;
		return NULL;
	}
	/* The file first: a bad one is a usage error before anything
	 * listens. */
	if (o->web_config && webcfg_load(o->web_config, &cfg, err, errlen) != 0) {
		*usage = true;
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->o = *o;
	s->fd = -1;
	s->efd = -1;
	if (o->web_config)
		snprintf(s->web_config, sizeof(s->web_config), "%s", o->web_config);
	pthread_mutex_init(&s->mu, NULL);
	prom_health_init(&s->health);
	s->max_conns = connection_limit();
	/* The soft limit leaves a sixteenth of room, so that new connections
	 * are still accepted while the oldest waiting ones are shut. */
	s->conns = conns_new(s->max_conns - s->max_conns / 16, SERVE_GRACE_MS);
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!s->conns || s->efd < 0) {
		snprintf(err, errlen, "--serve: out of memory or descriptors");
		goto fail;
	}
	s->fd = serve_listen(o->addr, &a, s->where, sizeof(s->where), err, errlen);
	if (s->fd < 0)
		goto fail;
	char why[512];
	if (mhd_lib_open(&s->lib, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "--serve: %s", why);
		goto fail;
	}
	if (!(s->cur = dctx_start(s, &cfg, err, errlen)))
		goto fail;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->have_thread = pthread_create(&s->thread, NULL, serve_thread, s) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->have_thread) {
		snprintf(err, errlen, "--serve: cannot start a thread");
		goto fail;
	}
	return s;
fail:
	webcfg_free(&cfg);
	serve_stop(s);
	return NULL;
}

int serve_reload_fd(const struct serve *s)
{
	return s && s->web_config[0] ? s->efd : -1;
}

void serve_notes(struct serve *s, void (*note)(void *ctx, const char *text), void *ctx)
{
	pthread_mutex_lock(&s->mu);
	s->note = note;
	s->note_ctx = ctx;
	pthread_mutex_unlock(&s->mu);
}

void serve_watch(struct serve *s, uint64_t (*busy)(void *ctx, const char **name), void *ctx)
{
	pthread_mutex_lock(&s->mu);
	s->busy = busy;
	s->busy_ctx = ctx;
	pthread_mutex_unlock(&s->mu);
}

static double now_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* gpur's own resident memory, from its own /proc/self rather than --procfs,
 * which is the watched machine's. */
static double self_rss(void)
{
	char line[128];
	unsigned long long size, rss;
	FILE *fp = fopen("/proc/self/statm", "re");
	double v = -1;

	if (!fp)
		return -1;
	if (fgets(line, sizeof(line), fp) && sscanf(line, "%llu %llu", &size, &rss) == 2)
		v = (double)rss * (double)sysconf(_SC_PAGESIZE);
	fclose(fp);
	return v;
}

void serve_publish(struct serve *s, const struct frame *f, uint64_t records_dropped, bool have_records)
{
	struct prom_opts po = {.hostname = s->o.hostname, .processes = s->o.processes, .live = s->o.live,
			       .names = s->o.names};
	struct rusage ru;
	double t0 = now_s(CLOCK_MONOTONIC);

	s->health.frames++;
	s->health.have_records = have_records;
	s->health.records_dropped = records_dropped;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		s->health.cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
					(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	s->health.rss_bytes = self_rss();
	prom_health_update(&s->health, f);

	struct snap *p = xcalloc(1, sizeof(*p));
	atomic_init(&p->refs, 1);
	buf_init(&p->text);
	if (s->last_len)
		buf_reserve(&p->text, s->last_len + 4096);
	prom_render(&p->text, f, &po, &s->health);
	p->have_gz = gz_open_deflate(&p->gz, p->text.data ? p->text.data : "", p->text.len, 1) == 0;
	s->last_len = p->text.len;
	s->health.render_seconds = now_s(CLOCK_MONOTONIC) - t0;

	/* The backends lost, for /health. */
	size_t nlost = 0, at = 0;
	char lost[sizeof(s->lost_names)] = "";
	for (size_t i = 0; i < s->health.nbackends; i++) {
		if (s->health.backends[i].up)
			continue;
		nlost++;
		int r = snprintf(lost + at, sizeof(lost) - at, "%s%s", at ? ", " : "", s->health.backends[i].name);
		if (r > 0 && (size_t)r < sizeof(lost) - at)
			at += (size_t)r;
	}

	pthread_mutex_lock(&s->mu);
	struct snap *old = s->latest;
	s->latest = p;
	s->published_ms = mono_ms();
	s->nbackends = s->health.nbackends;
	s->nlost = nlost;
	memcpy(s->lost_names, lost, sizeof(lost));
	pthread_mutex_unlock(&s->mu);
	snap_unref(old);
}

const char *serve_where(const struct serve *s)
{
	return s->where;
}

const char *serve_scheme(struct serve *s)
{
	pthread_mutex_lock(&s->mu);
	bool tls = s->cur && s->cur->cfg.tls;
	pthread_mutex_unlock(&s->mu);
	return tls ? "https" : "http";
}

void serve_stop(struct serve *s)
{
	if (!s)
		return;
	if (s->have_thread) {
		atomic_store(&s->stop, true);
		uint64_t one = 1;
		ssize_t w = write(s->efd, &one, sizeof(one));
		(void)w;
		pthread_join(s->thread, NULL);
	}
	dctx_free(s->cur);
	while (s->draining) {
		struct dctx *x = s->draining;
		s->draining = x->next;
		dctx_free(x);
	}
	if (s->fd >= 0)
		close(s->fd);
	if (s->efd >= 0)
		close(s->efd);
	snap_unref(s->latest);
	conns_free(s->conns);
	mhd_lib_close(&s->lib);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
