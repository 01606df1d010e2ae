/* check_gpm_events: the fake NVML's GPM and XID events, shown by example.
 * It is not part of ctest; build and run it by hand against the built fakes:
 *   gcc -std=gnu11 -g -fsanitize=address,undefined -Isrc \
 *       tests/fake-nvml/check_gpm_events.c -o /tmp/check_gpm_events -ldl -lpthread
 *   /tmp/check_gpm_events build/tests/fake-nvml
 * It writes its own scenario, loads the modern, wrong32, legacy and minimal
 * variants with dlopen and exits 0 when every check holds. */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/nvml_abi.h"

static int failures;

static void fail(int line, const char *what)
{
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, line, what);
	failures++;
}

static void eq(int line, const char *what, long long a, long long b)
{
	if (a != b) {
		fprintf(stderr, "%s:%d: %s is %lld, not %lld\n", __FILE__, line, what, a, b);
		failures++;
	}
}
#define CHECK(cond) ((cond) ? (void)0 : fail(__LINE__, #cond))
#define EQ(a, b) eq(__LINE__, #a, (long long)(a), (long long)(b))

static const char SCENARIO[] =
	"{\"gpus\": ["
	" {\"name\": \"H100\","
	"  \"gpm\": {\"gr\": 40, \"sm\": [10, 20, 30, 40], \"occupancy\": {\"start\": 5, \"step\": 1},"
	"           \"tensor\": \"nan\", \"dram\": 12.5, \"pcie_tx_mibs\": 1000, \"pcie_rx_mibs\": 2000,"
	"           \"nvlink_rx_mibs\": 3, \"nvlink_tx_mibs\": 4},"
	"  \"errors\": {\"gpm:61\": 999},"
	"  \"xid\": [{\"poll\": 5, \"xid\": 79}, {\"poll\": 7, \"xid\": 31, \"gi\": 1, \"ci\": 0}, {\"poll\": 9, \"xid\": 999}],"
	"  \"mig\": [{\"gi\": 1, \"ci\": 0, \"gpm\": {\"sm\": 33}}, {\"gi\": 2, \"ci\": 0}]},"
	" {\"name\": \"A100\", \"not_supported\": [\"events\"]},"
	" {\"name\": \"doomed\", \"gpm\": {\"sm\": 1}, \"lost_at_poll\": 12}"
	"]}";

/* The entry points, looked up in one variant. */
static struct {
	void *lib;
	nvmlReturn_t (*init)(void), (*shutdown)(void), (*count)(unsigned *);
	nvmlReturn_t (*handle)(unsigned, nvmlDevice_t *), (*mig_handle)(nvmlDevice_t, unsigned, nvmlDevice_t *);
	nvmlReturn_t (*support)(nvmlDevice_t, nvmlGpmSupport_t *), (*alloc)(nvmlGpmSample_t *);
	nvmlReturn_t (*sfree)(nvmlGpmSample_t), (*sample)(nvmlDevice_t, nvmlGpmSample_t);
	nvmlReturn_t (*mig_sample)(nvmlDevice_t, unsigned, nvmlGpmSample_t), (*metrics)(nvmlGpmMetricsGet_t *);
	nvmlReturn_t (*create)(nvmlEventSet_t *), (*efree)(nvmlEventSet_t);
	nvmlReturn_t (*types)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*reg)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
	nvmlReturn_t (*wait)(nvmlEventSet_t, nvmlEventData_t *, unsigned), (*wait_v1)(nvmlEventSet_t, nvmlEventData_t *, unsigned);
} N;

static char dir[] = "/tmp/check_gpm_events.XXXXXX", calls_path[300], gpm_log_path[300];

static void load(const char *fakes, const char *variant)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s/libnvidia-ml.so.1", fakes, variant);
	memset(&N, 0, sizeof(N));
	N.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!N.lib) {
		fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
		exit(2);
	}
