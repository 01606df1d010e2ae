/* sysstat: the host's CPU %, memory and load for each record's `system`,
 * read from the configured procfs root. */
#ifndef GPUR_SYSSTAT_H
#define GPUR_SYSSTAT_H

#include "model/frame.h"

struct sysstat;

/* procfs is where /proc is mounted, and it is copied. */
struct sysstat *sysstat_new(const char *procfs);
void sysstat_free(struct sysstat *s);
/* Fills out, with valid bits for what could be read; cpu_pct needs a previous
 * call. Returns 0, or -errno when nothing could be read. */
int sysstat_read(struct sysstat *s, struct system_stats *out);

#endif
