/* nvml_xid: XID errors, which NVML reports as events. At detection and
 * after every re-initialisation the backend registers every GPU for
 * nvmlEventTypeXidCriticalError on one event set, and each poll takes every
 * event waiting there, each wait with a timeout of 0 ms, so it never holds
 * the poll up, needs no thread and no timer, and has nothing to end at exit.
 * (A thread blocked in the wait with a bounded timeout was the first design;
 * its wake-ups cost more CPU than the rest of a poll's NVML work on an idle
 * machine, and the poll asking with no wait hears the same events, in the
 * record of the poll in which they arrive.) A wait that fails (a registered
 * GPU lost, the driver gone) is tried once more on a new set without the
 * devices that can no longer be registered; if that fails too, the polls
 * leave the set alone for a while, from 1 s doubling to 16 s, so it never
 * spins. The set is freed before every nvmlShutdown. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "backend/nvml_priv.h"
#include "util/clock.h"
#include "util/xalloc.h"

#define NVML_XID_BACKOFF_MIN_MS 1000
#define NVML_XID_BACKOFF_MAX_MS 16000
/* Events taken in one poll, at most; more wait for the next. */
#define NVML_XID_PER_POLL 64

bool nvml_xid_available(const struct nvml_lib *L)
{
	return L->event_set_create && L->event_set_free && L->get_supported_event_types && L->register_events &&
	       L->event_set_wait;
}

/* Makes a new event set with the devices still registered, leaving out
 * those whose registration now fails (a lost GPU), since a registered GPU
 * that is lost makes every wait fail at once. Returns false when no device
 * could be registered. */
static bool rebuild(struct nvml *n)
{
	const struct nvml_lib *L = &n->lib;
	nvmlEventSet_t set = NULL;
	size_t kept = 0;

	if (L->event_set_create(&set) != NVML_SUCCESS)
		return false;
	for (size_t i = 0; i < n->nxid_dev; i++) {
		if (!n->xid_dev[i])
			continue;
		if (L->register_events(n->xid_dev[i], nvmlEventTypeXidCriticalError, set) == NVML_SUCCESS)
			kept++;
		else
			n->xid_dev[i] = NULL;
	}
	(void)L->event_set_free(n->xid_set);
	n->xid_set = set;
	return kept > 0;
}

void nvml_xid_start(struct nvml *n)
{
	const struct nvml_lib *L = &n->lib;
	size_t registered = 0, refused = 0, healthy = 0;

	if (n->xid_set)
		return;
	if (!nvml_xid_available(L)) {
		if (!n->xid_said) {
			n->xid_said = true;
			nvml_note(n, "nvml: XID errors are not reported: this NVML library has no event calls");
		}
		return;
	}
	if (L->event_set_create(&n->xid_set) != NVML_SUCCESS) {
		n->xid_set = NULL;
		return;
	}
	free(n->xid_dev);
	n->xid_dev = xcalloc(n->ndev ? n->ndev : 1, sizeof(*n->xid_dev));
	n->nxid_dev = n->ndev;
	n->xid_next_ns = 0;
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
	if (!registered)
		nvml_xid_stop(n);
}

void nvml_xid_stop(struct nvml *n)
{
	if (!n->xid_set)
		return;
	(void)n->lib.event_set_free(n->xid_set);
	n->xid_set = NULL;
}

/* Adds one XID to f as an xid event of its GPU at position `at`. */
static void add_event(struct frame *f, size_t at, const nvmlEventData_t *d)
{
	const char *what = event_xid_meaning(d->eventData);
	struct event *e = what ? frame_note(f, EVENT_XID, "XID %llu: %s", d->eventData, what)
			       : frame_note(f, EVENT_XID, "XID %llu", d->eventData);

	if (!e)
		return;
	e->gpu_index = at;
	e->device_id = f->gpus[at].device_id;
	e->backend = frame_str(f, "nvml");
	e->xid = d->eventData;
	e->valid |= UINT64_C(1) << EVENT_F_GPU_INDEX | UINT64_C(1) << EVENT_F_DEVICE_ID | UINT64_C(1) << EVENT_F_BACKEND |
		    UINT64_C(1) << EVENT_F_XID;
	if (d->gpuInstanceId != NVML_EVENT_NO_INSTANCE) {
		e->gpu_instance = d->gpuInstanceId;
		e->valid |= UINT64_C(1) << EVENT_F_GPU_INSTANCE;
	}
}

void nvml_xid_poll(struct nvml *n, struct frame *f, const size_t *frame_index)
{
	bool rebuilt = false;

	if (!n->xid_set || (n->xid_next_ns && clock_mono_ns() < n->xid_next_ns))
		return;
	for (size_t k = 0; k < NVML_XID_PER_POLL;) {
		/* The older wait fills no instance ids, which stay "none". */
		nvmlEventData_t d = {.gpuInstanceId = NVML_EVENT_NO_INSTANCE, .computeInstanceId = NVML_EVENT_NO_INSTANCE};
		nvmlReturn_t r = n->lib.event_set_wait(n->xid_set, &d, 0);
		if (r == NVML_ERROR_TIMEOUT)
			break; /* nothing more waits */
		if (r == NVML_SUCCESS) {
			k++;
			n->xid_backoff_ms = 0;
			if (!(d.eventType & nvmlEventTypeXidCriticalError))
				continue;
			for (size_t i = 0; i < n->nxid_dev && i < n->ndev; i++)
				if (n->xid_dev[i] && n->xid_dev[i] == d.device && frame_index[i] != SIZE_MAX)
					add_event(f, frame_index[i], &d);
			continue;
		}
		n->xid_failures++;
		if (!rebuilt && rebuild(n)) {
			rebuilt = true;
			continue;
		}
		n->xid_backoff_ms = n->xid_backoff_ms ? n->xid_backoff_ms * 2 : NVML_XID_BACKOFF_MIN_MS;
		if (n->xid_backoff_ms > NVML_XID_BACKOFF_MAX_MS)
			n->xid_backoff_ms = NVML_XID_BACKOFF_MAX_MS;
		n->xid_next_ns = clock_mono_ns() + n->xid_backoff_ms * UINT64_C(1000000);
		break;
	}
}
