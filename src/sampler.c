/* sampler: worker threads, watchdog, re-detection and frame composition. */
#include "sampler.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backend/composite.h"
#include "proc/pidns.h"
#include "proc/procinfo.h"
#include "proc/sysstat.h"
#include "sampler_priv.h"
#include "util/xalloc.h"

static uint64_t now_ms(const struct sampler *s)
{
	return clock_mono(s->o.clock);
}

uint64_t sampler_now_ms(const struct sampler *s)
{
	return now_ms(s);
}

void sampler_worker_free(struct worker *w)
{
	procinfo_free(w->pi);
	frame_unref(w->result);
	fleet_unref(w->result_fleet);
	frame_unref(w->last);
	fleet_unref(w->last_fleet);
	backend_free(w->b);
	free(w);
}

/* Fills the /proc side of a local backend's rows, once per poll, here on the
 * backend's own watched worker, so that a process stuck in the kernel, with
 * its cmdline unreadable, stalls this backend alone and never the screen.
 * Rows of a remote backend are left as they came. now_ms is the sampler's
 * clock when the poll began. It touches nothing of the sampler, because a
 * worker abandoned in a hung call gets here after the sampler has gone. */
static void fill_processes(struct worker *w, uint64_t now_ms, struct frame *fr)
{
	size_t missing = 0, listed = 0;

	if (!backend_is_local(w->b))
		return;
	bool can = backend_can_signal(w->b);
	procinfo_begin(w->pi, now_ms * 1000000u);
	for (size_t i = 0; i < fr->nprocs; i++) {
		struct gpu_process *p = &fr->procs[i];
		p->local = true;
		p->can_signal = can;
		if (!process_has(p, PROC_F_PID) || p->pid == 0 || p->pid > UINT32_MAX)
			continue;
		listed++;
		/* The driver ignores PID namespaces and reports the host's pids,
		 * so in a PID namespace below the host's a local process with
		 * the same number is another process, never to be described or
		 * signalled. */
		if (w->nested) {
			p->pid_hidden = true;
			p->local = p->can_signal = false;
			missing++;
			continue;
		}
		procinfo_fill(w->pi, (unsigned)p->pid, fr, p);
	}
	procinfo_end(w->pi);
	/* The note is made once, with the fix. Outside a namespace, a pid
	 * missing from /proc has just exited, and nothing is said. */
	if (missing && !w->hidden_said) {
		w->hidden_said = true;
		struct event *e = frame_note(fr, EVENT_NOTE,
					     "%zu of %zu GPU processes are not in this PID namespace's /proc: gpur cannot "
					     "see the host's pids (run it with docker run --pid=host, hostPID: true, or "
					     "--procfs pointing at the host's procfs)", missing, listed);
		if (e) {
			e->backend = frame_str(fr, backend_name(w->b));
			e->valid |= UINT64_C(1) << EVENT_F_BACKEND;
		}
	}
}

/* Runs one job on w's backend with no lock held. It gives the polled frame,
 * with its processes filled, or NULL; the fleet beside it, from a fleet
 * source; and the result code. started is in clock ms. */
static struct frame *run_job(struct worker *w, enum job job, uint64_t started, struct fleet **fleet, int *rc_out)
{
	struct frame *fr = NULL;
	int rc = 0;

	if (job == JOB_OPEN) {
		backend_close(w->b);
		rc = backend_open(w->b, w->s->o.env);
	} else if (job == JOB_REINIT && backend_reinit(w->b) < 0) {
		rc = -ENODEV;
		backend_close(w->b);
	}
	if (rc == 0) {
		fr = frame_new();
		rc = backend_poll(w->b, fr);
		if (rc < 0) {
			frame_unref(fr);
			fr = NULL;
			backend_close(w->b);
		} else {
			fill_processes(w, started, fr);
			*fleet = backend_fleet(w->b);
		}
	}
	*rc_out = rc;
	return fr;
}

