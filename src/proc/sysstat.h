/* sysstat: the host's CPU %, memory and load for each record's `system`,
 * read from the configured procfs root. */
#ifndef GPUR_SYSSTAT_H
#define GPUR_SYSSTAT_H

#include <stdint.h>

#include "model/frame.h"

struct sysstat;

/* procfs is where /proc is mounted, and it is copied. */
struct sysstat *sysstat_new(const char *procfs);
void sysstat_free(struct sysstat *s);
/* The CPU % comes only from a window of at least min_ns between the baseline
 * reading of /proc/stat and a later one (util/ratewin.h). The default, 0,
 * allows any window that is not empty. */
void sysstat_set_rate_window(struct sysstat *s, uint64_t min_ns);
/* Fills out at monotonic time now_ns, with valid bits for what could be
 * read. cpu_pct needs a baseline from an earlier call at least the rate
 * window before; a reading sooner than that leaves it unknown and keeps the
 * baseline. Returns 0, or -errno when nothing could be read. */
int sysstat_read(struct sysstat *s, uint64_t now_ns, struct system_stats *out);

#endif
