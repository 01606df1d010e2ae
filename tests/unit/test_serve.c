/* test_serve: the HTTP endpoint on 127.0.0.1 (an ephemeral port): 503
 * before the first frame, GET and HEAD of /metrics and /, gzip when asked,
 * 404 and 405, a port in use, and scrapes from several threads while frames
 * are published (ThreadSanitizer runs this one). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "model/frame.h"
#include "serve/prom.h"
#include "serve/serve.h"

struct http {
	int status;
	char *head, *body;
	size_t body_len;
};

static void http_free(struct http *h)
{
	free(h->head);
	h->head = h->body = NULL;
}

static uint16_t port_of(const struct serve *s)
{
	const char *colon = strrchr(serve_where(s), ':');
	return (uint16_t)atoi(colon + 1);
}

/* One request on its own connection, read to the end. 0 or -1. */
static int request(uint16_t port, const char *req, struct http *out)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	size_t cap = 1 << 16, len = 0;
	char *data = malloc(cap);

	memset(out, 0, sizeof(*out));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		free(data);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		free(data);
		return -1;
	}
	for (;;) {
		if (cap - len < 4096)
			data = realloc(data, cap *= 2);
		ssize_t r = read(fd, data + len, cap - len - 1);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	data[len] = '\0';
	char *sep = strstr(data, "\r\n\r\n");
	if (!sep || sscanf(data, "HTTP/1.%*d %d", &out->status) != 1) {
		free(data);
		return -1;
	}
	*sep = '\0';
	out->head = data;
	out->body = sep + 4;
	out->body_len = len - (size_t)(out->body - data);
	return 0;
}

static struct frame *frame_with(double util)
{
	struct frame *f = frame_new();
	struct gpu *g = frame_add_gpu(f);
	g->device_id = frame_str(f, "GPU-x");
	gpu_set(g, GPU_F_DEVICE_ID);
	g->util_pct = util;
	gpu_set(g, GPU_F_UTIL);
	g->state = GPU_STATE_OK;
	gpu_set(g, GPU_F_STATE);
	return f;
}

static struct serve *start(void)
{
	char err[512];
	struct serve_opts o = {.addr = "127.0.0.1:0", .hostname = "unit", .processes = true};
	bool usage;
	struct serve *s = serve_start(&o, &usage, err, sizeof(err));
	if (!s)
		fail_msg("serve_start: %s", err);
	return s;
}

#define GET(path, extra) "GET " path " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" extra "\r\n"

