/* event: the event field table. */
#include "model/event.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/process.h"
#include "util/utf8.h"

#define STR(k, m, b, len, h) {k, FIELD_STR, b, offsetof(struct event, m), 0, 0, len, NULL, 0, 0, NULL, h}
#define U64(k, m, b, lo, hi, h) {k, FIELD_U64, b, offsetof(struct event, m), lo, hi, 0, NULL, 0, 0, NULL, h}

const struct field EVENT_FIELDS[] = {
	STR("kind", kind, EVENT_F_KIND, 64, "gpu_lost, gpu_back, backend_lost, backend_back, signal, note"),
	U64("gpu_index", gpu_index, EVENT_F_GPU_INDEX, 0, 1023, "position of the GPU in the record"),
	STR("device_id", device_id, EVENT_F_DEVICE_ID, 128, "the GPU's stable identity"),
	STR("backend", backend, EVENT_F_BACKEND, 64, "backend name"),
	U64("pid", pid, EVENT_F_PID, 0, PROCESS_PID_MAX, "process id"),
	STR("signal", signal, EVENT_F_SIGNAL, 32, "signal name, e.g. SIGTERM"),
	STR("result", result, EVENT_F_RESULT, 256, "sent, refused, or the errno's name (ESRCH, EPERM, ...)"),
	STR("detail", detail, EVENT_F_DETAIL, 1024, "free text"),
};
const size_t EVENT_NFIELDS = sizeof(EVENT_FIELDS) / sizeof(EVENT_FIELDS[0]);

size_t event_describe(const struct event *e, char *out, size_t n)
{
	char tmp[1024];
	size_t len = 0;

#define PUT(...) \
	do { \
		if (len < sizeof(tmp)) { \
			int w = snprintf(tmp + len, sizeof(tmp) - len, __VA_ARGS__); \
			len = w < 0 ? len : len + (size_t)w; \
		} \
	} while (0)
	PUT("%s", event_has(e, EVENT_F_KIND) && e->kind ? e->kind : "event");
	if (event_has(e, EVENT_F_GPU_INDEX))
		PUT(" GPU %" PRIu64, e->gpu_index);
	if (event_has(e, EVENT_F_BACKEND) && e->backend)
		PUT(" (%s)", e->backend);
	if (event_has(e, EVENT_F_PID))
		PUT(" pid %" PRIu64, e->pid);
	if (event_has(e, EVENT_F_SIGNAL) && e->signal)
		PUT(" %s", e->signal);
	if (event_has(e, EVENT_F_RESULT) && e->result)
		PUT(" = %s", e->result);
	/* A detail that only repeats what the fields said is left out, such
	 * as "SIGTERM sent to pid 4242", gpur's own words for a signal sent. */
	char same[96] = "";
	if (event_has(e, EVENT_F_SIGNAL) && e->signal && event_has(e, EVENT_F_PID) && event_has(e, EVENT_F_RESULT) &&
	    e->result && strcmp(e->result, "sent") == 0)
		snprintf(same, sizeof(same), "%s sent to pid %" PRIu64, e->signal, e->pid);
	if (event_has(e, EVENT_F_DETAIL) && e->detail && !(same[0] && strcmp(e->detail, same) == 0))
		PUT(": %s", e->detail);
#undef PUT
	if (len >= sizeof(tmp))
		len = sizeof(tmp) - 1;
	len = utf8_trim(tmp, len, n - 1);
	memcpy(out, tmp, len);
	out[len] = '\0';
	return len;
}

bool event_is_bad(const struct event *e)
{
	return event_has(e, EVENT_F_KIND) && e->kind &&
	       (strcmp(e->kind, EVENT_GPU_LOST) == 0 || strcmp(e->kind, EVENT_BACKEND_LOST) == 0);
}
