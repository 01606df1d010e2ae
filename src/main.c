/* main: gpur's entry point, which sets the locale and signals, reads the
 * options, then runs. */
#include <errno.h>
#include <locale.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "completions.h"
#include "run.h"
#include "serve/serve.h"
#include "util/buf.h"
#include "util/msg.h"

#ifndef GPUR_VERSION
#define GPUR_VERSION "0.0.0"
#endif

static void on_stop(int sig)
{
	int fd = run_reload_fd;

	if (sig == SIGHUP && fd >= 0) {
		uint64_t v = SERVE_EFD_RELOAD;
		int saved = errno;
		ssize_t w = write(fd, &v, sizeof(v)); /* async-signal-safe */
		(void)w;
		errno = saved;
		return;
	}
	run_stop_requested = sig;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop; /* no SA_RESTART, so that sleeps end at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A closed pipe gives EPIPE from write(2), and a file size limit EFBIG. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

/* Writes the --completions script for shell on stdout. Returns 0, or 1 when
 * it could not be written; a closed pipe is quiet and still gives 0. */
static int print_completions(enum completions_shell shell)
{
	struct completions_option opts[CLI_OPTIONS_MAX];
	size_t n = cli_completion_options(opts, CLI_OPTIONS_MAX);
	struct buf b;
	char err[256];
	int rc = 0;

	if (n > CLI_OPTIONS_MAX) {
		msg_error("--completions: more than %d options", CLI_OPTIONS_MAX);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	buf_init(&b);
	if (completions_write(&b, shell, opts, n, err, sizeof(err)) != 0) {
		msg_error("%s", err);
		rc = 1;
	} else if ((fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0) && errno != EPIPE) {
		msg_error("stdout: %s", strerror(errno));
		rc = 1;
	}
	buf_fini(&b);
	return rc;
}

int main(int argc, char **argv)
{
	struct config cfg;
	char err[512];

	/* Blocks of 256 KiB and more, such as a large record's strings and its
	 * line, come from mmap and go back to the system when freed. glibc
	 * would otherwise raise the threshold after the first such free and
	 * keep every later one in the heap, so one hostile record would pin
	 * its size for the rest of the run. */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	/* Only LC_CTYPE is set, so numbers in records are always written and read
	 * with '.'. */
	setlocale(LC_CTYPE, "");
	if (cli_parse(argc, argv, &cfg, err, sizeof(err)) != 0) {
		msg_error("%s", err);
		return 2;
	}
	if (cfg.help) {
		cli_usage(stdout);
		return 0;
	}
	if (cfg.version) {
		printf("gpur %s\n", GPUR_VERSION);
		return 0;
	}
	if (cfg.completions)
		return print_completions(cfg.completions);
	cfg.mode = cli_resolve_mode(&cfg, isatty(STDOUT_FILENO));
	if (cli_check_mode(&cfg, err, sizeof(err)) != 0) {
		msg_error("%s", err);
		return 2;
	}
	install_signals();
	return run_main(&cfg);
}
