/* prometheus_parse: the /api/v1/query answer envelope and its instant
 * vector, on the strict bounded pull parser of the record reader. */
#include "backend/prometheus_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_parse.h"
#include "util/buf.h"
#include "util/xalloc.h"

void prom_result_init(struct prom_result *r)
{
	memset(r, 0, sizeof(*r));
}

static void series_free(struct prom_series *s)
{
	free(s->name);
	free(s->host);
	free(s->uuid);
	free(s->gpu);
	free(s->model);
	free(s->container);
	free(s->pid);
	free(s->comm);
	free(s->user);
	free(s->pod);
	free(s->ns);
}

static void truncate_to(struct prom_result *r, size_t n)
{
	while (r->n > n)
		series_free(&r->s[--r->n]);
}

void prom_result_free(struct prom_result *r)
{
	truncate_to(r, 0);
	free(r->s);
	prom_result_init(r);
}

/* Puts a label's string value into *slot, replacing what was there, or skips
 * a value of another type. */
static bool take_label(struct jsonp_parser *jp, struct buf *tmp, char **slot)
{
	if (jsonp_peek(jp) != JSONP_STRING)
		return jsonp_skip(jp);
	if (!jsonp_string(jp, tmp, PROM_LABEL_MAX))
		return false;
	free(*slot);
	*slot = xstrdup(buf_cstr(tmp));
	return true;
}

/* The labels that a series is read by: the metric's name, which tells the
 * unit of its value, dcgm-exporter's (Hostname, UUID, gpu, modelName), the
 * lower-case ones that other exporters and dcgm-exporter 4.10 write,
 * Prometheus's instance, and gpur's process labels. */
enum label {
	L_NAME, L_HOSTNAME, L_HOSTNAME_LC, L_INSTANCE, L_UUID, L_UUID_LC, L_GPU, L_MODEL, L_CONTAINER, L_PID,
	L_COMM, L_USER, L_POD, L_NS, L__COUNT
};

static const char *const LABEL_NAMES[L__COUNT] = {
	"__name__", "Hostname", "hostname", "instance", "UUID", "uuid", "gpu", "modelName", "container", "pid",
	"comm", "user", "pod", "namespace",
};

struct labels {
	char *v[L__COUNT];
};

static void labels_free(struct labels *l)
{
	for (size_t i = 0; i < L__COUNT; i++)
		free(l->v[i]);
	memset(l, 0, sizeof(*l));
}

static bool parse_metric(struct jsonp_parser *jp, struct buf *tmp, struct labels *l, bool *shape_ok)
{
	int in = jsonp_object_enter(jp), k;

	if (in == 0)
		*shape_ok = false;
	if (in <= 0)
		return in == 0;
	while ((k = jsonp_object_key(jp, LABEL_NAMES, L__COUNT)) >= 0)
		if (!(k < L__COUNT ? take_label(jp, tmp, &l->v[k]) : jsonp_skip(jp)))
			return false;
	return !jp->failed;
}

/* A sample value is a string holding a Go float. Only a finite number is
 * known, while "NaN", "+Inf", "-Inf", an empty string or trailing text are
 * unknown. */
