/* conns: a list of the open connections, in the order they began to wait
 * for a request, and the sweep that shuts down the oldest waiting ones. */
#include "serve/conns.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>

struct conn {
	struct conn *prev, *next;
	int fd;
	uint64_t since_ms; /* when it began to wait for a whole request */
	bool busy;         /* a request is being answered */
	bool shut;         /* shut down here, and closing */
};

struct conns {
	pthread_mutex_t mu;
	struct conn *head, *tail; /* by since_ms, oldest first */
	size_t n, soft;
	size_t nshut; /* of n, those shut down here and not yet closed */
	uint64_t grace_ms, shut;
};

struct conns *conns_new(size_t soft, uint64_t grace_ms)
{
	struct conns *cs = calloc(1, sizeof(*cs));
	if (!cs)
		return NULL;
	pthread_mutex_init(&cs->mu, NULL);
	cs->soft = soft;
	cs->grace_ms = grace_ms;
	return cs;
}

void conns_free(struct conns *cs)
{
	if (!cs)
		return;
	while (cs->head) {
		struct conn *c = cs->head;
		cs->head = c->next;
		free(c);
	}
	pthread_mutex_destroy(&cs->mu);
	free(cs);
}

static void unlink_conn(struct conns *cs, struct conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		cs->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		cs->tail = c->prev;
	c->prev = c->next = NULL;
}

static void append(struct conns *cs, struct conn *c)
{
	c->prev = cs->tail;
	c->next = NULL;
	if (cs->tail)
		cs->tail->next = c;
	else
		cs->head = c;
	cs->tail = c;
}

/* Under mu. A connection shut down here is still counted until it closes,
 * so those already shut count as gone. */
static size_t sweep_locked(struct conns *cs, uint64_t now_ms)
{
	size_t done = 0, live = cs->n - cs->nshut;

	for (struct conn *c = cs->head; c && live > cs->soft; c = c->next) {
		if (c->since_ms + cs->grace_ms > now_ms)
			break; /* the rest waited less */
		if (c->busy || c->shut)
			continue;
		/* The descriptor stays open until libmicrohttpd closes it after
		 * conns_closed, which takes mu, so it is this connection's. */
		shutdown(c->fd, SHUT_RDWR);
		c->shut = true;
		cs->shut++;
		cs->nshut++;
		done++;
		live--;
	}
	return done;
}

struct conn *conns_opened(struct conns *cs, int fd, uint64_t now_ms)
{
	struct conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->fd = fd;
	c->since_ms = now_ms;
	pthread_mutex_lock(&cs->mu);
	append(cs, c);
	cs->n++;
	if (cs->n > cs->soft)
		sweep_locked(cs, now_ms);
	pthread_mutex_unlock(&cs->mu);
	return c;
}

void conns_request(struct conns *cs, struct conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&cs->mu);
	c->busy = true;
	pthread_mutex_unlock(&cs->mu);
}

void conns_answered(struct conns *cs, struct conn *c, uint64_t now_ms)
{
	if (!c)
		return;
	pthread_mutex_lock(&cs->mu);
	c->busy = false;
	c->since_ms = now_ms;
	unlink_conn(cs, c);
	append(cs, c);
	pthread_mutex_unlock(&cs->mu);
}

void conns_closed(struct conns *cs, struct conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&cs->mu);
	unlink_conn(cs, c);
	cs->n--;
	if (c->shut)
		cs->nshut--;
	pthread_mutex_unlock(&cs->mu);
	free(c);
}

size_t conns_sweep(struct conns *cs, uint64_t now_ms)
{
	pthread_mutex_lock(&cs->mu);
	size_t done = sweep_locked(cs, now_ms);
	pthread_mutex_unlock(&cs->mu);
	return done;
}

size_t conns_open(struct conns *cs)
{
	pthread_mutex_lock(&cs->mu);
	size_t n = cs->n;
	pthread_mutex_unlock(&cs->mu);
	return n;
}

uint64_t conns_shut(struct conns *cs)
{
	pthread_mutex_lock(&cs->mu);
	uint64_t n = cs->shut;
	pthread_mutex_unlock(&cs->mu);
	return n;
}

bool conns_over(struct conns *cs)
{
	pthread_mutex_lock(&cs->mu);
	bool over = cs->n - cs->nshut > cs->soft;
	pthread_mutex_unlock(&cs->mu);
	return over;
}
