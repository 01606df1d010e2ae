/* feed: the frame pipeline's thread. */
#include "feed.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "model/fleet.h"
#include "util/stopwait.h"
#include "util/xalloc.h"

struct feed {
	struct feed_opts o;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int efd;
	volatile sig_atomic_t cancel; /* set by feed_stop, so that a blocked read gives up */
	/* Guarded by mu. */
	bool stop, paused, seek_pending, at_end, finished;
	int result;
	unsigned steps; /* "." presses not yet played, each one record */
	enum feed_seek seek;
	uint64_t seek_ms;
	double interval, speed;
	struct frame *latest;
	struct fleet *latest_fleet; /* the hosts beside latest, from a fleet source, or NULL */
	uint64_t seq, position;
	uint64_t seeks, latest_seeks; /* seeks done, and how many came before latest */
	struct frame *posted; /* events waiting for the next frame */
	char error[256];      /* why the feed finished on a failure */
	bool paced;           /* the source paces its own frames; set before the thread starts */
	/* Used by the feed's thread only or, when paced, by whichever thread hands
	 * a frame over. */
	uint64_t produced;
	uint64_t target_ns; /* when the last frame was due */
	struct idle_tracker *idle; /* the feed's thread's; renewed by a seek */
};

static void wake_reader(struct feed *f)
{
	uint64_t one = 1;
	ssize_t r = write(f->efd, &one, sizeof(one));
	(void)r;
}

static void publish(struct feed *f, struct frame *fr, struct fleet *fl)
{
	pthread_mutex_lock(&f->mu);
	frame_unref(f->latest);
	fleet_unref(f->latest_fleet);
	f->latest = fr;
	f->latest_fleet = fl;
	f->latest_seeks = f->seeks;
	f->seq++;
	f->position++;
	pthread_mutex_unlock(&f->mu);
	/* Headless, nobody reads frame by frame, and a write and a wake-up
	 * per record would halve a replay's speed. */
	if (f->o.notify)
		wake_reader(f);
}

/* Waits until deadline, in monotonic ns, or a control message. Returns true
 * when woken by a message or by stop. It is called with mu held. */
static bool wait_until(struct feed *f, uint64_t deadline_ns)
{
	struct timespec ts = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};

	while (!f->stop && !f->steps && !f->seek_pending) {
		if (pthread_cond_timedwait(&f->cv, &f->mu, &ts) == ETIMEDOUT)
			return false;
	}
	return true;
}

/* Copies the events of src into fr. */
static void add_events(struct frame *fr, const struct frame *src)
{
	for (size_t i = 0; src && i < src->nevents; i++) {
		struct event *e = frame_add_event(fr);
		if (e)
			frame_copy_event(fr, e, &src->events[i]);
	}
}

/* Takes one frame, and the fleet beside it or NULL, both consumed, through
 * the pipeline: detection's events on the first frame only, the --gpus
 * selection, checked against the first frame, the events the dashboard
 * posted, which name GPUs as it sees them after --gpus, the hooks, the
 * sink, and publication. Returns false when the feed is finished. */
static bool deliver(struct feed *f, struct frame *fr, struct fleet *fl)
{
	if (f->produced == 0)
		add_events(fr, f->o.early);
	if (f->o.sel) {
		const char *miss = f->produced == 0 ? gpusel_unmatched(f->o.sel, fr) : NULL;
		if (miss) {
			/* A --gpus item that names no GPU is a mistake worth
			 * reporting rather than an empty screen. The caller reports
			 * it once the terminal is its own. */
			pthread_mutex_lock(&f->mu);
			snprintf(f->error, sizeof(f->error), "--gpus: no GPU matches '%s' (%zu GPU%s here)", miss,
				 fr->ngpus, fr->ngpus == 1 ? "" : "s");
			f->result = 1;
			pthread_mutex_unlock(&f->mu);
			frame_unref(fr);
			fleet_unref(fl);
			return false;
		}
		gpusel_apply(f->o.sel, fr);
	}
	pthread_mutex_lock(&f->mu);
	if (f->posted) {
		add_events(fr, f->posted);
		frame_reset(f->posted);
	}
	pthread_mutex_unlock(&f->mu);
	/* Idle processes are judged on every frame, live or replayed, before
	 * the sink records its events. A fleet's frames are many hosts'. */
	if (!fl)
		idle_update(f->idle, fr);
	/* --on-event takes the events, and its notes of failed hooks join
	 * this frame. */
	if (f->o.hooks)
		hooks_feed(f->o.hooks, fr);
	bool more = !f->o.sink || sink_emit(f->o.sink, fr, fl); /* false when stdout went away */
	publish(f, fr, fl);
	f->produced++;
	return more && !(f->o.count && f->produced >= f->o.count);
}

