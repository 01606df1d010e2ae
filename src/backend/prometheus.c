/* prometheus: a fixed set of instant queries per poll, one per metric and
 * never one per host. They are all in flight at once through libcurl's multi
 * interface, so a poll costs one round trip to a distant server, not ten.
 * Their series are grouped by host and GPU into one frame. */
#define CURL_DISABLE_TYPECHECK 1
#include "backend/prometheus.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/prometheus_fleet.h"
#include "backend/prometheus_parse.h"
#include "model/fleet.h"
#include "util/buf.h"
#include "util/xalloc.h"

#define PROM_BODY_MAX (64u << 20)   /* bytes of one answer */
#define PROM_SERIES_MAX 16384       /* series kept of one answer */
#define PROM_CONNECT_MS 2000L
#define PROM_TIMEOUT_MS 4000L       /* one query, under the sampler's 5 s "no answer" note */
#define PROM_POLL_BUDGET_MS 20000u  /* every query of one poll, long enough for a slow server to answer */
#define PROM_BACKOFF_MIN_MS 1000u
#define PROM_BACKOFF_MAX_MS 30000u

/* libcurl, loaded once per process and never unloaded, because its TLS
 * library keeps process-wide state. */
static struct {
	CURLcode (*global_init)(long);
	CURL *(*init)(void);
	CURLcode (*setopt)(CURL *, CURLoption, ...);
	CURLcode (*perform)(CURL *);
	CURLcode (*getinfo)(CURL *, CURLINFO, ...);
	void (*cleanup)(CURL *);
	const char *(*strerror)(CURLcode);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add)(CURLM *, CURL *);
	CURLMcode (*multi_remove)(CURLM *, CURL *);
	CURLMcode (*multi_perform)(CURLM *, int *);
	CURLMcode (*multi_wait)(CURLM *, struct curl_waitfd *, unsigned, int, int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	CURLMcode (*multi_cleanup)(CURLM *);
	const char *(*multi_strerror)(CURLMcode);
	bool ok;
	char why[200];
} curl;
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_load(void)
{
	void *dl = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *e = dlerror();
		snprintf(curl.why, sizeof(curl.why), "libcurl.so.4 not loaded (%s)", e ? e : "not found");
		return;
	}
#define LOAD(f, n)                                                                                  \
	do {                                                                                        \
		*(void **)(&curl.f) = dlsym(dl, n);                                                 \
		if (!curl.f) {                                                                      \
			snprintf(curl.why, sizeof(curl.why), "libcurl.so.4 lacks %s", n);           \
			return;                                                                     \
		}                                                                                   \
	} while (0)
	LOAD(global_init, "curl_global_init");
	LOAD(init, "curl_easy_init");
	LOAD(setopt, "curl_easy_setopt");
	LOAD(perform, "curl_easy_perform");
	LOAD(getinfo, "curl_easy_getinfo");
	LOAD(cleanup, "curl_easy_cleanup");
	LOAD(strerror, "curl_easy_strerror");
	LOAD(multi_init, "curl_multi_init");
	LOAD(multi_add, "curl_multi_add_handle");
	LOAD(multi_remove, "curl_multi_remove_handle");
	LOAD(multi_perform, "curl_multi_perform");
	LOAD(multi_wait, "curl_multi_wait");
	LOAD(multi_info_read, "curl_multi_info_read");
	LOAD(multi_cleanup, "curl_multi_cleanup");
	LOAD(multi_strerror, "curl_multi_strerror");
#undef LOAD
	if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(curl.why, sizeof(curl.why), "libcurl: curl_global_init failed");
		return;
	}
	curl.ok = true;
}

/* One metric's query, with its answer and its own handle, and so its own
 * connection, which is kept between polls. */
struct prom_req {
	CURL *h;
	struct buf body;
	bool too_big;
	CURLcode rc;
	char errbuf[CURL_ERROR_SIZE];
};

