/* psignal: signals a process only while it is still the one the caller saw,
 * with the same pid and start time, and never init, gpur itself or a process
 * with no executable. It uses a pidfd where the kernel has them, so that the
 * check and the signal name one process for certain, and else re-checks the
 * start time right before kill(2). It uses no curses. */
#ifndef GPUR_PSIGNAL_H
#define GPUR_PSIGNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The pid now names a process that started at another time. */
#define PSIGNAL_REFUSED (-ESTALE)
/* The pid is one that gpur never signals (psignal_protected says which). */
#define PSIGNAL_PROTECTED (-ECANCELED)

enum psignal_way {
	PSIGNAL_ANY,   /* a pidfd, else kill(2) after ENOSYS or EPERM from a seccomp filter */
	PSIGNAL_PIDFD, /* only a pidfd, with -ENOSYS without one; for tests */
	PSIGNAL_KILL,  /* only the re-check and kill(2); for tests */
};

/* Sends signo to pid when PROCFS/PID/stat says it started at expect_ticks.
 * That is its starttime field in clock ticks after boot, as procinfo read it,
 * an identity that a wall-clock step cannot change. It returns:
 *   0                 when the signal was sent;
 *   PSIGNAL_REFUSED   when the pid belongs to another process now, and
 *                     nothing was sent;
 *   PSIGNAL_PROTECTED when the pid is one gpur never signals, which
 *                     psignal_protected checks last, right before
 *                     sending, and nothing was sent;
 *   -ESRCH            when there is no such process, because it has exited;
 *   -EPERM            when it is not allowed, as for another user's process;
 *   other -errno      when the start time could not be read and nothing was
 *                     sent, or the kernel refused the signal.
 * detail, of size n > 0, gets one line in words that says what happened and
 * names the pid and the signal. */
int psignal_send(const char *procfs, unsigned pid, uint64_t expect_ticks, int signo, char *detail, size_t n);
/* The same, sent by the given way. */
int psignal_send_via(const char *procfs, unsigned pid, uint64_t expect_ticks, int signo, enum psignal_way way,
		     char *detail, size_t n);

/* Whether pid is one that gpur never signals, whoever asks. Those are pid 1,
 * init, whose death takes the machine or the container down; gpur's own pid;
 * and a process with no executable, whose PROCFS/PID/exe link cannot be read
 * for ENOENT while PROCFS/PID is there, as for a kernel thread or a zombie.
 * When it is, why (of size n > 0) gets the reason as one line naming the pid
 * ("pid 1 is init", "pid 4242 is gpur itself", "pid 2 has no executable (a
 * kernel thread or a zombie)"); otherwise why is "". Any other failure to
 * read the link, such as EACCES for another user's process, is no reason,
 * and the signal's own checks decide. The pids are procfs's, which the caller
 * knows to be kill(2)'s here (psignal_procfs_is_ours). */
bool psignal_protected(const char *procfs, unsigned pid, char *why, size_t n);

/* A signal event's result for rc, as static text: "sent", "refused" for
 * PSIGNAL_REFUSED and PSIGNAL_PROTECTED, or the errno's name ("ESRCH",
 * "EPERM" and so on, or "error" for one not known here). */
const char *psignal_result(int rc);
/* The static name "SIGTERM" for SIGTERM, and so on for the usual signals, or
 * NULL for others. */
const char *psignal_name(int signo);

/* Whether the pids that procfs names are the ones kill(2) takes here, which
 * is when its "self" link names this process's own pid. It is false for
 * another pid namespace's procfs and for a fixture tree without such a
 * link. */
bool psignal_procfs_is_ours(const char *procfs);

#endif
