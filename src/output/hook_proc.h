/* hook_proc: one run of the --on-event hook, /bin/sh -c COMMAND, spawned in
 * a process group of its own with nothing of gpur's but its standard
 * streams. Its standard input is a pipe that takes the event's line without
 * ever blocking gpur, and its standard error a pipe whose first bytes are
 * kept to say why it failed. */
#ifndef GPUR_HOOK_PROC_H
#define GPUR_HOOK_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How much of a hook's standard error is kept for the note about it. */
#define HOOK_PROC_ERR_HEAD 200

struct hook_proc {
	pid_t pid;    /* also its process group */
	int pidfd;    /* readable once the process has ended, or -1 where the kernel has no pidfds */
	int in_fd;    /* gpur's end of its standard input, or -1 once closed */
	int err_fd;   /* gpur's end of its standard error, or -1 once closed */
	bool forward; /* its standard error is copied to gpur's as it comes */
	const char *in;       /* the line for its standard input, borrowed until in_fd is closed */
	size_t in_len, in_off;
	char err[HOOK_PROC_ERR_HEAD];
	size_t err_len;
};

struct hook_spawn {
	char *command;     /* the shell's command, borrowed */
	char *const *envp; /* its whole environment, borrowed */
	/* Its standard output and error go nowhere, because a dashboard owns
	 * the terminal. Otherwise they go to gpur's standard error, the one
	 * stream that no record is written to. */
	bool quiet;
};

/* Spawns s's command with line[0..len) waiting on its standard input, which
 * is closed once the line is written, and writes what the pipe takes at
 * once. Returns 0, or -errno when it cannot start, with nothing left
 * behind. */
int hook_proc_start(struct hook_proc *p, const struct hook_spawn *s, const char *line, size_t len);
/* Writes more of the line when the pipe has room. A hook that has closed
 * its standard input unread gets no more. */
void hook_proc_write(struct hook_proc *p);
/* Reads what its standard error holds now, keeping the first bytes. */
void hook_proc_read_err(struct hook_proc *p);
/* Reaps it if it has ended, without waiting. Returns true with its wait
 * status in *status, or -1 there when it was reaped by someone else. */
bool hook_proc_reap(struct hook_proc *p, int *status);
/* Sends sig to its process group, which a hook that started processes of
 * its own shares with them. Call it only before the hook is reaped. */
void hook_proc_kill(struct hook_proc *p, int sig);
/* Closes gpur's ends of its pipes and its pidfd. */
void hook_proc_close(struct hook_proc *p);
/* Writes into out, of size n > 0, the kept start of its standard error as
 * one line: controls and line breaks become spaces, runs of spaces one,
 * invalid UTF-8 is dropped, and the ends are trimmed. Returns its length. */
size_t hook_proc_err_line(const struct hook_proc *p, char *out, size_t n);

#endif
