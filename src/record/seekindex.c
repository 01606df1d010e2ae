/* seekindex: the background indexer. */
#include "record/seekindex.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/record_decode.h"
#include "util/xalloc.h"

#define SEEKINDEX_CHUNK (256u << 10)
#define SEEKINDEX_PEEK 256
#define SEEKINDEX_TAIL 64

struct seekindex {
	char **paths;
	size_t npaths;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic bool stop;
	bool started;
	/* Guarded by mu. */
	struct seekindex_entry *v;
	size_t n, cap;
	bool done;
};

static void push(struct seekindex *x, const struct seekindex_entry *e)
{
	pthread_mutex_lock(&x->mu);
	/* Times that go back, as after a clock was set back, would break the
	 * search. Such a place is left out, and it is still reached by
	 * reading forward. */
	if (!x->n || e->ts_ms >= x->v[x->n - 1].ts_ms) {
		if (x->n == x->cap) {
			x->cap = x->cap ? x->cap * 2 : 256;
			x->v = xreallocarray(x->v, x->cap, sizeof(*x->v));
		}
		x->v[x->n++] = *e;
	}
	pthread_mutex_unlock(&x->mu);
}

/* The state of one file's scan. */
struct scan {
	struct seekindex_entry cand; /* a place waiting for its line's time */
	bool pending;
	char peek[SEEKINDEX_PEEK];
	size_t npeek;
	/* The last bytes of that line. The original gpur writes ts_ms as its
	 * last key, in alphabetical order, so a long line's time is at its
	 * end. */
	char tail[SEEKINDEX_TAIL];
	size_t ntail;
	uint64_t lines, last_dec;
	bool have_last;
};

static void finish_peek(struct seekindex *x, struct scan *sc)
{
	uint64_t ts;

	if (sc->pending && (record_peek_ts(sc->peek, sc->npeek, &ts) || record_peek_ts_end(sc->tail, sc->ntail, &ts))) {
		sc->cand.ts_ms = ts;
		push(x, &sc->cand);
	}
	sc->pending = false;
}

/* Collects, up to its end, the bytes of the line that a candidate place
 * starts: its first SEEKINDEX_PEEK bytes and its last SEEKINDEX_TAIL. */
static void feed_peek(struct seekindex *x, struct scan *sc, const char *p, size_t n)
{
	const char *nl = memchr(p, '\n', n);
	size_t len = nl ? (size_t)(nl - p) : n, take = len;

	if (take > SEEKINDEX_PEEK - sc->npeek)
		take = SEEKINDEX_PEEK - sc->npeek;
	memcpy(sc->peek + sc->npeek, p, take);
	sc->npeek += take;
	if (len >= SEEKINDEX_TAIL) {
		memcpy(sc->tail, p + len - SEEKINDEX_TAIL, SEEKINDEX_TAIL);
		sc->ntail = SEEKINDEX_TAIL;
	} else {
		size_t keep = sc->ntail + len > SEEKINDEX_TAIL ? SEEKINDEX_TAIL - len : sc->ntail;
		memmove(sc->tail, sc->tail + sc->ntail - keep, keep);
		memcpy(sc->tail + keep, p, len);
		sc->ntail = keep + len;
	}
	if (nl)
		finish_peek(x, sc);
}

static void candidate(struct scan *sc, uint32_t file, uint64_t raw, uint64_t dec, enum instream_kind kind)
{
	sc->cand = (struct seekindex_entry){.raw_off = raw, .lines = sc->lines, .file = file, .kind = kind};
	sc->pending = true;
	sc->npeek = sc->ntail = 0;
	sc->last_dec = dec;
	sc->have_last = true;
}

