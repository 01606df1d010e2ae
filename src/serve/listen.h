/* listen: the exporter's listening socket: --serve's address parsed
 * without lookups, then resolved, bound and listened on. */
#ifndef GPUR_SERVE_LISTEN_H
#define GPUR_SERVE_LISTEN_H

#include <stddef.h>

#include "serve/serve.h"

/* Binds and listens on a (given is --serve's text, for messages), non-blocking
 * and close-on-exec; an IPv6 wildcard takes IPv4 too. Writes the address
 * bound, with the port the kernel chose for port 0, into where. Returns the
 * socket, or -1 with the reason in err. */
int serve_listen(const char *given, const struct serve_addr *a, char *where, size_t wn, char *err, size_t errlen);

#endif