static void test_requests(void **state)
{
	(void)state;
	struct serve *s = start();
	uint16_t port = port_of(s);
	struct http h;

	assert_int_equal(request(port, GET("/metrics", ""), &h), 0);
	assert_int_equal(h.status, 503); /* no frame yet */
	http_free(&h);

	struct frame *f = frame_with(37);
	serve_publish(s, f, 0, false);
	frame_unref(f);
	assert_int_equal(request(port, GET("/metrics", ""), &h), 0);
	assert_int_equal(h.status, 200);
	assert_non_null(strstr(h.head, "Content-Type: " PROM_CONTENT_TYPE "\r\n"));
	assert_null(strstr(h.head, "Content-Encoding"));
	assert_non_null(strstr(h.body, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-x\",Hostname=\"unit\"} 37\n"));
	assert_non_null(strstr(h.body, "gpur_exporter_scrapes_total 1\n")); /* the 503 was not one */
	size_t plain_len = h.body_len;
	char *plain = strndup(h.body, h.body_len);
	http_free(&h);

	assert_int_equal(request(port, GET("/metrics", "Accept-Encoding: deflate, gzip;q=0.5\r\n"), &h), 0);
	assert_int_equal(h.status, 200);
	assert_non_null(strstr(h.head, "Content-Encoding: gzip\r\n"));
	char out[1 << 16];
	uLongf outlen = sizeof(out);
	z_stream z;
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 16 + 15), Z_OK);
	z.next_in = (Bytef *)h.body;
	z.avail_in = (uInt)h.body_len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)sizeof(out);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	outlen = sizeof(out) - z.avail_out;
	inflateEnd(&z);
	assert_int_equal(outlen, plain_len); /* the same text, its own count (2 has as many digits as 1) */
	assert_memory_equal(out, plain, plain_len - 2);
	assert_non_null(strstr(out, "gpur_exporter_scrapes_total 2\n"));
	free(plain);
	http_free(&h);

	assert_int_equal(request(port, GET("/metrics", "Accept-Encoding: gzip;q=0\r\n"), &h), 0);
	assert_null(strstr(h.head, "Content-Encoding"));
	http_free(&h);

	assert_int_equal(request(port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &h), 0);
	assert_int_equal(h.status, 200);
	assert_int_equal(h.body_len, 0);
	http_free(&h);

	assert_int_equal(request(port, GET("/", ""), &h), 0);
	assert_int_equal(h.status, 200);
	assert_non_null(strstr(h.body, "href=\"/metrics\""));
	http_free(&h);

	assert_int_equal(request(port, GET("/nope", ""), &h), 0);
	assert_int_equal(h.status, 404);
	http_free(&h);
	assert_int_equal(request(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", &h), 0);
	assert_int_equal(h.status, 405);
	assert_non_null(strstr(h.head, "Allow: GET, HEAD"));
	http_free(&h);
	assert_int_equal(request(port, "BREW /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &h), 0);
	assert_int_equal(h.status, 405);
	http_free(&h);

	/* The same port again: a runtime failure that names the address. */
	char err[512], addr[64];
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", (unsigned)port);
	struct serve_opts o = {.addr = addr};
	bool usage = true;
	assert_null(serve_start(&o, &usage, err, sizeof(err)));
	assert_false(usage);
	assert_non_null(strstr(err, addr));
	assert_non_null(strstr(err, "in use"));
	serve_stop(s);
}

static void test_parse_addr(void **state)
{
	(void)state;
	struct serve_addr a;
	char err[256];

	assert_int_equal(serve_parse_addr(":9400", &a, err, sizeof(err)), 0);
	assert_string_equal(a.host, "127.0.0.1");
	assert_int_equal(a.port, 9400);
	assert_int_equal(serve_parse_addr("[::]:9400", &a, err, sizeof(err)), 0);
	assert_string_equal(a.host, "::");
	assert_int_equal(serve_parse_addr("0.0.0.0:1", &a, err, sizeof(err)), 0);
	assert_int_equal(serve_parse_addr("localhost:65535", &a, err, sizeof(err)), 0);
	const char *bad[] = {"9400", ":", ":65536", "::1:9400", "[::1]", "[x]:1", "a b:1", ":-1", ":+1", ":1x"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(serve_parse_addr(bad[i], &a, err, sizeof(err)), -1);
		assert_non_null(strstr(err, bad[i]));
	}
}

struct scraper {
	uint16_t port;
	int ok, bad;
};

static void *scrape_loop(void *arg)
{
	struct scraper *sc = arg;
	for (int i = 0; i < 60; i++) {
		struct http h;
		if (request(sc->port, i % 2 ? GET("/metrics", "Accept-Encoding: gzip\r\n") : GET("/metrics", ""), &h) == 0 &&
		    h.status == 200 && h.body_len > 0)
			sc->ok++;
		else
			sc->bad++;
		http_free(&h);
	}
	return NULL;
}

static void test_concurrent_scrapes(void **state)
{
	(void)state;
	struct serve *s = start();
	struct frame *f = frame_with(1);
	serve_publish(s, f, 0, false);
	frame_unref(f);
	struct scraper sc[4];
	pthread_t t[4];
	for (int i = 0; i < 4; i++) {
		sc[i] = (struct scraper){.port = port_of(s)};
		assert_int_equal(pthread_create(&t[i], NULL, scrape_loop, &sc[i]), 0);
	}
	for (int k = 0; k < 200; k++) { /* publish while they scrape */
		f = frame_with(k % 100);
		serve_publish(s, f, (uint64_t)k, true);
		frame_unref(f);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(sc[i].bad, 0);
		assert_int_equal(sc[i].ok, 60);
	}
	serve_stop(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_addr),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_concurrent_scrapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
