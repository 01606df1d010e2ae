/* fake_nvml_scenario: reading the fake NVML's scenario: integers, values
 * that move with the polls or the clock, and what a getter is made to
 * answer ("not_supported", "errors", "errors_at"). Called with S.mu held. */
#include <jansson.h>
#include <string.h>
#include <time.h>

#include "fake_nvml_priv.h"

long long jint(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

/* Which sample values show: the poll (nvmlDeviceGetCount calls, from 0),
 * or with "cycle_ms": N in the scenario the time since the library was
 * loaded in steps of N ms, so that programs that poll differently (the
 * benchmark's nvtop and gpur) see the same readings at the same time. */
unsigned long long sample_index(void)
{
	long long cycle = jint(S.root, "cycle_ms", 0);
	if (cycle > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		long long now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		return (unsigned long long)((now - S.loaded_ms) / cycle);
	}
	return S.polls ? S.polls - 1 : 0;
}

long long jint_at(json_t *a, size_t i)
{
	json_t *v = json_array_get(a, i);
	return json_is_integer(v) ? json_integer_value(v) : 0;
}

/* A scenario value: a number, an array indexed by sample (cycling), or a
 * counter {"start": S, "step": D} worth S + D * sample. */

bool value_at(json_t *v, unsigned long long *out)
{
	if (json_is_object(v)) {
		unsigned long long poll = sample_index();
		*out = (unsigned long long)jint(v, "start", 0) + (unsigned long long)jint(v, "step", 0) * poll;
		return true;
	}
	if (json_is_array(v) && json_array_size(v))
		v = json_array_get(v, sample_index() % json_array_size(v));
	if (json_is_integer(v)) {
		*out = (unsigned long long)json_integer_value(v);
		return true;
	}
	if (json_is_real(v)) {
		*out = (unsigned long long)json_real_value(v);
		return true;
	}
	return false;
}

nvmlReturn_t refusal(const struct fdev *d, const char *key)
{
	if (unsupported(d, key))
		return NVML_ERROR_NOT_SUPPORTED;
	json_t *e = json_object_get(json_object_get(S.gpus[d->gpu].j, "errors"), key);
	if (json_is_integer(e))
		return (nvmlReturn_t)json_integer_value(e);
	/* "errors_at": {key: [FROM, TO, CODE]}: that code at polls FROM <= poll < TO. */
	json_t *w = json_object_get(json_object_get(S.gpus[d->gpu].j, "errors_at"), key);
	if (json_is_array(w) && json_array_size(w) == 3 && S.polls >= (unsigned long)jint_at(w, 0) &&
	    S.polls < (unsigned long)jint_at(w, 1))
		return (nvmlReturn_t)jint_at(w, 2);
	return NVML_SUCCESS;
}

bool unsupported(const struct fdev *d, const char *key)
{
	json_t *ns = json_object_get(S.gpus[d->gpu].j, "not_supported");
	size_t i;
	json_t *v;

	json_array_foreach(ns, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), key)) return true;
	return false;
}
