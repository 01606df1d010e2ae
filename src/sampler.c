/* sampler: worker threads, watchdog, re-detection and frame composition. */
#include "sampler.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "proc/sysstat.h"
#include "util/buf.h"
#include "util/xalloc.h"

enum job { JOB_POLL, JOB_OPEN, JOB_REINIT };
enum wstate { W_IDLE, W_REQUESTED, W_BUSY };

struct worker {
	struct sampler *s;
	struct backend *b;
	pthread_t tid;
	/* Guarded by s->mu: */
	enum wstate state;
	enum job job;
	bool abandoned;       /* the sampler is gone: free yourself when done */
	uint64_t busy_since;  /* clock ms when the current call began */
	uint64_t done_seq;    /* bumps when a job finishes */
	int rc;               /* result of the last finished job */
	struct frame *result; /* finished poll not yet taken by a tick */
	/* Tick side only: */
	bool open;            /* detected and usable */
	struct frame *last;   /* last successful poll: identity, driver, slow answers */
	uint64_t last_seq;    /* done_seq of `last` */
	uint64_t seen_seq;
	bool asked;           /* requested in the current tick */
	uint64_t asked_seq;   /* done_seq when asked */
	uint64_t next_open_ms, open_backoff_ms;
	uint64_t next_reinit_ms, reinit_backoff_ms;
	bool hang_noted;
};

struct slot {
	size_t backend;
	struct gpu ident;  /* identity and static fields at first sight */
	struct arena strs; /* ident's strings */
	unsigned state;    /* last published state */
};

struct sampler {
	struct sampler_opts o;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	bool stop;
	struct worker **w;
	size_t nw;
	struct slot *slots;
	size_t nslots, cap;
};

static uint64_t now_ms(const struct sampler *s)
{
	return clock_mono(s->o.clock);
}

static void worker_free(struct worker *w)
{
	frame_unref(w->result);
	frame_unref(w->last);
	backend_free(w->b);
	free(w);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct sampler *s = w->s;
	pthread_mutex_t *mu = &s->mu;

	pthread_mutex_lock(mu);
	for (;;) {
		while (w->state != W_REQUESTED && !s->stop)
			pthread_cond_wait(&s->work, mu);
		if (s->stop)
			break;
		enum job job = w->job;
		const struct backend_env *env = s->o.env;
		w->state = W_BUSY;
		w->busy_since = now_ms(s);
		pthread_mutex_unlock(mu);

		struct frame *fr = NULL;
		int rc = 0;
		if (job == JOB_OPEN) {
			backend_close(w->b);
			rc = backend_open(w->b, env);
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
			}
		}

		pthread_mutex_lock(mu);
		if (w->abandoned) {
			/* The sampler went away while this call hung. */
			pthread_mutex_unlock(mu);
			frame_unref(fr);
			worker_free(w);
			return NULL;
		}
		frame_unref(w->result);
		w->result = fr;
		w->rc = rc;
		w->done_seq++;
		w->state = W_IDLE;
		pthread_cond_broadcast(&s->done);
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
	pthread_cond_init(&s->work, NULL);
	pthread_cond_init(&s->done, &ca);
	pthread_condattr_destroy(&ca);
	s->w = xcalloc(n ? n : 1, sizeof(*s->w));
	/* Workers take no signals: SIGINT/SIGTERM go to the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (size_t i = 0; i < n; i++) {
		struct worker *w = xcalloc(1, sizeof(*w));
		w->s = s;
		w->b = backends[i];
		w->open = backends[i]->priv != NULL;
		w->open_backoff_ms = o->backoff_min_ms;
		w->reinit_backoff_ms = o->backoff_min_ms;
		w->next_open_ms = now_ms(s);
		if (pthread_create(&w->tid, NULL, worker_main, w) != 0)
			xalloc_die(); /* no thread: out of resources */
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
	for (size_t i = 0; i < s->nw; i++)
		if (s->w[i]->state == W_BUSY)
			abandoned = s->w[i]->abandoned = true;
	pthread_mutex_unlock(&s->mu);
	for (size_t i = 0; i < s->nw; i++) {
		struct worker *w = s->w[i];
		if (w->abandoned) {
			pthread_detach(w->tid);
			continue;
		}
		pthread_join(w->tid, NULL);
		worker_free(w);
	}
	for (size_t i = 0; i < s->nslots; i++)
		arena_fini(&s->slots[i].strs);
	free(s->slots);
	free(s->w);
	s->w = NULL;
	s->slots = NULL;
	/* A hung worker, when it returns, still takes s->mu: the lock and s
	 * stay (the process is about to exit; the worker frees itself). */
	if (abandoned)
		return;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->work);
	pthread_cond_destroy(&s->done);
	free(s);
}

