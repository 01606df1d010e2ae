/* event: the event field table. */
#include "model/event.h"

#define STR(k, m, b, len, h) {k, FIELD_STR, b, offsetof(struct event, m), 0, 0, len, NULL, 0, 0, NULL, h}
#define U64(k, m, b, lo, hi, h) {k, FIELD_U64, b, offsetof(struct event, m), lo, hi, 0, NULL, 0, 0, NULL, h}

const struct field EVENT_FIELDS[] = {
	STR("kind", kind, EVENT_F_KIND, 64, "gpu_lost, gpu_back, backend_lost, backend_back, signal, note"),
	U64("gpu_index", gpu_index, EVENT_F_GPU_INDEX, 0, 1023, "position of the GPU in the record"),
	STR("device_id", device_id, EVENT_F_DEVICE_ID, 128, "the GPU's stable identity"),
	STR("backend", backend, EVENT_F_BACKEND, 64, "backend name"),
	U64("pid", pid, EVENT_F_PID, 0, 4194304, "process id"),
	STR("signal", signal, EVENT_F_SIGNAL, 32, "signal name, e.g. SIGTERM"),
	STR("result", result, EVENT_F_RESULT, 256, "ok, or the error"),
	STR("detail", detail, EVENT_F_DETAIL, 1024, "free text"),
};
const size_t EVENT_NFIELDS = sizeof(EVENT_FIELDS) / sizeof(EVENT_FIELDS[0]);
