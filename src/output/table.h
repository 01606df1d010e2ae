/* table: the --once snapshot for people, like gpustat's: a header line, then
 * one line per GPU with its processes indented below. Unknown values show
 * "--". */
#ifndef GPUR_TABLE_H
#define GPUR_TABLE_H

#include <stdbool.h>

#include "model/frame.h"
#include "util/buf.h"

struct table_opts {
	bool utf8;          /* otherwise ASCII only */
	const char *source; /* driver line ("nvml · 550.54.15"), or NULL */
	const char *replay; /* recording name when replaying, or NULL */
};

/* Appends the snapshot of f to out. */
void table_render(struct buf *out, const struct frame *f, const struct table_opts *o);

#endif
