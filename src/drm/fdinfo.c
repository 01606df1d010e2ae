/* fdinfo: the shared DRM client engine. There is one engine per procfs for
 * every backend, reference-counted and under a mutex. It deduplicates the
 * sweep's DRM fds into clients with one owner each, and computes engine rates
 * from two samples of a client, as docs/drm-fdinfo.md describes under
 * deduplication, owners and rates. The sweep itself is in fdinfo_scan.c, and
 * the parsing of the text in fdinfo_parse.c. */
#include "drm/fdinfo.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "drm/fdinfo_parse.h"
#include "drm/fdinfo_scan.h"
#include "util/ratewin.h"
#include "util/xalloc.h"

/* A busy share a little over the whole class is read jitter, because the
 * kernel's counter and our clock are read moments apart, so it is clamped.
 * More is a bad sample, such as a counter that jumped or a reset we did not
 * see, so it is unknown. */
#define FDINFO_PCT_SLACK 1.05L

/* A client's identity: its pdev ("0000:03:00.0"), or "/driver" on a platform
 * GPU, since '/' is in no pdev and no driver name, and its id. */
struct ckey {
	char dom[FDINFO_NAMELEN + 1];
	uint64_t id;
};

struct prev_engine {
	char name[FDINFO_NAMELEN];
	unsigned have;
	uint64_t ns, cycles, total_cycles;
};

/* A client's baseline sample, from which its next rates are measured. */
struct cstate {
	struct ckey key;
	unsigned pid;
	uint64_t start_ticks;
	uint64_t at_ns; /* the sweep that took it */
	size_t nengines;
	struct prev_engine engines[FDINFO_MAX_ENGINES];
};

/* One DRM fd of the sweep, for sorting into clients. */
struct ref {
	struct ckey key;
	unsigned pid;
	int fd;
	const struct fdinfo_scan_hit *hit;
};

struct fdinfo {
	struct fdinfo *next; /* the registry */
	char *procfs;
	int refs;
	pthread_mutex_t mu;
	struct fdinfo_scan *scan;
	bool swept;
	uint64_t last_ns;
	uint64_t min_window_ns; /* the shortest window of a rate (fdinfo_set_rate_window) */
	int last_rc;
	struct fdinfo_client *clients;
	size_t nclients, ccap;
	struct cstate *states, *next_states; /* sorted by key */
	size_t nstates, scap;
	struct ref *refs_buf;
	size_t rcap;
	struct fdinfo_stats stats;
};

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static struct fdinfo *registry;

struct fdinfo *fdinfo_acquire(const char *procfs)
{
	pthread_mutex_lock(&registry_mu);
	struct fdinfo *e = registry;
	while (e && strcmp(e->procfs, procfs) != 0)
		e = e->next;
	if (!e) {
		e = xcalloc(1, sizeof(*e));
		e->procfs = xstrdup(procfs);
		pthread_mutex_init(&e->mu, NULL);
		e->scan = fdinfo_scan_new(procfs);
		e->next = registry;
		registry = e;
	}
	e->refs++;
	pthread_mutex_unlock(&registry_mu);
	return e;
}

void fdinfo_release(struct fdinfo *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&registry_mu);
	if (--e->refs > 0) {
		pthread_mutex_unlock(&registry_mu);
		return;
	}
	struct fdinfo **pp = &registry;
	while (*pp != e)
		pp = &(*pp)->next;
	*pp = e->next;
	pthread_mutex_unlock(&registry_mu);
	fdinfo_scan_free(e->scan);
	pthread_mutex_destroy(&e->mu);
	free(e->clients);
	free(e->states);
	free(e->next_states);
	free(e->refs_buf);
	free(e->procfs);
	free(e);
}

void fdinfo_set_rescan(struct fdinfo *e, unsigned every)
{
	pthread_mutex_lock(&e->mu);
	fdinfo_scan_set_rescan(e->scan, every);
	pthread_mutex_unlock(&e->mu);
}

void fdinfo_set_rate_window(struct fdinfo *e, uint64_t min_ns)
{
	pthread_mutex_lock(&e->mu);
	e->min_window_ns = min_ns;
	pthread_mutex_unlock(&e->mu);
}

