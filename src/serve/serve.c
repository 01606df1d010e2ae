/* serve: snapshots, the servers on the listening socket (listen.c), their
 * reload and draining; each request is answered in answer.c. */
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "serve/listen.h"
#include "serve/serve_priv.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/xalloc.h"

uint64_t serve_mono_ms(void)
{
	return clock_mono_ns() / 1000000u;
}

void serve_snap_unref(struct snap *p)
{
	if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
		return;
	buf_fini(&p->text);
	if (p->have_gz)
		gz_fini(&p->gz);
	free(p);
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
		serve_add_headers(x, r);
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
	OPT(MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)serve_on_connection, x);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)serve_on_completed, x);
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
	d = s->lib.start_daemon(flags, 0, NULL, NULL, serve_handle, x, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
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
	x->rate_ms = serve_mono_ms();
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
		x->drain_until_ms = serve_mono_ms() + (SERVE_TIMEOUT_S + 1) * 1000u;
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
	uint64_t now = serve_mono_ms();
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
		conns_sweep(s->conns, serve_mono_ms());
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
	s->published_ms = serve_mono_ms();
	s->nbackends = s->health.nbackends;
	s->nlost = nlost;
	memcpy(s->lost_names, lost, sizeof(lost));
	pthread_mutex_unlock(&s->mu);
	serve_snap_unref(old);
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
	serve_snap_unref(s->latest);
	conns_free(s->conns);
	mhd_lib_close(&s->lib);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