#define SYM(field, name) (*(void **)&N.field = dlsym(N.lib, name))
	SYM(init, "nvmlInit"), SYM(shutdown, "nvmlShutdown"), SYM(count, "nvmlDeviceGetCount");
	SYM(handle, "nvmlDeviceGetHandleByIndex"), SYM(mig_handle, "nvmlDeviceGetMigDeviceHandleByIndex");
	SYM(support, "nvmlGpmQueryDeviceSupport"), SYM(alloc, "nvmlGpmSampleAlloc"), SYM(sfree, "nvmlGpmSampleFree");
	SYM(sample, "nvmlGpmSampleGet"), SYM(mig_sample, "nvmlGpmMigSampleGet"), SYM(metrics, "nvmlGpmMetricsGet");
	SYM(create, "nvmlEventSetCreate"), SYM(efree, "nvmlEventSetFree");
	SYM(types, "nvmlDeviceGetSupportedEventTypes"), SYM(reg, "nvmlDeviceRegisterEvents");
	SYM(wait, "nvmlEventSetWait_v2"), SYM(wait_v1, "nvmlEventSetWait");
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void poll_once(void)
{
	unsigned n;
	EQ(N.count(&n), NVML_SUCCESS);
}

/* Whether FILE has a line equal to LINE, or beginning with it when prefix. */
static int has_line(const char *file, const char *line, int prefix, char *found, size_t len)
{
	char buf[256];
	FILE *f = fopen(file, "r");
	int yes = 0;
	while (f && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (prefix ? !strncmp(buf, line, strlen(line)) : !strcmp(buf, line)) {
			yes = 1;
			if (found)
				snprintf(found, len, "%s", buf);
		}
	}
	if (f)
		fclose(f);
	return yes;
}