struct prom {
	struct prom_req req[PROM_M__COUNT];
	CURLM *multi;
	char *base; /* the URL without trailing '/' */
	char *match;
	const struct clock *clock;
	struct fleet *good;          /* the last good poll's hosts, or NULL */
	struct fleet *polled;        /* the last poll's hosts, fresh or stale, or NULL */
	bool failing;                /* the last try failed */
	uint64_t next_try_ms;        /* monotonic, 0 to poll now */
	uint32_t backoff_ms;
	char error[BACKEND_ERRLEN];  /* why the last try failed */
};

static size_t on_body(char *p, size_t sz, size_t n, void *ctx)
{
	struct prom_req *q = ctx;
	size_t len = sz * n;

	if (len > PROM_BODY_MAX - q->body.len) {
		q->too_big = true;
		return 0; /* ends the transfer */
	}
	buf_append(&q->body, p, len);
	return len;
}

static void url_encode(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
		    c == '_' || c == '.' || c == '~') {
			buf_putc(b, (char)c);
		} else {
			buf_putc(b, '%');
			buf_putc(b, hex[c >> 4]);
			buf_putc(b, hex[c & 15]);
		}
	}
}

/* Points m's handle at its instant query at wall time ts_ms, where 0 means
 * the server's now, and gives it at most budget_ms. */
static void query_start(struct prom *pr, enum prom_metric m, uint64_t ts_ms, uint64_t budget_ms)
{
	struct prom_req *rq = &pr->req[m];
	char q[1200];
	struct buf url;

	prom_fleet_query(q, sizeof(q), m, pr->match);
	buf_init(&url);
	buf_printf(&url, "%s/api/v1/query?query=", pr->base);
	url_encode(&url, q);
	if (ts_ms)
		buf_printf(&url, "&time=%llu.%03u", (unsigned long long)(ts_ms / 1000), (unsigned)(ts_ms % 1000));
	curl.setopt(rq->h, CURLOPT_TIMEOUT_MS, budget_ms < (uint64_t)PROM_TIMEOUT_MS ? (long)budget_ms : PROM_TIMEOUT_MS);
	buf_reset(&rq->body);
	rq->too_big = false;
	rq->errbuf[0] = '\0';
	rq->rc = CURLE_OK;
	/* libcurl copies the string. */
	curl.setopt(rq->h, CURLOPT_URL, buf_cstr(&url));
	buf_fini(&url);
}

/* Puts m's answer into r once its transfer is over. Returns 0, or -1 with
 * b->error naming the URL. */
static int query_finish(struct backend *b, enum prom_metric m, struct prom_result *r)
{
	struct prom *pr = b->priv;
	struct prom_req *rq = &pr->req[m];
	char q[1200], why[400];
	long code = 0;

	if (rq->rc != CURLE_OK) {
		if (rq->too_big)
			backend_fail(b, "%s: the answer to %s is over %u MiB", pr->base, prom_fleet_metric(m),
				     PROM_BODY_MAX >> 20);
		else
			backend_fail(b, "%s: %s", pr->base, rq->errbuf[0] ? rq->errbuf : curl.strerror(rq->rc));
		return -1;
	}
	curl.getinfo(rq->h, CURLINFO_RESPONSE_CODE, &code);
	if (prom_parse_query(rq->body.data ? rq->body.data : "", rq->body.len, PROM_SERIES_MAX, r, why,
			     sizeof(why)) != 0) {
		prom_fleet_query(q, sizeof(q), m, pr->match);
		if (code != 200)
			backend_fail(b, "%s: HTTP %ld to the query %s (%s)", pr->base, code, q, why);
		else
			backend_fail(b, "%s: query %s: %s", pr->base, q, why);
		return -1;
	}
	return 0;
}

/* Runs one query on its own, for detection, into r. */
static int query(struct backend *b, enum prom_metric m, uint64_t ts_ms, uint64_t budget_ms, struct prom_result *r)
{
	struct prom *pr = b->priv;

	query_start(pr, m, ts_ms, budget_ms);
	pr->req[m].rc = curl.perform(pr->req[m].h);
	return query_finish(b, m, r);
}

