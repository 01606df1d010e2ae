/* prometheus: a fixed set of instant queries per poll (one per metric, never
 * one per host), their series grouped by host and GPU into one frame. */
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

#include "backend/prometheus_parse.h"
#include "util/buf.h"
#include "util/xalloc.h"

#define PROM_BODY_MAX (64u << 20)   /* bytes of one answer */
#define PROM_SERIES_MAX 16384       /* series kept of one answer */
#define PROM_CONNECT_MS 2000L
#define PROM_TIMEOUT_MS 5000L

enum metric { M_UTIL, M_FB_USED, M_FB_FREE, M_TEMP, M_POWER, M_LOST, M_SUSPENDED, M__COUNT };
static const char *const METRICS[M__COUNT] = {
	"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_GPU_TEMP",
	"DCGM_FI_DEV_POWER_USAGE", "gpur_gpu_lost", "gpur_gpu_suspended",
};

/* libcurl, loaded once per process and never unloaded (its TLS library
 * keeps process-wide state). */
static struct {
	CURLcode (*global_init)(long);
	CURL *(*init)(void);
	CURLcode (*setopt)(CURL *, CURLoption, ...);
	CURLcode (*perform)(CURL *);
	CURLcode (*getinfo)(CURL *, CURLINFO, ...);
	void (*cleanup)(CURL *);
	const char *(*strerror)(CURLcode);
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
#undef LOAD
	if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(curl.why, sizeof(curl.why), "libcurl: curl_global_init failed");
		return;
	}
	curl.ok = true;
}

struct prom {
	CURL *h;
	char *base; /* the URL without trailing '/' */
	char *match;
	struct buf body;
	bool too_big;
	char errbuf[CURL_ERROR_SIZE];
};

void prometheus_query_text(char *out, size_t n, const char *metric, const char *match)
{
	size_t ml = match ? strlen(match) : 0;

	if (ml >= 2 && match[0] == '{' && match[ml - 1] == '}') {
		match++;
		ml -= 2;
	}
	if (ml)
		snprintf(out, n, "%s{%.*s}", metric, (int)ml, match);
	else
		snprintf(out, n, "%s", metric);
}

