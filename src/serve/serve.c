/* serve: snapshots, the listening socket and the request handler. */
#include "serve/serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "serve/gz.h"
#include "serve/mhd_lib.h"
#include "serve/prom.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* One frame's exposition, shared by the scrapes that answer with it. */
struct snap {
	atomic_uint refs;
	struct buf text;
	struct gz_open gz;
	bool have_gz;
};

struct serve {
	struct serve_opts o;
	char where[300];
	int fd;
	struct mhd_lib lib;
	struct MHD_Daemon *d;
	struct MHD_Response *index, *not_found, *not_allowed, *no_frame;
	pthread_mutex_t mu; /* guards latest */
	struct snap *latest;
	atomic_uint_fast64_t scrapes;
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

static void snap_unref(struct snap *p)
{
	if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
		return;
	buf_fini(&p->text);
	if (p->have_gz)
		gz_fini(&p->gz);
	free(p);
}

int serve_parse_addr(const char *addr, struct serve_addr *out, char *err, size_t errlen)
{
	const char *colon, *host = addr;
	size_t hlen;

	memset(out, 0, sizeof(*out));
	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');
		if (!close || close[1] != ':')
			goto bad;
		host = addr + 1;
		hlen = (size_t)(close - host);
		colon = close + 1;
		struct in6_addr a6;
		char tmp[64];
		if (hlen == 0 || hlen >= sizeof(tmp))
			goto bad;
		memcpy(tmp, host, hlen);
		tmp[hlen] = '\0';
		if (inet_pton(AF_INET6, tmp, &a6) != 1)
			goto bad;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			goto bad;
		hlen = (size_t)(colon - addr);
		for (size_t i = 0; i < hlen; i++) {
			char c = addr[i];
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
			      c == '-'))
				goto bad; /* an IPv6 address needs its brackets */
		}
	}
	if (hlen >= sizeof(out->host))
		goto bad;
	const char *p = colon + 1;
	size_t digits = strspn(p, "0123456789");
	if (digits == 0 || digits > 5 || p[digits] != '\0')
		goto bad;
	unsigned long port = strtoul(p, NULL, 10);
	if (port > 65535)
		goto bad;
	memcpy(out->host, host, hlen);
	out->host[hlen] = '\0';
	if (hlen == 0)
		snprintf(out->host, sizeof(out->host), "127.0.0.1");
	out->port = (uint16_t)port;
	return 0;
bad:
	snprintf(err, errlen, "--serve: '%s' is not host:port (e.g. :9400, 0.0.0.0:9400, [::]:9400)", addr);
	return -1;
}

/* Binds and listens on a. Returns the socket, or -1 with the reason in
 * err. */
static int listen_on(const char *given, const struct serve_addr *a, char *where, size_t wn, char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL;
	char port[8];

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
	snprintf(port, sizeof(port), "%u", (unsigned)a->port);
	int rc = getaddrinfo(a->host, port, &hints, &res);
	if (rc != 0 || !res) {
		snprintf(err, errlen, "--serve %s: cannot resolve '%s': %s", given, a->host, gai_strerror(rc));
		return -1;
	}
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "--serve %s: socket: %s", given, strerror(errno));
		freeaddrinfo(res);
		return -1;
	}
	int one = 1, zero = 0;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)); /* a restart is not "in use" for TIME_WAIT */
	if (res->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)); /* [::] takes IPv4 too */
	if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 128) != 0) {
		int e = errno;
		snprintf(err, errlen, "--serve %s: cannot listen: %s%s", given, strerror(e),
			 e == EADDRINUSE ? " (another exporter on that port?)" : "");
		close(fd);
		freeaddrinfo(res);
		return -1;
	}
	freeaddrinfo(res);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned bound = a->port;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;
			inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
			bound = ntohs(s6->sin6_port);
		} else {
			const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
			bound = ntohs(s4->sin_port);
		}
	}
	snprintf(where, wn, ss.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, bound);
	return fd;
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