bool sampler_worker_run_job(struct worker *w, enum job job)
{
	struct sampler *s = w->s;

	w->job = job;
	w->state = W_BUSY;
	uint64_t started = w->busy_since = now_ms(s);
	pthread_mutex_unlock(&s->mu);
	int rc;
	struct fleet *fl = NULL;
	struct frame *fr = run_job(w, job, started, &fl, &rc);
	pthread_mutex_lock(&s->mu);
	if (w->abandoned) {
		/* The sampler went away while this call hung. */
		pthread_mutex_unlock(&s->mu);
		frame_unref(fr);
		fleet_unref(fl);
		sampler_worker_free(w);
		return false;
	}
	frame_unref(w->result);
	fleet_unref(w->result_fleet);
	w->result = fr;
	w->result_fleet = fl;
	w->rc = rc;
	w->done_seq++;
	w->state = W_IDLE;
	return true;
}

/* Waits, with s->mu held, until w is asked for a job, its paced frame is
 * due, or it is to end. Returns true for a requested job and false for a
 * paced turn. */
static bool worker_wait(struct worker *w)
{
	struct sampler *s = w->s;

	while (w->state != W_REQUESTED && !s->stop && !w->quit) {
		if (!s->pacing) {
			pthread_cond_wait(&s->work, &s->mu);
			continue;
		}
		uint64_t due = s->due_ns;
		if (clock_mono_ns() >= due)
			return false;
		struct timespec ts = {(time_t)(due / 1000000000u), (long)(due % 1000000000u)};
		pthread_cond_timedwait(&s->work, &s->mu, &ts);
	}
	return true;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct sampler *s = w->s;
	pthread_mutex_t *mu = &s->mu;

	pthread_mutex_lock(mu);
	for (;;) {
		bool asked = worker_wait(w);
		if (s->stop || w->quit)
			break;
		if (!asked) {
			pthread_mutex_unlock(mu);
			if (!sampler_pace_turn(w))
				return NULL; /* abandoned, and it freed itself */
			pthread_mutex_lock(mu);
			continue;
		}
		if (!sampler_worker_run_job(w, w->job))
			return NULL; /* abandoned, and it freed itself */
		/* Signal with the lock let go, so that the tick thread, woken, does
		 * not preempt this one only to wait for the lock. s stays valid
		 * here, because sampler_free() joins a worker that is not busy. */
		pthread_mutex_unlock(mu);
		pthread_cond_broadcast(&s->done);
		pthread_mutex_lock(mu);
	}
	pthread_mutex_unlock(mu);
	return NULL;
}

struct sampler *sampler_new(struct backend **backends, size_t n, const struct sampler_opts *o)
{
	struct sampler *s = xcalloc(1, sizeof(*s));
	pthread_condattr_t ca;
	sigset_t all, old;

	s->o = *o;
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&s->tick_mu, NULL);
	s->tfd = -1;
	pthread_cond_init(&s->work, &ca);
	pthread_cond_init(&s->done, &ca);
	pthread_condattr_destroy(&ca);
	s->w = xcalloc(n ? n : 1, sizeof(*s->w));
	s->kids = xcalloc(n ? n : 1, sizeof(*s->kids));
	s->comp = composite_new();
	/* Workers take no signals, so SIGINT and SIGTERM go to the main
	 * thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (size_t i = 0; i < n; i++) {
		struct worker *w = xcalloc(1, sizeof(*w));
		w->s = s;
		w->b = backends[i];
		w->pi = procinfo_new(o->env && o->env->procfs ? o->env->procfs : "/proc");
		procinfo_set_want(w->pi, o->env ? o->env->want : NULL);
		procinfo_set_rootfs(w->pi, o->env ? o->env->rootfs : NULL);
		procinfo_set_tree(w->pi, !(o->env && o->env->no_tree));
		procinfo_set_rate_window(w->pi, o->env ? o->env->rate_window_ns : 0);
		w->nested = pidns_nested(o->env && o->env->procfs ? o->env->procfs : "/proc") == 1;
		w->open = w->ever_open = backends[i]->priv != NULL;
		w->open_backoff_ms = o->backoff_min_ms;
		w->reinit_backoff_ms = o->backoff_min_ms;
		w->next_open_ms = now_ms(s);
		if (pthread_create(&w->tid, NULL, worker_main, w) != 0) {
			/* There is no thread, because of a pids limit for instance, so
			 * undo what was started. */
			procinfo_free(w->pi);
			free(w);
			for (size_t k = i; k < n; k++)
				backend_free(backends[k]);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			sampler_free(s);
			return NULL;
		}
		char name[16];
		snprintf(name, sizeof(name), "gpur-%s", w->b->ops->name);
		pthread_setname_np(w->tid, name);
		s->w[s->nw++] = w;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return s;
}

