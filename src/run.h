/* run: wires a config to a source, live backends or a replay, and to a mode,
 * once, json or headless, and turns outcomes into exit statuses. */
#ifndef GPUR_RUN_H
#define GPUR_RUN_H

#include <signal.h>

#include "cli.h"

/* Set by the signal handlers main installs to the signal's number; the
 * loops stop when it is not zero. */
extern volatile sig_atomic_t run_stop_requested;
/* Where SIGHUP asks the exporter to re-read --web-config (serve_reload_fd),
 * or -1: without --web-config, SIGHUP stops gpur as SIGTERM does. */
extern volatile sig_atomic_t run_reload_fd;

/* Runs cfg to completion, and returns the process exit status, 0, 1 or 2. */
int run_main(const struct config *cfg);

#endif
