/* fake_nvml: a libnvidia-ml.so.1 for tests and benchmarks, driven by a JSON
 * scenario ($FAKE_NVML_SCENARIO). It follows NVIDIA's documented protocols
 * (INSUFFICIENT_SIZE sizing, strict struct versions, reference-counted init)
 * so a bug in gpur shows up here as it would on a real driver.
 * Variants (compile-time): FAKE_MODERN (everything), FAKE_CUDA13 (without
 * the getters CUDA 13 deprecated), FAKE_LEGACY (old entry points only),
 * FAKE_CC32 (the 32-byte _v3 process stride), FAKE_WRONG32 (32-byte _v3
 * entries from a library whose symbols say 24), FAKE_MINIMAL (the five
 * required symbols). See tests/fake-nvml/README.md for the scenario format. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#include "fake_nvml_priv.h"

struct fake_state S = {.mu = PTHREAD_MUTEX_INITIALIZER};

static const char *const ERRORS[] = {
	[0] = "Success", [1] = "Uninitialized", [2] = "Invalid Argument", [3] = "Not Supported",
	[4] = "Insufficient Permissions", [5] = "Already Initialized", [6] = "Not Found",
	[7] = "Insufficient Size", [8] = "Insufficient External Power", [9] = "Driver Not Loaded",
	[10] = "Timeout", [11] = "Interrupt request issue", [12] = "NVML Shared Library Not Found",
	[13] = "Function Not Found", [14] = "Corrupted infoROM", [15] = "GPU is lost",
	[16] = "GPU requires restart", [17] = "The operating system has blocked the request.",
	[18] = "RM has detected an NVML/RM version mismatch.", [19] = "In use by another client",
	[20] = "Insufficient Memory", [21] = "No data", [25] = "Argument version mismatch",
};

/* Call counts: one per (entry point, device), written as lines
 * "ENTRY_POINT DEVICE COUNT" (DEVICE: the GPU index, GPU/mig<slot> for a
 * MIG instance, - for none) to $FAKE_NVML_CALLS at every nvmlShutdown and
 * when the library is unloaded. */
struct call_count {
	const char *fn;
	int gpu, mig;
	unsigned long n;
};
#define MAX_CALL_COUNTS 8192
static struct call_count calls[MAX_CALL_COUNTS];
static size_t ncalls;
static int calls_on = -1; /* -1: $FAKE_NVML_CALLS not looked at yet */
/* The entry point this thread is running and whether it has been counted
 * yet. They are the thread's own, because some calls let go of the lock
 * while they sleep or wait (a hang, the PCIe sample, nvmlEventSetWait) and
 * another thread's call runs meanwhile. The initial-exec model puts them in
 * the static TLS block: LeakSanitizer's scan at exit crashed on a thread
 * left hung inside the library with them in dynamic TLS. */
static _Thread_local const char *call_fn __attribute__((tls_model("initial-exec")));
static _Thread_local bool call_counted __attribute__((tls_model("initial-exec")));

void calls_begin(const char *fn)
{
	if (calls_on < 0)
		calls_on = getenv("FAKE_NVML_CALLS") != NULL;
	call_fn = fn;
	call_counted = false;
}

void calls_count(const struct fdev *d)
{
	int gpu = d ? d->gpu : -1, mig = d ? d->mig : -1;

	if (!calls_on || call_counted || !call_fn)
		return;
	call_counted = true;
	for (size_t i = 0; i < ncalls; i++)
		if (calls[i].fn == call_fn && calls[i].gpu == gpu && calls[i].mig == mig) {
			calls[i].n++;
			return;
		}
	if (ncalls < MAX_CALL_COUNTS)
		calls[ncalls++] = (struct call_count){call_fn, gpu, mig, 1};
}

void calls_end(void)
{
	calls_count(NULL);
	call_fn = NULL;
}

