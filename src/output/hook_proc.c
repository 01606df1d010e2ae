/* hook_proc: spawning a hook with posix_spawn, which is safe in a threaded
 * program, and talking to it through non-blocking pipes. */
#include "output/hook_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/utf8.h"

/* posix_spawn_file_actions_addclosefrom_np came with glibc 2.34. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define HOOK_HAVE_CLOSEFROM 1
#else
#define HOOK_HAVE_CLOSEFROM 0
#endif

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* A close-on-exec pipe whose ends are above the standard streams, so that
 * placing them on 0 and 2 in the child never overwrites one with the
 * other, even when gpur was started with a standard stream closed. */
static int pipe_above(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	for (int i = 0; i < 2; i++) {
		if (fds[i] > STDERR_FILENO)
			continue;
		int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
		if (moved < 0) {
			int e = -errno;
			close(fds[0]);
			close(fds[1]);
			return e;
		}
		close(fds[i]);
		fds[i] = moved;
	}
	return 0;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	/* A pidfd is always close-on-exec. */
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/* The child's standard streams, and no other descriptor of gpur's: gpur
 * opens its own close-on-exec, and a library may not, so everything from 3
 * on is closed where the C library can. */
static int file_actions(posix_spawn_file_actions_t *fa, const struct hook_spawn *s, int in_r, int err_w)
{
	int rc = posix_spawn_file_actions_init(fa);

	if (rc)
		return rc;
	rc = posix_spawn_file_actions_adddup2(fa, in_r, STDIN_FILENO);
	if (!rc && (s->quiet || fcntl(STDERR_FILENO, F_GETFD) < 0))
		rc = posix_spawn_file_actions_addopen(fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	else if (!rc)
		rc = posix_spawn_file_actions_adddup2(fa, STDERR_FILENO, STDOUT_FILENO);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(fa, err_w, STDERR_FILENO);
#if HOOK_HAVE_CLOSEFROM
	if (!rc)
		rc = posix_spawn_file_actions_addclosefrom_np(fa, STDERR_FILENO + 1);
#endif
	if (rc)
		posix_spawn_file_actions_destroy(fa);
	return rc;
}

/* Its own process group, so that a timeout ends whatever it started; no
 * blocked signals, since gpur's threads block them all; and the default
 * action for every signal, since gpur ignores SIGPIPE and SIGXFSZ and an
 * ignored signal would stay ignored across exec. */
static int spawn_attr(posix_spawnattr_t *at)
{
	sigset_t none, all;
	int rc = posix_spawnattr_init(at);

	if (rc)
		return rc;
	sigemptyset(&none);
	sigfillset(&all);
	rc = posix_spawnattr_setsigmask(at, &none);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(at, &all);
	if (!rc)
		rc = posix_spawnattr_setpgroup(at, 0);
	if (!rc)
		rc = posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (rc)
		posix_spawnattr_destroy(at);
	return rc;
}

int hook_proc_start(struct hook_proc *p, const struct hook_spawn *s, const char *line, size_t len)
{
	static char sh[] = "sh", dash_c[] = "-c";
	char *argv[] = {sh, dash_c, s->command, NULL};
	int in[2], err[2];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int rc;

	memset(p, 0, sizeof(*p));
	p->pidfd = p->in_fd = p->err_fd = -1;
	if ((rc = pipe_above(in)) < 0)
		return rc;
	if ((rc = pipe_above(err)) < 0) {
		close(in[0]);
		close(in[1]);
		return rc;
	}
	rc = file_actions(&fa, s, in[0], err[1]);
	if (!rc) {
		rc = spawn_attr(&at);
		if (!rc) {
			rc = posix_spawn(&p->pid, "/bin/sh", &fa, &at, argv, s->envp);
			posix_spawnattr_destroy(&at);
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	close(in[0]);
	close(err[1]);
	if (rc) {
		close(in[1]);
		close(err[0]);
		p->pid = 0;
		return -rc;
	}
	p->in_fd = in[1];
	p->err_fd = err[0];
	fcntl(p->in_fd, F_SETFL, O_NONBLOCK);
	fcntl(p->err_fd, F_SETFL, O_NONBLOCK);
	p->pidfd = open_pidfd(p->pid);
	p->forward = !s->quiet;
	p->in = line;
	p->in_len = len;
	hook_proc_write(p);
	return 0;
}

void hook_proc_write(struct hook_proc *p)
{
	while (p->in_fd >= 0 && p->in_off < p->in_len) {
		ssize_t w = write(p->in_fd, p->in + p->in_off, p->in_len - p->in_off);
		if (w > 0) {
			p->in_off += (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && errno == EAGAIN) {
			return; /* the pipe is full, so wait for room */
		} else {
			break; /* EPIPE: the hook closed its standard input unread */
		}
	}
	close_fd(&p->in_fd);
}

void hook_proc_read_err(struct hook_proc *p)
{
	char tmp[4096];

	/* A bounded number of reads, so that a hook that writes without end
	 * cannot keep this thread from its other hooks. */
	for (int i = 0; i < 16 && p->err_fd >= 0; i++) {
		ssize_t r = read(p->err_fd, tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;
		if (r <= 0) {
			close_fd(&p->err_fd);
			return;
		}
		size_t keep = sizeof(p->err) - p->err_len;
		if (keep > (size_t)r)
			keep = (size_t)r;
		memcpy(p->err + p->err_len, tmp, keep);
		p->err_len += keep;
		if (p->forward) {
			ssize_t w = write(STDERR_FILENO, tmp, (size_t)r);
			(void)w;
		}
	}
}

bool hook_proc_reap(struct hook_proc *p, int *status)
{
	for (;;) {
		pid_t r = waitpid(p->pid, status, WNOHANG);
		if (r == p->pid)
			return true;
		if (r == 0)
			return false;
		if (errno == EINTR)
			continue;
		*status = -1; /* ECHILD: it is not ours to wait for any more */
		return true;
	}
}

void hook_proc_kill(struct hook_proc *p, int sig)
{
	if (kill(-p->pid, sig) != 0)
		kill(p->pid, sig);
}

void hook_proc_close(struct hook_proc *p)
{
	close_fd(&p->in_fd);
	close_fd(&p->err_fd);
	close_fd(&p->pidfd);
}

size_t hook_proc_err_line(const struct hook_proc *p, char *out, size_t n)
{
	size_t len = 0;
	bool space = false;

	for (size_t i = 0; i < p->err_len;) {
		uint32_t cp;
		size_t k = utf8_decode(p->err + i, p->err_len - i, &cp);
		bool invalid = cp == UTF8_REPLACEMENT && !(k == 3 && memcmp(p->err + i, "\xEF\xBF\xBD", 3) == 0);
		bool blank = cp == ' ' || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
		/* A character cut at the end of what was kept is left out. */
		if (invalid && i + k == p->err_len && p->err_len == sizeof(p->err))
			break;
		if (blank) {
			space = len > 0;
		} else if (!invalid) {
			if (len + (space ? 1 : 0) + k >= n)
				break;
			if (space)
				out[len++] = ' ';
			space = false;
			memcpy(out + len, p->err + i, k);
			len += k;
		}
		i += k;
	}
	out[len] = '\0';
	return len;
}
