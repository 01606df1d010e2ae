/* when: the times of --from and --to: epoch milliseconds, RFC 3339
 * (2024-05-01T10:00:00Z, fractions and offsets allowed), or a clock time
 * HH:MM[:SS] that means that time on a given day, local time (the
 * recording's first day, known only once it is open). */
#ifndef GPUR_WHEN_H
#define GPUR_WHEN_H

#include <stdbool.h>
#include <stdint.h>

struct when {
	bool set;
	bool clock;     /* HH:MM[:SS], to resolve with when_resolve */
	uint64_t ms;    /* epoch ms (not clock) */
	unsigned secs;  /* seconds into the day (clock) */
};

/* Parses s and returns true on success. */
bool when_parse(const char *s, struct when *w);
/* Returns w in epoch ms. A clock time is taken on the local day of day_ms. */
uint64_t when_resolve(const struct when *w, uint64_t day_ms);
/* Parses "HH:MM[:SS]" alone into seconds into the day. */
bool when_parse_clock(const char *s, unsigned *secs);

#endif
