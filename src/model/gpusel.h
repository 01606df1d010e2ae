/* gpusel: the --gpus selection (indices, UUIDs, PCI bus ids) applied to
 * frames: unselected GPUs and their rows and events are removed. */
#ifndef GPUR_GPUSEL_H
#define GPUR_GPUSEL_H

#include <stdbool.h>
#include <stddef.h>

#include "model/frame.h"

/* The most selectors one --gpus list takes. */
#define GPUSEL_MAX_ITEMS 1024

struct gpusel;

/* Parses a comma-separated list. Returns NULL, with a message in err, when an
 * item is empty or the list is too long. */
struct gpusel *gpusel_parse(const char *list, char *err, size_t errlen);
void gpusel_free(struct gpusel *s);
/* Removes unselected GPUs from f. */
void gpusel_apply(const struct gpusel *s, struct frame *f);
/* Whether GPU i of f is one that s selects. */
bool gpusel_match(const struct gpusel *s, const struct frame *f, size_t i);
/* The first selector that matches no GPU of f, or NULL when all match. */
const char *gpusel_unmatched(const struct gpusel *s, const struct frame *f);
#endif
