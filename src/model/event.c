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
	STR("kind", kind, EVENT_F_KIND, 64, "gpu_lost, gpu_back, backend_lost, backend_back, signal, note, xid"),
	U64("gpu_index", gpu_index, EVENT_F_GPU_INDEX, 0, 1023, "position of the GPU in the record"),
	STR("device_id", device_id, EVENT_F_DEVICE_ID, 128, "the GPU's stable identity"),
	STR("backend", backend, EVENT_F_BACKEND, 64, "backend name"),
	U64("pid", pid, EVENT_F_PID, 0, PROCESS_PID_MAX, "process id"),
	STR("signal", signal, EVENT_F_SIGNAL, 32, "signal name, e.g. SIGTERM"),
	STR("result", result, EVENT_F_RESULT, 256, "sent, refused, or the errno's name (ESRCH, EPERM, ...)"),
	STR("detail", detail, EVENT_F_DETAIL, 1024, "free text"),
	U64("xid", xid, EVENT_F_XID, 0, 1000000, "the XID of an xid event (999: one the driver does not know)"),
	U64("gpu_instance_id", gpu_instance, EVENT_F_GPU_INSTANCE, 0, 0xFFFFFFFEu,
	    "the MIG GPU instance an xid event is attributed to"),
};
const size_t EVENT_NFIELDS = sizeof(EVENT_FIELDS) / sizeof(EVENT_FIELDS[0]);

/* The detail of an event with an XID as a line shows it. The line names the
 * XID already, so a detail that starts with "XID N" for the same N keeps
 * only what follows the colon. When nothing is left, or there was no detail,
 * the meaning is gpur's own for that number, or none for one it does not
 * know. */
static const char *xid_detail(const struct event *e)
{
	char head[32];
	int n = snprintf(head, sizeof(head), "XID %" PRIu64, e->xid);
	const char *d = event_has(e, EVENT_F_DETAIL) ? e->detail : NULL;

	if (d && n > 0 && (size_t)n < sizeof(head) && strncmp(d, head, (size_t)n) == 0 &&
	    (d[n] == '\0' || d[n] == ':')) {
		d += n;
		d += strspn(d, ":");
		d += strspn(d, " ");
	}
	return d && *d ? d : event_xid_meaning(e->xid);
}

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
	if (event_has(e, EVENT_F_GPU_INSTANCE))
		PUT(" instance %" PRIu64, e->gpu_instance);
	if (event_has(e, EVENT_F_XID))
		PUT(" XID %" PRIu64, e->xid);
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
	const char *detail = event_has(e, EVENT_F_XID) ? xid_detail(e) : event_has(e, EVENT_F_DETAIL) ? e->detail : NULL;
	if (detail && !(same[0] && strcmp(detail, same) == 0))
		PUT(": %s", detail);
#undef PUT
	if (len >= sizeof(tmp))
		len = sizeof(tmp) - 1;
	len = utf8_trim(tmp, len, n - 1);
	memcpy(out, tmp, len);
	out[len] = '\0';
	return len;
}

const char *event_xid_meaning(uint64_t xid)
{
	/* The common ones, in NVIDIA's words shortened. */
	static const struct {
		uint64_t xid;
		const char *what;
	} known[] = {
		{13, "graphics engine exception (an application fault)"},
		{31, "GPU memory page fault (an application fault)"},
		{32, "invalid or corrupted push buffer stream"},
		{43, "GPU stopped processing (an application fault)"},
		{45, "preemptive cleanup after an earlier error"},
		{48, "double-bit ECC error"},
		{61, "internal micro-controller breakpoint"},
		{62, "internal micro-controller halt"},
		{63, "ECC page retirement or row remapping recorded"},
		{64, "ECC page retirement or row remapping failed"},
		{68, "video processor exception"},
		{69, "graphics engine class error"},
		{74, "NVLink error"},
		{79, "GPU has fallen off the bus"},
		{92, "high single-bit ECC error rate"},
		{94, "contained ECC error"},
		{95, "uncontained ECC error"},
		{109, "context switch timeout"},
		{119, "GSP RPC timeout"},
		{120, "GSP error"},
		{999, "an XID the driver does not know"},
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].xid == xid)
			return known[i].what;
	return NULL;
}

bool event_is_bad(const struct event *e)
{
	return event_has(e, EVENT_F_KIND) && e->kind &&
	       (strcmp(e->kind, EVENT_GPU_LOST) == 0 || strcmp(e->kind, EVENT_BACKEND_LOST) == 0 ||
		strcmp(e->kind, EVENT_XID) == 0);
}
