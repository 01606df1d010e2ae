/* sink: one encoding, several outputs, failures reported once. */
#include "output/sink.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/fleet.h"
#include "record/record_encode.h"
#include "serve/serve.h"
#include "util/msg.h"

void sink_init(struct sink *s)
{
	memset(s, 0, sizeof(*s));
	buf_init(&s->line);
	pthread_mutex_init(&s->mu, NULL);
}

void sink_fini(struct sink *s)
{
	recorder_free(s->log);
	recorder_free(s->json);
	buf_fini(&s->line);
	pthread_mutex_destroy(&s->mu);
	s->log = s->json = NULL;
}

static void report(struct sink *s, struct recorder *r, int rc, bool *reported)
{
	if (rc == 0 || rc == -EINTR || *reported)
		return;
	*reported = true;
	pthread_mutex_lock(&s->mu);
	snprintf(s->note, sizeof(s->note), "%s: record lost: %s (monitoring goes on; losses are counted)",
		 recorder_name(r), strerror(-rc));
	pthread_mutex_unlock(&s->mu);
	if (!s->quiet)
		msg_error("%s", s->note);
}

static bool write_record(struct sink *s, const struct frame *f)
{
	bool ok = true;

	buf_reset(&s->line);
	bool fits = record_encode_bounded(&s->line, f);
	if (s->log) {
		int rc = fits ? recorder_write_line(s->log, s->line.data, s->line.len) : recorder_drop(s->log, EFBIG);
		report(s, s->log, rc, &s->log_reported);
		char note[sizeof(s->note)];
		if (recorder_take_note(s->log, note, sizeof(note))) {
			pthread_mutex_lock(&s->mu);
			memcpy(s->note, note, sizeof(note));
			pthread_mutex_unlock(&s->mu);
			if (!s->quiet)
				msg_error("%s", note);
		}
	}
	if (s->json) {
		int rc = fits ? recorder_write_line(s->json, s->line.data, s->line.len) : recorder_drop(s->json, EFBIG);
		if (rc == -EPIPE) {
			s->epipe = true;
			ok = false;
		} else {
			report(s, s->json, rc, &s->json_reported);
		}
	}
	if (s->line.cap > (1u << 20) && s->line.len < (1u << 18))
		buf_fini(&s->line); /* so that one huge record does not stay in memory */
	return ok;
}

/* A fleet poll is one record per host, stamped with the poll's time, so
 * that the record limits hold at any fleet size; the poll's own events go in
 * the first. Hosts kept from the last good poll while the source fails keep
 * their identity and state only, so a recording never holds an old reading
 * as if it were read now. */
static bool write_fleet(struct sink *s, const struct frame *f, const struct fleet *fl)
{
	struct frame *tmp = frame_new();
	bool ok = true;

	for (size_t i = 0; i < fl->nhosts && ok; i++) {
		frame_copy(tmp, fl->hosts[i].frame);
		tmp->ts_ms = f->ts_ms;
		tmp->valid = (tmp->valid & ~(UINT64_C(1) << FRAME_F_TS)) | (f->valid & UINT64_C(1) << FRAME_F_TS);
		if (fl->stale) {
			for (size_t g = 0; g < tmp->ngpus; g++)
				gpu_drop_readings(&tmp->gpus[g]);
			tmp->nprocs = 0;
		}
		tmp->nevents = 0;
		for (size_t e = 0; i == 0 && e < f->nevents; e++) {
			struct event *d = frame_add_event(tmp);
			if (d)
				frame_copy_event(tmp, d, &f->events[e]);
		}
		ok = write_record(s, tmp);
	}
	frame_unref(tmp);
	return ok;
}

static bool write_records(struct sink *s, const struct frame *f, const struct fleet *fl)
{
	if (!s->log && !s->json)
		return true; /* there is nowhere to write, so do not encode */
	if (fl && fl->nhosts)
		return write_fleet(s, f, fl);
	return write_record(s, f);
}

bool sink_emit(struct sink *s, const struct frame *f, const struct fleet *fl)
{
	bool ok = write_records(s, f, fl);

	if (s->serve)
		serve_publish(s->serve, f, (s->log ? recorder_dropped(s->log) : 0) + (s->json ? recorder_dropped(s->json) : 0),
			      s->log || s->json);
	return ok;
}

void sink_note(struct sink *s, char *out, size_t n)
{
	if (n == 0)
		return;
	pthread_mutex_lock(&s->mu);
	size_t len = strnlen(s->note, n - 1);
	memcpy(out, s->note, len);
	out[len] = '\0';
	pthread_mutex_unlock(&s->mu);
}