static void calls_write(void)
{
	const char *path = getenv("FAKE_NVML_CALLS");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (!f)
		return;
	for (size_t i = 0; i < ncalls; i++) {
		if (calls[i].gpu < 0)
			fprintf(f, "%s - %lu\n", calls[i].fn, calls[i].n);
		else if (calls[i].mig < 0)
			fprintf(f, "%s %d %lu\n", calls[i].fn, calls[i].gpu, calls[i].n);
		else
			fprintf(f, "%s %d/mig%d %lu\n", calls[i].fn, calls[i].gpu, calls[i].mig, calls[i].n);
	}
	gpm_calls_write(f);
	events_calls_write(f);
	fclose(f);
}

EXPORT const char *nvmlErrorString(nvmlReturn_t r)
{
	if (r >= 0 && (size_t)r < sizeof(ERRORS) / sizeof(ERRORS[0]) && ERRORS[r])
		return ERRORS[r];
	return "Unknown Error";
}

static void parse_procs(json_t *arr, struct fdev *d)
{
	size_t n = json_is_array(arr) ? json_array_size(arr) : 0;

	d->procs = calloc(n ? n : 1, sizeof(*d->procs));
	d->nprocs = n;
	for (size_t i = 0; i < n; i++) {
		json_t *p = json_array_get(arr, i);
		struct fproc *fp = &d->procs[i];
		const char *t = json_string_value(json_object_get(p, "type"));
		fp->pid = (unsigned)json_integer_value(json_object_get(p, "pid"));
		fp->type = !t || !strcmp(t, "compute") ? 1 : !strcmp(t, "graphics") ? 2 : !strcmp(t, "both") ? 3 : 4;
		fp->mem = json_object_get(p, "mem");
		fp->sm = json_object_get(p, "sm");
		fp->memutil = json_object_get(p, "mem_util");
		fp->enc = json_object_get(p, "enc");
		fp->dec = json_object_get(p, "dec");
		json_t *w = json_object_get(p, "polls");
		fp->from_poll = json_is_array(w) ? (unsigned long)json_integer_value(json_array_get(w, 0)) : 0;
		fp->to_poll = json_is_array(w) ? (unsigned long)json_integer_value(json_array_get(w, 1)) : (unsigned long)-1;
	}
}

/* The scenario lives as long as the library: freed when it is unloaded. */
__attribute__((destructor)) static void unload(void)
{
	/* A caller's thread may still be inside a hung call at exit: the lock
	 * is taken and kept, so it never touches what is freed here. */
	pthread_mutex_lock(&S.mu);
	calls_write();
	for (size_t i = 0; i < S.ngpus; i++) {
		free(S.gpus[i].procs);
		for (size_t m = 0; m < S.nmig[i]; m++)
			free(S.migs[i][m].procs);
	}
	json_decref(S.root);
	S.root = NULL;
}

static void load(void)
{
	const char *path = getenv("FAKE_NVML_SCENARIO");
	json_error_t err;

	if (S.loaded)
		return;
	S.loaded = true;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	S.loaded_ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	S.root = path ? json_load_file(path, 0, &err) : NULL;
	if (!S.root) {
		fprintf(stderr, "fake_nvml: cannot load scenario %s: %s\n", path ? path : "(FAKE_NVML_SCENARIO unset)",
			path ? err.text : "");
		S.root = json_object();
	}
	json_t *gpus = json_object_get(S.root, "gpus");
	S.ngpus = json_is_array(gpus) ? json_array_size(gpus) : 0;
	if (S.ngpus > MAX_GPUS)
		S.ngpus = MAX_GPUS;
	for (size_t i = 0; i < S.ngpus; i++) {
		struct fdev *d = &S.gpus[i];
		d->gpu = (int)i;
		d->mig = -1;
		d->j = json_array_get(gpus, i);
		parse_procs(json_object_get(d->j, "processes"), d);
		json_t *mig = json_object_get(d->j, "mig");
		S.nmig[i] = json_is_array(mig) ? json_array_size(mig) : 0;
		if (S.nmig[i] > MAX_MIG)
			S.nmig[i] = MAX_MIG;
		for (size_t m = 0; m < S.nmig[i]; m++) {
			struct fdev *md = &S.migs[i][m];
			md->gpu = (int)i;
			md->mig = (int)m;
			md->j = json_array_get(mig, m);
			parse_procs(json_object_get(md->j, "processes"), md);
		}
	}
}


