/* psignal: signals a process only while it is still the one the caller
 * saw — the same pid and start time — and never init, gpur itself or a
 * process with no executable. Through a pidfd where the kernel has them
 * (the check and the signal then name one process for certain), else a
 * start-time re-check right before kill(2). No curses. */
#ifndef GPUR_PSIGNAL_H
#define GPUR_PSIGNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The pid now names a process that started at another time. */
#define PSIGNAL_REFUSED (-ESTALE)
/* The pid is one gpur never signals (psignal_protected says which). */
#define PSIGNAL_PROTECTED (-ECANCELED)

enum psignal_way {
	PSIGNAL_ANY,   /* a pidfd, else (ENOSYS, or EPERM from a seccomp filter) kill(2) */
	PSIGNAL_PIDFD, /* only a pidfd: -ENOSYS without one (tests) */
	PSIGNAL_KILL,  /* only the re-check and kill(2) (tests) */
};

/* Sends signo to pid when PROCFS/PID/stat says it started at expect_ticks
 * (its starttime field, clock ticks after boot, as procinfo read it: the
 * identity a wall-clock step cannot change):
 *   0                 sent;
 *   PSIGNAL_REFUSED   the pid belongs to another process now: nothing sent;
 *   PSIGNAL_PROTECTED the pid is one gpur never signals (psignal_protected,
 *                     checked last, right before sending): nothing sent;
 *   -ESRCH            no such process (it has exited);
 *   -EPERM            not allowed (another user's process);
 *   other -errno      the start time could not be read (nothing sent), or
 *                     the kernel refused the signal.
 * detail (size n > 0) gets one line in words saying what happened, naming
 * the pid and the signal. */
int psignal_send(const char *procfs, unsigned pid, uint64_t expect_ticks, int signo, char *detail, size_t n);
/* The same by the way given. */
int psignal_send_via(const char *procfs, unsigned pid, uint64_t expect_ticks, int signo, enum psignal_way way,
		     char *detail, size_t n);

/* Whether pid is one gpur never signals, whoever asks: pid 1 (init, whose
 * death takes the machine or the container down), gpur's own pid, or a
 * process with no executable, whose PROCFS/PID/exe link cannot be read for
 * ENOENT while PROCFS/PID is there (a kernel thread, or a zombie). When it
 * is, why (size n > 0) gets the reason as one line naming the pid
 * ("pid 1 is init", "pid 4242 is gpur itself", "pid 2 has no executable (a
 * kernel thread or a zombie)"); otherwise why is "". Any other failure to
 * read the link (EACCES: another user's process) is no reason: the
 * signal's own checks decide. The pids are procfs's, which the caller
 * knows to be kill(2)'s here (psignal_procfs_is_ours). */
bool psignal_protected(const char *procfs, unsigned pid, char *why, size_t n);

/* A signal event's result for rc: "sent", "refused" (PSIGNAL_REFUSED and
 * PSIGNAL_PROTECTED), or the errno's name ("ESRCH", "EPERM", ...; "error"
 * for one not known here). Static text. */
const char *psignal_result(int rc);
/* "SIGTERM" for SIGTERM, and so on for the usual signals; NULL for others.
 * Static text. */
const char *psignal_name(int signo);

/* Whether the pids procfs names are the ones kill(2) takes here: its
 * "self" link names this process's own pid (false for another pid
 * namespace's procfs and for a fixture tree without such a link). */
bool psignal_procfs_is_ours(const char *procfs);

#endif
