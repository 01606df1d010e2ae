/* stopwait: waiting on an eventfd until a condition holds or a stop flag is
 * raised by a signal handler, without losing a signal that comes between the
 * check and the wait. */
#ifndef GPUR_STOPWAIT_H
#define GPUR_STOPWAIT_H

#include <signal.h>
#include <stdbool.h>

/* Checks done(ctx) and *stop (when stop is not NULL) and, while neither
 * holds, sleeps until fd is readable, then calls readable(ctx) and checks
 * again. SIGINT, SIGTERM and SIGHUP are blocked except inside the sleep, so
 * a handler that sets *stop always ends it. Returns done's last answer. */
bool stopwait(int fd, bool (*done)(void *ctx), void (*readable)(void *ctx), void *ctx,
	      const volatile sig_atomic_t *stop);

#endif
