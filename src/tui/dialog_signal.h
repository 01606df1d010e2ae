/* dialog_signal: the signal dialog (K, F9), with its state and its calls. */
#ifndef GPUR_DIALOG_SIGNAL_H
#define GPUR_DIALOG_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

struct tui;

#define DIALOG_SIGNAL_COUNT 6

/* The process the dialog was opened on, copied then because frames go on
 * under it, and the signal chosen. */
struct tui_sigdlg {
	bool drawn; /* the last frame showed it whole, so Enter may send */
	int choice; /* 0 to DIALOG_SIGNAL_COUNT - 1, where 0 is SIGTERM */
	uint64_t pid, start_ticks;
	char user[64], container[256], pod[128], command[512];
};

/* Opens the dialog (TUI_MODE_SIGNAL) on the selected row, or says on the
 * status line why that row may not be signalled: the list of groups is
 * shown, --read-only is set, it is a replay, the pid is not this machine's,
 * or there is no start time to check its identity against. */
void dialog_signal_open(struct tui *t);
/* The dialog's keys, which are rows of keys.c and return KEY_* flags.
 * Up, Down and 1-6 choose; Enter sends, with the outcome on the status line
 * and as a `signal` event through the feed; Esc cancels. */
unsigned dialog_signal_key_choose(struct tui *t, int ch);
unsigned dialog_signal_key_send(struct tui *t, int ch);
unsigned dialog_signal_key_cancel(struct tui *t, int ch);
/* Draws the dialog when it is open. */
void dialog_signal_draw(struct tui *t);

#endif