/* "begin CALL MS" / "end CALL MS" (wall clock, ms) to $FAKE_NVML_HANG_LOG:
 * tests see when a hang began and whether it ever ended (a process that
 * exits during the hang never writes "end"). */
static void hang_log(const char *what, const char *call)
{
	const char *path = getenv("FAKE_NVML_HANG_LOG");
	struct timespec now;
	char line[160];

	if (!path)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	int n = snprintf(line, sizeof(line), "%s %s %lld\n", what, call,
			 (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (n > 0 && write(fd, line, (size_t)n) != n) {
		/* a test that reads the log says what is missing */
	}
	close(fd);
}

static void maybe_hang(const char *call)
{
	json_t *h = json_object_get(S.root, "hang");
	const char *c = json_string_value(json_object_get(h, "call"));

	if (!h || S.hang_done || !c || strcmp(c, call) || (long long)S.polls < jint(h, "poll", 1))
		return;
	S.hang_done = true;
	long long ms = jint(h, "ms", 1000);
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	pthread_mutex_unlock(&S.mu);
	hang_log("begin", call);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	hang_log("end", call);
	pthread_mutex_lock(&S.mu);
}

/* Library-level state: UNINITIALIZED, or a scripted whole-library failure. */
nvmlReturn_t lib_state(void)
{
	if (S.inits <= 0)
		return NVML_ERROR_UNINITIALIZED;
	json_t *f = json_object_get(S.root, "library_fail");
	if (f && (long long)S.polls >= jint(f, "poll", 1 << 30)) {
		if (!S.lib_fail_since_init)
			S.lib_fail_since_init = S.successful_inits + 1;
		long long inits = jint(f, "inits", -1);
		if (inits < 0 || (long long)(S.successful_inits + 1 - S.lib_fail_since_init) < inits)
			return (nvmlReturn_t)jint(f, "code", NVML_ERROR_DRIVER_NOT_LOADED);
	}
	return NVML_SUCCESS;
}

struct fdev *dev_of(nvmlDevice_t h)
{
	return (struct fdev *)h;
}

/* Checks the handle and the GPU's scripted loss. */
nvmlReturn_t dev_state(nvmlDevice_t h)
{
	nvmlReturn_t r = lib_state();
	if (r)
		return r;
	if (!h)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct fdev *d = dev_of(h);
	calls_count(d);
	json_t *g = S.gpus[d->gpu].j;
	long long at = jint(g, "lost_at_poll", -1);
	if (at >= 0 && (long long)S.polls >= at) {
		if (!S.lost_since_init[d->gpu])
			S.lost_since_init[d->gpu] = S.successful_inits + 1;
		long long inits = jint(g, "lost_for_inits", -1);
		if (inits < 0 || (long long)(S.successful_inits + 1 - S.lost_since_init[d->gpu]) < inits)
			return jint(g, "lost_code", NVML_ERROR_GPU_IS_LOST);
	}
	return NVML_SUCCESS;
}


/* init_errors: the n-th call to nvmlInit returns init_errors[n] when that is
 * not 0; init_error: every call fails with it. */
static nvmlReturn_t do_init(void)
{
	static size_t calls;
	size_t n = calls++;

	load();
	json_t *errs = json_object_get(S.root, "init_errors");
	if (json_is_array(errs) && n < json_array_size(errs) && json_integer_value(json_array_get(errs, n)))
		return (nvmlReturn_t)json_integer_value(json_array_get(errs, n));
	if (jint(S.root, "init_error", 0))
		return (nvmlReturn_t)jint(S.root, "init_error", 0);
	S.inits++;
	S.successful_inits++;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlInit(void) { LOCKED(do_init()); }
#ifdef HAVE_NEW
EXPORT nvmlReturn_t nvmlInit_v2(void) { LOCKED(do_init()); }
EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { (void)flags; LOCKED(do_init()); }
#endif
#ifdef FAKE_MINIMAL
EXPORT nvmlReturn_t nvmlInit_v2(void) { LOCKED(do_init()); }
#endif

static nvmlReturn_t do_shutdown(void)
{
	if (S.inits <= 0)
		return NVML_ERROR_UNINITIALIZED;
	S.inits--;
	calls_count(NULL);
	calls_write();
	events_shutdown();
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlShutdown(void) { LOCKED(do_shutdown()); }

static nvmlReturn_t do_count(unsigned int *n)
{
	nvmlReturn_t r;
	if (S.inits > 0) {
		S.polls++;
		events_wake();
	}
	if ((r = lib_state()))
		return r;
	if (!n)
		return NVML_ERROR_INVALID_ARGUMENT;
	maybe_hang("nvmlDeviceGetCount");
	*n = (unsigned)S.ngpus;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *n) { LOCKED(do_count(n)); }
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) { LOCKED(do_count(n)); }

static nvmlReturn_t do_handle(unsigned int i, nvmlDevice_t *h)
{
	nvmlReturn_t r = lib_state();
	if (r)
		return r;
	if (!h || i >= S.ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	/* "handle_error": e.g. NO_PERMISSION (4) for a GPU that GetCount
	 * counts but this process may not open (cgroup device rules). */
	long long e = jint(S.gpus[i].j, "handle_error", 0);
	calls_count(&S.gpus[i]);
	if (e)
		return (nvmlReturn_t)e;
	*h = (nvmlDevice_t)&S.gpus[i];
	return dev_state(*h);
}
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *h) { LOCKED(do_handle(i, h)); }
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *h) { LOCKED(do_handle(i, h)); }

#ifdef HAVE_GETTERS
/* Reads scenario key `key` of the device (a MIG instance's own key first). */
nvmlReturn_t get_u64(nvmlDevice_t h, const char *key, const char *ns, unsigned long long *out)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct fdev *d = dev_of(h);
	if ((r = refusal(d, ns)))
		return r;
	maybe_hang(key);
	json_t *v = json_object_get(d->j, key);
	if (!v && d->mig >= 0)
		return NVML_ERROR_NOT_SUPPORTED;
	return value_at(v, out) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

static nvmlReturn_t get_uint(nvmlDevice_t h, const char *key, const char *ns, unsigned int *out)
{
	unsigned long long v = 0;
	nvmlReturn_t r = out ? get_u64(h, key, ns, &v) : NVML_ERROR_INVALID_ARGUMENT;
	if (r == NVML_SUCCESS)
		*out = (unsigned int)v;
	return r;
}

static nvmlReturn_t get_str(nvmlDevice_t h, const char *key, const char *dflt, char *buf, unsigned len)
{
	nvmlReturn_t r = dev_state(h);
	if (r)
		return r;
	if (!buf)
		return NVML_ERROR_INVALID_ARGUMENT;
	const char *s = json_string_value(json_object_get(dev_of(h)->j, key));
	if (!s)
		s = dflt;
	if (strlen(s) + 1 > len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buf, s, strlen(s) + 1);
	return NVML_SUCCESS;
}

static nvmlReturn_t do_name(nvmlDevice_t h, char *buf, unsigned len)
{
	struct fdev *d = dev_of(h);
	if (h && d->mig >= 0 && dev_state(h) == NVML_SUCCESS) {
		char name[160];
		const char *g = json_string_value(json_object_get(S.gpus[d->gpu].j, "name"));
		const char *p = json_string_value(json_object_get(d->j, "profile"));
		snprintf(name, sizeof(name), "%s MIG %s", g ? g : "NVIDIA Graphics Device", p ? p : "1g.5gb");
		if (!buf || strlen(name) + 1 > len)
			return buf ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_ERROR_INVALID_ARGUMENT;
		memcpy(buf, name, strlen(name) + 1);
		return NVML_SUCCESS;
	}
	return get_str(h, "name", "NVIDIA Graphics Device", buf, len);
}
EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *buf, unsigned int len) { LOCKED(do_name(h, buf, len)); }
EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char *buf, unsigned int len)
{
	LOCKED(get_str(h, "uuid", "GPU-00000000-0000-0000-0000-000000000000", buf, len));
}

