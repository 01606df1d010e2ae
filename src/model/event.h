/* event: something that happened during one poll (a GPU lost, a signal sent). */
#ifndef GPUR_EVENT_H
#define GPUR_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/field.h"

enum event_field {
	EVENT_F_KIND, EVENT_F_GPU_INDEX, EVENT_F_DEVICE_ID, EVENT_F_BACKEND, EVENT_F_PID,
	EVENT_F_SIGNAL, EVENT_F_RESULT, EVENT_F_DETAIL, EVENT_F_XID, EVENT_F_GPU_INSTANCE, EVENT_F__COUNT
};

/* The kinds gpur itself emits. A recording may carry others, which are kept
 * as strings. */
#define EVENT_GPU_LOST "gpu_lost"
#define EVENT_GPU_BACK "gpu_back"
#define EVENT_BACKEND_LOST "backend_lost"
#define EVENT_BACKEND_BACK "backend_back"
#define EVENT_SIGNAL "signal"
#define EVENT_NOTE "note"
/* An XID error the driver reported (NVML's XID critical error events). */
#define EVENT_XID "xid"

struct event {
	uint64_t valid;
	const char *kind;
	uint64_t gpu_index;
	const char *device_id, *backend;
	uint64_t pid;
	const char *signal, *result, *detail;
	uint64_t xid;          /* the XID of an xid event */
	uint64_t gpu_instance; /* the MIG GPU instance an xid event is attributed to */
};

/* A short meaning of a common XID from NVIDIA's XID catalogue, or NULL. */
const char *event_xid_meaning(uint64_t xid);

extern const struct field EVENT_FIELDS[];
extern const size_t EVENT_NFIELDS;

static inline bool event_has(const struct event *e, enum event_field f)
{
	return (e->valid >> f) & 1u;
}

/* Describes e in one line for humans, the same on the dashboard's events line,
 * under the --once table and in the report: "kind GPU i (backend) instance
 * G XID N pid P SIGNAL = result: detail", where each part appears only when
 * it is known. An xid event's detail loses a leading "XID N" the line has
 * said already, and one without a detail gets gpur's meaning of N. The line is written
 * NUL-terminated into out (of size n > 0) and cut before a character that
 * does not fit. It is not made inert, because the text is the recording's;
 * the caller strips control characters before a terminal sees it. Returns
 * the line's length. */
size_t event_describe(const struct event *e, char *out, size_t n);
/* True for gpu_lost, backend_lost and xid, the kinds worth a warning colour. */
bool event_is_bad(const struct event *e);

#endif
