/* pick_exec: the command of --wait, started with posix_spawnp(3) (never
 * through a shell) and waited for, with signals passed on. */
#include "pick/pick_exec.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/msg.h"
#include "util/xalloc.h"

extern char **environ;

/* The running command, for the signal handler; 0 before it starts. */
static volatile sig_atomic_t child_pid;

/* The signals that gpur passes on to the command. */
static const int FORWARDED[] = {SIGINT, SIGTERM, SIGHUP};

static void forward(int sig, siginfo_t *si, void *uctx)
{
	pid_t pid = (pid_t)child_pid;

	(void)uctx;
	/* A terminal signals its whole foreground process group, the command
	 * too, so only a signal sent to gpur itself is passed on; the
	 * command then gets it once. */
	if (pid > 0 && si->si_code != SI_KERNEL)
		kill(pid, sig);
}

struct pick_launch *pick_launch_new(char **argv)
{
	struct pick_launch *l = xcalloc(1, sizeof(*l));

	l->argv = argv;
	return l;
}

void pick_launch_free(struct pick_launch *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nlocks; i++)
		close(l->locks[i]);
	free(l->locks);
	free(l->value);
	free(l);
}

/* Starts the command with the forwarded signals blocked, so that the
 * handler knows its pid before it can run. Returns 0 or an errno. */
static int spawn(struct pick_launch *l, pid_t *pid)
{
	posix_spawnattr_t attr;
	sigset_t block, old, dfl;
	struct sigaction sa;
	int e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(FORWARDED) / sizeof(FORWARDED[0]); i++) {
		sigaddset(&block, FORWARDED[i]);
		sigaction(FORWARDED[i], &sa, NULL);
	}
	pthread_sigmask(SIG_BLOCK, &block, &old);
	/* The command starts with the signals gpur ignores or catches as
	 * their defaults: a closed pipe must end it as it would anywhere. */
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGXFSZ);
	for (size_t i = 0; i < sizeof(FORWARDED) / sizeof(FORWARDED[0]); i++)
		sigaddset(&dfl, FORWARDED[i]);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &old);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	e = posix_spawnp(pid, l->argv[0], NULL, &attr, l->argv, environ);
	posix_spawnattr_destroy(&attr);
	if (e == 0)
		child_pid = (sig_atomic_t)*pid;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

int pick_exec(struct pick_launch *l)
{
	pid_t pid;
	int st, e;

	msg_error("running on %s", l->value);
	if (setenv("CUDA_VISIBLE_DEVICES", l->value, 1) != 0 || setenv("GPUR_SELECTED", l->value, 1) != 0 ||
	    (l->index && setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1) != 0)) {
		msg_error("cannot set CUDA_VISIBLE_DEVICES: %s", strerror(errno));
		pick_launch_free(l);
		return 126;
	}
	if ((e = spawn(l, &pid)) != 0) {
		if (e == ENOENT)
			msg_error("%s: command not found", l->argv[0]);
		else
			msg_error("%s: cannot run it: %s", l->argv[0], strerror(e));
		pick_launch_free(l);
		return e == ENOENT ? 127 : 126;
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			msg_error("%s: cannot wait for it: %s", l->argv[0], strerror(errno));
			child_pid = 0;
			pick_launch_free(l);
			return 1;
		}
	}
	child_pid = 0;
	pick_launch_free(l);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