static void key_of(const struct fdinfo_parsed *p, struct ckey *k)
{
	memset(k, 0, sizeof(*k));
	if (p->pdev[0]) {
		memcpy(k->dom, p->pdev, strlen(p->pdev) + 1);
	} else {
		k->dom[0] = '/';
		memcpy(k->dom + 1, p->driver, strlen(p->driver) + 1);
	}
	k->id = p->client_id;
}

static int key_cmp(const struct ckey *a, const struct ckey *b)
{
	int c = strcmp(a->dom, b->dom);
	if (c)
		return c;
	return (a->id > b->id) - (a->id < b->id);
}

/* Sorts clients in key order, then each client's fds in pid order, which are
 * its owner candidates, then in fd order. */
static int ref_cmp(const void *pa, const void *pb)
{
	const struct ref *a = pa, *b = pb;
	int c = key_cmp(&a->key, &b->key);
	if (c)
		return c;
	if (a->pid != b->pid)
		return (a->pid > b->pid) - (a->pid < b->pid);
	return (a->fd > b->fd) - (a->fd < b->fd);
}

static const struct cstate *find_state(const struct fdinfo *e, const struct ckey *k)
{
	size_t lo = 0, hi = e->nstates;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(&e->states[mid].key, k);
		if (c == 0)
			return &e->states[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct prev_engine *find_prev(const struct cstate *s, const char *name)
{
	for (size_t i = 0; s && i < s->nengines; i++)
		if (strcmp(s->engines[i].name, name) == 0)
			return &s->engines[i];
	return NULL;
}

/* True when a counter the client had went down, so its sample restarts. */
static bool went_back(const struct fdinfo_parsed *p, const struct cstate *old)
{
	for (size_t i = 0; i < p->nengines; i++) {
		const struct fdinfo_parsed_engine *en = &p->engines[i];
		const struct prev_engine *pe = find_prev(old, en->name);
		if (!pe)
			continue;
		unsigned both = en->have & pe->have;
		if (((both & FDINFO_HAVE_NS) && en->ns < pe->ns) ||
		    ((both & FDINFO_HAVE_CYCLES) && en->cycles < pe->cycles) ||
		    ((both & FDINFO_HAVE_TOTAL) && en->total_cycles < pe->total_cycles))
			return true;
	}
	return false;
}

/* The busy share of one engine class over the last interval of dt_ns wall
 * time, in % of one engine and so up to 100 × capacity, or false when
 * unknown. It tries ns counters first, then cycles over total cycles (xe),
 * then cycles at the maximum frequency (msm, panfrost). */
static bool raw_pct(const struct fdinfo_parsed_engine *en, const struct prev_engine *pe, uint64_t dt_ns,
		    long double *raw)
{
	unsigned both = pe ? en->have & pe->have : 0;

	if ((en->have & FDINFO_HAVE_PCT) && !(en->have & (FDINFO_HAVE_NS | FDINFO_HAVE_CYCLES))) {
		*raw = (long double)en->pct_centi / 100.0L; /* the kernel's own rate (5.14–5.18) */
		return true;
	}
	if (en->have & FDINFO_HAVE_NS) {
		if (!(both & FDINFO_HAVE_NS) || dt_ns == 0)
			return false;
		*raw = 100.0L * (long double)(en->ns - pe->ns) / (long double)dt_ns;
		return true;
	}
	if ((en->have & (FDINFO_HAVE_CYCLES | FDINFO_HAVE_TOTAL)) == (FDINFO_HAVE_CYCLES | FDINFO_HAVE_TOTAL)) {
		if ((both & (FDINFO_HAVE_CYCLES | FDINFO_HAVE_TOTAL)) != (FDINFO_HAVE_CYCLES | FDINFO_HAVE_TOTAL) ||
		    en->total_cycles == pe->total_cycles)
			return false;
		*raw = 100.0L * (long double)(en->cycles - pe->cycles) /
		       (long double)(en->total_cycles - pe->total_cycles);
		return true;
	}
	if ((en->have & FDINFO_HAVE_CYCLES) && (en->have & FDINFO_HAVE_MAXFREQ) && en->maxfreq_hz) {
		if (!(both & FDINFO_HAVE_CYCLES) || dt_ns == 0)
			return false;
		*raw = 100.0L * (long double)(en->cycles - pe->cycles) * 1e9L /
		       ((long double)dt_ns * (long double)en->maxfreq_hz);
		return true;
	}
	return false;
}

static void fill_engines(struct fdinfo_client *c, const struct fdinfo_parsed *p, const struct cstate *old,
			 uint64_t dt_ns)
{
	c->nengines = p->nengines;
	for (size_t i = 0; i < p->nengines; i++) {
		const struct fdinfo_parsed_engine *en = &p->engines[i];
		struct fdinfo_engine *out = &c->engines[i];
		long double raw, cap = (long double)fdinfo_parse_capacity(en);
		memcpy(out->name, en->name, sizeof(out->name));
		out->known = false;
		out->pct = 0;
		if (!raw_pct(en, find_prev(old, en->name), dt_ns, &raw) || raw > 100.0L * cap * FDINFO_PCT_SLACK)
			continue;
		if (raw > 100.0L * cap)
			raw = 100.0L * cap;
		out->known = true;
		out->pct = raw / cap;
	}
}

static void fill_regions(struct fdinfo_client *c, const struct fdinfo_parsed *p)
{
	c->nregions = p->nregions;
	for (size_t i = 0; i < p->nregions; i++) {
		const struct fdinfo_parsed_region *r = &p->regions[i];
		struct fdinfo_region *out = &c->regions[i];
		uint64_t b = 0;
		memcpy(out->name, r->name, sizeof(out->name));
		out->resident_known = fdinfo_parse_resident(r, &b);
		out->resident_bytes = out->resident_known ? (long double)b : 0;
		out->total_known = fdinfo_parse_total(r, &b);
		out->total_bytes = out->total_known ? (long double)b : 0;
	}
}

static void save_state(struct cstate *s, const struct ckey *k, const struct fdinfo_scan_hit *h, uint64_t now_ns)
{
	s->key = *k;
	s->pid = h->pid;
	s->start_ticks = h->start_ticks;
	s->at_ns = now_ns;
	s->nengines = h->p.nengines;
	for (size_t i = 0; i < h->p.nengines; i++) {
		const struct fdinfo_parsed_engine *en = &h->p.engines[i];
		memcpy(s->engines[i].name, en->name, sizeof(s->engines[i].name));
		s->engines[i].have = en->have;
		s->engines[i].ns = en->ns;
		s->engines[i].cycles = en->cycles;
		s->engines[i].total_cycles = en->total_cycles;
	}
}

/* The owner of the client whose fds are r[0..n), in pid order. It is the
 * first process that is not pid 1 or a systemd service, else the first. */
static const struct ref *owner_of(const struct ref *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!r[i].hit->service)
			return &r[i];
	return &r[0];
}

/* Turns the sweep's hits into clients at time now_ns. */
static void build_clients(struct fdinfo *e, const struct fdinfo_scan_hit *hits, size_t nhits, uint64_t now_ns)
{
	if (nhits > e->rcap) {
		e->rcap = nhits;
		e->refs_buf = xreallocarray(e->refs_buf, e->rcap, sizeof(*e->refs_buf));
	}
	for (size_t i = 0; i < nhits; i++) {
		key_of(&hits[i].p, &e->refs_buf[i].key);
		e->refs_buf[i].pid = hits[i].pid;
		e->refs_buf[i].fd = hits[i].fd;
		e->refs_buf[i].hit = &hits[i];
	}
	if (nhits)
		qsort(e->refs_buf, nhits, sizeof(*e->refs_buf), ref_cmp);
	if (nhits > e->ccap) {
		e->ccap = nhits;
		e->clients = xreallocarray(e->clients, e->ccap, sizeof(*e->clients));
	}
	if (nhits > e->scap) {
		e->scap = nhits;
		free(e->next_states);
		e->next_states = xreallocarray(NULL, e->scap, sizeof(*e->next_states));
		struct cstate *keep = xreallocarray(NULL, e->scap, sizeof(*keep));
		if (e->nstates)
			memcpy(keep, e->states, e->nstates * sizeof(*keep));
		free(e->states);
		e->states = keep;
	}
	size_t nc = 0;
	for (size_t i = 0; i < nhits;) {
		size_t j = i + 1;
		while (j < nhits && key_cmp(&e->refs_buf[j].key, &e->refs_buf[i].key) == 0)
			j++;
		const struct ref *own = owner_of(&e->refs_buf[i], j - i);
		const struct fdinfo_scan_hit *h = own->hit;
		const struct cstate *old = find_state(e, &own->key);
		/* A new owner, or the old pid reused, is a new client for rates,
		 * and so is one whose counters went back. */
		if (old && (old->pid != h->pid || old->start_ticks != h->start_ticks || went_back(&h->p, old)))
			old = NULL;
		enum ratewin_verdict rv = old ? ratewin_judge(old->at_ns, now_ns, e->min_window_ns) : RATEWIN_AFRESH;
		struct fdinfo_client *c = &e->clients[nc];
		memset(c, 0, sizeof(*c));
		c->pid = h->pid;
		c->start_ticks = h->start_ticks;
		memcpy(c->driver, h->p.driver, sizeof(c->driver));
		memcpy(c->pdev, h->p.pdev, sizeof(c->pdev));
		c->client_id = h->p.client_id;
		/* Without a rate, only the kernel's own percentages of 5.14-5.18
		 * are known. */
		fill_engines(c, &h->p, rv == RATEWIN_RATE ? old : NULL, rv == RATEWIN_RATE ? now_ns - old->at_ns : 0);
		fill_regions(c, &h->p);
		/* A window too short for a rate keeps the older sample as the
		 * baseline, so that the next sweep's window is long enough. */
		if (rv == RATEWIN_SHORT)
			e->next_states[nc] = *old;
		else
			save_state(&e->next_states[nc], &own->key, h, now_ns);
		nc++;
		i = j;
	}
	struct cstate *t = e->states;
	e->states = e->next_states;
	e->next_states = t;
	e->nstates = nc;
	e->nclients = nc;
}

int fdinfo_sweep(struct fdinfo *e, uint64_t now_ns, uint64_t reuse_ns)
{
	const struct fdinfo_scan_hit *hits;
	size_t nhits;
	struct fdinfo_stats st;

	pthread_mutex_lock(&e->mu);
	/* A sweep that another thread finished after this caller read its
	 * clock is newer than what it asked for. */
	if (e->swept && (now_ns <= e->last_ns || now_ns - e->last_ns < reuse_ns)) {
		int rc = e->last_rc;
		pthread_mutex_unlock(&e->mu);
		return rc;
	}
	int rc = fdinfo_scan_sweep(e->scan, &hits, &nhits, &st);
	if (rc < 0) {
		e->nclients = 0;
		e->nstates = 0;
	} else {
		build_clients(e, hits, nhits, now_ns);
	}
	st.clients = e->nclients;
	e->stats = st;
	e->swept = true;
	e->last_ns = now_ns;
	e->last_rc = rc;
	pthread_mutex_unlock(&e->mu);
	return rc;
}

size_t fdinfo_clients(struct fdinfo *e, const char *driver, const char *pdev, struct fdinfo_client *out,
		      size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&e->mu);
	for (size_t i = 0; i < e->nclients; i++) {
		const struct fdinfo_client *c = &e->clients[i];
		if ((driver && strcmp(c->driver, driver) != 0) || (pdev && strcmp(c->pdev, pdev) != 0))
			continue;
		if (n < max)
			out[n] = *c;
		n++;
	}
	pthread_mutex_unlock(&e->mu);
	return n;
}

void fdinfo_last_stats(struct fdinfo *e, struct fdinfo_stats *out)
{
	pthread_mutex_lock(&e->mu);
	*out = e->stats;
	pthread_mutex_unlock(&e->mu);
}
