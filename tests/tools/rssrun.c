/* rssrun: runs a command, passes its exit status through, and reports its
 * peak resident set size to stderr as "rssrun: maxrss_kib=N" (wait4's
 * ru_maxrss, which Linux gives in KiB). A command killed by signal S exits
 * 128+S; one that cannot be started exits 127. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid, got;

	if (argc < 2) {
		fprintf(stderr, "usage: rssrun CMD [ARG]...\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rssrun: fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "rssrun: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	do
		got = wait4(pid, &status, 0, &ru);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		fprintf(stderr, "rssrun: wait4: %s\n", strerror(errno));
		return 127;
	}
	fprintf(stderr, "\nrssrun: maxrss_kib=%ld\n", ru.ru_maxrss);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
