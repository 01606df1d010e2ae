/* fake_nvml_events: event sets of the fake NVML and the XID errors that
 * arrive through them, as NVIDIA's nvml.h documents them. A GPU's "xid"
 * list scripts its XID errors, each due at a poll; a set delivers each one
 * that became due after the GPU was registered on it, once, in poll order.
 * nvmlEventSetWait blocks for real on a condition that every poll and every
 * nvmlShutdown signal, so a waiter wakes as soon as an error is due, when a
 * registered GPU is lost, and when the library is shut down. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_nvml_priv.h"

#ifdef HAVE_GETTERS
/* The other event types a GPU supports here. The fake never raises them,
 * as a healthy GPU rarely does; ECC events need an ECC-enabled GPU. */
#define EV_SINGLE_BIT_ECC 0x1ULL
#define EV_DOUBLE_BIT_ECC 0x2ULL
#define EV_PSTATE 0x4ULL

struct nvmlEventSet_st {
	struct nvmlEventSet_st *next;
	bool freed;  /* freed while threads waited in it: the last one frees it */
	int waiters;
	unsigned long long types[MAX_GPUS]; /* registered per GPU */
	unsigned long since[MAX_GPUS];      /* the poll when XIDs were registered */
	/* The last XID delivered, as (poll, GPU, index in its list): the next
	 * one delivered is the first after it in that order. */
	long long last_poll;
	long last_gpu, last_idx;
};

static struct nvmlEventSet_st *sets;
static unsigned long nsets;
static pthread_cond_t cond;
static bool cond_ready;
/* How often the library has been left uninitialised: a waiter that sees it
 * change answers UNINITIALIZED, even when another thread has initialised
 * the library again before the waiter ran. */
static unsigned long downs;

void events_wake(void)
{
	if (cond_ready)
		pthread_cond_broadcast(&cond);
}

void events_shutdown(void)
{
	if (S.inits <= 0)
		downs++;
	events_wake();
}

void events_calls_write(FILE *f)
{
	fprintf(f, "event_sets_live - %lu\n", nsets);
}

/* The set at pointer s, found by its address alone, or NULL. */
static struct nvmlEventSet_st *find(nvmlEventSet_t s)
{
	for (struct nvmlEventSet_st *p = sets; p; p = p->next)
		if (p == s)
			return p;
	return NULL;
}

static unsigned long long supported(const struct fdev *d)
{
	if (unsupported(d, "events"))
		return 0;
	return nvmlEventTypeXidCriticalError | EV_PSTATE |
	       (unsupported(d, "ecc") ? 0 : EV_SINGLE_BIT_ECC | EV_DOUBLE_BIT_ECC);
}

static nvmlReturn_t do_create(nvmlEventSet_t *out)
{
	nvmlReturn_t r = lib_state();
	if (r)
		return r;
	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct nvmlEventSet_st *e = calloc(1, sizeof(*e));
	if (!e)
		return NVML_ERROR_MEMORY;
	e->last_poll = -1;
	e->next = sets;
	sets = e;
	nsets++;
	if (!cond_ready) {
		pthread_condattr_t a;
		pthread_condattr_init(&a);
		pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
		pthread_cond_init(&cond, &a);
		pthread_condattr_destroy(&a);
		cond_ready = true;
	}
	*out = e;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *s) { LOCKED(do_create(s)); }

/* A set freed while a thread waits in it leaves the list at once; the
 * waiter wakes, answers INVALID_ARGUMENT and frees it. */
static nvmlReturn_t do_free(nvmlEventSet_t s)
{
	nvmlReturn_t r = lib_state();
	if (r)
		return r;
	for (struct nvmlEventSet_st **pp = &sets; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			struct nvmlEventSet_st *e = *pp;
			*pp = e->next;
			nsets--;
			if (e->waiters) {
				e->freed = true;
				events_wake();
			} else {
				free(e);
			}
			return NVML_SUCCESS;
		}
	return NVML_ERROR_INVALID_ARGUMENT;
}
EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t s) { LOCKED(do_free(s)); }

/* MIG device handles have no events of their own: nvml.h says per-instance
 * reporting goes through the parent GPU. */
static nvmlReturn_t do_types(nvmlDevice_t h, unsigned long long *types)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!types)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct fdev *d = dev_of(h);
	if (d->mig >= 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!unsupported(d, "events") && (r = refusal(d, "events")))
		return r;
	*types = supported(d);
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t h, unsigned long long *t) { LOCKED(do_types(h, t)); }

/* Registration records nothing that happened before it: an XID becomes
 * this set's only if it falls due at a later poll. On NOT_SUPPORTED none of
 * the requested types is registered and the set stays usable. */