void sampler_free(struct sampler *s)
{
	bool abandoned = false;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->work);
	/* A worker stuck in a call is left to free itself when the call
	 * returns. It is detached while the lock still keeps it from doing
	 * so, and is not touched again here. */
	for (size_t i = 0; i < s->nw; i++) {
		if (s->w[i]->state == W_BUSY) {
			abandoned = s->w[i]->abandoned = true;
			pthread_detach(s->w[i]->tid);
			s->w[i] = NULL;
		}
	}
	pthread_mutex_unlock(&s->mu);
	for (size_t i = 0; i < s->nw; i++) {
		struct worker *w = s->w[i];
		if (!w)
			continue;
		pthread_join(w->tid, NULL);
		sampler_worker_free(w);
	}
	composite_free(s->comp);
	free(s->kids);
	free(s->w);
	s->w = NULL;
	s->comp = NULL;
	s->kids = NULL;
	/* A hung worker still takes s->mu when it returns, so the lock and s
	 * stay; the process is about to exit, and the worker frees itself. */
	if (abandoned)
		return;
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->tick_mu);
	pthread_cond_destroy(&s->work);
	pthread_cond_destroy(&s->done);
	free(s);
}

void sampler_census(struct sampler *s, struct sampler_census *c)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->nw; i++) {
		const struct worker *w = s->w[i];
		if (w->open)
			c->open++;
		else if (w->tried && w->state == W_IDLE)
			c->failed++;
		else
			c->pending++;
	}
	pthread_mutex_unlock(&s->mu);
}

size_t sampler_drop_absent(struct sampler *s, void (*report)(const char *name, const char *why, void *ctx),
			   void *ctx)
{
	size_t kept = 0, dropped = 0;

	for (size_t i = 0; i < s->nw; i++) {
		struct worker *w = s->w[i];
		pthread_mutex_lock(&s->mu);
		bool absent = !w->ever_open && w->tried && w->state == W_IDLE;
		pthread_mutex_unlock(&s->mu);
		if (!absent) {
			s->w[kept++] = w;
			continue;
		}
		if (report)
			report(backend_name(w->b), w->b->error, ctx);
		/* Wake just this worker out of its wait and let it end. */
		pthread_mutex_lock(&s->mu);
		w->quit = true;
		pthread_cond_broadcast(&s->work);
		pthread_mutex_unlock(&s->mu);
		pthread_join(w->tid, NULL);
		sampler_worker_free(w);
		dropped++;
	}
	s->nw = kept;
	if (dropped) {
		/* Child indices moved, so positions start afresh; the caller has
		 * published no frame with the old ones. */
		composite_free(s->comp);
		s->comp = composite_new();
	}
	return dropped;
}

size_t sampler_nbackends(const struct sampler *s)
{
	return s->nw;
}

const char *sampler_backend_name(const struct sampler *s, size_t i)
{
	return i < s->nw ? backend_name(s->w[i]->b) : "";
}

uint64_t sampler_busy_ms(struct sampler *s, size_t i)
{
	uint64_t ms = 0;

	pthread_mutex_lock(&s->mu);
	if (i < s->nw && s->w[i]->state == W_BUSY)
		ms = now_ms(s) - s->w[i]->busy_since;
	pthread_mutex_unlock(&s->mu);
	return ms;
}

static uint64_t backoff_next(const struct sampler *s, uint64_t *backoff)
{
	uint64_t cur = *backoff;

	*backoff = cur * 2 > s->o.backoff_max_ms ? s->o.backoff_max_ms : cur * 2;
	return cur;
}