static void check_gpm(nvmlDevice_t h0, nvmlDevice_t h1, nvmlDevice_t h2, nvmlDevice_t m0, nvmlDevice_t m1)
{
	nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
	nvmlGpmSample_t a = NULL, b = NULL, c = NULL;
	static nvmlGpmMetricsGet_t mg;
	char line[256];

	/* Support, with a strict version. */
	EQ(N.support(h0, NULL), NVML_ERROR_INVALID_ARGUMENT);
	sup.version = 2;
	EQ(N.support(h0, &sup), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	sup.version = NVML_GPM_SUPPORT_VERSION;
	CHECK(N.support(h0, &sup) == NVML_SUCCESS && sup.isSupportedDevice == 1);
	CHECK(N.support(h1, &sup) == NVML_SUCCESS && sup.isSupportedDevice == 0);
	CHECK(N.support(m0, &sup) == NVML_SUCCESS && sup.isSupportedDevice == 1);
	CHECK(N.support(m1, &sup) == NVML_SUCCESS && sup.isSupportedDevice == 0);

	/* Samples: allocated, freed once, never an unknown pointer. */
	EQ(N.alloc(NULL), NVML_ERROR_INVALID_ARGUMENT);
	CHECK(!N.alloc(&a) && !N.alloc(&b) && !N.alloc(&c));
	EQ(N.sfree((nvmlGpmSample_t)&sup), NVML_ERROR_INVALID_ARGUMENT);
	EQ(N.sfree(c), NVML_SUCCESS);
	EQ(N.sfree(c), NVML_ERROR_INVALID_ARGUMENT);
	EQ(N.sample(h1, a), NVML_ERROR_NOT_SUPPORTED);
	EQ(N.sample(h0, (nvmlGpmSample_t)&sup), NVML_ERROR_INVALID_ARGUMENT);

	/* Metrics need two filled samples of one device, the second later. */
	mg = (nvmlGpmMetricsGet_t){.version = NVML_GPM_METRICS_GET_VERSION, .numMetrics = 1, .sample1 = a, .sample2 = b};
	mg.metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
	EQ(N.metrics(&mg), NVML_ERROR_INVALID_ARGUMENT);
	EQ(N.sample(h0, a), NVML_SUCCESS);
	sleep_ms(150);
	poll_once(); /* poll 2: values show index 1 */
	EQ(N.sample(h0, b), NVML_SUCCESS);
	EQ(N.metrics(NULL), NVML_ERROR_INVALID_ARGUMENT);
	mg.version = 2;
	EQ(N.metrics(&mg), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	mg.version = NVML_GPM_METRICS_GET_VERSION;
	mg.numMetrics = 0;
	EQ(N.metrics(&mg), NVML_ERROR_INVALID_ARGUMENT);
	mg.numMetrics = NVML_GPM_METRIC_MAX + 1;
	EQ(N.metrics(&mg), NVML_ERROR_INVALID_ARGUMENT);
	mg.numMetrics = 1;
	mg.sample1 = b, mg.sample2 = a;
	EQ(N.metrics(&mg), NVML_ERROR_INVALID_ARGUMENT); /* sample2 earlier */
	mg.sample1 = mg.sample2 = b;
	EQ(N.metrics(&mg), NVML_ERROR_INVALID_ARGUMENT); /* not later */

	/* A window over 100 ms: the scenario's values at sample2's poll. */
	static const unsigned ids[] = {1, 2, 3, 5, 10, 11, 20, 21, 60, 61, 14, 4, 300};
	mg.sample1 = a, mg.sample2 = b;
	mg.numMetrics = sizeof(ids) / sizeof(ids[0]);
	for (unsigned i = 0; i < mg.numMetrics; i++)
		mg.metrics[i].metricId = ids[i];
	unlink(gpm_log_path);
	EQ(N.metrics(&mg), NVML_SUCCESS);
	CHECK(mg.metrics[0].nvmlReturn == NVML_SUCCESS && mg.metrics[0].value == 40.0);
	CHECK(mg.metrics[1].value == 20.0);                     /* ["sm"][1] */
	CHECK(mg.metrics[2].value == 6.0);                      /* 5 + 1 x 1 */
	CHECK(mg.metrics[3].nvmlReturn == 0 && isnan(mg.metrics[3].value)); /* "nan" */
	CHECK(mg.metrics[4].value == 12.5);
	EQ(mg.metrics[5].nvmlReturn, NVML_ERROR_NOT_SUPPORTED); /* no "fp64" */
	CHECK(mg.metrics[6].value == 1000.0 && mg.metrics[7].value == 2000.0);
	CHECK(mg.metrics[8].nvmlReturn == 0 && mg.metrics[8].value == 3.0);
	EQ(mg.metrics[9].nvmlReturn, 999);                      /* "errors": {"gpm:61": 999} */
	EQ(mg.metrics[10].nvmlReturn, NVML_ERROR_INVALID_ARGUMENT); /* 14: no such id */
	EQ(mg.metrics[11].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);    /* 4: known, not here */
	EQ(mg.metrics[12].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);    /* 300 < 333 */
	CHECK(mg.metrics[1].metricInfo.shortName && mg.metrics[1].metricInfo.unit &&
	      !strcmp(mg.metrics[1].metricInfo.unit, "%"));
	CHECK(has_line(gpm_log_path, "window ", 1, line, sizeof(line)) && atoll(line + 7) > 100000000LL);

	/* 100 ms or less: every value NaN, and the log says so. */
	CHECK(!N.sample(h0, a) && !N.sample(h0, b));
	mg.numMetrics = 2;
	EQ(N.metrics(&mg), NVML_SUCCESS);
	CHECK(!mg.metrics[0].nvmlReturn && isnan(mg.metrics[0].value) && !mg.metrics[1].nvmlReturn &&
	      isnan(mg.metrics[1].value));
	CHECK(has_line(gpm_log_path, "short ", 1, line, sizeof(line)) && atoll(line + 6) <= 100000000LL);

	/* MIG: through the parent and a gi, or through the instance's handle. */
	EQ(N.mig_sample(h0, 7, a), NVML_ERROR_NOT_FOUND);
	EQ(N.mig_sample(h2, 1, a), NVML_ERROR_NOT_SUPPORTED);
	EQ(N.mig_sample(m0, 1, a), NVML_ERROR_INVALID_ARGUMENT);
	EQ(N.mig_sample(h0, 2, a), NVML_ERROR_NOT_SUPPORTED); /* gi 2 has no "gpm" */
	EQ(N.mig_sample(h0, 1, a), NVML_SUCCESS);
	sleep_ms(110);
	EQ(N.sample(m0, b), NVML_SUCCESS);
	mg.numMetrics = 2;
	mg.metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
	mg.metrics[1].metricId = NVML_GPM_METRIC_GRAPHICS_UTIL;
	EQ(N.metrics(&mg), NVML_SUCCESS);
	CHECK(mg.metrics[0].nvmlReturn == 0 && mg.metrics[0].value == 33.0);
	EQ(mg.metrics[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
	mg.sample1 = b, mg.sample2 = a;
	EQ(N.sample(h0, a), NVML_SUCCESS);
	EQ(N.metrics(&mg), NVML_ERROR_INVALID_ARGUMENT); /* b is the instance's, a the GPU's */

	CHECK(!N.sfree(a) && !N.sfree(b));
}

struct waiter {
	nvmlEventSet_t set;
	unsigned timeout;
	int polls; /* polls to make, 50 ms apart, instead of waiting */
	nvmlReturn_t r;
	nvmlEventData_t data;
	long long ms;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	long long t0 = now_ms();
	if (w->polls)
		for (int i = 0; i < w->polls; i++) {
			sleep_ms(50);
			poll_once();
		}
	else
		w->r = (N.wait ? N.wait : N.wait_v1)(w->set, &w->data, w->timeout);
	w->ms = now_ms() - t0;
	return NULL;
}

static void check_events(nvmlDevice_t h0, nvmlDevice_t h1, nvmlDevice_t h2, nvmlDevice_t m0)
{
	nvmlEventSet_t set = NULL, late = NULL, quiet = NULL;
	nvmlEventData_t d;
	unsigned long long types;
	pthread_t t;

	EQ(N.create(NULL), NVML_ERROR_INVALID_ARGUMENT);
	EQ(N.create(&set), NVML_SUCCESS);
	CHECK(N.types(h0, &types) == NVML_SUCCESS && (types & nvmlEventTypeXidCriticalError));
	CHECK(N.types(h1, &types) == NVML_SUCCESS && types == 0); /* "events" in "not_supported" */
	EQ(N.reg(h1, nvmlEventTypeXidCriticalError, set), NVML_ERROR_NOT_SUPPORTED);
	EQ(N.reg(m0, nvmlEventTypeXidCriticalError, set), NVML_ERROR_NOT_SUPPORTED);
	EQ(N.reg(h0, nvmlEventTypeXidCriticalError, NULL), NVML_ERROR_INVALID_ARGUMENT);
	EQ(N.reg(h0, 1ULL << 40, set), NVML_ERROR_NOT_SUPPORTED);
	EQ(N.reg(h0, nvmlEventTypeXidCriticalError, set), NVML_SUCCESS); /* at poll 2 */
	EQ(N.wait(set, NULL, 0), NVML_ERROR_INVALID_ARGUMENT);

	/* Nothing due: a real 200 ms wait, then TIMEOUT. */
	long long t0 = now_ms();
	EQ(N.wait(set, &d, 200), NVML_ERROR_TIMEOUT);
	CHECK(now_ms() - t0 >= 190);

	/* Another thread polls three times: XID 79 falls due at poll 5 and the
	 * waiter wakes at once, long before its 5 s. */
	struct waiter p = {.polls = 3};
	pthread_create(&t, NULL, waiter_main, &p);
	t0 = now_ms();
	EQ(N.wait(set, &d, 5000), NVML_SUCCESS);
	CHECK(now_ms() - t0 < 1000);
	pthread_join(t, NULL);
	CHECK(d.device == h0 && d.eventType == nvmlEventTypeXidCriticalError);
	EQ(d.eventData, 79);
	CHECK(d.gpuInstanceId == NVML_EVENT_NO_INSTANCE && d.computeInstanceId == NVML_EVENT_NO_INSTANCE);

	for (int i = 0; i < 4; i++)
		poll_once(); /* polls 6 to 9 */
	EQ(N.wait(set, &d, 0), NVML_SUCCESS);
	CHECK(d.eventData == 31 && d.gpuInstanceId == 1 && d.computeInstanceId == 0);
	CHECK(N.wait(set, &d, 0) == NVML_SUCCESS && d.eventData == 999);
	EQ(N.wait(set, &d, 0), NVML_ERROR_TIMEOUT);
	/* Registered at poll 9: the XID due at 9 came before, never delivered. */
	CHECK(!N.create(&late) && !N.reg(h0, nvmlEventTypeXidCriticalError, late));
	EQ(N.wait(late, &d, 0), NVML_ERROR_TIMEOUT);
	EQ(N.efree(late), NVML_SUCCESS);
	EQ(N.efree(late), NVML_ERROR_INVALID_ARGUMENT);

	/* GPU 2 is lost from poll 12: its set answers GPU_IS_LOST at once. */
	EQ(N.reg(h2, nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
	for (int i = 0; i < 3; i++)
		poll_once();
	t0 = now_ms();
	EQ(N.wait(set, &d, 5000), NVML_ERROR_GPU_IS_LOST);
	CHECK(now_ms() - t0 < 100);
	EQ(N.efree(set), NVML_SUCCESS);

	/* A set freed while a thread waits in it: the waiter wakes and answers
	 * INVALID_ARGUMENT (the real driver leaves this undefined). */
	EQ(N.create(&late), NVML_SUCCESS);
	struct waiter gone = {.set = late, .timeout = 10000};
	pthread_create(&t, NULL, waiter_main, &gone);
	sleep_ms(100);
	EQ(N.efree(late), NVML_SUCCESS);
	pthread_join(t, NULL);
	CHECK(gone.r == NVML_ERROR_INVALID_ARGUMENT && gone.ms < 1000);

	/* nvmlShutdown wakes a thread blocked in a wait. */
	CHECK(!N.create(&quiet) && !N.reg(h0, nvmlEventTypeXidCriticalError, quiet));
	struct waiter w = {.set = quiet, .timeout = 10000};
	pthread_create(&t, NULL, waiter_main, &w);
	sleep_ms(200);
	nvmlGpmSample_t leak;
	EQ(N.alloc(&leak), NVML_SUCCESS); /* left live at shutdown on purpose */
	EQ(N.shutdown(), NVML_SUCCESS);
	pthread_join(t, NULL);
	CHECK(w.r == NVML_ERROR_UNINITIALIZED && w.ms < 1000);
	EQ(N.wait(quiet, &d, 1000), NVML_ERROR_UNINITIALIZED);
	EQ(N.efree(quiet), NVML_ERROR_UNINITIALIZED); /* too late: it leaks */
	CHECK(has_line(calls_path, "gpm_samples_live - 1", 0, NULL, 0));
	CHECK(has_line(calls_path, "event_sets_live - 1", 0, NULL, 0));
	CHECK(has_line(calls_path, "nvmlEventSetWait_v2 - ", 1, NULL, 0));
	EQ(N.sfree(leak), NVML_SUCCESS); /* freeing needs no library */
}

static void open_gpus(nvmlDevice_t h[3])
{
	EQ(N.init(), NVML_SUCCESS);
	poll_once(); /* poll 1 */
	for (unsigned i = 0; i < 3; i++)
		EQ(N.handle(i, &h[i]), NVML_SUCCESS);
}

/* wrong32's driver knows 98 metrics: 99 is refused as a whole, and of 98
 * the 98th id (98) is unknown; nothing past them is written. */
static void check_wrong32(void)
{
	nvmlDevice_t h[3];
	nvmlGpmSample_t a = NULL, b = NULL;
	static nvmlGpmMetricsGet_t mg;

	open_gpus(h);
	CHECK(!N.alloc(&a) && !N.alloc(&b));
	EQ(N.sample(h[0], a), NVML_SUCCESS);
	sleep_ms(110);
	poll_once();
	EQ(N.sample(h[0], b), NVML_SUCCESS);
	mg = (nvmlGpmMetricsGet_t){.version = NVML_GPM_METRICS_GET_VERSION, .sample1 = a, .sample2 = b};
	for (unsigned i = 0; i < NVML_GPM_METRIC_MAX; i++)
		mg.metrics[i] = (nvmlGpmMetric_t){.metricId = i + 1, .nvmlReturn = -7};
	mg.numMetrics = NVML_GPM_METRIC_MAX_R520 + 1;
	EQ(N.metrics(&mg), NVML_ERROR_INVALID_ARGUMENT);
	mg.numMetrics = NVML_GPM_METRIC_MAX_R520;
	EQ(N.metrics(&mg), NVML_SUCCESS);
	CHECK(mg.metrics[1].nvmlReturn == 0 && mg.metrics[1].value == 20.0);
	EQ(mg.metrics[96].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);    /* id 97 */
	EQ(mg.metrics[97].nvmlReturn, NVML_ERROR_INVALID_ARGUMENT); /* id 98 */
	EQ(mg.metrics[98].nvmlReturn, -7);                          /* untouched */
	CHECK(!N.sfree(a) && !N.sfree(b) && !N.shutdown());
	CHECK(has_line(calls_path, "gpm_samples_live - 0", 0, NULL, 0));
}

/* legacy: no GPM, only the old wait, which fills the 24-byte layout. */
static void check_legacy(void)
{
	nvmlDevice_t h[3];
	nvmlEventSet_t set = NULL;
	nvmlEventData_t d;

	CHECK(!N.support && !N.alloc && !N.metrics && !N.wait && N.wait_v1);
	open_gpus(h);
	CHECK(!N.create(&set) && !N.reg(h[0], nvmlEventTypeXidCriticalError, set));
	for (int i = 0; i < 5; i++)
		poll_once(); /* poll 6: XID 79 due, 31 not yet */
	memset(&d, 0xAB, sizeof(d));
	EQ(N.wait_v1(set, &d, 1000), NVML_SUCCESS);
	CHECK(d.device == h[0] && d.eventData == 79 && d.gpuInstanceId == 0xABABABABu);
	/* A shutdown wakes a waiter even when the library is initialised again
	 * before the waiter runs; the set still works afterwards. */
	struct waiter w = {.set = set, .timeout = 10000};
	pthread_t t;
	pthread_create(&t, NULL, waiter_main, &w);
	sleep_ms(100);
	CHECK(!N.shutdown() && !N.init());
	pthread_join(t, NULL);
	CHECK(w.r == NVML_ERROR_UNINITIALIZED && w.ms < 1000);
	EQ(N.wait_v1(set, &d, 0), NVML_ERROR_TIMEOUT);
	CHECK(!N.efree(set) && !N.shutdown());
}

int main(int argc, char **argv)
{
	const char *fakes = argc > 1 ? argv[1] : "build/tests/fake-nvml";
	char path[300];
	nvmlDevice_t h[3], m0, m1;

	if (!mkdtemp(dir))
		return 2;
	snprintf(path, sizeof(path), "%s/scenario.json", dir);
	FILE *f = fopen(path, "w");
	if (!f || fputs(SCENARIO, f) < 0 || fclose(f))
		return 2;
	snprintf(calls_path, sizeof(calls_path), "%s/calls", dir);
	snprintf(gpm_log_path, sizeof(gpm_log_path), "%s/gpm.log", dir);
	setenv("FAKE_NVML_SCENARIO", path, 1);
	setenv("FAKE_NVML_CALLS", calls_path, 1);
	setenv("FAKE_NVML_GPM_LOG", gpm_log_path, 1);

	load(fakes, "modern");
	open_gpus(h);
	EQ(N.mig_handle(h[0], 0, &m0), NVML_SUCCESS);
	EQ(N.mig_handle(h[0], 2, &m1), NVML_SUCCESS);
	check_gpm(h[0], h[1], h[2], m0, m1);
	check_events(h[0], h[1], h[2], m0);
	load(fakes, "wrong32");
	check_wrong32();
	load(fakes, "legacy");
	check_legacy();
	load(fakes, "minimal");
	CHECK(!dlsym(N.lib, "nvmlEventSetCreate") && !dlsym(N.lib, "nvmlGpmSampleGet"));

	unlink(path), unlink(calls_path), unlink(gpm_log_path), rmdir(dir);
	printf(failures ? "check_gpm_events: %d failures\n" : "check_gpm_events: all checks hold\n", failures);
	return failures ? 1 : 0;
}
