/* pidwant: the set of pids whose /proc figures are wanted fresh. */
#include "proc/pidwant.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct pidwant {
	pthread_mutex_t mu;
	bool all;
	bool no_tree; /* the parents are not wanted */
	size_t n;
	unsigned pids[PIDWANT_MAX]; /* untouched pages cost no memory */
};

static struct pidwant the_set = {.mu = PTHREAD_MUTEX_INITIALIZER, .all = true};

struct pidwant *pidwant_get(void)
{
	return &the_set;
}

void pidwant_all(struct pidwant *w)
{
	pthread_mutex_lock(&w->mu);
	w->all = true;
	pthread_mutex_unlock(&w->mu);
}

static int cmp_pid(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

void pidwant_set(struct pidwant *w, const unsigned *pids, size_t n)
{
	pthread_mutex_lock(&w->mu);
	w->all = n > PIDWANT_MAX;
	if (!w->all) {
		memcpy(w->pids, pids, n * sizeof(*pids));
		qsort(w->pids, n, sizeof(*w->pids), cmp_pid);
		w->n = n;
	}
	pthread_mutex_unlock(&w->mu);
}

long pidwant_snapshot(struct pidwant *w, unsigned **buf, size_t *cap)
{
	long n = -1;

	if (!w)
		return -1;
	pthread_mutex_lock(&w->mu);
	if (!w->all) {
		if (*cap < w->n || !*buf) {
			*cap = w->n ? w->n : 1;
			*buf = xreallocarray(*buf, *cap, sizeof(**buf));
		}
		memcpy(*buf, w->pids, w->n * sizeof(**buf));
		n = (long)w->n;
	}
	pthread_mutex_unlock(&w->mu);
	return n;
}

void pidwant_tree(struct pidwant *w, bool on)
{
	pthread_mutex_lock(&w->mu);
	w->no_tree = !on;
	pthread_mutex_unlock(&w->mu);
}

bool pidwant_tree_wanted(struct pidwant *w)
{
	bool on;

	if (!w)
		return true;
	pthread_mutex_lock(&w->mu);
	on = !w->no_tree;
	pthread_mutex_unlock(&w->mu);
	return on;
}

bool pidwant_has(const unsigned *pids, long n, unsigned pid)
{
	long lo = 0, hi = n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (pids[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && pids[lo] == pid;
}