static struct event *add_event(struct frame *out, const char *kind, struct backend *b)
{
	return frame_backend_event(out, kind, backend_name(b));
}

/* Appends a note event about backend b. */
__attribute__((format(printf, 3, 4))) static void note_backend(struct frame *out, struct backend *b, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct event *e = frame_note(out, EVENT_NOTE, "%s", msg);
	if (e) {
		e->backend = frame_str(out, backend_name(b));
		e->valid |= UINT64_C(1) << EVENT_F_BACKEND;
	}
}

bool sampler_next_job(struct sampler *s, struct worker *w, uint64_t now, enum job *job)
{
	(void)s;
	if (!w->open) {
		if (now < w->next_open_ms)
			return false;
		*job = JOB_OPEN;
	} else if (w->next_reinit_ms && now >= w->next_reinit_ms) {
		*job = JOB_REINIT;
	} else {
		*job = JOB_POLL;
	}
	return true;
}

/* Requests a job from every idle worker and waits for them, up to wait_ms. */
static void request_and_wait(struct sampler *s, uint64_t now, uint64_t *busy_ms)
{
	struct timespec dl;
	uint64_t wait_ns = s->o.wait_ms * 1000000u;

	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->nw; i++) {
		struct worker *w = s->w[i];
		w->asked = false;
		if (w->state != W_IDLE || !sampler_next_job(s, w, now, &w->job))
			continue;
		w->state = W_REQUESTED;
		w->asked = true;
		w->asked_seq = w->done_seq;
	}
	/* Woken after the lock is let go, a worker does not wake only to wait
	 * for it, which would cost a context switch each on every poll. The
	 * loop below looks at done_seq under the lock before it waits, so
	 * nothing is lost. */
	pthread_mutex_unlock(&s->mu);
	pthread_cond_broadcast(&s->work);
	pthread_mutex_lock(&s->mu);
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += (time_t)(wait_ns / 1000000000u);
	dl.tv_nsec += (long)(wait_ns % 1000000000u);
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	for (;;) {
		bool pending = false;
		for (size_t i = 0; i < s->nw; i++)
			pending |= s->w[i]->asked && s->w[i]->done_seq == s->w[i]->asked_seq;
		if (!pending || pthread_cond_timedwait(&s->done, &s->mu, &dl) == ETIMEDOUT)
			break;
	}
	for (size_t i = 0; i < s->nw; i++) {
		struct worker *w = s->w[i];
		busy_ms[i] = w->state == W_IDLE ? 0 : now_ms(s) - w->busy_since;
		if (w->state == W_REQUESTED)
			busy_ms[i] = 0;
	}
	pthread_mutex_unlock(&s->mu);
}

/* Takes a finished job's outcome, updating detection state and events.
 * Returns true when w->last is a fresh poll from this tick. */
