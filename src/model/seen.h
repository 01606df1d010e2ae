/* seen: what each GPU last read while it was ok, and when, kept across every
 * frame a source yields (the ones a seek reads past included), so a lost GPU
 * shows what it was doing when it went and the time the source last saw it. */
#ifndef GPUR_SEEN_H
#define GPUR_SEEN_H

#include <stddef.h>

#include "model/frame.h"

struct seen_entry;

struct seen {
	struct seen_entry *v;
	size_t n, cap;
};

void seen_init(struct seen *s);
void seen_fini(struct seen *s);
/* Forgets everything, as when a replay goes back to its start. */
void seen_clear(struct seen *s);
/* Remembers the readings of every ok GPU of f that has a device_id. */
void seen_update(struct seen *s, const struct frame *f);
/* Sets f->seen, in f's arena, when f has a lost or suspended GPU that was
 * seen ok before. It holds, for each of f's GPUs, the last ok readings and
 * their ts_ms, which is 0 for a GPU never seen ok. */
void seen_attach(const struct seen *s, struct frame *f);

#endif