static void index_file(struct seekindex *x, uint32_t fi, uint64_t *lines, char *chunk)
{
	int fd = open(x->paths[fi], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	struct scan sc;

	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	struct instream *in = instream_new(fd);
	enum instream_kind kind = instream_kind(in);
	uint64_t dec = 0;
	char lastc = '\n';
	memset(&sc, 0, sizeof(sc));
	sc.lines = *lines;
	candidate(&sc, fi, 0, 0, kind); /* every file starts a place */
	while (!x->stop) {
		ssize_t n = instream_read(in, chunk, SEEKINDEX_CHUNK);
		if (n <= 0)
			break;
		const char *p = chunk, *end = chunk + n;
		if (sc.pending)
			feed_peek(x, &sc, p, (size_t)n);
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				break;
			sc.lines++;
			p = nl + 1;
			uint64_t at = dec + (uint64_t)(p - chunk);
			/* In a plain file, any line start is a place. */
			if (kind == INSTREAM_PLAIN && !sc.pending && at - sc.last_dec >= SEEKINDEX_STEP && p < end) {
				candidate(&sc, fi, at, at, kind);
				feed_peek(x, &sc, p, (size_t)(end - p));
			}
		}
		dec += (uint64_t)n;
		lastc = chunk[n - 1];
		/* In zstd, a frame that ended with this read at a line end is a
		 * place, because gpur's segments end their frames there. */
		if (kind == INSTREAM_ZSTD && !sc.pending && n > 0 && chunk[n - 1] == '\n' && dec - sc.last_dec >= SEEKINDEX_STEP) {
			uint64_t raw, rdec;
			instream_restart_point(in, &raw, &rdec);
			if (rdec == dec)
				candidate(&sc, fi, raw, dec, kind);
		}
	}
	finish_peek(x, &sc);
	/* A last line without \n is a line too. */
	*lines = sc.lines + (lastc != '\n');
	instream_free(in);
	close(fd);
}

static void *seekindex_main(void *arg)
{
	struct seekindex *x = arg;
	char *chunk = xmalloc(SEEKINDEX_CHUNK);
	uint64_t lines = 0;

	for (size_t i = 0; i < x->npaths && !x->stop; i++)
		index_file(x, (uint32_t)i, &lines, chunk);
	free(chunk);
	pthread_mutex_lock(&x->mu);
	x->done = true;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	return NULL;
}

struct seekindex *seekindex_start(const struct timeline *tl)
{
	struct seekindex *x = xcalloc(1, sizeof(*x));
	sigset_t all, old;

	x->npaths = tl->n;
	x->paths = xcalloc(tl->n ? tl->n : 1, sizeof(*x->paths));
	for (size_t i = 0; i < tl->n; i++)
		x->paths[i] = xstrdup(tl->v[i].path);
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&x->tid, NULL, seekindex_main, x);
	if (rc == 0) {
		x->started = true;
		pthread_setname_np(x->tid, "gpur-index");
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		seekindex_free(x);
		errno = rc;
		return NULL;
	}
	return x;
}

void seekindex_free(struct seekindex *x)
{
	if (!x)
		return;
	x->stop = true;
	if (x->started)
		pthread_join(x->tid, NULL);
	for (size_t i = 0; i < x->npaths; i++)
		free(x->paths[i]);
	free(x->paths);
	free(x->v);
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	free(x);
}

bool seekindex_find(struct seekindex *x, uint64_t ts_ms, struct seekindex_entry *out)
{
	pthread_mutex_lock(&x->mu);
	bool found = x->n > 0;
	if (found) {
		/* Find the last entry with ts <= ts_ms by a binary search on
		 * the sorted times. */
		size_t lo = 0, hi = x->n;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (x->v[mid].ts_ms <= ts_ms)
				lo = mid;
			else
				hi = mid;
		}
		*out = x->v[lo];
	}
	pthread_mutex_unlock(&x->mu);
	return found;
}

bool seekindex_last(struct seekindex *x, struct seekindex_entry *out)
{
	pthread_mutex_lock(&x->mu);
	bool found = x->n > 0;
	if (found)
		*out = x->v[x->n - 1];
	pthread_mutex_unlock(&x->mu);
	return found;
}

bool seekindex_done(struct seekindex *x, size_t *entries)
{
	pthread_mutex_lock(&x->mu);
	bool d = x->done;
	if (entries)
		*entries = x->n;
	pthread_mutex_unlock(&x->mu);
	return d;
}

void seekindex_wait(struct seekindex *x)
{
	pthread_mutex_lock(&x->mu);
	while (!x->done)
		pthread_cond_wait(&x->cv, &x->mu);
	pthread_mutex_unlock(&x->mu);
}