static enum MHD_Result answer_metrics(struct serve *s, struct MHD_Connection *c)
{
	pthread_mutex_lock(&s->mu);
	struct snap *p = s->latest;
	if (p)
		atomic_fetch_add(&p->refs, 1);
	pthread_mutex_unlock(&s->mu);
	if (!p)
		return s->lib.queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, s->no_frame);

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
	enum MHD_Result rc = s->lib.queue_response(c, MHD_HTTP_OK, resp);
	s->lib.destroy_response(resp);
	return rc;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct serve *s = cls;
	(void)version;
	(void)upload_data;

	bool metrics = strcmp(url, "/metrics") == 0, index = strcmp(url, "/") == 0;
	/* A wrong path or method is answered at once, and the connection is
	 * closed with it, so nothing of its body is read. */
	if (!metrics && !index)
		return s->lib.queue_response(c, MHD_HTTP_NOT_FOUND, s->not_found);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return s->lib.queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, s->not_allowed);
	/* A GET is answered on the call after its headers, because an answer
	 * queued on the first call makes libmicrohttpd close the connection,
	 * and Prometheus keeps its connections alive. */
	if (!*con_cls) {
		*con_cls = s;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0; /* a GET's body is not ours to read */
		return MHD_YES;
	}
	if (index)
		return s->lib.queue_response(c, MHD_HTTP_OK, s->index);
	return answer_metrics(s, c);
}

static const char INDEX_HTML[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpur exporter</title></head>\n"
	"<body><h1>gpur exporter</h1>\n<p>GPU metrics for Prometheus: <a href=\"/metrics\">/metrics</a></p>\n"
	"</body></html>\n";

static struct MHD_Response *fixed(struct serve *s, const char *body, const char *type)
{
	struct MHD_Response *r = s->lib.response_from_buffer(strlen(body), (void *)(uintptr_t)body,
							     MHD_RESPMEM_PERSISTENT);
	if (r)
		s->lib.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	return r;
}

struct serve *serve_start(const struct serve_opts *o, char *err, size_t errlen)
{
	struct serve_addr a;
	struct serve *s;

	if (serve_parse_addr(o->addr, &a, err, errlen) != 0)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->o = *o;
	s->fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	prom_health_init(&s->health);
	s->fd = listen_on(o->addr, &a, s->where, sizeof(s->where), err, errlen);
	if (s->fd < 0)
		goto fail;
	char why[512];
	if (mhd_lib_open(&s->lib, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "--serve: %s", why);
		goto fail;
	}
	s->index = fixed(s, INDEX_HTML, "text/html; charset=utf-8");
	s->not_found = fixed(s, "not found; metrics are at /metrics\n", "text/plain; charset=utf-8");
	s->not_allowed = fixed(s, "method not allowed: GET or HEAD\n", "text/plain; charset=utf-8");
	s->no_frame = fixed(s, "no frame yet; try again in a moment\n", "text/plain; charset=utf-8");
	if (!s->index || !s->not_found || !s->not_allowed || !s->no_frame) {
		snprintf(err, errlen, "--serve: out of memory");
		goto fail;
	}
	s->lib.add_response_header(s->not_allowed, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	s->lib.add_response_header(s->no_frame, MHD_HTTP_HEADER_RETRY_AFTER, "1");

	/* Many connections need descriptors, so take what the hard limit
	 * allows. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max && rl.rlim_cur < 4096) {
		rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* The server's threads take no signals, which stay the main thread's. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->d = s->lib.start_daemon(MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handle, s,
				   MHD_OPTION_LISTEN_SOCKET, (MHD_socket)s->fd,
				   MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)SERVE_THREADS,
				   MHD_OPTION_CONNECTION_LIMIT, (unsigned int)SERVE_MAX_CONNECTIONS,
				   MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)SERVE_MAX_PER_CLIENT,
				   MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_TIMEOUT_S,
				   MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_CONN_MEMORY,
				   MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->d) {
		snprintf(err, errlen, "--serve %s: libmicrohttpd did not start", o->addr);
		goto fail;
	}
	s->fd = -1; /* the daemon's now, and MHD_stop_daemon closes it */
	return s;
fail:
	serve_stop(s);
	return NULL;
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

	pthread_mutex_lock(&s->mu);
	struct snap *old = s->latest;
	s->latest = p;
	pthread_mutex_unlock(&s->mu);
	snap_unref(old);
}

const char *serve_where(const struct serve *s)
{
	return s->where;
}

void serve_stop(struct serve *s)
{
	if (!s)
		return;
	if (s->d)
		s->lib.stop_daemon(s->d); /* joins its threads, and every reply is freed */
	if (s->lib.dl) {
		struct MHD_Response *fixed_ones[] = {s->index, s->not_found, s->not_allowed, s->no_frame};
		for (size_t i = 0; i < 4; i++)
			if (fixed_ones[i])
				s->lib.destroy_response(fixed_ones[i]);
	}
	if (s->fd >= 0)
		close(s->fd);
	snap_unref(s->latest);
	mhd_lib_close(&s->lib);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