/* The layout the plain and _v2 entry points fill: a 16-byte bus id at
 * offset 0, then the numbers and four reserved words: 52 bytes. */
struct old_pci_info {
	char busId[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	unsigned int reserved[4];
};
_Static_assert(sizeof(struct old_pci_info) == 52, "the old nvmlPciInfo_t is 52 bytes");

static nvmlReturn_t do_pci(nvmlDevice_t h, void *out, bool old)
{
	nvmlReturn_t r = dev_state(h);
	unsigned dom = 0, bus = 0, dev = 0;
	if (r)
		return r;
	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = refusal(dev_of(h), "pci")))
		return r;
	const char *s = json_string_value(json_object_get(S.gpus[dev_of(h)->gpu].j, "pci"));
	if (!s || sscanf(s, "%x:%x:%x", &dom, &bus, &dev) != 3)
		return NVML_ERROR_NOT_SUPPORTED;
	if (old) {
		/* Only its own 52 bytes: the rest of a bigger struct is left as
		 * the caller had it. */
		struct old_pci_info o;
		memset(&o, 0, sizeof(o));
		snprintf(o.busId, sizeof(o.busId), "%04X:%02X:%02X.0", dom & 0xffff, bus, dev);
		o.domain = dom;
		o.bus = bus;
		o.device = dev;
		o.pciDeviceId = 0x20B010DE;
		memcpy(out, &o, sizeof(o));
		return NVML_SUCCESS;
	}
	nvmlPciInfo_t *pci = out;
	memset(pci, 0, sizeof(*pci));
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", dom & 0xffff, bus, dev);
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", dom, bus, dev);
	pci->domain = dom;
	pci->bus = bus;
	pci->device = dev;
	pci->pciDeviceId = 0x20B010DE;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t h, nvmlPciInfo_t *p) { LOCKED(do_pci(h, p, true)); }