static size_t on_body(char *p, size_t sz, size_t n, void *ctx)
{
	struct prom *pr = ctx;
	size_t len = sz * n;

	if (len > PROM_BODY_MAX - pr->body.len) {
		pr->too_big = true;
		return 0; /* ends the transfer */
	}
	buf_append(&pr->body, p, len);
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

/* One instant query into r. 0, or -1 with b->error naming the URL. */
static int query(struct backend *b, const char *metric, struct prom_result *r)
{
	struct prom *pr = b->priv;
	char q[1200], why[400];
	struct buf url;
	long code = 0;

	prometheus_query_text(q, sizeof(q), metric, pr->match);
	buf_init(&url);
	buf_printf(&url, "%s/api/v1/query?query=", pr->base);
	url_encode(&url, q);
	buf_reset(&pr->body);
	pr->too_big = false;
	pr->errbuf[0] = '\0';
	curl.setopt(pr->h, CURLOPT_URL, buf_cstr(&url));
	CURLcode rc = curl.perform(pr->h);
	buf_fini(&url);
	if (rc != CURLE_OK) {
		if (pr->too_big)
			backend_fail(b, "%s: the answer to %s is over %u MiB", pr->base, metric, PROM_BODY_MAX >> 20);
		else
			backend_fail(b, "%s: %s", pr->base, pr->errbuf[0] ? pr->errbuf : curl.strerror(rc));
		return -1;
	}
	curl.getinfo(pr->h, CURLINFO_RESPONSE_CODE, &code);
	if (prom_parse_query(pr->body.data ? pr->body.data : "", pr->body.len, PROM_SERIES_MAX, r, why,
			     sizeof(why)) != 0) {
		if (code != 200)
			backend_fail(b, "%s: HTTP %ld to the query %s (%s)", pr->base, code, q, why);
		else
			backend_fail(b, "%s: query %s: %s", pr->base, q, why);
		return -1;
	}
	return 0;
}

static void prom_free(struct prom *pr)
{
	if (!pr)
		return;
	if (pr->h)
		curl.cleanup(pr->h);
	free(pr->base);
	free(pr->match);
	buf_fini(&pr->body);
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
	buf_init(&pr->body);
	if (!(pr->h = curl.init())) {
		prom_free(pr);
		backend_fail(b, "libcurl: curl_easy_init failed");
		return -ENOMEM;
	}
	curl.setopt(pr->h, CURLOPT_NOSIGNAL, 1L);
	curl.setopt(pr->h, CURLOPT_CONNECTTIMEOUT_MS, PROM_CONNECT_MS);
	curl.setopt(pr->h, CURLOPT_TIMEOUT_MS, PROM_TIMEOUT_MS);
	curl.setopt(pr->h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl.setopt(pr->h, CURLOPT_FOLLOWLOCATION, 0L);
	curl.setopt(pr->h, CURLOPT_USERAGENT, "gpur");
	curl.setopt(pr->h, CURLOPT_ACCEPT_ENCODING, "");
	curl.setopt(pr->h, CURLOPT_WRITEFUNCTION, on_body);
	curl.setopt(pr->h, CURLOPT_WRITEDATA, pr);
	curl.setopt(pr->h, CURLOPT_ERRORBUFFER, pr->errbuf);
	b->priv = pr;
	/* Detection is one real query: an unreachable or wrong server is
	 * "absent", with the reason naming its URL. */
	struct prom_result r;
	prom_result_init(&r);
	int rc = query(b, METRICS[0], &r);
	prom_result_free(&r);
	if (rc != 0) {
		b->priv = NULL;
		prom_free(pr);
		return -EHOSTUNREACH;
	}
	return 0;
}

struct entry {
	const struct prom_series *s;
	enum metric m;
	unsigned long idx; /* the gpu label as a number; ULONG_MAX: none */
};

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return a ? -1 : b ? 1 : 0; /* absent last */
	return strcmp(a, b);
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c = cmp_str(a->s->host, b->s->host);
	if (c)
		return c;
	if (a->idx != b->idx)
		return a->idx < b->idx ? -1 : 1;
	if ((c = cmp_str(a->s->gpu, b->s->gpu)))
		return c;
	if ((c = cmp_str(a->s->uuid, b->s->uuid)))
		return c;
	return (int)a->m - (int)b->m;
}

static bool same_gpu(const struct entry *a, const struct entry *b)
{
	return cmp_str(a->s->host, b->s->host) == 0 && cmp_str(a->s->gpu, b->s->gpu) == 0 &&
	       cmp_str(a->s->uuid, b->s->uuid) == 0;
}

static unsigned long gpu_index(const char *s)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return ULONG_MAX;
	unsigned long v = strtoul(s, &end, 10);
	return *end ? ULONG_MAX : v;
}

