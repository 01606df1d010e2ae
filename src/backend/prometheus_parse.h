/* prometheus_parse: one answer of Prometheus's /api/v1/query, an instant
 * vector, into a bounded list of series with the labels the fleet view
 * groups by and the sample's value. Sample values are strings in the API,
 * and "NaN", "+Inf", "-Inf" and anything else that is not a finite number
 * read as unknown, never as 0. */
#ifndef GPUR_PROMETHEUS_PARSE_H
#define GPUR_PROMETHEUS_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#define PROM_LABEL_MAX 256 /* bytes kept of a label value, cut on a character boundary */

struct prom_series {
	/* The metric's name (__name__), Hostname (else hostname, else
	 * instance), UUID (else uuid), gpu, modelName, container, and a process
	 * series' pid, comm, user, pod and namespace, each NULL when absent.
	 * The result owns them. */
	char *name, *host, *uuid, *gpu, *model, *container;
	char *pid, *comm, *user, *pod, *ns;
	bool known;   /* the value is a finite number */
	double value;
};

struct prom_result {
	struct prom_series *s;
	size_t n, cap;
	size_t dropped; /* series past max_series that were left out */
	size_t skipped; /* series of the wrong shape that were left out */
};

void prom_result_init(struct prom_result *r);
void prom_result_free(struct prom_result *r);
/* Parses body into r, appending to it. Returns 0, or -1 with a one-line
 * reason in err when the body is not JSON, is an error answer (with its
 * errorType and error), or is not a vector. At most max_series series are
 * kept, and the rest are counted in dropped. */
int prom_parse_query(const char *body, size_t len, size_t max_series, struct prom_result *r, char *err,
		     size_t errlen);

#endif
