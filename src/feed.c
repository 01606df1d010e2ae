/* feed: the source thread behind the dashboard. */
#include "feed.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/xalloc.h"

struct feed {
	struct feed_opts o;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int efd;
	/* Guarded by mu. */
	bool stop, paused, seek_pending, at_end, finished;
	unsigned steps; /* "." presses not yet played: each is one record */
	enum feed_seek seek;
	double interval, speed;
	struct frame *latest;
	uint64_t seq, position;
	/* Feed thread only. */
	struct frame *prev; /* replay: the previous record, for pacing */
	uint64_t produced;
};

static void publish(struct feed *f, struct frame *fr)
{
	uint64_t one = 1;

	pthread_mutex_lock(&f->mu);
	frame_unref(f->latest);
	f->latest = fr;
	f->seq++;
	f->position = f->o.replay ? f->position + 1 : f->seq;
	pthread_mutex_unlock(&f->mu);
	ssize_t r = write(f->efd, &one, sizeof(one));
	(void)r;
}

/* Waits until deadline (monotonic ns) or a control message; true when
 * woken by a message (or stop). Called with mu held. */
static bool wait_until(struct feed *f, uint64_t deadline_ns)
{
	struct timespec ts = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
	uint64_t seq_before = f->seq;

	while (!f->stop && !f->steps && !f->seek_pending) {
		if (pthread_cond_timedwait(&f->cv, &f->mu, &ts) == ETIMEDOUT)
			return false;
		(void)seq_before;
	}
	return true;
}

/* One processed frame: the --gpus selection, the sink, publication. */
static bool deliver(struct feed *f, struct frame *fr)
{
	if (f->o.sel)
		gpusel_apply(f->o.sel, fr);
	if (f->o.sink)
		sink_emit(f->o.sink, fr);
	publish(f, fr);
	f->produced++;
	return !(f->o.count && f->produced >= f->o.count);
}

static void run_live(struct feed *f)
{
	uint64_t next = clock_mono_ns();

	pthread_mutex_lock(&f->mu);
	while (!f->stop) {
		pthread_mutex_unlock(&f->mu);
		struct frame *fr = sampler_tick(f->o.sampler);
		bool more = deliver(f, fr);
		pthread_mutex_lock(&f->mu);
		if (!more) {
			f->finished = true;
			break;
		}
		next += (uint64_t)(f->interval * 1e9);
		uint64_t now = clock_mono_ns();
		if (next < now)
			next = now;
		f->steps = 0; /* not for live sources */
		f->seek_pending = false;
		wait_until(f, next);
	}
	pthread_mutex_unlock(&f->mu);
}

/* Reads the next record into a new frame; NULL at the end. */
static struct frame *read_next(struct feed *f)
{
	struct frame *fr = frame_new();

	if (replay_next(f->o.replay, fr) != 1) {
		frame_unref(fr);
		return NULL;
	}
	return fr;
}

/* Reads to the last record (End): the last frame is published. */
static struct frame *read_to_end(struct feed *f, uint64_t *n)
{
	struct frame *last = NULL, *fr;

	while ((fr = read_next(f))) {
		frame_unref(last);
		last = fr;
		(*n)++;
	}
	return last;
}

static void run_replay(struct feed *f)
{
	struct frame *next = read_next(f);

	pthread_mutex_lock(&f->mu);
	while (!f->stop) {
		if (f->seek_pending) {
			enum feed_seek where = f->seek;
			f->seek_pending = false;
			pthread_mutex_unlock(&f->mu);
			frame_unref(next);
			next = NULL;
			frame_unref(f->prev);
			f->prev = NULL;
			uint64_t n = 0;
			if (replay_rewind(f->o.replay) == 0) {
				if (where == FEED_SEEK_START) {
					next = read_next(f);
				} else {
					struct frame *last = read_to_end(f, &n);
					pthread_mutex_lock(&f->mu);
					f->position = n ? n - 1 : 0;
					pthread_mutex_unlock(&f->mu);
					if (last)
						next = last;
				}
			}
			pthread_mutex_lock(&f->mu);
			if (where == FEED_SEEK_START)
				f->position = 0;
			f->at_end = false;
			if (next) {
				/* Show the sought frame at once. */
				pthread_mutex_unlock(&f->mu);
				struct frame *fr = next;
				next = where == FEED_SEEK_END ? NULL : read_next(f);
				f->prev = frame_ref(fr);
				deliver(f, fr);
				pthread_mutex_lock(&f->mu);
				f->at_end = next == NULL;
			}
			continue;
		}
		if (!next) {
			/* End of the recording: the last frame holds. */
			f->at_end = true;
			f->steps = 0;
			pthread_cond_wait(&f->cv, &f->mu);
			continue;
		}
		bool stepping = f->steps > 0;
		if (stepping)
			f->steps--;
		if (f->paused && !stepping) {
			pthread_cond_wait(&f->cv, &f->mu);
			continue;
		}
		if (!stepping && f->prev) {
			uint64_t delay = replay_delay_ms(f->prev, next, f->speed, (uint64_t)(f->interval * 1000));
			if (wait_until(f, clock_mono_ns() + delay * 1000000u))
				continue; /* a message came first: look again */
			if (f->paused)
				continue;
		}
		struct frame *fr = next;
		pthread_mutex_unlock(&f->mu);
		frame_unref(f->prev);
		f->prev = frame_ref(fr);
		bool more = deliver(f, fr);
		next = more ? read_next(f) : NULL;
		pthread_mutex_lock(&f->mu);
		if (!more) {
			f->finished = true;
			break;
		}
	}
	pthread_mutex_unlock(&f->mu);
	frame_unref(next);
}

