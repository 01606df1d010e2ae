/* test_prometheus_backoff: the fleet source against a tiny HTTP server on
 * loopback (a thread here) and a virtual clock: a failure keeps the last
 * good hosts marked stale with the reason naming the URL; no request is
 * made before the retry time; retries back off 1 s, 2 s, 4 s; an answer
 * resets the backoff. Skipped where libcurl.so.4 cannot be loaded. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/prometheus.h"
#include "backend/prometheus_fleet.h"
#include "model/fleet.h"

static atomic_int mode_fail; /* 1: answer HTTP 500 */
static atomic_int requests;
static int listen_fd;

static void *serve(void *arg)
{
	static const char ok[] = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
				 "{\"metric\":{\"Hostname\":\"h1\",\"gpu\":\"0\",\"UUID\":\"GPU-1\"},\"value\":[1,\"5\"]}]}}";
	(void)arg;
	for (;;) {
		int c = accept(listen_fd, NULL, NULL);
		if (c < 0)
			return NULL;
		char req[4096];
		size_t got = 0;
		while (got < sizeof(req) - 1) {
			ssize_t n = read(c, req + got, sizeof(req) - 1 - got);
			if (n <= 0)
				break;
			got += (size_t)n;
			req[got] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		atomic_fetch_add(&requests, 1);
		char head[256];
		bool fail = atomic_load(&mode_fail);
		const char *body = fail ? "oops" : ok;
		int hn = snprintf(head, sizeof(head),
				  "HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
				  fail ? "500 Internal Server Error" : "200 OK", strlen(body));
		if (write(c, head, (size_t)hn) < 0 || write(c, body, strlen(body)) < 0) {
			/* the client went away: the next request tells */
		}
		close(c);
	}
}

struct rig {
	struct clock_virtual clock;
	struct backend_env env;
	struct backend *b;
	char url[64];
};

/* One poll: its frame, and the fleet beside it in *fl (the caller unrefs
 * both). */
static struct frame *poll_once(struct rig *r, struct fleet **fl)
{
	struct frame *f = frame_new();
	assert_int_equal(backend_poll(r->b, f), 0); /* never -ENODEV: the source says what is wrong */
	*fl = backend_fleet(r->b);
	assert_non_null(*fl);
	return f;
}

static void test_backoff(void **st)
{
	(void)st;
	struct rig r;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	pthread_t th;

	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(listen_fd >= 0);
	assert_int_equal(bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(listen_fd, 16), 0);
	assert_int_equal(getsockname(listen_fd, (struct sockaddr *)&sa, &sl), 0);
	assert_int_equal(pthread_create(&th, NULL, serve, NULL), 0);
	snprintf(r.url, sizeof(r.url), "http://127.0.0.1:%u", ntohs(sa.sin_port));
	clock_virtual_init(&r.clock, 1700000000000ull);
	memset(&r.env, 0, sizeof(r.env));
	r.env.clock = &r.clock.c;
	r.env.prometheus_url = r.url;
	r.b = backend_new(&BACKEND_PROMETHEUS);
	int rc = backend_open(r.b, &r.env);
	if (rc != 0 && strstr(r.b->error, "libcurl")) {
		backend_free(r.b);
		skip();
	}
	assert_int_equal(rc, 0);

	struct fleet *fl;
	struct frame *f = poll_once(&r, &fl);
	assert_null(fl->error);
	assert_int_equal(fl->nhosts, 1);
	assert_string_equal(fl->hosts[0].name, "h1");
	frame_unref(f);
	fleet_unref(fl);

	/* Fails: stale, the reason names the URL, retry in 1 s. */
	atomic_store(&mode_fail, 1);
	int before = atomic_load(&requests);
	f = poll_once(&r, &fl);
	/* A try is one poll: all its queries, at once. */
	assert_int_equal(atomic_load(&requests), before + PROM_M__COUNT);
	assert_true(fl->stale);
	assert_non_null(strstr(fl->error, r.url));
	assert_non_null(strstr(fl->error, "HTTP 500"));
	assert_int_equal(fl->nhosts, 1); /* the last good host stays */
	assert_true(fl->hosts[0].frame->gpus[0].util_pct == 5);
	assert_int_equal(f->nevents, 1); /* one note for the failure */
	uint64_t wall = clock_wall(&r.clock.c);
	assert_true(fl->retry_ms == wall + 1000);
	frame_unref(f);
	fleet_unref(fl);

	/* 1 s, then 2 s, then 4 s: no request before the retry time. */
	static const uint64_t backoff[] = {1000, 2000, 4000};
	for (size_t i = 0; i < 3; i++) {
		before = atomic_load(&requests);
		clock_virtual_advance(&r.clock, backoff[i] - 1);
		f = poll_once(&r, &fl);
		assert_int_equal(atomic_load(&requests), before);
		assert_true(fl->stale);
		assert_int_equal(f->nevents, 0); /* the failure is noted once */
		frame_unref(f);
		fleet_unref(fl);
		clock_virtual_advance(&r.clock, 1);
		f = poll_once(&r, &fl);
		assert_int_equal(atomic_load(&requests), before + PROM_M__COUNT);
		uint64_t next = i + 1 < 3 ? backoff[i + 1] : 8000;
		assert_true(fl->retry_ms == clock_wall(&r.clock.c) + next);
		frame_unref(f);
		fleet_unref(fl);
	}

	/* An answer: fresh, noted, and the backoff starts again at 1 s. */
	atomic_store(&mode_fail, 0);
	clock_virtual_advance(&r.clock, 8000);
	f = poll_once(&r, &fl);
	assert_null(fl->error);
	assert_false(fl->stale);
	assert_int_equal(f->nevents, 1); /* "... answered again" */
	frame_unref(f);
	fleet_unref(fl);
	atomic_store(&mode_fail, 1);
	f = poll_once(&r, &fl);
	assert_true(fl->retry_ms == clock_wall(&r.clock.c) + 1000);
	frame_unref(f);
	fleet_unref(fl);

	backend_free(r.b);
	shutdown(listen_fd, SHUT_RDWR);
	close(listen_fd);
	pthread_join(th, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backoff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
