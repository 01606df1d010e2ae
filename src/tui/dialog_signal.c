/* dialog_signal: the signal dialog for the selected process, opened with K or
 * F9. It shows who the process is (pid, user, container, command) and which
 * signal to send, with TERM preselected. Enter sends through psignal and Esc
 * cancels; its keys are rows of keys.c. Every attempt becomes a `signal`
 * event in the next frame, and so in --log. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "model/event.h"
#include "proc/psignal.h"
#include "tui/tui_priv.h"
#include "util/utf8.h"

static const struct {
	int signo;
	const char *what;
} SIGNALS[DIALOG_SIGNAL_COUNT] = {
	{SIGTERM, "terminate (the default: the process may clean up)"},
	{SIGINT, "interrupt, as Ctrl-C does"},
	{SIGHUP, "hang up (many daemons reload)"},
	{SIGKILL, "kill at once (cannot be caught)"},
	{SIGSTOP, "stop (pause) the process"},
	{SIGCONT, "continue a stopped process"},
};

/* Writes into buf why the selected row may not be signalled, and returns NULL
 * when it may. */
static const char *refusal(const struct tui *t, const struct gpu_process *p, char *buf, size_t n)
{
	const struct tui_opts *o = t->opts;

	if (tui_groups_listing(t))
		return "a group is not a process: Enter opens it, then select one";
	if (o->read_only)
		return "--read-only: signals are disabled";
	if (t->st.replay)
		return "replay: signals are disabled (these pids belong to the recorded machine and time)";
	if (o->fleet)
		return "--prometheus: signals are disabled (these pids belong to other machines)";
	if (!p)
		return "no process selected";
	if (p->pid_hidden) {
		snprintf(buf, n, "pid %" PRIu64 " is the host's and gpur runs in a PID namespace of its own: signals are disabled",
			 p->pid);
		return buf;
	}
	if (!p->can_signal) {
		snprintf(buf, n, "pid %" PRIu64 ": its backend does not allow signals", p->pid);
		return buf;
	}
	if (!p->local || !process_has(p, PROC_F_PID) || p->pid == 0 || p->pid > INT32_MAX) {
		snprintf(buf, n, "pid %" PRIu64 " is not this machine's: signals are disabled", p->pid);
		return buf;
	}
	/* In rows from a --procfs tree of another machine or pid namespace, a
	 * pid is not the one kill(2) takes here. */
	if (!psignal_procfs_is_ours(o->procfs)) {
		return "--procfs: signals are disabled (the tree's self link does not name gpur: not this machine's /proc)";
	}
	/* psignal refuses init, gpur itself and kernel threads too, right
	 * before sending, but saying so here keeps the dialog from opening. */
	char why[160];
	if (psignal_protected(o->procfs, (unsigned)p->pid, why, sizeof(why))) {
		snprintf(buf, n, "%s: not signalled", why);
		return buf;
	}
	if (!p->start_ticks) {
		snprintf(buf, n, "pid %" PRIu64 ": its start time is unknown, so its identity cannot be checked: not signalled",
			 p->pid);
		return buf;
	}
	return NULL;
}

/* Copies src, or "--" when it is unknown, into dst of size n, never cut
 * inside a UTF-8 sequence. */