static bool sample_value(const char *s, double *out)
{
	char *end;

	if (!*s || strlen(s) > 64)
		return false;
	double v = strtod(s, &end);
	if (*end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

/* The value comes as "value": [ts, "v"]. */
static bool parse_value(struct jsonp_parser *jp, struct buf *tmp, bool *known, double *v, bool *shape_ok)
{
	size_t i = 0;

	*known = false;
	if (jsonp_peek(jp) != JSONP_ARRAY) {
		*shape_ok = false;
		return jsonp_skip(jp);
	}
	if (!jsonp_array_begin(jp))
		return false;
	while (jsonp_array_next(jp)) {
		enum jsonp_type t = jsonp_peek(jp);
		if (i == 1 && t == JSONP_STRING) {
			if (!jsonp_string(jp, tmp, 128))
				return false;
			*known = sample_value(buf_cstr(tmp), v);
		} else {
			if (i == 0 && t != JSONP_NUMBER)
				*shape_ok = false;
			if (i == 1)
				*shape_ok = false;
			if (!jsonp_skip(jp))
				return false;
		}
		i++;
	}
	if (i != 2)
		*shape_ok = false;
	return !jp->failed;
}

static char *take(char **a, char **b)
{
	char **s = *a ? a : b;
	char *r = *s;
	*s = NULL;
	return r;
}

static bool parse_sample(struct jsonp_parser *jp, struct buf *tmp, size_t max_series, struct prom_result *r)
{
	static const char *const keys[] = {"metric", "value"};
	struct labels l = {0};
	bool shape_ok = true, have_metric = false, have_value = false, known = false;
	double v = 0;

	int in = jsonp_object_enter(jp);
	if (in == 0)
		r->skipped++;
	if (in <= 0)
		return in == 0;
	for (int k; (k = jsonp_object_key(jp, keys, 2)) >= 0;) {
		bool okp;
		if (k == 0) {
			have_metric = true;
			okp = parse_metric(jp, tmp, &l, &shape_ok);
		} else if (k == 1) {
			have_value = true;
			okp = parse_value(jp, tmp, &known, &v, &shape_ok);
		} else {
			okp = jsonp_skip(jp);
		}
		if (!okp)
			break;
	}
	if (jp->failed) {
		labels_free(&l);
		return false;
	}
	if (!shape_ok || !have_metric || !have_value) {
		r->skipped++;
	} else if (r->n >= max_series) {
		r->dropped++;
	} else {
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 16;
			r->s = xreallocarray(r->s, r->cap, sizeof(*r->s));
		}
		struct prom_series *s = &r->s[r->n++];
		char *none = NULL;
		char **lv = l.v;
		s->name = take(&lv[L_NAME], &none);
		s->host = take(&lv[L_HOSTNAME], lv[L_HOSTNAME_LC] ? &lv[L_HOSTNAME_LC] : &lv[L_INSTANCE]);
		s->uuid = take(&lv[L_UUID], &lv[L_UUID_LC]);
		s->gpu = take(&lv[L_GPU], &none);
		s->model = take(&lv[L_MODEL], &none);
		s->container = take(&lv[L_CONTAINER], &none);
		s->pid = take(&lv[L_PID], &none);
		s->comm = take(&lv[L_COMM], &none);
		s->user = take(&lv[L_USER], &none);
		s->pod = take(&lv[L_POD], &none);
		s->ns = take(&lv[L_NS], &none);
		s->known = known;
		s->value = known ? v : 0;
	}
	labels_free(&l);
	return true;
}

static bool parse_data(struct jsonp_parser *jp, struct buf *tmp, size_t max_series, struct prom_result *r,
		       int *type_ok)
{
	static const char *const keys[] = {"resultType", "result"};
	int in = jsonp_object_enter(jp), k;

	if (in <= 0)
		return in == 0;
	while ((k = jsonp_object_key(jp, keys, 2)) >= 0) {
		if (k == 0 && jsonp_peek(jp) == JSONP_STRING) {
			if (!jsonp_string(jp, tmp, 32))
				return false;
			*type_ok = strcmp(buf_cstr(tmp), "vector") == 0 ? 1 : -1;
		} else if (k == 1 && jsonp_peek(jp) == JSONP_ARRAY) {
			if (!jsonp_array_begin(jp))
				return false;
			while (jsonp_array_next(jp))
				if (!parse_sample(jp, tmp, max_series, r))
					return false;
			if (jp->failed)
				return false;
		} else if (!jsonp_skip(jp)) {
			return false;
		}
	}
	return !jp->failed;
}

int prom_parse_query(const char *body, size_t len, size_t max_series, struct prom_result *r, char *err,
		     size_t errlen)
{
	struct jsonp_parser jp;
	struct buf tmp, status, etype, emsg;
	char key[16];
	size_t klen, n0 = r->n, dropped0 = r->dropped, skipped0 = r->skipped;
	int type_ok = 0, rc = -1;
	bool have_data = false;

	buf_init(&tmp);
	buf_init(&status);
	buf_init(&etype);
	buf_init(&emsg);
	jsonp_init(&jp, body, len);
	if (jsonp_peek(&jp) != JSONP_OBJECT || !jsonp_object_begin(&jp)) {
		snprintf(err, errlen, "the answer is not a JSON object");
		goto out;
	}
	while (jsonp_object_next(&jp, key, sizeof(key), &klen)) {
		bool okp;
		struct buf *slot = jsonp_key_is(key, klen, "status")	  ? &status
				   : jsonp_key_is(key, klen, "errorType") ? &etype
				   : jsonp_key_is(key, klen, "error")	    ? &emsg
								    : NULL;
		if (slot && jsonp_peek(&jp) == JSONP_STRING) {
			okp = jsonp_string(&jp, slot, 200);
		} else if (jsonp_key_is(key, klen, "data")) {
			have_data = true;
			okp = parse_data(&jp, &tmp, max_series, r, &type_ok);
		} else {
			okp = jsonp_skip(&jp);
		}
		if (!okp)
			break;
	}
	if (jp.failed || !jsonp_at_end(&jp)) {
		snprintf(err, errlen, "the answer is not valid JSON (cut short or malformed)");
		goto out;
	}
	if (strcmp(buf_cstr(&status), "success") != 0) {
		if (status.len)
			snprintf(err, errlen, "Prometheus answered %s: %s%s%s", buf_cstr(&status),
				 etype.len ? buf_cstr(&etype) : "", etype.len ? ": " : "",
				 emsg.len ? buf_cstr(&emsg) : "no message");
		else
			snprintf(err, errlen, "the answer has no \"status\": not the Prometheus HTTP API");
		goto out;
	}
	if (!have_data || type_ok <= 0) {
		snprintf(err, errlen, "the answer is not an instant vector");
		goto out;
	}
	rc = 0;
out:
	if (rc != 0) {
		truncate_to(r, n0);
		r->dropped = dropped0;
		r->skipped = skipped0;
	}
	buf_fini(&tmp);
	buf_fini(&status);
	buf_fini(&etype);
	buf_fini(&emsg);
	return rc;
}