/* Waits for the next frame to be due, due_ms after the last one was, so that
 * there is no burst to catch up when late. With a virtual clock, it moves
 * the clock instead. Returns true when a control message came first. It is
 * called with mu held. */
static bool wait_due(struct feed *f, uint64_t due_ms)
{
	uint64_t now = clock_mono_ns();

	if (f->o.virt) {
		if (due_ms)
			clock_virtual_advance(f->o.virt, due_ms);
		return false;
	}
	uint64_t target = (f->target_ns ? f->target_ns : now) + due_ms * 1000000u;
	if (target < now)
		target = now;
	if (target > now && wait_until(f, target))
		return true;
	f->target_ns = target;
	return false;
}

/* Handles Home and End, showing the sought frame at once. It is called with
 * mu held, and returns false when the feed is finished by --count or by
 * stdout going away. */
static bool do_seek(struct feed *f)
{
	enum feed_seek where = f->seek;
	uint64_t ms = f->seek_ms;
	struct frame *last = NULL;
	struct fleet *last_fleet = NULL;
	uint64_t skipped = 0;

	/* What was quiet before the jump says nothing of what follows it. */
	idle_free(f->idle);
	f->idle = idle_new(&f->o.idle);
	int e;

	f->seek_pending = false;
	pthread_mutex_unlock(&f->mu);
	if (where == FEED_SEEK_TIME)
		e = source_seek_time(f->o.source, ms, &skipped);
	else
		e = source_seek(f->o.source, where == FEED_SEEK_END ? SOURCE_SEEK_END : SOURCE_SEEK_START, &last,
				&last_fleet, &skipped);
	pthread_mutex_lock(&f->mu);
	if (e < 0)
		return true;
	f->seeks++;
	if (where == FEED_SEEK_TIME)
		skipped++; /* as for Home, the position before the frame shown */
	bool more = true;
	f->at_end = false;
	f->steps = 0;
	f->target_ns = 0;
	f->position = skipped ? skipped - 1 : 0;
	if (where == FEED_SEEK_END) {
		f->at_end = true;
		if (last) {
			pthread_mutex_unlock(&f->mu);
			more = deliver(f, last, last_fleet);
			pthread_mutex_lock(&f->mu);
		}
		return more;
	}
	pthread_mutex_unlock(&f->mu);
	struct fleet *fl;
	struct frame *fr = source_next(f->o.source, &fl);
	if (fr)
		more = deliver(f, fr, fl);
	pthread_mutex_lock(&f->mu);
	f->target_ns = clock_mono_ns();
	return more;
}

/* feed_stop() sends this signal to the feed's thread alone, to end a read
 * that waits for input, as from a recording still being written. It does
 * nothing else. */
#define FEED_WAKE_SIGNAL SIGUSR1

static void on_wake(int sig)
{
	(void)sig;
}

/* Takes a frame that the source paced itself, on a thread of the
 * source's. */
static bool paced_frame(void *ctx, struct frame *fr, struct fleet *fl)
{
	return deliver(ctx, fr, fl);
}

/* A source that paces its own frames, as a live one with one backend does
 * with the worker as the clock, hands each over, and this thread only lends
 * itself to the source as the watchdog of a hung call. Returns false when
 * pacing could not start, and the feed then takes frames itself. */
static bool feed_paced(struct feed *f)
{
	pthread_mutex_lock(&f->mu);
	struct source_pace p = {.interval_s = f->interval, .take = paced_frame, .ctx = f};
	pthread_mutex_unlock(&f->mu);
	return source_pace(f->o.source, &p) >= 0;
}

/* Waits for the next frame to be due. It is called with mu held, but the
 * source may read, and wait for input, to know, so the lock, which the
 * dashboard and feed_stop take, is let go meanwhile. Returns false when a
 * control message came first. */
