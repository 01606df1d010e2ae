/* nvml_xid: XID errors, which NVML reports as events. A thread of the
 * backend's own registers every GPU for nvmlEventTypeXidCriticalError on one
 * event set. Each poll wakes it (nvml_xid_kick()), and it then takes every
 * event waiting on the set, each wait with a timeout of 0 ms, so that it
 * never holds up a poll and has no timer of its own: a timer waking it
 * would cost more CPU on an idle machine than everything it does. It ends
 * as soon as it is asked to. What it hears goes into a bounded queue that
 * the next poll empties into xid events. A wait that fails (a registered
 * GPU lost, the driver gone) is tried once more on a new set without the
 * devices that can no longer be registered; if that fails too, the kicks
 * are ignored for a while, from 1 s doubling to 16 s, so it never spins.
 * The thread is stopped before every nvmlShutdown and started again after
 * the next init. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backend/nvml_priv.h"
#include "util/xalloc.h"

#define NVML_XID_BACKOFF_MIN_MS 1000
#define NVML_XID_BACKOFF_MAX_MS 16000

bool nvml_xid_available(const struct nvml_lib *L)
{
	return L->event_set_create && L->event_set_free && L->get_supported_event_types && L->register_events &&
	       L->event_set_wait;
}

/* Queues one event under mu; when the queue is full the oldest stays and
 * the newest is counted as dropped. */
static void push(struct nvml *n, const nvmlEventData_t *d)
{
	size_t dev = SIZE_MAX;

	for (size_t i = 0; i < n->nxid_dev; i++)
		if (n->xid_dev[i] == d->device)
			dev = i;
	if (dev == SIZE_MAX)
		return; /* not one of ours */
	if (n->nxid_q == NVML_XID_QUEUE) {
		n->xid_dropped++;
		return;
	}
	n->xid_q[n->nxid_q++] = (struct nvml_xid_ev){dev, d->eventData, d->gpuInstanceId};
}

/* Makes a new event set with the devices still registered, leaving out
 * those whose registration now fails (a lost GPU), since a registered GPU
 * that is lost makes every wait fail at once. Called without mu; the
 * device list is stable while the thread runs (it is stopped before every
 * enumeration). Returns false when no device could be registered. */
static bool rebuild(struct nvml *n)
{
	const struct nvml_lib *L = &n->lib;
	nvmlEventSet_t set = NULL;
	size_t kept = 0;

	if (L->event_set_create(&set) != NVML_SUCCESS)
		return false;
	pthread_mutex_lock(&n->mu);
	nvmlEventSet_t old = n->xid_set;
	pthread_mutex_unlock(&n->mu);
	for (size_t i = 0; i < n->nxid_dev; i++) {
		nvmlDevice_t h = n->xid_dev[i];
		if (!h)
			continue;
		bool ok = L->register_events(h, nvmlEventTypeXidCriticalError, set) == NVML_SUCCESS;
		pthread_mutex_lock(&n->mu);
		if (!ok)
			n->xid_dev[i] = NULL;
		pthread_mutex_unlock(&n->mu);
		kept += ok;
	}
	pthread_mutex_lock(&n->mu);
	n->xid_set = set;
	pthread_mutex_unlock(&n->mu);
	(void)L->event_set_free(old);
	return kept > 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Takes every event waiting on the set. Returns false when a wait failed
 * even on a rebuilt set. Called without mu. */
static bool take_events(struct nvml *n)
{
	bool rebuilt = false;

	for (size_t k = 0; k < 4 * NVML_XID_QUEUE; k++) {
		/* The older wait fills no instance ids, which stay "none". */
		nvmlEventData_t d = {.gpuInstanceId = NVML_EVENT_NO_INSTANCE, .computeInstanceId = NVML_EVENT_NO_INSTANCE};
		nvmlReturn_t r = n->lib.event_set_wait(n->xid_set, &d, 0);
		if (r == NVML_ERROR_TIMEOUT)
			return true; /* nothing more waits */
		if (r == NVML_SUCCESS) {
			pthread_mutex_lock(&n->mu);
			if (d.eventType & nvmlEventTypeXidCriticalError)
				push(n, &d);
			pthread_mutex_unlock(&n->mu);
			continue;
		}
		pthread_mutex_lock(&n->mu);
		n->xid_failures++;
		pthread_mutex_unlock(&n->mu);
		if (rebuilt || !rebuild(n))
			return false;
		rebuilt = true;
	}
	return true;
}

static void *xid_main(void *arg)
{
	struct nvml *n = arg;
	unsigned backoff = 0;

	pthread_mutex_lock(&n->mu);
	for (;;) {
		while (!n->xid_stop && !n->xid_kick)
			pthread_cond_wait(&n->cv, &n->mu);
		if (n->xid_stop)
			break;
		n->xid_kick = false;
		pthread_mutex_unlock(&n->mu);
		bool ok = take_events(n);
		pthread_mutex_lock(&n->mu);
		if (ok) {
			backoff = 0;
		} else {
			backoff = backoff ? backoff * 2 : NVML_XID_BACKOFF_MIN_MS;
			if (backoff > NVML_XID_BACKOFF_MAX_MS)
				backoff = NVML_XID_BACKOFF_MAX_MS;
			n->xid_next_ns = mono_ns() + backoff * UINT64_C(1000000);
		}
	}
	pthread_mutex_unlock(&n->mu);
	return NULL;
}

void nvml_xid_kick(struct nvml *n)
{
	if (!n->xid_running)
		return;
	pthread_mutex_lock(&n->mu);
	if (!n->xid_kick && (!n->xid_next_ns || mono_ns() >= n->xid_next_ns)) {
		n->xid_next_ns = 0;
		n->xid_kick = true;
		pthread_cond_broadcast(&n->cv);
	}
	pthread_mutex_unlock(&n->mu);
}

void nvml_xid_start(struct nvml *n)
{
	const struct nvml_lib *L = &n->lib;
	size_t registered = 0;
	sigset_t all, old;

	if (n->xid_running || !nvml_xid_available(L)) {
		if (!nvml_xid_available(L) && !n->xid_said) {
			n->xid_said = true;
			nvml_note(n, "nvml: XID errors are not reported: this NVML library has no event calls");
		}
		return;
	}
	if (L->event_set_create(&n->xid_set) != NVML_SUCCESS)
		return;
	free(n->xid_dev);
	n->xid_dev = xcalloc(n->ndev ? n->ndev : 1, sizeof(*n->xid_dev));
	n->nxid_dev = n->ndev;
	size_t refused = 0, healthy = 0;
	for (size_t i = 0; i < n->ndev; i++) {
		unsigned long long types = 0;
		if (n->dev[i].lost)
			continue; /* registered again after the re-initialisation that finds it */
		healthy++;
		nvmlReturn_t r = L->get_supported_event_types(n->dev[i].h, &types);
		if (r == NVML_SUCCESS && !(types & nvmlEventTypeXidCriticalError))
			r = NVML_ERROR_NOT_SUPPORTED;
		if (r == NVML_SUCCESS)
			r = L->register_events(n->dev[i].h, nvmlEventTypeXidCriticalError, n->xid_set);
		if (r != NVML_SUCCESS) {
			refused += nvml_never(r);
			continue;
		}
		n->xid_dev[i] = n->dev[i].h;
		registered++;
	}
	if (refused && !n->xid_said) {
		n->xid_said = true;
		nvml_note(n, "nvml: XID errors are not reported for %zu of %zu GPUs (the driver does not support the event)",
			  refused, healthy);
	}
	if (!registered) {
		(void)L->event_set_free(n->xid_set);
		n->xid_set = NULL;
		return;
	}
	n->xid_stop = n->xid_kick = false;
	n->xid_next_ns = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	n->xid_running = pthread_create(&n->xid_thread, NULL, xid_main, n) == 0;
	if (n->xid_running)
		pthread_setname_np(n->xid_thread, "gpur-xid");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!n->xid_running) {
		(void)L->event_set_free(n->xid_set);
		n->xid_set = NULL;
	}
}

