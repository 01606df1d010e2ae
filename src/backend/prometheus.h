/* prometheus: the fleet view's source. Reads the GPUs of every host that a
 * Prometheus server scrapes (gpur or dcgm-exporter targets) through its HTTP
 * API, with libcurl loaded by dlopen when this mode starts. */
#ifndef GPUR_BACKEND_PROMETHEUS_H
#define GPUR_BACKEND_PROMETHEUS_H

#include <stddef.h>

#include "backend/backend.h"

/* This backend is not in BACKEND_REGISTRY, because --prometheus URL selects
 * it alone. Its backend_env must carry prometheus_url, and may carry
 * prometheus_match. */
extern const struct backend_ops BACKEND_PROMETHEUS;

#endif
