/* stopwait: an eventfd wait that a stop signal always ends (stopwait.h). */
#include "util/stopwait.h"

#include <poll.h>
#include <pthread.h>

bool stopwait(int fd, bool (*done)(void *ctx), void (*readable)(void *ctx), void *ctx,
	      const volatile sig_atomic_t *stop)
{
	sigset_t block, old;
	bool ok;

	/* The signals are let in only inside ppoll(), so one that comes
	 * between the check and the wait is not lost. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (;;) {
		ok = done(ctx);
		if (ok || (stop && *stop))
			break;
		struct pollfd pfd = {fd, POLLIN, 0};
		if (ppoll(&pfd, 1, NULL, &old) > 0)
			readable(ctx);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}