#ifdef HAVE_NEW
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t h, nvmlPciInfo_t *p) { LOCKED(do_pci(h, p, true)); }
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvmlPciInfo_t *p) { LOCKED(do_pci(h, p, false)); }
#endif

static nvmlReturn_t do_pstate(nvmlDevice_t h, int *p)
{
	unsigned int v;
	nvmlReturn_t r = get_uint(h, "pstate", "pstate", &v);
	if (!r)
		*p = (int)v;
	return r;
}
EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t h, int *p) { LOCKED(do_pstate(h, p)); }

static nvmlReturn_t do_util(nvmlDevice_t h, nvmlUtilization_t *u)
{
	nvmlReturn_t r;
	if (!u)
		return NVML_ERROR_INVALID_ARGUMENT;
	/* GPU 0's utilisation is read once a poll, and only by polls (not by
	 * re-detection, which counts GPUs again): the machine's clock. */
	if (h && dev_of(h)->gpu == 0 && dev_of(h)->mig < 0)
		world_tick();
	if (h && dev_of(h)->mig < 0 && json_object_get(dev_of(h)->j, "mig") && !dev_state(h))
		return NVML_ERROR_NOT_SUPPORTED; /* "not currently supported" in MIG mode */
	if ((r = get_uint(h, "util", "util", &u->gpu)))
		return r;
	if (get_uint(h, "mem_util", "mem_util", &u->memory))
		u->memory = 0;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t *u) { LOCKED(do_util(h, u)); }