static bool wait_next(struct feed *f)
{
	double iv = f->interval, sp = f->speed;
	/* Nobody looks at the latest frame while this one runs, with no
	 * dashboard and nothing served, so it goes before the next is read
	 * and two large records are never held at once. */
	struct frame *drop = NULL;
	struct fleet *drop_fleet = NULL;
	if (!f->o.hold && !f->o.notify) {
		drop = f->latest;
		drop_fleet = f->latest_fleet;
		f->latest = NULL;
		f->latest_fleet = NULL;
	}
	pthread_mutex_unlock(&f->mu);
	frame_unref(drop);
	fleet_unref(drop_fleet);
	uint64_t due = source_due_ms(f->o.source, iv, sp);
	pthread_mutex_lock(&f->mu);
	/* If paused meanwhile on the virtual clock, this poll is not taken,
	 * so the clock must not move for it either. */
	return !(f->stop || f->seek_pending || (f->o.virt && f->paused) || wait_due(f, due));
}

/* Takes the next frame from the source through the pipeline, and at the end
 * of the source holds the last one when told to. It is called with mu held,
 * which is let go while the source reads. Returns false when the feed is
 * finished. */
static bool take_next(struct feed *f)
{
	pthread_mutex_unlock(&f->mu);
	struct fleet *fl;
	struct frame *fr = source_next(f->o.source, &fl);
	bool more = fr && deliver(f, fr, fl);
	pthread_mutex_lock(&f->mu);
	if (!fr && f->o.hold) {
		f->at_end = true; /* the last frame holds */
		pthread_mutex_unlock(&f->mu);
		if (f->o.notify)
			wake_reader(f); /* the screen says "end" */
		pthread_mutex_lock(&f->mu);
		return true;
	}
	return more;
}

static void *feed_main(void *arg)
{
	struct feed *f = arg;
	struct source *src = f->o.source;
	bool seekable = source_can_seek(src);
	/* A recording, or a live source on the virtual clock, whose polls are
	 * exact steps and so may wait for a key as records do. */
	bool steppable = seekable || f->o.virt;
	sigset_t wake;

	sigemptyset(&wake);
	sigaddset(&wake, FEED_WAKE_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &wake, NULL);

	bool paced = f->paced && feed_paced(f);
	pthread_mutex_lock(&f->mu);
	while (!paced && !f->stop) {
		if (f->seek_pending) {
			if (seekable) {
				if (!do_seek(f))
					break;
				continue;
			}
			f->seek_pending = false;
		}
		if (!steppable)
			f->steps = 0; /* a live source goes on */
		bool stepping = f->steps > 0;
		if (f->at_end || (steppable && f->paused && !stepping)) {
			pthread_cond_wait(&f->cv, &f->mu);
			continue;
		}
		if (stepping) {
			f->steps--;
			if (f->o.virt) {
				/* A step of the virtual clock is still one interval. A
				 * live source's due time is a sum with no reading, so
				 * the lock stays held and nothing comes between. */
				wait_due(f, source_due_ms(src, f->interval, f->speed));
			}
		} else if (!wait_next(f)) {
			continue; /* a message came first, so look again */
		}
		if (!stepping && steppable && f->paused)
			continue;
		if (!take_next(f))
			break;
	}
	f->finished = true;
	pthread_mutex_unlock(&f->mu);
	wake_reader(f); /* finished */
	return NULL;
}

struct feed *feed_start(const struct feed_opts *o)
{
	struct feed *f = xcalloc(1, sizeof(*f));
	pthread_condattr_t ca;
	sigset_t all, old;

	f->o = *o;
	f->paused = o->start_paused && o->virt;
	f->interval = o->interval >= 0 ? o->interval : 1.0; /* 0 for as fast as possible, headless */
	f->speed = o->speed > 0 ? o->speed : 1.0;
	if (!f->o.idle.mem_bytes) {
		f->o.idle.mem_bytes = IDLE_MEM_DEFAULT;
		f->o.idle.after_ms = IDLE_AFTER_DEFAULT_MS;
	}
	f->idle = idle_new(&f->o.idle);
	f->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (f->efd < 0) {
		idle_free(f->idle);
		free(f);
		return NULL;
	}
	pthread_mutex_init(&f->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->cv, &ca);
	pthread_condattr_destroy(&ca);
	/* No SA_RESTART, so that the signal interrupts the read it is sent to. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake;
	sigemptyset(&sa.sa_mask);
	sigaction(FEED_WAKE_SIGNAL, &sa, NULL);
	source_set_cancel(o->source, &f->cancel);
	/* Paced by the source itself, on the real clock only, because the
	 * virtual clock's steps are the feed's. */
	f->paced = !o->virt && source_can_pace(o->source);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&f->tid, NULL, feed_main, f);
	if (rc == 0)
		pthread_setname_np(f->tid, "gpur-feed"); /* as top -H shows it */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		source_set_cancel(o->source, NULL);
		close(f->efd);
		pthread_mutex_destroy(&f->mu);
		pthread_cond_destroy(&f->cv);
		idle_free(f->idle);
		free(f);
		errno = rc;
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
	f->cancel = 1;
	bool finished = f->finished;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	if (f->paced)
		source_pace_stop(f->o.source);
	/* A read waiting for input gives up when the signal interrupts it,
	 * and a signal that came just before the read began is sent again. */
	for (;;) {
		if (!finished)
			pthread_kill(f->tid, FEED_WAKE_SIGNAL);
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_nsec += 100000000L;
		if (dl.tv_nsec >= 1000000000L) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000L;
		}
		if (pthread_timedjoin_np(f->tid, NULL, &dl) == 0)
			break;
	}
	source_set_cancel(f->o.source, NULL);
	frame_unref(f->latest);
	fleet_unref(f->latest_fleet);
	frame_unref(f->posted);
	close(f->efd);
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	idle_free(f->idle);
	free(f);
}

