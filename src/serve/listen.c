/* listen: --serve's address and the listening socket (listen.h). */
#include "serve/listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int serve_parse_addr(const char *addr, struct serve_addr *out, char *err, size_t errlen)
{
	const char *colon, *host = addr;
	size_t hlen;

	memset(out, 0, sizeof(*out));
	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');
		if (!close || close[1] != ':')
			goto bad;
		host = addr + 1;
		hlen = (size_t)(close - host);
		colon = close + 1;
		struct in6_addr a6;
		char tmp[64];
		if (hlen == 0 || hlen >= sizeof(tmp))
			goto bad;
		memcpy(tmp, host, hlen);
		tmp[hlen] = '\0';
		if (inet_pton(AF_INET6, tmp, &a6) != 1)
			goto bad;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			goto bad;
		hlen = (size_t)(colon - addr);
		for (size_t i = 0; i < hlen; i++) {
			char c = addr[i];
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
			      c == '-'))
				goto bad; /* an IPv6 address needs its brackets */
		}
	}
	if (hlen >= sizeof(out->host))
		goto bad;
	const char *p = colon + 1;
	size_t digits = strspn(p, "0123456789");
	if (digits == 0 || digits > 5 || p[digits] != '\0')
		goto bad;
	unsigned long port = strtoul(p, NULL, 10);
	if (port > 65535)
		goto bad;
	memcpy(out->host, host, hlen);
	out->host[hlen] = '\0';
	if (hlen == 0)
		snprintf(out->host, sizeof(out->host), "127.0.0.1");
	out->port = (uint16_t)port;
	return 0;
bad:
	snprintf(err, errlen, "--serve: '%s' is not host:port (e.g. :9400, 0.0.0.0:9400, [::]:9400)", addr);
	return -1;
}

int serve_listen(const char *given, const struct serve_addr *a, char *where, size_t wn, char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL;
	char port[8];

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
	snprintf(port, sizeof(port), "%u", (unsigned)a->port);
	int rc = getaddrinfo(a->host, port, &hints, &res);
	if (rc != 0 || !res) {
		snprintf(err, errlen, "--serve %s: cannot resolve '%s': %s", given, a->host, gai_strerror(rc));
		return -1;
	}
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "--serve %s: socket: %s", given, strerror(errno));
		freeaddrinfo(res);
		return -1;
	}
	int one = 1, zero = 0;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)); /* a restart is not "in use" for TIME_WAIT */
	if (res->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)); /* [::] takes IPv4 too */
	if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 128) != 0) {
		int e = errno;
		snprintf(err, errlen, "--serve %s: cannot listen: %s%s", given, strerror(e),
			 e == EADDRINUSE ? " (another exporter on that port?)" : "");
		close(fd);
		freeaddrinfo(res);
		return -1;
	}
	freeaddrinfo(res);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned bound = a->port;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;
			inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
			bound = ntohs(s6->sin6_port);
		} else {
			const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
			bound = ntohs(s4->sin_port);
		}
	}
	snprintf(where, wn, ss.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, bound);
	return fd;
}