/* Runs every query of a poll at once, until each has ended, since each has
 * its own timeout, or the budget is spent. Returns 0; -ETIMEDOUT when the
 * budget ran out; or -EIO when libcurl's multi interface itself failed, and
 * *why says how. */
static int query_all(struct prom *pr, uint64_t ts_ms, uint64_t budget_ms, const char **why)
{
	uint64_t t0 = clock_mono_ns();
	int running = 0, left, rc = 0;
	CURLMcode mc = CURLM_OK;

	for (int m = 0; m < PROM_M__COUNT && mc == CURLM_OK; m++) {
		query_start(pr, (enum prom_metric)m, ts_ms, budget_ms);
		pr->req[m].rc = CURLE_FAILED_INIT; /* until the multi handle says how it ended */
		mc = curl.multi_add(pr->multi, pr->req[m].h);
	}
	if (mc == CURLM_OK)
		mc = curl.multi_perform(pr->multi, &running);
	while (mc == CURLM_OK && running > 0) {
		uint64_t spent = (clock_mono_ns() - t0) / 1000000u;
		if (spent >= budget_ms) {
			rc = -ETIMEDOUT;
			break;
		}
		uint64_t wait = budget_ms - spent < 1000 ? budget_ms - spent : 1000;
		mc = curl.multi_wait(pr->multi, NULL, 0, (int)wait, NULL);
		if (mc == CURLM_OK)
			mc = curl.multi_perform(pr->multi, &running);
	}
	if (mc != CURLM_OK) {
		*why = curl.multi_strerror(mc);
		rc = -EIO;
	}
	for (CURLMsg *msg; (msg = curl.multi_info_read(pr->multi, &left));) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		for (int m = 0; m < PROM_M__COUNT; m++)
			if (pr->req[m].h == msg->easy_handle)
				pr->req[m].rc = msg->data.result;
	}
	for (int m = 0; m < PROM_M__COUNT; m++)
		curl.multi_remove(pr->multi, pr->req[m].h);
	return rc;
}

static void prom_free(struct prom *pr)
{
	if (!pr)
		return;
	for (int m = 0; m < PROM_M__COUNT; m++) {
		if (pr->req[m].h)
			curl.cleanup(pr->req[m].h);
		buf_fini(&pr->req[m].body);
	}
	if (pr->multi)
		curl.multi_cleanup(pr->multi);
	free(pr->base);
	free(pr->match);
	fleet_unref(pr->good);
	fleet_unref(pr->polled);
	free(pr);
}

