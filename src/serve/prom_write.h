/* prom_write: the pieces every family of the exposition is written with,
 * shared by prom.c (the frame's GPUs, processes and containers) and
 * prom_health.c (gpur's own health). Label values go through
 * prom_put_label_value() (prom.h), so that they are escaped, bounded and
 * stripped of control characters. */
#ifndef GPUR_PROM_WRITE_H
#define GPUR_PROM_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve/prom.h"
#include "util/buf.h"

/* A buf_append that accepts an empty buffer's NULL data. */
void prom_put(struct buf *b, const char *s, size_t n);
/* Appends name="value", with a comma first unless *first. An unknown or
 * empty value gives no label at all, as Prometheus reads it. */
void prom_label(struct buf *b, bool *first, const char *name, const char *value);
void prom_label_u64(struct buf *b, bool *first, const char *name, uint64_t v);
/* Appends the # HELP and # TYPE lines of a family; help escapes \\ and \n. */
void prom_family(struct buf *b, const char *name, const char *type, const char *help);
/* Appends one sample, name{labels[,extra]} value, and returns true; a value
 * that is not finite is no measurement, and gives no sample and false. */
bool prom_sample(struct buf *b, const char *name, const char *labels, size_t llen, const char *extra, double v);
/* A family is written only when it has a sample: prom_begin writes its
 * header and returns where it starts, and prom_end takes the header back
 * when no sample followed (any false). */
size_t prom_begin(struct buf *b, const char *name, const char *type, const char *help);
void prom_end(struct buf *b, size_t mark, bool any);
/* A family of one sample with the given labels, or nothing when v is not
 * finite. */
void prom_one(struct buf *b, const char *name, const char *type, const char *help, const char *labels, double v);

#endif
