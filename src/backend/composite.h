/* composite: combines the latest results of the live children into one
 * frame. GPUs keep stable positions by (child, device_id), and new ones are
 * appended. Process rows and events are re-indexed, and rows naming a device
 * the child did not report are dropped. Names and driver strings are joined
 * with '+'. A child that failed keeps its GPUs' positions as lost. */
#ifndef GPUR_COMPOSITE_H
#define GPUR_COMPOSITE_H

#include <stddef.h>

#include "model/frame.h"

/* How much of a child's last result goes into the frame. */
enum composite_mode {
	COMPOSITE_FULL,  /* a fresh answer, with GPUs, rows and events */
	COMPOSITE_REUSE, /* a slow answer, with the last GPUs and rows and no events */
	COMPOSITE_IDENT, /* hung, with identity and state only and no rows */
	COMPOSITE_LOST,  /* failed, with its GPUs' identity and state lost */
};

struct composite_child {
	const char *name;         /* backend name */
	struct frame *last;       /* the child's last successful result, or NULL */
	enum composite_mode mode;
};

struct composite;

struct composite *composite_new(void);
void composite_free(struct composite *c);
/* Adds the children's GPUs, rows and events to out, which may already hold
 * events, plus gpu_lost and gpu_back events for state changes since the last
 * call, and sets out's backend, driver and cuda. out pins each child's frame
 * it takes from (frame_pin()) and shares its strings instead of copying
 * them. */
void composite_compose(struct composite *c, const struct composite_child *kids, size_t n, struct frame *out);

#endif
