/* sampler_pace: frames paced by the worker itself, with the caller's thread
 * as a watchdog that sleeps on a timer, as sampler.h describes. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "sampler_priv.h"
#include "util/xalloc.h"

static uint64_t wait_ns(const struct sampler *s)
{
	return s->o.wait_ms * 1000000u;
}

/* Sets the watchdog's timer to the monotonic time at_ns. 0 is made 1,
 * because a zero value would disarm it. Once a stop is asked, every arming
 * is at once: a worker handing over a frame after sampler_stop_run must
 * not push the wake-up the stop asked for an interval ahead, again and
 * again. Its callers hold tick_mu, which guards pace_stop. */
static void arm(const struct sampler *s, uint64_t at_ns)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (!at_ns || s->pace_stop)
		at_ns = 1;
	its.it_value.tv_sec = (time_t)(at_ns / 1000000000u);
	its.it_value.tv_nsec = (long)(at_ns % 1000000000u);
	timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Hands out the frame just composed, and the fleet beside it or NULL, and
 * sets the next to be due an interval after this one was, so there is no
 * burst to catch up when late. It runs under tick_mu. */
static void hand_over(struct sampler *s, struct frame *out, struct fleet *fl)
{
	bool more = s->pace.frame(s->pace.ctx, out, fl);
	uint64_t t = clock_mono_ns();
	uint64_t due = s->due_ns + s->interval_ns;

	if (due < t)
		due = t;
	pthread_mutex_lock(&s->mu);
	s->due_ns = due;
	if (!more) {
		s->pace_done = true;
		s->pacing = false; /* the worker goes back to waiting for requests */
	}
	pthread_mutex_unlock(&s->mu);
	arm(s, more ? due + wait_ns(s) : 1); /* done, so the watchdog wakes at once */
}

bool sampler_pace_turn(struct worker *w)
{
	struct sampler *s = w->s;
	enum job job;
	uint64_t t0 = clock_mono_ns();

	pthread_mutex_lock(&s->tick_mu);
	if (!s->pacing) {
		pthread_mutex_unlock(&s->tick_mu);
		return true;
	}
	bool any = sampler_next_job(s, w, sampler_now_ms(s), &job);
	pthread_mutex_unlock(&s->tick_mu);
	if (any) {
		pthread_mutex_lock(&s->mu);
		if (s->stop || w->quit) {
			pthread_mutex_unlock(&s->mu);
			return true;
		}
		if (!sampler_worker_run_job(w, job))
			return false; /* abandoned, and it freed itself */
		pthread_mutex_unlock(&s->mu);
	}
	pthread_mutex_lock(&s->tick_mu);
	if (s->pacing) {
		uint64_t idle = 0; /* the one worker, this one, is done */
		struct fleet *fl;
		struct frame *out = sampler_compose(s, t0, &idle, &fl);
		hand_over(s, out, fl);
	}
	pthread_mutex_unlock(&s->tick_mu);
	return true;
}

bool sampler_can_pace(const struct sampler *s)
{
	return s->nw == 1;
}

void sampler_set_interval(struct sampler *s, double interval_s)
{
	uint64_t iv = (uint64_t)(interval_s * 1e9);

	pthread_mutex_lock(&s->tick_mu);
	pthread_mutex_lock(&s->mu);
	if (s->pacing && iv) {
		s->due_ns = s->due_ns - s->interval_ns + iv;
		s->interval_ns = iv;
	}
	pthread_mutex_unlock(&s->mu);
	if (s->pacing && iv)
		arm(s, s->due_ns + wait_ns(s));
	pthread_mutex_unlock(&s->tick_mu);
	pthread_cond_broadcast(&s->work);
}

/* The watchdog's timer fired. When the worker is wait_ms past the due time,
 * as in a hung call, a frame is made from what is known; otherwise only the
 * timer moves on. It runs under tick_mu. */
static void watch(struct sampler *s)
{
	uint64_t t = clock_mono_ns();

	if (t < s->due_ns + wait_ns(s)) {
		arm(s, s->due_ns + wait_ns(s));
		return;
	}
	uint64_t *busy = xcalloc(s->nw, sizeof(*busy));
	uint64_t now = sampler_now_ms(s), longest = 0;
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->nw; i++) {
		busy[i] = s->w[i]->state == W_BUSY ? now - s->w[i]->busy_since : 0;
		longest = busy[i] > longest ? busy[i] : longest;
	}
	pthread_mutex_unlock(&s->mu);
	struct fleet *fl;
	struct frame *out = sampler_compose(s, t, busy, &fl);
	/* The header's "poll" is how long the poll behind the frame has taken,
	 * which here is the one still in its call, not this frame's
	 * composing. */
	if (out->poll_us < longest * 1000u)
		out->poll_us = longest * 1000u;
	hand_over(s, out, fl);
	free(busy);
}

int sampler_run(struct sampler *s, const struct sampler_run_opts *p)
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (tfd < 0)
		return -errno;
	uint64_t iv = (uint64_t)(p->interval_s * 1e9);
	pthread_mutex_lock(&s->tick_mu);
	if (s->pace_stop) { /* stopped before it began */
		pthread_mutex_unlock(&s->tick_mu);
		close(tfd);
		return 1;
	}
	pthread_mutex_lock(&s->mu);
	s->tfd = tfd;
	s->pace = *p;
	s->interval_ns = iv; /* 0 for the next poll as soon as this one is out */
	s->due_ns = clock_mono_ns() + p->first_due_ms * 1000000u;
	s->pace_done = false;
	s->pacing = true;
	pthread_mutex_unlock(&s->mu);
	arm(s, s->due_ns + wait_ns(s));
	pthread_mutex_unlock(&s->tick_mu);
	pthread_cond_broadcast(&s->work);

	int rc = 1;
	for (;;) {
		struct pollfd pfd = {tfd, POLLIN, 0};
		uint64_t n;
		/* A signal, or a timer pushed on since it fired, wakes the loop
		 * without a firing; a stop is looked at after any wake. */
		bool fired = poll(&pfd, 1, -1) > 0 && read(tfd, &n, sizeof(n)) == (ssize_t)sizeof(n);
		pthread_mutex_lock(&s->tick_mu);
		bool stopped = s->pace_stop;
		if (fired && !stopped && !s->pace_done)
			watch(s);
		bool done = s->pace_done;
		pthread_mutex_unlock(&s->tick_mu);
		if (stopped)
			break;
		if (done) {
			rc = 0;
			break;
		}
	}
	pthread_mutex_lock(&s->tick_mu);
	pthread_mutex_lock(&s->mu);
	s->pacing = false;
	s->tfd = -1;
	pthread_mutex_unlock(&s->mu);
	pthread_mutex_unlock(&s->tick_mu);
	pthread_cond_broadcast(&s->work);
	close(tfd);
	return rc;
}

void sampler_stop_run(struct sampler *s)
{
	pthread_mutex_lock(&s->tick_mu);
	s->pace_stop = true;
	if (s->tfd >= 0)
		arm(s, 1); /* the watchdog wakes at once */
	pthread_mutex_unlock(&s->tick_mu);
}
