/* health: whether the frame the exporter serves is fresh, for GET /health
 * (a Kubernetes liveness or readiness probe). It is not when no frame has
 * come yet, when the newest is older than three intervals, when every
 * backend is lost, or when the backend has not answered for longer than
 * its watchdog allows (two intervals): a hung NVML keeps frames coming
 * from what was last known, and /metrics would serve them, so this is what
 * tells a probe. A replay is healthy while it plays and after its end, as
 * its last frame is the data it serves. */
#ifndef GPUR_HEALTH_H
#define GPUR_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct health_in {
	bool have_frame;
	bool live;               /* a live source; a replay's frames do not go stale */
	uint64_t now_ms;         /* monotonic */
	uint64_t published_ms;   /* when the newest frame was published */
	uint64_t interval_ms;    /* the poll interval (0: as fast as possible) */
	uint64_t busy_ms;        /* how long a backend has not answered, 0 when none */
	const char *busy_name;   /* that backend */
	size_t nbackends, nlost; /* backends, and of them those lost */
	const char *lost_names;  /* "nvml, amdgpu" */
};

/* Returns true when healthy; otherwise false with the one-line reason in
 * why ("nvml: no answer for 12 s"). */
bool health_check(const struct health_in *in, char *why, size_t n);

#endif
