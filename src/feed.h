/* feed: runs the frame source — the live sampler, or a replay paced by its
 * recorded timestamps — on a thread of its own, writes every new frame to
 * the run's sink, and publishes the latest one. The dashboard reads it and
 * steers the feed only with control messages (interval, pause, step, speed,
 * seek): it never calls a backend. */
#ifndef GPUR_FEED_H
#define GPUR_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/replay.h"
#include "gpusel.h"
#include "model/frame.h"
#include "output/sink.h"
#include "sampler.h"

struct feed_opts {
	struct sampler *sampler;  /* live, or ... */
	struct replay *replay;    /* ... a recording (borrowed) */
	const struct gpusel *sel; /* --gpus, or NULL */
	struct sink *sink;        /* --log (borrowed), or NULL */
	double interval;          /* seconds; replay: for records without usable ts_ms */
	double speed;             /* replay pace, 0.25 .. 64 */
	uint64_t count;           /* stop after this many frames (0: no limit) */
};

enum feed_seek { FEED_SEEK_START, FEED_SEEK_END };

struct feed_status {
	bool replay, paused, at_end, finished;
	double speed, interval;
	uint64_t position; /* frames published (replay: the record number, from 1) */
	uint64_t busy_ms;  /* the longest a live backend has not answered */
	const char *busy_backend;
};

struct feed;

/* Starts the thread. NULL when it cannot (out of resources). */
struct feed *feed_start(const struct feed_opts *o);
/* Stops and joins the thread. NULL is a no-op. */
void feed_stop(struct feed *f);
/* The latest frame (a reference the caller unrefs, NULL before the first)
 * and its sequence number, which grows with every publication. */
struct frame *feed_latest(struct feed *f, uint64_t *seq);
/* A descriptor that becomes readable when a frame is published; drain it
 * with feed_drain(). */
int feed_fd(const struct feed *f);
void feed_drain(struct feed *f);
void feed_status(struct feed *f, struct feed_status *st);
/* Controls, answered by the feed's thread. */
void feed_set_interval(struct feed *f, double seconds);
void feed_set_paused(struct feed *f, bool paused);
void feed_step(struct feed *f);
void feed_set_speed(struct feed *f, double speed);
void feed_seek(struct feed *f, enum feed_seek where);

#endif
