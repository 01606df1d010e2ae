/* feed: the one frame pipeline of every mode. On a thread of its own it takes
 * frames from a source, the live sampler or a recording, through one
 * interface. It paces them, adds the events the dashboard posted, applies
 * --gpus, writes every frame to the run's sink (--log, --json) and publishes
 * the latest, with the fleet beside it when the source is a fleet
 * (--prometheus, or a recording of one in the dashboard). The dashboard and,
 * headless, the exporter read the latest frame, and they steer the feed only
 * with control messages (interval, pause, step, speed, seek). */
#ifndef GPUR_FEED_H
#define GPUR_FEED_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/gpusel.h"
#include "model/frame.h"
#include "model/idle.h"
#include "output/hooks.h"
#include "output/sink.h"
#include "source.h"
#include "util/clock.h"

struct fleet;

struct feed_opts {
	struct source *source;    /* borrowed */
	const struct gpusel *sel; /* --gpus, or NULL */
	struct sink *sink;        /* --log or --json, borrowed, or NULL */
	struct hooks *hooks;      /* --on-event, borrowed, or NULL */
	double interval;          /* seconds; for a recording, used for records without a usable ts_ms */
	double speed;             /* recorded pace, 0.25 to 64 */
	uint64_t count;           /* finish after this many frames, 0 for no limit */
	bool hold;                /* at the end of the source, hold the last frame (TUI) instead of finishing */
	struct clock_virtual *virt; /* waits move this clock instead of sleeping, or NULL */
	const struct frame *early;  /* events that go into the first frame, detection's and borrowed, or NULL */
	bool notify;                /* feed_fd() wakes for every frame, for the dashboard, not only at the end */
	bool start_paused;          /* with virt, no poll until feed_step() or feed_set_paused(false) */
	struct idle_opts idle;      /* idle processes (model/idle.h); mem_bytes 0 for the defaults */
};

enum feed_seek { FEED_SEEK_START, FEED_SEEK_END, FEED_SEEK_TIME };

struct feed_status {
	bool replay, paused, at_end, finished;
	bool stepped; /* live on the virtual clock, which pauses and steps as a recording does */
	double speed;
	double interval;   /* the live interval, or the recorded cadence when known */
	uint64_t position; /* frames published; for a recording, the record number from 1 */
	uint64_t busy_ms;  /* the longest a live backend has not answered */
	const char *busy_backend;
};

struct feed;

/* Starts the thread. Returns NULL when it cannot, being out of resources. */
struct feed *feed_start(const struct feed_opts *o);
/* Stops and joins the thread. NULL is a no-op. */
void feed_stop(struct feed *f);
/* Blocks until the feed has finished, by --count, the end of a recording
 * when not held, stdout going away or a failure, or until a signal handler
 * sets *stop. SIGINT, SIGTERM and SIGHUP are taken only while it waits. */
void feed_wait(struct feed *f, const volatile sig_atomic_t *stop);
/* Returns 0, or 1 when the feed finished on a failure, a --gpus item that
 * matches no GPU of the first frame. The message for it, without "gpur: ",
 * is copied into msg of size n for the caller to print once the terminal is
 * its own again. */
int feed_result(struct feed *f, char *msg, size_t n);
/* The latest frame, a reference the caller unrefs, or NULL before the first,
 * and its sequence number, which grows with every publication. Without hold
 * or notify, headless where nobody looks, a frame is let go before the next
 * is read, so there is none between frames nor after the end of a source;
 * a finished --count keeps its last. */
struct frame *feed_latest(struct feed *f, uint64_t *seq);
/* The same, with *seeks set to how many seeks of the recording (Home, End, a
 * time) were made before that frame was published. A frame with a higher
 * count than the one before it is the first after a jump. seq and seeks may
 * be NULL. */
struct frame *feed_latest_seeks(struct feed *f, uint64_t *seq, uint64_t *seeks);
/* The fleet published with the latest frame, a reference the caller unrefs,
 * or NULL when that frame came from no fleet source or before the first.
 * *seq, unless seq is NULL, gets the sequence number of that frame, as
 * feed_latest() gives it. A caller that needs the frame and its fleet
 * together compares the two numbers. When they differ, a newer frame came
 * between the two calls and is there to be taken. */
struct fleet *feed_latest_fleet(struct feed *f, uint64_t *seq);
/* Puts a copy of e into the next frame, with its gpu_index as in the frames
 * the feed publishes, after --gpus. At most FEED_MAX_POSTED wait, and more
 * are dropped, returning false. */
#define FEED_MAX_POSTED 64
bool feed_post_event(struct feed *f, const struct event *e);
/* A descriptor that becomes readable when a frame is published, with notify,
 * and when the feed has finished. Drain it with feed_drain(). */
int feed_fd(const struct feed *f);
void feed_drain(struct feed *f);
void feed_status(struct feed *f, struct feed_status *st);
/* Controls, answered by the feed's thread. Seeking applies to a recording.
 * Pausing and stepping apply to a recording and to a live source on the
 * virtual clock, where each step is one poll and moves the clock one
 * interval on. Any other live source goes on. */
void feed_set_interval(struct feed *f, double seconds);
void feed_set_paused(struct feed *f, bool paused);
void feed_step(struct feed *f);
void feed_set_speed(struct feed *f, double speed);
void feed_seek(struct feed *f, enum feed_seek where);
/* Seeks to the first record at or after ts_ms, in recorded time as epoch ms,
 * or to the last when none is that late. The frame is shown at once, paused
 * or not. */
void feed_seek_time(struct feed *f, uint64_t ts_ms);

#endif