static bool feed_finished(void *ctx)
{
	struct feed *f = ctx;

	pthread_mutex_lock(&f->mu);
	bool done = f->finished;
	pthread_mutex_unlock(&f->mu);
	return done;
}

static void feed_readable(void *ctx)
{
	feed_drain(ctx);
}

void feed_wait(struct feed *f, const volatile sig_atomic_t *stop)
{
	(void)stopwait(f->efd, feed_finished, feed_readable, f, stop);
}

int feed_result(struct feed *f, char *msg, size_t n)
{
	pthread_mutex_lock(&f->mu);
	int r = f->result;
	if (msg && n)
		snprintf(msg, n, "%s", f->error);
	pthread_mutex_unlock(&f->mu);
	return r;
}

struct frame *feed_latest(struct feed *f, uint64_t *seq)
{
	return feed_latest_seeks(f, seq, NULL);
}

struct frame *feed_latest_seeks(struct feed *f, uint64_t *seq, uint64_t *seeks)
{
	pthread_mutex_lock(&f->mu);
	struct frame *fr = f->latest ? frame_ref(f->latest) : NULL;
	if (seq)
		*seq = f->seq;
	if (seeks)
		*seeks = f->latest_seeks;
	pthread_mutex_unlock(&f->mu);
	return fr;
}

struct fleet *feed_latest_fleet(struct feed *f, uint64_t *seq)
{
	pthread_mutex_lock(&f->mu);
	struct fleet *fl = f->latest_fleet ? fleet_ref(f->latest_fleet) : NULL;
	if (seq)
		*seq = f->seq;
	pthread_mutex_unlock(&f->mu);
	return fl;
}

bool feed_post_event(struct feed *f, const struct event *e)
{
	bool ok = false;

	pthread_mutex_lock(&f->mu);
	if (!f->posted)
		f->posted = frame_new();
	if (f->posted->nevents < FEED_MAX_POSTED) {
		struct event *d = frame_add_event(f->posted);
		if (d) {
			frame_copy_event(f->posted, d, e);
			ok = true;
		}
	}
	pthread_mutex_unlock(&f->mu);
	return ok;
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
	struct source *src = f->o.source;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&f->mu);
	st->replay = source_recorded(src);
	st->stepped = f->o.virt != NULL;
	st->paused = f->paused;
	st->at_end = f->at_end;
	st->finished = f->finished;
	st->speed = f->speed;
	uint64_t cadence = source_cadence_ms(src);
	st->interval = cadence ? (double)cadence / 1000.0 : f->interval;
	st->position = f->position;
	pthread_mutex_unlock(&f->mu);
	st->busy_ms = source_busy_ms(src, &st->busy_backend);
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

void feed_set_interval(struct feed *f, double seconds)
{
	control(f, set_interval, &seconds);
	if (f->paced)
		source_pace_interval(f->o.source, seconds);
}
void feed_set_paused(struct feed *f, bool paused) { control(f, set_paused, &paused); }
void feed_step(struct feed *f) { control(f, set_step, NULL); }
void feed_set_speed(struct feed *f, double speed) { control(f, set_speed, &speed); }
void feed_seek(struct feed *f, enum feed_seek where) { control(f, set_seek, &where); }
static void set_seek_time(struct feed *f, const void *a)
{
	f->seek = FEED_SEEK_TIME;
	f->seek_ms = *(const uint64_t *)a;
	f->seek_pending = true;
}
void feed_seek_time(struct feed *f, uint64_t ts_ms) { control(f, set_seek_time, &ts_ms); }