void nvml_xid_stop(struct nvml *n)
{
	if (!n->xid_running)
		return;
	pthread_mutex_lock(&n->mu);
	n->xid_stop = true;
	pthread_cond_broadcast(&n->cv);
	pthread_mutex_unlock(&n->mu);
	pthread_join(n->xid_thread, NULL);
	n->xid_running = false;
	(void)n->lib.event_set_free(n->xid_set);
	n->xid_set = NULL;
}

void nvml_xid_drain(struct nvml *n, struct frame *f, const size_t *frame_index)
{
	struct nvml_xid_ev q[NVML_XID_QUEUE];
	size_t nq, dropped;

	pthread_mutex_lock(&n->mu);
	nq = n->nxid_q;
	memcpy(q, n->xid_q, nq * sizeof(q[0]));
	n->nxid_q = 0;
	dropped = n->xid_dropped;
	n->xid_dropped = 0;
	pthread_mutex_unlock(&n->mu);
	for (size_t i = 0; i < nq; i++) {
		if (q[i].dev >= n->ndev || frame_index[q[i].dev] == SIZE_MAX)
			continue;
		const char *what = event_xid_meaning(q[i].xid);
		struct event *e = what ? frame_note(f, EVENT_XID, "XID %llu: %s", q[i].xid, what)
				       : frame_note(f, EVENT_XID, "XID %llu", q[i].xid);
		if (!e)
			break;
		size_t at = frame_index[q[i].dev];
		e->gpu_index = at;
		e->device_id = f->gpus[at].device_id;
		e->backend = frame_str(f, "nvml");
		e->xid = q[i].xid;
		e->valid |= UINT64_C(1) << EVENT_F_GPU_INDEX | UINT64_C(1) << EVENT_F_DEVICE_ID |
			    UINT64_C(1) << EVENT_F_BACKEND | UINT64_C(1) << EVENT_F_XID;
		if (q[i].gi != NVML_EVENT_NO_INSTANCE) {
			e->gpu_instance = q[i].gi;
			e->valid |= UINT64_C(1) << EVENT_F_GPU_INSTANCE;
		}
	}
	if (dropped)
		frame_note(f, EVENT_NOTE, "nvml: %zu XID events came faster than polls and were left out", dropped);
}
