/* answer: each request to --serve's servers: /metrics from the newest
 * snapshot, gzipped when asked, with the scrape counter after it;
 * /health; the index; and before any of them the client certificate, the
 * rate limit and basic auth of the web config (serve.c starts the
 * servers). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "serve/health.h"
#include "serve/serve_priv.h"
#include "serve/webcheck.h"

/* The per-scrape part, after the snapshot's text (see gz.h). */
#define TAIL_MAX 256

struct reply {
	struct snap *snap;
	char tail[TAIL_MAX + GZ_CLOSE_OVERHEAD];
};


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
	serve_snap_unref(r->snap);
	free(r);
}

/* Adds the web config's headers to a response. */
void serve_add_headers(struct dctx *x, struct MHD_Response *r)
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
		serve_snap_unref(p);
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
	serve_add_headers(x, resp);
	enum MHD_Result rc = s->lib.queue_response(c, MHD_HTTP_OK, resp);
	s->lib.destroy_response(resp);
	return rc;
}

/* The health of the served frame, as health.h rules. */
static bool healthy(struct serve *s, char *why, size_t n)
{
	struct health_in in = {.live = s->o.live, .interval_ms = s->o.interval_ms, .now_ms = serve_mono_ms()};
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
	serve_add_headers(x, r);
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
	uint64_t now = serve_mono_ms();
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

enum MHD_Result serve_handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
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
void serve_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
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
	*socket_context = ci ? conns_opened(s->conns, ci->connect_fd, serve_mono_ms()) : NULL;
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
void serve_on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct dctx *x = cls;
	(void)con_cls;
	(void)toe;
	conns_answered(x->s->conns, conn_of(x, c), serve_mono_ms());
}