static int prom_open(struct backend *b, const struct backend_env *env)
{
	if (!env->prometheus_url) {
		backend_fail(b, "no --prometheus URL");
		return -EINVAL;
	}
	pthread_once(&curl_once, curl_load);
	if (!curl.ok) {
		backend_fail(b, "%s", curl.why);
		return -ENOENT;
	}
	struct prom *pr = xcalloc(1, sizeof(*pr));
	pr->base = xstrdup(env->prometheus_url);
	for (size_t n = strlen(pr->base); n > 0 && pr->base[n - 1] == '/'; n--)
		pr->base[n - 1] = '\0';
	pr->match = env->prometheus_match ? xstrdup(env->prometheus_match) : NULL;
	pr->clock = env->clock ? env->clock : &CLOCK_SYSTEM;
	pr->backoff_ms = PROM_BACKOFF_MIN_MS;
	for (int m = 0; m < PROM_M__COUNT; m++)
		buf_init(&pr->req[m].body);
	if (!(pr->multi = curl.multi_init())) {
		prom_free(pr);
		backend_fail(b, "libcurl: curl_multi_init failed");
		return -ENOMEM;
	}
	for (int m = 0; m < PROM_M__COUNT; m++) {
		struct prom_req *rq = &pr->req[m];
		CURL *h = rq->h = curl.init();
		if (!h) {
			prom_free(pr);
			backend_fail(b, "libcurl: curl_easy_init failed");
			return -ENOMEM;
		}
		curl.setopt(h, CURLOPT_NOSIGNAL, 1L);
		curl.setopt(h, CURLOPT_CONNECTTIMEOUT_MS, PROM_CONNECT_MS);
		curl.setopt(h, CURLOPT_TIMEOUT_MS, PROM_TIMEOUT_MS);
		curl.setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
		curl.setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
		curl.setopt(h, CURLOPT_USERAGENT, "gpur");
		curl.setopt(h, CURLOPT_ACCEPT_ENCODING, "");
		curl.setopt(h, CURLOPT_WRITEFUNCTION, on_body);
		curl.setopt(h, CURLOPT_WRITEDATA, rq);
		curl.setopt(h, CURLOPT_ERRORBUFFER, rq->errbuf);
	}
	b->priv = pr;
	/* Detection is one real query. An unreachable or wrong server is
	 * "absent", with the reason naming its URL, except for the dashboard,
	 * which shows the reason and retries with backoff. */
	struct prom_result r;
	prom_result_init(&r);
	int rc = query(b, PROM_M_UTIL, 0, PROM_TIMEOUT_MS, &r);
	prom_result_free(&r);
	if (rc != 0 && env->prometheus_wait) {
		snprintf(pr->error, sizeof(pr->error), "%s", b->error);
		pr->failing = true;
		pr->next_try_ms = clock_mono(pr->clock) + pr->backoff_ms;
		pr->backoff_ms *= 2;
		rc = 0;
	}
	if (rc != 0) {
		b->priv = NULL;
		prom_free(pr);
		return -EHOSTUNREACH;
	}
	return 0;
}

/* Returns the hosts of the last good poll again, marked stale, with why this
 * poll did not answer and when the next try is. It is a new fleet, because
 * published ones are never changed. */
static struct fleet *stale_fleet(struct backend *b, uint64_t now_mono, uint64_t now_wall)
{
	struct prom *pr = b->priv;
	struct fleet *fl = fleet_new(pr->base);
	char why[BACKEND_ERRLEN + 64];

	for (size_t i = 0; pr->good && i < pr->good->nhosts; i++) {
		const struct fleet_host *g = &pr->good->hosts[i];
		struct fleet_host *h = fleet_add_host(fl, g->name, g->frame);
		if (h && g->top_container) {
			h->top_container = fleet_str(fl, g->top_container);
			h->top_container_mem_bytes = g->top_container_mem_bytes;
		}
	}
	fl->hosts_left_out = pr->good ? pr->good->hosts_left_out : 0;
	fl->stale = true;
	fl->good_ts_ms = pr->good ? pr->good->good_ts_ms : 0;
	fl->read_ms = pr->good ? pr->good->read_ms : 0;
	fl->retry_ms = now_wall + (pr->next_try_ms > now_mono ? pr->next_try_ms - now_mono : 0);
	fleet_safe_name(why, sizeof(why), pr->error);
	fl->error = arena_strdup(&fl->arena, why);
	return fl;
}

/* Keeps the hosts of this poll for prom_fleet() to hand out; fl is
 * consumed. */
static void set_polled(struct prom *pr, struct fleet *fl)
{
	fleet_unref(pr->polled);
	pr->polled = fl;
}

/* Runs every query of a poll within one time budget, at one evaluation time.
 * A failure keeps the last good hosts, marked stale, and retries with a
 * backoff of 1 s doubling to 30 s, which an answer resets. It never returns
 * -ENODEV, because the source stays open and says what is wrong. */