/* One GPU from the entries e[0..n) (its series, sorted by metric). */
static void fill_gpu(struct frame *f, const struct entry *e, size_t n)
{
	struct gpu *g = frame_add_gpu(f);
	const struct prom_series *s0 = e[0].s;
	const char *host = s0->host ? s0->host : "?", *model = NULL;
	bool have[M__COUNT] = {false}, any = false;
	double v[M__COUNT] = {0};
	char tmp[700];

	if (!g)
		return;
	for (size_t i = 0; i < n; i++) {
		if (!model && e[i].s->model)
			model = e[i].s->model;
		if (e[i].s->known && !have[e[i].m]) {
			have[e[i].m] = true;
			v[e[i].m] = e[i].s->value;
		}
	}
	if (model)
		snprintf(tmp, sizeof(tmp), "%s: %s", host, model);
	else
		snprintf(tmp, sizeof(tmp), "%s: GPU %s", host, s0->gpu ? s0->gpu : "?");
	g->name = frame_str(f, tmp);
	gpu_set(g, GPU_F_NAME);
	if (s0->uuid)
		g->device_id = frame_str(f, s0->uuid);
	else {
		snprintf(tmp, sizeof(tmp), "prometheus:%s/%s", host, s0->gpu ? s0->gpu : "?");
		g->device_id = frame_str(f, tmp);
	}
	gpu_set(g, GPU_F_DEVICE_ID);
	if (have[M_UTIL]) {
		g->util_pct = v[M_UTIL];
		gpu_set(g, GPU_F_UTIL);
		any = true;
	}
	if (have[M_FB_USED]) {
		g->mem_used_bytes = (long double)v[M_FB_USED] * 1048576.0L;
		gpu_set(g, GPU_F_MEM_USED);
		any = true;
		if (have[M_FB_FREE]) {
			g->mem_total_bytes = ((long double)v[M_FB_USED] + v[M_FB_FREE]) * 1048576.0L;
			gpu_set(g, GPU_F_MEM_TOTAL);
		}
	}
	if (have[M_TEMP]) {
		g->temp_c = v[M_TEMP];
		gpu_set(g, GPU_F_TEMP);
		any = true;
	}
	if (have[M_POWER]) {
		g->power_w = v[M_POWER];
		gpu_set(g, GPU_F_POWER);
		any = true;
	}
	if (have[M_LOST] && v[M_LOST] == 1) {
		g->state = GPU_STATE_LOST;
		gpu_set(g, GPU_F_STATE);
	} else if (have[M_SUSPENDED] && v[M_SUSPENDED] == 1) {
		g->state = GPU_STATE_SUSPENDED;
		gpu_set(g, GPU_F_STATE);
	} else if (any || have[M_LOST] || have[M_SUSPENDED]) {
		g->state = GPU_STATE_OK;
		gpu_set(g, GPU_F_STATE);
	}
}

static int prom_poll(struct backend *b, struct frame *f)
{
	struct prom *pr = b->priv;
	struct prom_result r[M__COUNT];
	size_t total = 0, dropped = 0;
	int rc = 0;

	for (int m = 0; m < M__COUNT; m++)
		prom_result_init(&r[m]);
	for (int m = 0; m < M__COUNT && rc == 0; m++)
		if (query(b, METRICS[m], &r[m]) != 0)
			rc = -ENODEV;
	if (rc == 0) {
		for (int m = 0; m < M__COUNT; m++) {
			total += r[m].n;
			dropped += r[m].dropped;
		}
		struct entry *e = xreallocarray(NULL, total ? total : 1, sizeof(*e));
		size_t k = 0;
		for (int m = 0; m < M__COUNT; m++)
			for (size_t i = 0; i < r[m].n; i++)
				e[k++] = (struct entry){&r[m].s[i], (enum metric)m, gpu_index(r[m].s[i].gpu)};
		qsort(e, k, sizeof(*e), cmp_entry);
		size_t left_out = 0;
		for (size_t i = 0; i < k;) {
			size_t j = i + 1;
			while (j < k && same_gpu(&e[i], &e[j]))
				j++;
			if (f->ngpus < FRAME_MAX_GPUS)
				fill_gpu(f, &e[i], j - i);
			else
				left_out++;
			i = j;
		}
		free(e);
		if (left_out)
			frame_note(f, EVENT_NOTE, "%s: %zu GPUs past the frame's limit of %d left out", pr->base, left_out,
				   FRAME_MAX_GPUS);
		if (dropped)
			frame_note(f, EVENT_NOTE, "%s: %zu series past %d per query left out", pr->base, dropped,
				   PROM_SERIES_MAX);
		f->driver = frame_str(f, pr->base);
	}
	for (int m = 0; m < M__COUNT; m++)
		prom_result_free(&r[m]);
	return rc;
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
	.can_signal = prom_can_signal,
	.is_remote = prom_is_remote,
	.close = prom_close,
};