static void *feed_main(void *arg)
{
	struct feed *f = arg;

	if (f->o.sampler)
		run_live(f);
	else
		run_replay(f);
	uint64_t one = 1;
	ssize_t r = write(f->efd, &one, sizeof(one)); /* wake the reader: finished */
	(void)r;
	return NULL;
}

struct feed *feed_start(const struct feed_opts *o)
{
	struct feed *f = xcalloc(1, sizeof(*f));
	pthread_condattr_t ca;
	sigset_t all, old;

	f->o = *o;
	f->interval = o->interval > 0 ? o->interval : 1.0;
	f->speed = o->speed > 0 ? o->speed : 1.0;
	f->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (f->efd < 0) {
		free(f);
		return NULL;
	}
	pthread_mutex_init(&f->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->cv, &ca);
	pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&f->tid, NULL, feed_main, f);
	if (rc == 0)
		pthread_setname_np(f->tid, "gpur-feed"); /* as top -H shows it */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(f->efd);
		free(f);
		return NULL;
	}
	return f;
}

void feed_stop(struct feed *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->mu);
	f->stop = true;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->tid, NULL);
	frame_unref(f->latest);
	frame_unref(f->prev);
	close(f->efd);
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	free(f);
}

struct frame *feed_latest(struct feed *f, uint64_t *seq)
{
	pthread_mutex_lock(&f->mu);
	struct frame *fr = f->latest ? frame_ref(f->latest) : NULL;
	if (seq)
		*seq = f->seq;
	pthread_mutex_unlock(&f->mu);
	return fr;
}

int feed_fd(const struct feed *f)
{
	return f->efd;
}

void feed_drain(struct feed *f)
{
	uint64_t v;
	ssize_t r = read(f->efd, &v, sizeof(v));
	(void)r;
}

void feed_status(struct feed *f, struct feed_status *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&f->mu);
	st->replay = f->o.replay != NULL;
	st->paused = f->paused;
	st->at_end = f->at_end;
	st->finished = f->finished;
	st->speed = f->speed;
	st->interval = f->interval;
	st->position = f->position;
	pthread_mutex_unlock(&f->mu);
	if (f->o.sampler) {
		for (size_t i = 0; i < sampler_nbackends(f->o.sampler); i++) {
			uint64_t ms = sampler_busy_ms(f->o.sampler, i);
			if (ms > st->busy_ms) {
				st->busy_ms = ms;
				st->busy_backend = sampler_backend_name(f->o.sampler, i);
			}
		}
	}
}

static void control(struct feed *f, void (*set)(struct feed *, const void *), const void *arg)
{
	pthread_mutex_lock(&f->mu);
	set(f, arg);
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

static void set_interval(struct feed *f, const void *a) { f->interval = *(const double *)a; }
static void set_paused(struct feed *f, const void *a) { f->paused = *(const bool *)a; }
static void set_step(struct feed *f, const void *a) { (void)a; f->steps++; }
static void set_speed(struct feed *f, const void *a) { f->speed = *(const double *)a; }
static void set_seek(struct feed *f, const void *a)
{
	f->seek = *(const enum feed_seek *)a;
	f->seek_pending = true;
}

void feed_set_interval(struct feed *f, double seconds) { control(f, set_interval, &seconds); }
void feed_set_paused(struct feed *f, bool paused) { control(f, set_paused, &paused); }
void feed_step(struct feed *f) { control(f, set_step, NULL); }
void feed_set_speed(struct feed *f, double speed) { control(f, set_speed, &speed); }
void feed_seek(struct feed *f, enum feed_seek where) { control(f, set_seek, &where); }
