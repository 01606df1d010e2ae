/* sampler_priv: the sampler's state, shared by sampler.c (workers, ticks)
 * and sampler_pace.c (frames paced by the worker itself). */
#ifndef GPUR_SAMPLER_PRIV_H
#define GPUR_SAMPLER_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend/composite.h"
#include "model/fleet.h"
#include "proc/procinfo.h"
#include "proc/sysstat.h"
#include "sampler.h"

enum job { JOB_POLL, JOB_OPEN, JOB_REINIT };
enum wstate { W_IDLE, W_REQUESTED, W_BUSY };

struct worker {
	struct sampler *s;
	struct backend *b;
	struct procinfo *pi;  /* the /proc side of its rows, used on the worker thread only */
	bool nested;          /* procfs is a PID namespace below the host's */
	bool hidden_said;     /* the note about pids it cannot see is out */
	pthread_t tid;
	/* Guarded by s->mu. */
	enum wstate state;
	enum job job;
	bool abandoned;       /* the sampler is gone, so free yourself when done */
	bool quit;            /* dropped, so end the thread */
	uint64_t busy_since;  /* clock ms when the current call began */
	uint64_t done_seq;    /* bumps when a job finishes */
	int rc;               /* result of the last finished job */
	struct frame *result; /* finished poll not yet taken by a tick */
	struct fleet *result_fleet; /* the hosts beside result, from a fleet source */
	/* Used on the tick side only. */
	bool open;            /* detected and usable */
	bool ever_open;       /* opened once, so a later open is a come-back */
	bool tried;           /* an open has finished, and failed unless open is set */
	struct frame *last;   /* last successful poll, for identity, driver and slow answers */
	struct fleet *last_fleet; /* the hosts beside last, or NULL */
	uint64_t last_seq;    /* done_seq of `last` */
	uint64_t seen_seq;
	bool asked;           /* requested in the current tick */
	uint64_t asked_seq;   /* done_seq when asked */
	uint64_t next_open_ms, open_backoff_ms;
	uint64_t next_reinit_ms, reinit_backoff_ms;
	bool hang_noted;
};

struct sampler {
	struct sampler_opts o;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	bool stop;
	struct worker **w;
	size_t nw;
	struct composite *comp;
	struct composite_child *kids;
	struct system_stats sys; /* the last reading of the host's figures */
	uint64_t sys_at;         /* its time in clock ms, 0 for none */
	bool sys_ok;
	/* Pacing (sampler_run). One worker polls on its own clock and hands
	 * over each frame, and the caller's thread only watches. */
	pthread_mutex_t tick_mu;   /* one composition at a time, taken before mu */
	bool pacing;               /* written under tick_mu and mu */
	bool pace_done;            /* the frame callback wants no more (tick_mu) */
	bool pace_stop;            /* sampler_stop_run() was called (tick_mu) */
	struct sampler_run_opts pace;  /* tick_mu */
	uint64_t due_ns;           /* when the next frame is due (monotonic), written under tick_mu and mu */
	uint64_t interval_ns;      /* written under tick_mu and mu */
	int tfd;                   /* the watchdog's timer (timerfd), -1 when not pacing */
};

/* The sampler's clock in ms. */
uint64_t sampler_now_ms(const struct sampler *s);
/* Runs job on w's backend and stores its outcome, the polled frame and the
 * result code, for the next composition. It is the one job-run sequence of a
 * requested job and of a paced turn. It is called with s->mu held, and the
 * lock is let go for the backend's call, which may hang. Returns true with
 * s->mu held again, or false when the sampler was freed while the call ran;
 * w was then abandoned, has freed itself and holds no lock, and its thread
 * ends. */
bool sampler_worker_run_job(struct worker *w, enum job job);
/* The job that an idle, unrequested worker is due for at now, on the tick
 * side under tick_mu, or false when there is none while it waits out a
 * backoff. */
bool sampler_next_job(struct sampler *s, struct worker *w, uint64_t now, enum job *job);
/* Harvests every worker and composes the frame, under tick_mu. busy_ms gives
 * how long each worker's current call has run, 0 when idle. *fleet gets the
 * hosts of a fleet source beside the frame, which the caller unrefs, or
 * NULL. */
struct frame *sampler_compose(struct sampler *s, uint64_t t0_ns, const uint64_t *busy_ms, struct fleet **fleet);
void sampler_worker_free(struct worker *w);
/* A paced worker's turn, when its frame is due, called without s->mu.
 * Returns false when the worker was abandoned and has freed itself, and its
 * thread ends. */
bool sampler_pace_turn(struct worker *w);

#endif