size_t sampler_nbackends(const struct sampler *s)
{
	return s->nw;
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
	struct event *e = frame_note(out, kind, NULL);

	if (e && b) {
		e->backend = frame_str(out, backend_name(b));
		e->valid |= UINT64_C(1) << EVENT_F_BACKEND;
	}
	return e;
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
		if (w->state != W_IDLE)
			continue;
		if (!w->open) {
			if (now < w->next_open_ms)
				continue;
			w->job = JOB_OPEN;
		} else if (w->next_reinit_ms && now >= w->next_reinit_ms) {
			w->job = JOB_REINIT;
		} else {
			w->job = JOB_POLL;
		}
		w->state = W_REQUESTED;
		w->asked = true;
		w->asked_seq = w->done_seq;
	}
	pthread_cond_broadcast(&s->work);
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
	enum job job;
	int rc;
	bool done;

	pthread_mutex_lock(&s->mu);
	done = w->done_seq != w->seen_seq;
	fr = w->result;
	w->result = NULL;
	rc = w->rc;
	job = w->job;
	w->seen_seq = w->done_seq;
	pthread_mutex_unlock(&s->mu);

	if (!done) {
		struct event *e;
		if (busy >= s->o.hang_note_ms && !w->hang_noted && (e = add_event(out, EVENT_NOTE, w->b))) {
			char msg[128];
			snprintf(msg, sizeof(msg), "no answer from %s for %llu s", backend_name(w->b),
				 (unsigned long long)(busy / 1000));
			e->detail = frame_str(out, msg);
			e->valid |= UINT64_C(1) << EVENT_F_DETAIL;
			w->hang_noted = true;
		}
		return false;
	}
	if (w->hang_noted) {
		struct event *e = add_event(out, EVENT_NOTE, w->b);
		if (e) {
			char msg[128];
			snprintf(msg, sizeof(msg), "%s answered again", backend_name(w->b));
			e->detail = frame_str(out, msg);
			e->valid |= UINT64_C(1) << EVENT_F_DETAIL;
		}
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
		return false;
	}
	if (!w->open) {
		w->open = true;
		w->open_backoff_ms = s->o.backoff_min_ms;
		if (job == JOB_OPEN)
			add_event(out, EVENT_BACKEND_BACK, w->b);
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
	w->last = fr;
	return true;
}

static size_t slot_find(struct sampler *s, size_t backend, const struct gpu *g)
{
	const char *id = gpu_has(g, GPU_F_DEVICE_ID) ? g->device_id : "";

	for (size_t i = 0; i < s->nslots; i++)
		if (s->slots[i].backend == backend && strcmp(s->slots[i].ident.device_id, id) == 0)
			return i;
	if (s->nslots >= FRAME_MAX_GPUS)
		return SIZE_MAX;
	if (s->nslots == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->slots = xreallocarray(s->slots, s->cap, sizeof(*s->slots));
	}
	struct slot *sl = &s->slots[s->nslots];
	sl->backend = backend;
	arena_init(&sl->strs);
	sl->ident = *g;
	gpu_drop_readings(&sl->ident);
	if (!gpu_has(g, GPU_F_DEVICE_ID)) {
		sl->ident.device_id = "";
		gpu_set(&sl->ident, GPU_F_DEVICE_ID);
	}
	field_dup_strings(&sl->ident, GPU_FIELDS, GPU_NFIELDS, &sl->strs);
	sl->state = gpu_state(g);
	return s->nslots++;
}

enum mode { MODE_FULL, MODE_REUSE, MODE_IDENT, MODE_LOST };

static void gpu_event(struct frame *out, const char *kind, size_t idx, struct backend *b)
{
	struct event *e = add_event(out, kind, b);

	if (!e)
		return;
	e->gpu_index = idx;
	e->device_id = out->gpus[idx].device_id;
	e->valid |= UINT64_C(1) << EVENT_F_GPU_INDEX | UINT64_C(1) << EVENT_F_DEVICE_ID;
}

