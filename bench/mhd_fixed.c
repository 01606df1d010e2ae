/* mhd_fixed: the exporter benchmark's baseline, a minimal libmicrohttpd
 * server that answers every request with one fixed body read from a file
 * (gpur's own /metrics, captured), with the same threads and limits as
 * gpur's exporter. What it costs is libmicrohttpd's and the kernel's share;
 * the difference to gpur is gpur's.
 *   mhd_fixed PORT BODY_FILE [gzip]   (gzip: the body is gzip already) */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve/prom.h"
#include "serve/serve.h"

static struct MHD_Response *body;

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *data, size_t *size, void **con_cls)
{
	(void)cls, (void)url, (void)method, (void)version, (void)data;
	if (!*con_cls) {
		*con_cls = &body; /* answered after the headers, as gpur does: keep-alive */
		return MHD_YES;
	}
	*size = 0;
	return MHD_queue_response(c, MHD_HTTP_OK, body);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fputs("usage: mhd_fixed PORT BODY_FILE [gzip]\n", stderr);
		return 2;
	}
	FILE *fp = fopen(argv[2], "rb");
	if (!fp)
		return perror(argv[2]), 1;
	static char data[64 << 20];
	size_t n = fread(data, 1, sizeof(data), fp);
	fclose(fp);
	body = MHD_create_response_from_buffer(n, data, MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(body, MHD_HTTP_HEADER_CONTENT_TYPE, PROM_CONTENT_TYPE);
	MHD_add_response_header(body, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	if (argc > 3 && strcmp(argv[3], "gzip") == 0)
		MHD_add_response_header(body, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)atoi(argv[1]), NULL, NULL, answer, NULL,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)SERVE_THREADS, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)SERVE_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)SERVE_CONN_MEMORY, MHD_OPTION_END);
	if (!d)
		return fputs("mhd_fixed: cannot start\n", stderr), 1;
	sigset_t s;
	int sig;
	sigemptyset(&s);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGINT);
	sigprocmask(SIG_BLOCK, &s, NULL);
	sigwait(&s, &sig);
	MHD_stop_daemon(d);
	return 0;
}
