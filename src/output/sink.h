/* sink: where a run's records go (--log FILE, --json stdout). Each record is
 * encoded once and written to every output. A failure is counted and
 * reported once per output, on stderr or kept for the dashboard, and the run
 * goes on. With --serve, every frame is also handed to the exporter. */
#ifndef GPUR_SINK_H
#define GPUR_SINK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/frame.h"
#include "record/recorder.h"
#include "util/buf.h"

struct fleet;
struct serve;

struct sink {
	struct recorder *log, *json; /* owned, and either may be NULL */
	struct serve *serve;         /* --serve, borrowed, or NULL */
	struct buf line;             /* one encoding for both outputs */
	bool log_reported, json_reported;
	bool epipe;                  /* stdout went away */
	bool quiet;                  /* the dashboard owns the terminal, so keep messages */
	pthread_mutex_t mu;          /* guards note */
	char note[256];              /* the latest failure, for the dashboard */
};

void sink_init(struct sink *s);
/* Frees the recorders and the buffer. */
void sink_fini(struct sink *s);
/* Writes f to every output and publishes it to the exporter. fl holds the
 * hosts of a fleet source that came beside f, or is NULL; with hosts, one
 * record per host is written instead of f. Returns false when stdout went
 * away, and the caller then stops quietly. */
bool sink_emit(struct sink *s, const struct frame *f, const struct fleet *fl);
/* Copies the latest failure message into out, or "" if there is none. */
void sink_note(struct sink *s, char *out, size_t n);

#endif