static void compose_backend(struct sampler *s, size_t bi, enum mode mode, struct frame *out, bool *placed)
{
	struct worker *w = s->w[bi];
	struct frame *src = w->last;
	size_t map[FRAME_MAX_GPUS];

	if (mode != MODE_LOST && src) {
		for (size_t g = 0; g < src->ngpus; g++) {
			size_t at = map[g] = slot_find(s, bi, &src->gpus[g]);
			if (at == SIZE_MAX)
				continue;
			while (out->ngpus <= at)
				frame_add_gpu(out);
			struct gpu *dst = &out->gpus[at];
			frame_copy_gpu(out, dst, &src->gpus[g]);
			if (mode == MODE_IDENT)
				gpu_drop_readings(dst);
			placed[at] = true;
		}
	}
	if (mode == MODE_FULL || mode == MODE_REUSE) {
		for (size_t p = 0; src && p < src->nprocs; p++) {
			const struct gpu_process *row = &src->procs[p];
			if (row->gpu_index >= src->ngpus || map[row->gpu_index] == SIZE_MAX)
				continue; /* the stray-row rule */
			struct gpu_process *dst = frame_add_process(out);
			if (!dst)
				break;
			frame_copy_process(out, dst, row);
			dst->gpu_index = map[row->gpu_index];
		}
	}
	if (mode == MODE_FULL) {
		for (size_t e = 0; src && e < src->nevents; e++) {
			const struct event *ev = &src->events[e];
			if (event_has(ev, EVENT_F_GPU_INDEX) &&
			    (ev->gpu_index >= src->ngpus || map[ev->gpu_index] == SIZE_MAX))
				continue;
			struct event *dst = frame_add_event(out);
			if (!dst)
				break;
			frame_copy_event(out, dst, ev);
			if (event_has(ev, EVENT_F_GPU_INDEX))
				dst->gpu_index = map[ev->gpu_index];
		}
	}
}

struct frame *sampler_tick(struct sampler *s)
{
	uint64_t t0 = clock_mono_ns();
	uint64_t now = now_ms(s);
	struct frame *out = frame_new();
	uint64_t *busy = xcalloc(s->nw ? s->nw : 1, sizeof(*busy));
	enum mode *mode = xcalloc(s->nw ? s->nw : 1, sizeof(*mode));
	bool placed[FRAME_MAX_GPUS] = {false};
	struct buf names, drivers;

	request_and_wait(s, now, busy);
	now = now_ms(s);
	for (size_t i = 0; i < s->nw; i++) {
		struct worker *w = s->w[i];
		bool fresh = harvest(s, w, now, busy[i], out);
		if (!w->open)
			mode[i] = MODE_LOST;
		else if (fresh)
			mode[i] = MODE_FULL;
		else if (busy[i] < s->o.stale_ms)
			mode[i] = MODE_REUSE;
		else
			mode[i] = MODE_IDENT;
	}
	for (size_t i = 0; i < s->nw; i++)
		compose_backend(s, i, mode[i], out, placed);
	while (out->ngpus < s->nslots)
		frame_add_gpu(out);
	/* Devices not in their backend's answer (backend lost, or gone after
	 * re-detection) keep their position as lost, identity only. */
	for (size_t i = 0; i < s->nslots; i++) {
		struct slot *sl = &s->slots[i];
		struct gpu *g = &out->gpus[i];
		if (!placed[i]) {
			frame_copy_gpu(out, g, &sl->ident);
			g->state = GPU_STATE_LOST;
			gpu_set(g, GPU_F_STATE);
		}
		unsigned st = gpu_state(g);
		if (st == GPU_STATE_LOST && sl->state != GPU_STATE_LOST)
			gpu_event(out, EVENT_GPU_LOST, i, s->w[sl->backend]->b);
		else if (st == GPU_STATE_OK && sl->state == GPU_STATE_LOST)
			gpu_event(out, EVENT_GPU_BACK, i, s->w[sl->backend]->b);
		if (st != GPU_STATE__COUNT)
			sl->state = st;
	}

	buf_init(&names);
	buf_init(&drivers);
	for (size_t i = 0; i < s->nw; i++) {
		const struct frame *last = s->w[i]->last;
		if (i) {
			buf_putc(&names, '+');
			buf_putc(&drivers, '+');
		}
		buf_puts(&names, backend_name(s->w[i]->b));
		buf_puts(&drivers, last && frame_has(last, FRAME_F_DRIVER) ? last->driver : "?");
		if (!out->cuda && last && last->cuda)
			out->cuda = frame_str(out, last->cuda);
	}
	out->backend = frame_strn(out, buf_cstr(&names), names.len);
	out->driver = frame_strn(out, buf_cstr(&drivers), drivers.len);
	buf_fini(&names);
	buf_fini(&drivers);
	frame_set(out, FRAME_F_BACKEND);
	frame_set(out, FRAME_F_DRIVER);
	out->ts_ms = clock_wall(s->o.clock);
	frame_set(out, FRAME_F_TS);
	if (s->o.host) {
		out->host = frame_str(out, s->o.host);
		frame_set(out, FRAME_F_HOST);
	}
	if (s->o.sysstat && sysstat_read(s->o.sysstat, &out->system) == 0)
		frame_set(out, FRAME_F_SYSTEM);
	free(busy);
	free(mode);
	out->poll_us = (clock_mono_ns() - t0) / 1000u;
	return out;
}