static int prom_poll(struct backend *b, struct frame *f)
{
	struct prom *pr = b->priv;
	struct prom_result r[PROM_M__COUNT];
	uint64_t now = clock_mono(pr->clock), wall = clock_wall(pr->clock);
	bool ok = true;

	f->driver = frame_str(f, pr->base);
	frame_set(f, FRAME_F_DRIVER);
	if (pr->next_try_ms && now < pr->next_try_ms) {
		set_polled(pr, stale_fleet(b, now, wall));
		return 0;
	}
	for (int m = 0; m < PROM_M__COUNT; m++)
		prom_result_init(&r[m]);
	const char *why = NULL;
	int qrc = query_all(pr, wall, PROM_POLL_BUDGET_MS, &why);
	if (qrc == -ETIMEDOUT) {
		backend_fail(b, "%s: no complete answer within %u s", pr->base, PROM_POLL_BUDGET_MS / 1000);
		ok = false;
	} else if (qrc != 0) {
		backend_fail(b, "%s: libcurl: %s", pr->base, why ? why : "the transfers failed");
		ok = false;
	}
	/* The first failure in the metrics' order is the one reported. */
	for (int m = 0; m < PROM_M__COUNT && ok; m++)
		ok = query_finish(b, (enum prom_metric)m, &r[m]) == 0;
	if (ok) {
		struct prom_fleet_info info;
		struct fleet *fl = prom_fleet_build(r, pr->base, wall, &info);
		size_t dropped = 0;
		fl->good_ts_ms = wall;
		fl->read_ms = clock_mono(pr->clock) - now;
		/* The fleet is not published yet, so each host's header can show how
		 * long reading took. */
		for (size_t i = 0; i < fl->nhosts; i++)
			fl->hosts[i].frame->poll_us = fl->read_ms * 1000u;
		for (int m = 0; m < PROM_M__COUNT; m++)
			dropped += r[m].dropped;
		if (info.gpus_left_out)
			frame_note(f, EVENT_NOTE, "%s: %zu GPUs past %d on one host left out", pr->base,
				   info.gpus_left_out, FRAME_MAX_GPUS);
		if (info.procs_left_out)
			frame_note(f, EVENT_NOTE, "%s: %zu process rows past %d on one host left out", pr->base,
				   info.procs_left_out, FRAME_MAX_PROCESSES);
		if (fl->hosts_left_out)
			frame_note(f, EVENT_NOTE, "%s: %zu hosts past %d left out", pr->base, fl->hosts_left_out,
				   FLEET_MAX_HOSTS);
		if (dropped)
			frame_note(f, EVENT_NOTE, "%s: %zu series past %d per query left out", pr->base, dropped,
				   PROM_SERIES_MAX);
		if (pr->failing)
			frame_note(f, EVENT_NOTE, "%s answered again", pr->base);
		pr->failing = false;
		pr->next_try_ms = 0;
		pr->backoff_ms = PROM_BACKOFF_MIN_MS;
		fleet_unref(pr->good);
		pr->good = fleet_ref(fl);
		set_polled(pr, fl);
	} else {
		snprintf(pr->error, sizeof(pr->error), "%s", b->error);
		pr->next_try_ms = clock_mono(pr->clock) + pr->backoff_ms;
		if (!pr->failing)
			frame_note(f, EVENT_NOTE, "%s (retrying with backoff; the last good data stays shown)", pr->error);
		pr->failing = true;
		set_polled(pr, stale_fleet(b, clock_mono(pr->clock), wall));
		pr->backoff_ms = pr->backoff_ms * 2 > PROM_BACKOFF_MAX_MS ? PROM_BACKOFF_MAX_MS : pr->backoff_ms * 2;
	}
	for (int m = 0; m < PROM_M__COUNT; m++)
		prom_result_free(&r[m]);
	return 0;
}

static struct fleet *prom_fleet(struct backend *b)
{
	struct prom *pr = b->priv;

	return pr->polled ? fleet_ref(pr->polled) : NULL;
}

static bool prom_can_signal(const struct backend *b)
{
	(void)b;
	return false;
}

static bool prom_is_remote(const struct backend *b)
{
	(void)b;
	return true;
}

static void prom_close(struct backend *b)
{
	prom_free(b->priv);
	b->priv = NULL;
}

const struct backend_ops BACKEND_PROMETHEUS = {
	.name = "prometheus",
	.open = prom_open,
	.poll = prom_poll,
	.fleet = prom_fleet,
	.can_signal = prom_can_signal,
	.is_remote = prom_is_remote,
	.close = prom_close,
};