static nvmlReturn_t mem_common(nvmlDevice_t h, unsigned long long *total, unsigned long long *used,
			       unsigned long long *reserved)
{
	nvmlReturn_t r = get_u64(h, "mem_total", "memory", total);
	if (r)
		return r;
	if (get_u64(h, "mem_used", "memory", used))
		*used = 0;
	unsigned long long freed = world_freed(dev_of(h));
	*used = *used > freed ? *used - freed : 0;
	if (get_u64(h, "mem_reserved", "memory", reserved))
		*reserved = 0;
	return NVML_SUCCESS;
}

static nvmlReturn_t do_mem(nvmlDevice_t h, nvmlMemory_t *m)
{
	unsigned long long total, used, res;
	nvmlReturn_t r;
	if (!m)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = mem_common(h, &total, &used, &res)))
		return r;
	m->total = total;
	m->used = used + res; /* v1 counts the reserved memory as used */
	m->free = total - m->used;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m) { LOCKED(do_mem(h, m)); }

#ifdef HAVE_NEW
static nvmlReturn_t do_mem2(nvmlDevice_t h, nvmlMemory_v2_t *m)
{
	unsigned long long total, used, res;
	nvmlReturn_t r;
	if (!m)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (m->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if ((r = mem_common(h, &total, &used, &res)))
		return r;
	m->total = total;
	m->reserved = res;
	m->used = used;
	m->free = total - used - res;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t h, nvmlMemory_v2_t *m) { LOCKED(do_mem2(h, m)); }

static nvmlReturn_t do_tempv(nvmlDevice_t h, nvmlTemperature_t *t)
{
	unsigned long long v;
	nvmlReturn_t r;
	if (!t)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (t->version != nvmlTemperature_v1)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (t->sensorType != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = get_u64(h, "temp", "temp", &v)))
		return r;
	t->temperature = (int)v;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t h, nvmlTemperature_t *t) { LOCKED(do_tempv(h, t)); }


static nvmlReturn_t do_rpm(nvmlDevice_t h, nvmlFanSpeedInfo_t *f)
{
	unsigned int v;
	nvmlReturn_t r;
	if (!f)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (f->version != nvmlFanSpeedInfo_v1)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (f->fan != 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = get_uint(h, "fan_rpm", "fan_rpm", &v)))
		return r;
	f->speed = v;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetFanSpeedRPM(nvmlDevice_t h, nvmlFanSpeedInfo_t *f) { LOCKED(do_rpm(h, f)); }

EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t h, unsigned long long *e)
{
	LOCKED(get_u64(h, "energy_mj", "energy", e));
}
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t h, unsigned long long *v)
{
	LOCKED(get_u64(h, "throttle", "throttle", v));
}
static nvmlReturn_t do_cuda(int *v)
{
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	load();
	*v = (int)jint(S.root, "cuda", 12040);
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { LOCKED(do_cuda(v)); }
#endif /* HAVE_NEW */

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
	pthread_mutex_lock(&S.mu);
	load();
	if (v)
		*v = (int)jint(S.root, "cuda", 12040);
	pthread_mutex_unlock(&S.mu);
	return v ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

#ifdef HAVE_DEPRECATED
static nvmlReturn_t do_temp(nvmlDevice_t h, int sensor, unsigned int *t)
{
	if (sensor != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	return get_uint(h, "temp", "temp", t);
}
EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, int s, unsigned int *t) { LOCKED(do_temp(h, s, t)); }
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t h, unsigned long long *v)
{
	LOCKED(get_u64(h, "throttle", "throttle", v));
}
#endif