static nvmlReturn_t do_register(nvmlDevice_t h, unsigned long long types, nvmlEventSet_t s)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	struct nvmlEventSet_st *e = find(s);
	if (!e || !types)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct fdev *d = dev_of(h);
	if (d->mig >= 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if ((r = refusal(d, "events")))
		return r;
	if (types & ~supported(d))
		return NVML_ERROR_NOT_SUPPORTED;
	if ((types & nvmlEventTypeXidCriticalError) && !(e->types[d->gpu] & nvmlEventTypeXidCriticalError))
		e->since[d->gpu] = S.polls;
	e->types[d->gpu] |= types;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t h, unsigned long long types, nvmlEventSet_t s)
{
	LOCKED(do_register(h, types, s));
}

/* Whether (p, g, i) comes after (q, h, j) in delivery order. */
static bool after(long long p, long g, long i, long long q, long h, long j)
{
	return p != q ? p > q : g != h ? g > h : i > j;
}

/* The next XID due for set e: the first in (poll, GPU, index) order after
 * the last delivered, among those of its GPUs that fell due after they were
 * registered. NULL when none is due. */
static json_t *next_xid(const struct nvmlEventSet_st *e, long long *poll, long *gpu, long *idx)
{
	json_t *best = NULL;

	*poll = -1;
	*gpu = *idx = -1;
	for (size_t g = 0; g < S.ngpus; g++) {
		if (!(e->types[g] & nvmlEventTypeXidCriticalError))
			continue;
		json_t *list = json_object_get(S.gpus[g].j, "xid"), *x;
		size_t i;
		json_array_foreach(list, i, x) {
			long long p = jint(x, "poll", -1);
			if (p < 0 || p > (long long)S.polls || p <= (long long)e->since[g] ||
			    !after(p, (long)g, (long)i, e->last_poll, e->last_gpu, e->last_idx))
				continue;
			if (best && !after(*poll, *gpu, *idx, p, (long)g, (long)i))
				continue;
			best = x;
			*poll = p;
			*gpu = (long)g;
			*idx = (long)i;
		}
	}
	return best;
}

/* Whether a GPU registered on e is lost (its scripted loss). */
static bool any_lost(const struct nvmlEventSet_st *e)
{
	for (size_t g = 0; g < S.ngpus; g++)
		if (e->types[g] && dev_state((nvmlDevice_t)&S.gpus[g]) != NVML_SUCCESS)
			return true;
	return false;
}

/* The layout the old nvmlEventSetWait fills: nvmlEventData_t before MIG
 * added the instance ids (24 bytes). */
struct old_event_data {
	nvmlDevice_t device;
	unsigned long long eventType, eventData;
};

static void deliver(json_t *x, long gpu, nvmlEventData_t *data, bool v2)
{
	nvmlEventData_t ev = {
		.device = (nvmlDevice_t)&S.gpus[gpu],
		.eventType = nvmlEventTypeXidCriticalError,
		.eventData = (unsigned long long)jint(x, "xid", 0),
		.gpuInstanceId = (unsigned)jint(x, "gi", NVML_EVENT_NO_INSTANCE),
		.computeInstanceId = (unsigned)jint(x, "ci", NVML_EVENT_NO_INSTANCE),
	};
	if (v2) {
		*data = ev;
		return;
	}
	/* Only its own 24 bytes: the instance ids are left as the caller had
	 * them. */
	struct old_event_data old = {ev.device, ev.eventType, ev.eventData};
	memcpy(data, &old, sizeof(old));
}

static nvmlReturn_t do_wait(nvmlEventSet_t s, nvmlEventData_t *data, unsigned timeoutms, bool v2)
{
	nvmlReturn_t r = lib_state();
	calls_count(NULL);
	if (r)
		return r;
	struct nvmlEventSet_st *e = find(s);
	if (!e || !data)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeoutms / 1000;
	deadline.tv_nsec += (long)(timeoutms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	unsigned long downs_then = downs;
	e->waiters++;
	for (;;) {
		long long poll;
		long gpu, idx;
		json_t *x;
		struct timespec now;
		if (e->freed) {
			r = NVML_ERROR_INVALID_ARGUMENT;
			break;
		}
		if (downs != downs_then) {
			r = NVML_ERROR_UNINITIALIZED;
			break;
		}
		if ((r = lib_state()))
			break;
		if ((x = next_xid(e, &poll, &gpu, &idx))) {
			deliver(x, gpu, data, v2);
			e->last_poll = poll;
			e->last_gpu = gpu;
			e->last_idx = idx;
			break;
		}
		if (any_lost(e)) {
			r = NVML_ERROR_GPU_IS_LOST;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > deadline.tv_sec || (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) {
			r = NVML_ERROR_TIMEOUT;
			break;
		}
		pthread_cond_timedwait(&cond, &S.mu, &deadline);
	}
	if (--e->waiters == 0 && e->freed)
		free(e);
	return r;
}
#ifdef HAVE_NEW
EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t s, nvmlEventData_t *d, unsigned int t) { LOCKED(do_wait(s, d, t, true)); }
#endif
EXPORT nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t s, nvmlEventData_t *d, unsigned int t) { LOCKED(do_wait(s, d, t, false)); }

#else /* minimal: no event entry points */
void events_wake(void)
{
}

void events_shutdown(void)
{
}

void events_calls_write(FILE *f)
{
	(void)f;
}
#endif
