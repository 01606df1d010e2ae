/* compressor: one worker thread, a FIFO of plain segments. */
#include "record/compressor.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "record/segment.h"
#include "util/xalloc.h"

struct job {
	struct job *next;
	char *path; /* NULL for a retention pass only */
};

struct compressor {
	struct compressor_opts o;
	char *file;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv, idle;
	/* Guarded by mu. */
	struct job *head, *tail;
	bool stop, busy;
	uint64_t done, failed;
	char note[512];
	bool note_new, reported_once;
};

/* True when the plain segment at path is still queued. It is called on the
 * worker, with mu not held. */
static bool queued(const char *path, void *ctx)
{
	struct compressor *c = ctx;
	bool found = false;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	/* Compare by base name, because the listing and the job may spell the
	 * directory differently. */
	pthread_mutex_lock(&c->mu);
	for (struct job *j = c->head; j && !found; j = j->next) {
		const char *jb = j->path && strrchr(j->path, '/') ? strrchr(j->path, '/') + 1 : j->path;
		found = jb && strcmp(jb, base) == 0;
	}
	pthread_mutex_unlock(&c->mu);
	return found;
}

static void *compressor_main(void *arg)
{
	struct compressor *c = arg;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->head && !c->stop)
			pthread_cond_wait(&c->cv, &c->mu);
		if (!c->head)
			break; /* stopping with nothing left */
		struct job *j = c->head;
		c->head = j->next;
		if (!c->head)
			c->tail = NULL;
		c->busy = true;
		pthread_mutex_unlock(&c->mu);
		char err[256] = "";
		int rc = j->path ? segment_compress(j->path, c->o.level, err, sizeof(err)) : 0;
		/* A segment that retention removed meanwhile is no failure. */
		if (rc == -ENOENT)
			rc = 0;
		segment_retain(c->file, c->o.keep, c->o.max_total, queued, c);
		pthread_mutex_lock(&c->mu);
		c->busy = false;
		if (rc < 0) {
			c->failed++;
			/* The note is made only once, because a full disk would make it for
			 * every segment. */
			if (!c->reported_once) {
				snprintf(c->note, sizeof(c->note), "%s: not compressed (%s); the plain segment is kept and recording goes on",
					 j->path, err);
				c->note_new = true;
				c->reported_once = true;
			}
		} else if (j->path) {
			c->done++;
		}
		free(j->path);
		free(j);
		if (!c->head)
			pthread_cond_broadcast(&c->idle);
	}
	pthread_cond_broadcast(&c->idle);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

struct compressor *compressor_new(const struct compressor_opts *o)
{
	struct compressor *c = xcalloc(1, sizeof(*c));
	sigset_t all, old;

	c->o = *o;
	c->file = xstrdup(o->file);
	c->o.file = c->file;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	pthread_cond_init(&c->idle, NULL);
	/* Signals are for the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&c->tid, NULL, compressor_main, c);
	if (rc == 0)
		pthread_setname_np(c->tid, "gpur-zstd");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_mutex_destroy(&c->mu);
		pthread_cond_destroy(&c->cv);
		pthread_cond_destroy(&c->idle);
		free(c->file);
		free(c);
		errno = rc;
		return NULL;
	}
	return c;
}

static void push(struct compressor *c, const char *path)
{
	struct job *j = xcalloc(1, sizeof(*j));

	j->path = path ? xstrdup(path) : NULL;
	pthread_mutex_lock(&c->mu);
	if (c->tail)
		c->tail->next = j;
	else
		c->head = j;
	c->tail = j;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

void compressor_add(struct compressor *c, const char *path)
{
	push(c, path);
}

void compressor_retain(struct compressor *c)
{
	if (c->o.keep || c->o.max_total)
		push(c, NULL);
}

void compressor_drain(struct compressor *c)
{
	pthread_mutex_lock(&c->mu);
	while (c->head || c->busy)
		pthread_cond_wait(&c->idle, &c->mu);
	pthread_mutex_unlock(&c->mu);
}

void compressor_free(struct compressor *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->stop = true;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->tid, NULL);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	pthread_cond_destroy(&c->idle);
	free(c->file);
	free(c);
}

bool compressor_take_note(struct compressor *c, char *out, size_t n)
{
	pthread_mutex_lock(&c->mu);
	bool got = c->note_new;
	if (got)
		snprintf(out, n, "%s", c->note);
	c->note_new = false;
	pthread_mutex_unlock(&c->mu);
	return got;
}

void compressor_counts(struct compressor *c, uint64_t *done, uint64_t *failed)
{
	pthread_mutex_lock(&c->mu);
	*done = c->done;
	*failed = c->failed;
	pthread_mutex_unlock(&c->mu);
}
