/* process: the process field table, in record key order. */
#include "model/process.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

#include "util/utf8.h"

const char *const PROCESS_KIND_NAMES[PROCESS_KIND__COUNT] = {"compute", "graphics", "both"};

#define STR(k, m, b, len, h) {k, FIELD_STR, b, offsetof(struct gpu_process, m), 0, 0, len, NULL, 0, 0, NULL, h}
#define U64(k, m, b, lo, hi, h) {k, FIELD_U64, b, offsetof(struct gpu_process, m), lo, hi, 0, NULL, 0, 0, NULL, h}
#define NUM(k, m, b, lo, hi, h) {k, FIELD_NUM, b, offsetof(struct gpu_process, m), lo, hi, 0, NULL, 0, 0, NULL, h}
#define NUMP(k, m, b, lo, hi, p, h) {k, FIELD_NUM, b, offsetof(struct gpu_process, m), lo, hi, 0, NULL, 0, 0, p, h}

const struct field PROCESS_FIELDS[] = {
	U64("pid", pid, PROC_F_PID, 0, PROCESS_PID_MAX, "process id (in the recording machine's pid namespace)"),
	U64("gpu_index", gpu_index, PROC_F_GPU_INDEX, 0, 1023, "position of the GPU in the record"),
	STR("name", name, PROC_F_NAME, 256, "comm"),
	STR("cmdline", cmdline, PROC_F_CMDLINE, PROCESS_CMDLINE_MAX, "arguments joined by spaces"),
	STR("user", user, PROC_F_USER, 256, "user name, else the numeric uid"),
	{"kind", FIELD_ENUM, PROC_F_KIND, offsetof(struct gpu_process, kind), 0, 0, 0,
	 PROCESS_KIND_NAMES, PROCESS_KIND__COUNT, FIELD_NOCASE, NULL, "compute, graphics or both"},
	NUMP("gpu_mem_bytes", gpu_mem_bytes, PROC_F_GPU_MEM, 0, FIELD_U64_MAX,
	     FIELD_PROM("gpur_process_gpu_memory_bytes", 1, GAUGE), "GPU memory used (bytes)"),
	NUMP("gpu_util_pct", gpu_util_pct, PROC_F_GPU_UTIL, 0, 100,
	     FIELD_PROM("gpur_process_gpu_util_percent", 1, GAUGE), "SM utilisation (%)"),
	NUM("mem_bw_pct", mem_bw_pct, PROC_F_MEM_BW, 0, 100, "memory bandwidth utilisation (%)"),
	NUM("enc_pct", enc_pct, PROC_F_ENC, 0, 100, "encoder utilisation (%)"),
	NUM("dec_pct", dec_pct, PROC_F_DEC, 0, 100, "decoder utilisation (%)"),
	NUM("cpu_pct", cpu_pct, PROC_F_CPU, 0, 1e6, "CPU (% of one core)"),
	NUM("host_mem_bytes", host_mem_bytes, PROC_F_HOST_MEM, 0, FIELD_U64_MAX, "resident set size (bytes)"),
	STR("container", container, PROC_F_CONTAINER, 256, "container (runtime:id or name)"),
	STR("container_name", container_name, PROC_F_CONTAINER_NAME, PROCESS_CONTAINER_NAME_MAX,
	    "container name (Docker, Podman or the kubelet)"),
	U64("container_pid", container_pid, PROC_F_CONTAINER_PID, 0, PROCESS_PID_MAX, "pid inside the container"),
	STR("pod", pod, PROC_F_POD, 256, "Kubernetes pod"),
	STR("pod_name", pod_name, PROC_F_POD_NAME, PROCESS_POD_NAME_MAX, "Kubernetes pod name"),
	STR("pod_namespace", pod_namespace, PROC_F_POD_NAMESPACE, PROCESS_POD_NAMESPACE_MAX, "Kubernetes namespace"),
	STR("unit", unit, PROC_F_UNIT, 256, "systemd unit or batch job"),
	U64("start_ms", start_ms, PROC_F_START, 0, FIELD_U64_MAX, "start time (ms since the epoch)"),
};
const size_t PROCESS_NFIELDS = sizeof(PROCESS_FIELDS) / sizeof(PROCESS_FIELDS[0]);

/* The original gpur's names (its process row) for fields of ours; its pid,
 * gpu_index, kind, gpu_util_pct, gpu_mem_bytes, user, cpu_pct,
 * host_mem_bytes and container are ours too. */
const struct field_alias PROCESS_ALIASES[] = {
	{"command", PROC_F_CMDLINE, 1},
};
const size_t PROCESS_NALIASES = sizeof(PROCESS_ALIASES) / sizeof(PROCESS_ALIASES[0]);

static const char *known(const struct gpu_process *p, enum process_field b, const char *s)
{
	return process_has(p, b) && s && *s ? s : NULL;
}

const char *process_label(const struct gpu_process *p, char *buf, size_t n)
{
	const char *s;

	if (known(p, PROC_F_POD_NAME, p->pod_name))
		return process_pod_text(p, buf, n);
	if ((s = known(p, PROC_F_CONTAINER_NAME, p->container_name)))
		return s;
	if ((s = known(p, PROC_F_CONTAINER, p->container)))
		return s;
	return known(p, PROC_F_POD, p->pod);
}

const char *process_pod_text(const struct gpu_process *p, char *buf, size_t n)
{
	const char *ns = known(p, PROC_F_POD_NAMESPACE, p->pod_namespace), *name = known(p, PROC_F_POD_NAME, p->pod_name);

	if (name)
		snprintf(buf, n, "%s%s%s", ns ? ns : "", ns ? "/" : "", name);
	else
		snprintf(buf, n, "%s", known(p, PROC_F_POD, p->pod) ? p->pod : "");
	return buf;
}

const char *process_short_name(const struct gpu_process *p, char *buf, size_t n)
{
	const char *s;

	if ((s = known(p, PROC_F_NAME, p->name)))
		return s;
	if (!(s = known(p, PROC_F_CMDLINE, p->cmdline)))
		return NULL;
	size_t len = strcspn(s, " ");
	for (size_t i = len; i > 0; i--)
		if (s[i - 1] == '/') {
			s += i;
			len -= i;
			break;
		}
	if (!len)
		return NULL;
	len = utf8_trim(s, len, n - 1); /* never half a character */
	memcpy(buf, s, len);
	buf[len] = '\0';
	return len ? buf : NULL;
}
