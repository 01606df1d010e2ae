/* psignal: signals sent only after the process's identity is checked. */
#include "proc/psignal.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc/pidstart.h"
#include "util/kvparse.h"

/* glibc has had wrappers only since 2.36, so these are the raw syscalls,
 * giving ENOSYS where the headers do not know them. */
static int sys_pidfd_open(unsigned pid)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, (long)pid, 0L);
	return fd < 0 ? -errno : (int)fd;
#else
	(void)pid;
	return -ENOSYS;
#endif
}

static int sys_pidfd_send_signal(int fd, int signo)
{
#ifdef SYS_pidfd_send_signal
	return syscall(SYS_pidfd_send_signal, fd, signo, NULL, 0U) < 0 ? -errno : 0;
#else
	(void)fd;
	(void)signo;
	return -ENOSYS;
#endif
}

static const struct {
	int signo;
	const char *name;
} NAMES[] = {
	{SIGHUP, "SIGHUP"}, {SIGINT, "SIGINT"}, {SIGQUIT, "SIGQUIT"}, {SIGKILL, "SIGKILL"},
	{SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGTERM, "SIGTERM"}, {SIGCONT, "SIGCONT"},
	{SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"},
};

const char *psignal_name(int signo)
{
	for (size_t i = 0; i < sizeof(NAMES) / sizeof(NAMES[0]); i++)
		if (NAMES[i].signo == signo)
			return NAMES[i].name;
	return NULL;
}

const char *psignal_result(int rc)
{
	switch (rc) {
	case 0: return "sent";
	case PSIGNAL_REFUSED:
	case PSIGNAL_PROTECTED: return "refused";
	case -ESRCH: return "ESRCH";
	case -EPERM: return "EPERM";
	case -EACCES: return "EACCES";
	case -EINVAL: return "EINVAL";
	case -ENOSYS: return "ENOSYS";
	case -ENODATA: return "ENODATA";
	case -ENOMEM: return "ENOMEM";
	case -EMFILE: return "EMFILE";
	case -ENFILE: return "ENFILE";
	case -EIO: return "EIO";
	default: return "error";
	}
}

bool psignal_protected(const char *procfs, unsigned pid, char *why, size_t n)
{
	char path[4096], link[64];
	struct stat st;

	why[0] = '\0';
	if (pid == 1) {
		snprintf(why, n, "pid 1 is init");
		return true;
	}
	if (pid == (unsigned)getpid()) {
		snprintf(why, n, "pid %u is gpur itself", pid);
		return true;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%u/exe", procfs, pid) >= sizeof(path))
		return false;
	if (readlink(path, link, sizeof(link)) >= 0 || errno != ENOENT)
		return false;
	/* The link is missing because the process has none, not because the
	 * process has gone and been reaped, since its directory is still
	 * there. */
	path[strlen(path) - 4] = '\0';
	if (stat(path, &st) != 0)
		return false;
	snprintf(why, n, "pid %u has no executable (a kernel thread or a zombie)", pid);
	return true;
}

/* The outcome in words, which a user reads on the status line and in the
 * event's detail; why is psignal_protected's reason. */
static void describe(int rc, unsigned pid, const char *sig, const char *why, const char *step, char *detail,
		     size_t n)
{
	switch (rc) {
	case 0:
		snprintf(detail, n, "%s sent to pid %u", sig, pid);
		break;
	case PSIGNAL_REFUSED:
		snprintf(detail, n, "pid %u now belongs to another process: %s not sent", pid, sig);
		break;
	case PSIGNAL_PROTECTED:
		snprintf(detail, n, "%s: %s not sent", why, sig);
		break;
	case -ESRCH:
		snprintf(detail, n, "no such process: pid %u has exited (%s not sent)", pid, sig);
		break;
	case -EPERM:
		snprintf(detail, n, "permission denied: pid %u belongs to another user (%s not sent)", pid, sig);
		break;
	default:
		snprintf(detail, n, "pid %u: %s failed: %s (%s not sent)", pid, step, strerror(-rc), sig);
		break;
	}
}

int psignal_send(const char *procfs, unsigned pid, uint64_t expect_ticks, int signo, char *detail, size_t n)
{
	return psignal_send_via(procfs, pid, expect_ticks, signo, PSIGNAL_ANY, detail, n);
}

int psignal_send_via(const char *procfs, unsigned pid, uint64_t expect_ticks, int signo, enum psignal_way way,
		     char *detail, size_t n)
{
	char num[32], why[160] = "";
	const char *step = "pidfd_open";
	const char *sig = psignal_name(signo);
	uint64_t start = 0;
	int fd = -1, rc;

	if (!sig) {
		snprintf(num, sizeof(num), "signal %d", signo);
		sig = num;
	}
	if (pid == 0 || pid > INT32_MAX) {
		/* kill(2) reads 0 and negative pids as process groups. */
		rc = -ESRCH;
		goto out;
	}
	if (way != PSIGNAL_KILL) {
		fd = sys_pidfd_open(pid);
		/* Kernels before 5.3 have no pidfd_open and answer ENOSYS. A
		 * container's seccomp filter may answer EPERM for a syscall it
		 * does not know, which pidfd_open itself never does. */
		if (fd < 0 && (way == PSIGNAL_PIDFD || (fd != -ENOSYS && fd != -EPERM))) {
			rc = fd;
			goto out;
		}
	}
	/* With a pidfd opened first, a start time that matches proves that
	 * the pidfd names the expected process, because that process held the
	 * pid from before the row was read until now. */
	step = "reading its start time";
	rc = pidstart_ticks(procfs, pid, &start, NULL);
	if (rc == -ENOENT || rc == -ESRCH || rc == -EACCES || rc == -EPERM) {
		/* There is no procfs entry to read, yet the process is there: its
		 * pidfd opened, or kill(pid, 0) says it exists. procfs hides other
		 * users' processes, as with hidepid=2 or a sandbox's procfs. The
		 * process is not ours to signal, and its identity cannot be
		 * checked. */
		int probe = fd >= 0 ? sys_pidfd_send_signal(fd, 0) : kill((pid_t)pid, 0) < 0 ? -errno : 0;
		if (probe == 0 || probe == -EPERM)
			rc = -EPERM;
		else if (probe == -ESRCH)
			rc = -ESRCH;
	}
	if (rc < 0)
		goto out;
	if (start != expect_ticks) {
		rc = PSIGNAL_REFUSED;
		goto out;
	}
	/* The last check before sending, so that no caller can skip it. */
	if (psignal_protected(procfs, pid, why, sizeof(why))) {
		rc = PSIGNAL_PROTECTED;
		goto out;
	}
	step = "pidfd_send_signal";
	rc = fd >= 0 ? sys_pidfd_send_signal(fd, signo) : -ENOSYS;
	if (rc == -ENOSYS && way != PSIGNAL_PIDFD) {
		step = "kill";
		rc = kill((pid_t)pid, signo) < 0 ? -errno : 0;
	}
out:
	if (fd >= 0)
		close(fd);
	describe(rc, pid, sig, why, step, detail, n);
	return rc;
}

bool psignal_procfs_is_ours(const char *procfs)
{
	char path[4096], link[32];
	uint64_t v;

	if ((size_t)snprintf(path, sizeof(path), "%s/self", procfs) >= sizeof(path))
		return false;
	ssize_t r = readlink(path, link, sizeof(link) - 1);
	if (r <= 0)
		return false;
	return kvparse_u64(link, (size_t)r, INT32_MAX, &v) == r && v == (uint64_t)getpid();
}