static bool harvest(struct sampler *s, struct worker *w, uint64_t now, uint64_t busy, struct frame *out)
{
	struct frame *fr;
	struct fleet *fl;
	enum job job;
	int rc;
	bool done;

	pthread_mutex_lock(&s->mu);
	done = w->done_seq != w->seen_seq;
	fr = w->result;
	fl = w->result_fleet;
	w->result = NULL;
	w->result_fleet = NULL;
	rc = w->rc;
	job = w->job;
	w->seen_seq = w->done_seq;
	pthread_mutex_unlock(&s->mu);

	if (!done) {
		if (busy >= s->o.hang_note_ms && !w->hang_noted) {
			note_backend(out, w->b, "no answer from %s for %llu s", backend_name(w->b),
				     (unsigned long long)(busy / 1000));
			w->hang_noted = true;
		}
		return false;
	}
	if (w->hang_noted) {
		note_backend(out, w->b, "%s answered again", backend_name(w->b));
		w->hang_noted = false;
	}
	if (rc < 0) {
		if (w->open) {
			struct event *e = add_event(out, EVENT_BACKEND_LOST, w->b);
			if (e && w->b->error[0]) {
				e->detail = frame_str(out, w->b->error);
				e->valid |= UINT64_C(1) << EVENT_F_DETAIL;
			}
			w->open = false;
			w->open_backoff_ms = s->o.backoff_min_ms;
			w->next_reinit_ms = 0;
			w->reinit_backoff_ms = s->o.backoff_min_ms;
		}
		w->next_open_ms = now + backoff_next(s, &w->open_backoff_ms);
		w->tried = true;
		return false;
	}
	if (!w->open) {
		w->open = true;
		w->tried = true;
		w->open_backoff_ms = s->o.backoff_min_ms;
		if (job == JOB_OPEN && w->ever_open)
			add_event(out, EVENT_BACKEND_BACK, w->b);
		w->ever_open = true;
	}
	bool lost = false;
	for (size_t g = 0; g < fr->ngpus; g++)
		lost |= gpu_state(&fr->gpus[g]) == GPU_STATE_LOST;
	if (!lost) {
		w->next_reinit_ms = 0;
		w->reinit_backoff_ms = s->o.backoff_min_ms;
	} else if (!w->next_reinit_ms || job == JOB_REINIT) {
		w->next_reinit_ms = now + backoff_next(s, &w->reinit_backoff_ms);
	}
	frame_unref(w->last);
	fleet_unref(w->last_fleet);
	w->last = fr;
	w->last_fleet = fl;
	return true;
}

struct frame *sampler_compose(struct sampler *s, uint64_t t0, const uint64_t *busy, struct fleet **fleet)
{
	uint64_t now = now_ms(s);
	struct frame *out = frame_new();

	*fleet = NULL;

	for (size_t i = 0; i < s->nw; i++) {
		struct worker *w = s->w[i];
		bool fresh = harvest(s, w, now, busy[i], out);
		struct composite_child *k = &s->kids[i];
		k->name = backend_name(w->b);
		k->last = w->last;
		if (!w->open)
			k->mode = COMPOSITE_LOST;
		else if (fresh)
			k->mode = COMPOSITE_FULL;
		else if (busy[i] < s->o.stale_ms)
			k->mode = COMPOSITE_REUSE;
		else
			k->mode = COMPOSITE_IDENT;
		/* A fleet source's hosts go along as they are, because it keeps
		 * its last good hosts itself, marked stale
		 * (backend/prometheus.c). */
		if (!*fleet && k->mode != COMPOSITE_LOST && w->last_fleet)
			*fleet = fleet_ref(w->last_fleet);
	}
	composite_compose(s->comp, s->kids, s->nw, out);
	out->ts_ms = clock_wall(s->o.clock);
	frame_set(out, FRAME_F_TS);
	if (s->o.host) {
		out->host = frame_str(out, s->o.host);
		frame_set(out, FRAME_F_HOST);
	}
	/* The host's figures are read at most once a second, and faster polls
	 * repeat them, since a CPU % over a tenth of a second says little and
	 * reading costs the kernel. */
	if (s->o.sysstat && (!s->sys_at || now - s->sys_at >= 900 || !(s->sys.valid >> SYS_F_CPU & 1))) {
		s->sys_ok = sysstat_read(s->o.sysstat, now * 1000000u, &s->sys) == 0;
		s->sys_at = now ? now : 1;
	}
	if (s->sys_ok) {
		out->system = s->sys;
		frame_set(out, FRAME_F_SYSTEM);
	}
	out->poll_us = (clock_mono_ns() - t0) / 1000u;
	return out;
}

struct frame *sampler_tick(struct sampler *s, struct fleet **fleet)
{
	uint64_t t0 = clock_mono_ns();
	uint64_t *busy = xcalloc(s->nw ? s->nw : 1, sizeof(*busy));
	struct fleet *fl;

	pthread_mutex_lock(&s->tick_mu);
	request_and_wait(s, now_ms(s), busy);
	struct frame *out = sampler_compose(s, t0, busy, &fl);
	pthread_mutex_unlock(&s->tick_mu);
	free(busy);
	if (fleet)
		*fleet = fl;
	else
		fleet_unref(fl);
	return out;
}
