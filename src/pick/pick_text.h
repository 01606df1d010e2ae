/* pick_text: what --select and --wait say of the GPUs they judged: each
 * GPU's name and value for CUDA_VISIBLE_DEVICES, why one is not free, in
 * full for a message and briefly for the waiting line, and the list of
 * those that fell short. */
#ifndef GPUR_PICK_TEXT_H
#define GPUR_PICK_TEXT_H

#include <stddef.h>

#include "pick/pick.h"
#include "pick/pick_window.h"
#include "util/buf.h"

/* How many reasons a message lists before "and N more". */
#define PICK_TEXT_REASONS 8

/* Appends c's name for people: "GPU 3" (its place in the frame, as gpur
 * numbers GPUs), a MIG instance's id, each after its host in a fleet. */
void pick_text_name(struct buf *b, const struct pick_candidate *c);
/* Appends c as CUDA_VISIBLE_DEVICES takes it: its UUID, or with
 * PICK_FORMAT_INDEX its index among the physical GPUs (a MIG instance has
 * none, so its UUID), after "HOST:" in a fleet. */
void pick_text_value(struct buf *b, const struct pick_candidate *c, enum pick_format format);
/* Appends the comma-separated values of c[0..n). */
void pick_text_values(struct buf *b, const struct pick_candidate *c, size_t n, enum pick_format format);
/* Appends why c is not free: "GPU 2 is at 45% (> 10%, --max-util)". */
void pick_text_reason(struct buf *b, const struct pick_candidate *c, const struct pick_opts *o);
/* Appends the same briefly, for the waiting line: "GPU 2: 45% > 10%". */
void pick_text_brief(struct buf *b, const struct pick_candidate *c, const struct pick_opts *o);
/* Appends "only 1 GPU qualifies: REASON; REASON" (or "no GPU qualifies",
 * or "there are only 3 GPUs" when every one qualifies) for c[0..n), of
 * which nfree are free and first, with at most PICK_TEXT_REASONS reasons. */
void pick_text_shortfall(struct buf *b, const struct pick_candidate *c, size_t n, size_t nfree,
			 const struct pick_opts *o);

#endif