static void copy_text(char *dst, size_t n, const char *src)
{
	if (!src || !*src)
		src = "--";
	size_t len = utf8_trim(src, strlen(src), n - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
}

void dialog_signal_open(struct tui *t)
{
	struct tui_sigdlg *d = &t->sig;
	const struct gpu_process *p = tui_selected(t);
	char why[512], cell[PROCESS_CMDLINE_MAX + 64];
	const char *no = refusal(t, p, why, sizeof(why));

	if (no) {
		tui_set_status(t, no);
		return;
	}
	/* Show the process as it is now, because frames go on under the open
	 * dialog and what is sent must go to what was shown. */
	memset(d, 0, sizeof(*d));
	t->mode = TUI_MODE_SIGNAL;
	d->pid = p->pid;
	d->start_ticks = p->start_ticks;
	copy_text(d->user, sizeof(d->user), process_has(p, PROC_F_USER) ? p->user : NULL);
	/* The container goes by name and id, and the pod as namespace/name,
	 * or its uid when no name is known. */
	if (process_has(p, PROC_F_CONTAINER_NAME) && process_has(p, PROC_F_CONTAINER))
		snprintf(cell, sizeof(cell), "%s (%s)", p->container_name, p->container);
	else
		proctable_cell(t->frame, p, PROCTABLE_CONTAINER, 0, cell, sizeof(cell));
	copy_text(d->container, sizeof(d->container), cell);
	copy_text(d->pod, sizeof(d->pod), process_pod_text(p, cell, sizeof(cell)));
	proctable_cell(t->frame, p, PROCTABLE_COMMAND, 0, cell, sizeof(cell));
	copy_text(d->command, sizeof(d->command), cell);
}

static void send_chosen(struct tui *t)
{
	struct tui_sigdlg *d = &t->sig;
	int signo = SIGNALS[d->choice].signo;
	char detail[320], status[400];

	int rc = psignal_send(t->opts->procfs, (unsigned)d->pid, d->start_ticks, signo, detail, sizeof(detail));
	struct event e = {
		.kind = EVENT_SIGNAL,
		.pid = d->pid,
		.signal = psignal_name(signo),
		.result = psignal_result(rc),
		.detail = detail,
	};
	e.valid = UINT64_C(1) << EVENT_F_KIND | UINT64_C(1) << EVENT_F_PID | UINT64_C(1) << EVENT_F_SIGNAL |
		  UINT64_C(1) << EVENT_F_RESULT | UINT64_C(1) << EVENT_F_DETAIL;
	bool logged = feed_post_event(t->feed, &e);
	snprintf(status, sizeof(status), "%s%s", detail, logged ? "" : " (no event: too many are waiting)");
	tui_set_status(t, status);
}

unsigned dialog_signal_key_choose(struct tui *t, int ch)
{
	struct tui_sigdlg *d = &t->sig;

	if (ch >= '1' && ch < '1' + DIALOG_SIGNAL_COUNT)
		d->choice = ch - '1';
	else if (ch == KEY_UP || ch == 'k')
		d->choice = d->choice > 0 ? d->choice - 1 : 0;
	else if (d->choice + 1 < DIALOG_SIGNAL_COUNT)
		d->choice++;
	return KEYS_REDRAW;
}

unsigned dialog_signal_key_send(struct tui *t, int ch)
{
	(void)ch;
	if (!t->sig.drawn)
		return 0; /* never sent to a process the user could not see */
	t->mode = TUI_MODE_PROCS;
	send_chosen(t);
	return KEYS_REDRAW;
}

unsigned dialog_signal_key_cancel(struct tui *t, int ch)
{
	char msg[96];

	(void)ch;
	t->mode = TUI_MODE_PROCS;
	snprintf(msg, sizeof(msg), "cancelled: no signal sent to pid %" PRIu64, t->sig.pid);
	tui_set_status(t, msg);
	return KEYS_REDRAW;
}

void dialog_signal_draw(struct tui *t)
{
	struct tui_sigdlg *d = &t->sig;
	char line[640];
	struct key_hint hints[8];
	const enum key_foot own = KEYS_FOOT_OWN;

	if (t->mode != TUI_MODE_SIGNAL)
		return;
	int w = t->cols - 4 < 76 ? t->cols - 4 : 76, h = 6 + DIALOG_SIGNAL_COUNT + 2;
	int y = (t->rows - h) / 2, x = (t->cols - w) / 2, iw = w - 4;
	d->drawn = tui_box(t, y, x, h, w, " send a signal ");
	if (!d->drawn) {
		/* The box is too small to show who would get the signal, so Enter does
		 * nothing. */
		tui_text(t, 0, 0, "signal: the terminal is too small for the dialog (Esc cancels)", t->cols);
		return;
	}
	snprintf(line, sizeof(line), "pid %" PRIu64 "   user %s", d->pid, d->user);
	tui_text(t, y + 1, x + 2, line, iw);
	snprintf(line, sizeof(line), "container %s   pod %s", d->container, d->pod);
	tui_text(t, y + 2, x + 2, line, iw);
	/* The command is the process's own text, so tui_text makes it inert
	 * and cuts it to the box. */
	tui_text(t, y + 3, x + 2, "command ", iw);
	tui_text(t, y + 3, x + 10, d->command, iw - 8);
	for (int i = 0; i < DIALOG_SIGNAL_COUNT; i++) {
		bool sel = i == d->choice;
		snprintf(line, sizeof(line), "%s %d %-8s %s", sel ? ">" : " ", i + 1, psignal_name(SIGNALS[i].signo),
			 SIGNALS[i].what);
		if (sel)
			tui_attr(t, TC_SEL, true);
		tui_text(t, y + 5 + i, x + 2, line, iw);
		if (sel)
			tui_attr(t, TC_SEL, false);
	}
	size_t n = keys_hints(TUI_MODE_SIGNAL, &own, 1, t->utf8, hints, sizeof(hints) / sizeof(hints[0]));
	keys_join(hints, n, "   ", NULL, line, sizeof(line));
	tui_text(t, y + h - 2, x + 2, line, iw);
}