static nvmlReturn_t do_threshold(nvmlDevice_t h, int type, unsigned int *t)
{
	if (type == NVML_TEMPERATURE_THRESHOLD_SHUTDOWN)
		return get_uint(h, "temp_shutdown", "temp_shutdown", t);
	if (type == NVML_TEMPERATURE_THRESHOLD_SLOWDOWN)
		return get_uint(h, "temp_slowdown", "temp_slowdown", t);
	return NVML_ERROR_NOT_SUPPORTED;
}
EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t h, int type, unsigned int *t)
{
	LOCKED(do_threshold(h, type, t));
}
EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned int *p) { LOCKED(get_uint(h, "power_mw", "power", p)); }
EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t h, unsigned int *p)
{
	LOCKED(get_uint(h, "power_limit_mw", "power_limit", p));
}
EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t h, unsigned int *p) { LOCKED(get_uint(h, "fan_pct", "fan", p)); }

static nvmlReturn_t do_clock(nvmlDevice_t h, int type, unsigned int *c, bool max)
{
	if (type == NVML_CLOCK_GRAPHICS || type == NVML_CLOCK_SM)
		return get_uint(h, max ? "clock_gfx_max" : "clock_gfx", "clocks", c);
	if (type == NVML_CLOCK_MEM)
		return get_uint(h, max ? "clock_mem_max" : "clock_mem", "clocks", c);
	return NVML_ERROR_NOT_SUPPORTED;
}
EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, int t, unsigned int *c) { LOCKED(do_clock(h, t, c, false)); }
EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t h, int t, unsigned int *c) { LOCKED(do_clock(h, t, c, true)); }

static nvmlReturn_t do_codec(nvmlDevice_t h, const char *key, unsigned int *u, unsigned int *period)
{
	nvmlReturn_t r;
	if (!u || !period)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = get_uint(h, key, key, u)))
		return r;
	*period = 167000;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t h, unsigned int *u, unsigned int *p) { LOCKED(do_codec(h, "enc", u, p)); }
EXPORT nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t h, unsigned int *u, unsigned int *p) { LOCKED(do_codec(h, "dec", u, p)); }
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t h, unsigned int *v) { LOCKED(get_uint(h, "pcie_gen", "pcie", v)); }
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t h, unsigned int *v) { LOCKED(get_uint(h, "pcie_width", "pcie", v)); }
EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t h, unsigned int *v) { LOCKED(get_uint(h, "pcie_gen_max", "pcie", v)); }
EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t h, unsigned int *v) { LOCKED(get_uint(h, "pcie_width_max", "pcie", v)); }

static nvmlReturn_t do_pcie_tp(nvmlDevice_t h, int counter, unsigned int *v)
{
	nvmlReturn_t r = get_uint(h, counter == NVML_PCIE_UTIL_TX_BYTES ? "pcie_tx_kbs" : "pcie_rx_kbs", "pcie_throughput", v);
	/* The real call samples a byte counter for 20 ms. */
	if (r == NVML_SUCCESS && !jint(S.root, "fast_pcie", 0)) {
		struct timespec ts = {0, 20 * 1000000L};
		pthread_mutex_unlock(&S.mu);
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&S.mu);
	}
	return r;
}
EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t h, int c, unsigned int *v) { LOCKED(do_pcie_tp(h, c, v)); }

static nvmlReturn_t do_ecc(nvmlDevice_t h, int type, int counter, unsigned long long *v)
{
	if (type != NVML_MEMORY_ERROR_TYPE_UNCORRECTED || counter != NVML_VOLATILE_ECC)
		return NVML_ERROR_NOT_SUPPORTED;
	return get_u64(h, "ecc_uncorrected", "ecc", v);
}
EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t h, int t, int c, unsigned long long *v) { LOCKED(do_ecc(h, t, c, v)); }

static nvmlReturn_t do_driver(char *buf, unsigned len)
{
	load();
	const char *s = json_string_value(json_object_get(S.root, "driver"));
	if (!s)
		s = "550.54.15";
	if (!buf)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(s) + 1 > len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buf, s, strlen(s) + 1);
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int len) { LOCKED(do_driver(buf, len)); }
#endif /* HAVE_GETTERS */
