/* tui_priv: the dashboard's state, shared by its files (tui.c: loop and keys;
 * draw.c: header, GPUs, charts; draw_session.c: each GPU's session line;
 * draw_procs.c: process table, overlays;
 * dialog_signal.c: the signal dialog; view_groups.c: the grouped table;
 * view_details.c: one process's details; view_tree.c: its process tree). */
#ifndef GPUR_TUI_PRIV_H
#define GPUR_TUI_PRIV_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "feed.h"
#include "tui/canvas.h"
#include "model/frame.h"
#include "output/sink.h"
#include "tui/tui.h"
#include "util/buf.h"
#include "output/fleet_view.h"
#include "view/history.h"
#include "view/lineedit.h"
#include "view/prochist.h"
#include "view/proctable.h"
#include "model/group.h"
#include "view/session.h"
#include "view/settings.h"

#define TUI_EVENTS 32

enum tui_color { TC_NONE, TC_HEAD, TC_OK, TC_WARN, TC_CRIT, TC_DIM, TC_SEL, TC_BAR, TC__COUNT };
_Static_assert(TC__COUNT <= CANVAS_PAIRS, "each colour is a pair of the canvas");

struct tui_event {
	uint64_t ts_ms;
	char text[200];
	bool bad; /* gpu_lost, backend_lost */
};

#define DIALOG_SIGNAL_COUNT 6

/* The signal dialog: the process it was opened on, copied then (frames go
 * on under it), and the signal chosen. */
struct tui_sigdlg {
	bool open;
	bool drawn; /* the last frame showed it whole: Enter may send */
	int choice; /* 0 .. DIALOG_SIGNAL_COUNT - 1; 0 is SIGTERM */
	uint64_t pid, start_ticks;
	char user[64], container[256], pod[128], command[512];
};

struct tui {
	const struct tui_opts *opts;
	struct feed *feed;
	struct sink *sink;
	bool utf8, color, mouse;
	int rows, cols;
	struct frame *frame; /* displayed */
	uint64_t seq;
	uint64_t counted_seq; /* the last frame counted in history, events and session */
	bool frozen;         /* p: screen updates paused */
	struct feed_status st;
	struct settings set;
	bool set_dirty;
	struct lineedit filter; /* the process filter (/) */
	bool editing;        /* typing the filter */
	bool jumping;        /* typing a clock time to jump to (replay) */
	struct lineedit jump; /* the clock time typed after J */
	char jump_err[64];   /* why the last time typed was not taken */
	bool seek_req;       /* a time seek was asked for while frame seq_req was shown */
	uint64_t seek_target, seek_req_seq;
	bool only_mine;
	char me[64];
	bool hide_idle;
	bool help, pick_columns;
	bool show_cmd;       /* Enter: the selected process's details */
	bool show_tree;      /* t: the selected process's tree */
	int col_cursor;
	struct tui_sigdlg sig;
	size_t sel, top;     /* selected row and first visible row of the view */
	size_t gpu_top;      /* first GPU shown when they do not all fit ([ and ]) */
	uint64_t sel_pid, sel_dev; /* the selected row's identity, kept across frames */
	size_t *view, nview, view_cap;
	bool hidden_gpu[FRAME_MAX_GPUS];
	/* g: the table grouped (view_groups.c); the mode is set.group's. */
	enum group_by group_by;
	struct grouping groups;
	bool group_open; /* one group's processes shown: group_key's */
	char group_key[GROUP_KEY_MAX], group_label[GROUP_KEY_MAX];
	size_t gsel, gtop; /* selected group and first visible one */
	char gsel_key[GROUP_KEY_MAX]; /* the selected group, kept across frames */
	bool gsel_valid;
	struct history *hist;
	struct prochist *phist; /* per process, for the details screen */
	/* S: each GPU's peak and mean since the dashboard started, or since
	 * the replay's last seek (sess_seeks: the feed's count of them). */
	struct session *sess;
	uint64_t sess_seeks;
	double hist_interval; /* the interval the history was sized for */
	struct tui_event events[TUI_EVENTS];
	size_t nevents;
	char status[256];
	uint64_t status_until;
	/* This frame's header message (status, a source's failure, the PID
	 * namespace warning) when it does not fit on the header's second line:
	 * drawn over the events line instead, wrapped onto the footer. */
	char low_msg[640];
	enum tui_color low_color;
	/* gpur's own cost, for the header. */
	uint64_t cpu_prev_ns, wall_prev_ns;
	double self_cpu;
	uint64_t self_rss;
	/* Where things were drawn, for the mouse. */
	int table_y, table_rows, col_x[PROCTABLE__COUNT + 1];
	enum proctable_col col_of[PROCTABLE__COUNT];
	int ncols_shown;
	uint32_t shown_columns; /* the columns on screen (narrow terminals hide some) */
	struct canvas canvas; /* the screen (canvas.c) */
	WINDOW *keys; /* a pad keys are read from (never drawn) */
	int statm_fd; /* /proc/self/statm, held */
	struct pidwant *want; /* whose /proc figures the screen needs (NULL: not asked) */
	unsigned want_pids[256];
	size_t nwant;
	bool want_all, want_sent;
	double iv_value; /* the interval iv_str shows */
	char iv_str[32];
	time_t clock_at; /* the second t->clock shows */
	char clock[16];
	/* --prometheus (view_fleet.c): the latest frame with the fleet, the
	 * summary's rows, order and filter, and the host opened with Enter. */
	struct frame *fleet_frame;
	struct fleet_row *frows;
	size_t nfrows, frows_cap, fsel, ftop;
	char fsel_host[FLEET_NAME_MAX + 1];
	enum fleet_col fsort;
	bool freverse, fediting, host_open;
	struct lineedit ffilter;
	char host[FLEET_NAME_MAX + 1]; /* the opened host */
};

/* text.c */
/* Draws s at (y, x) in at most w columns, made safe: control characters
 * and invalid UTF-8 become U+FFFD ('?' outside UTF-8), wide characters take
 * two columns. Returns the columns used. */
int tui_text(struct tui *t, int y, int x, const char *s, int w);
/* Same, right-aligned in w columns. */
int tui_text_right(struct tui *t, int y, int x, const char *s, int w);
/* Display columns of s as tui_text would draw it. */
int tui_text_width(struct tui *t, const char *s);
void tui_attr(struct tui *t, enum tui_color c, bool on);
/* A bar of w columns filled to pct (0..100; <0 unknown). */
void tui_bar(struct tui *t, int y, int x, int w, double pct, enum tui_color c);
/* A prompt on row y: "title: text_   (hints)", the cursor as '_'. */
void tui_prompt(struct tui *t, int y, const char *title, const struct lineedit *e, const char *hints);
/* "12.3G"-style size, "--" when !known. */
void tui_size(char *buf, size_t n, bool known, uint64_t bytes);

/* tui.c */
/* Shows msg (copied) on the status line for 5 s. */
void tui_set_status(struct tui *t, const char *msg);

/* draw.c */
void tui_draw(struct tui *t);

/* draw_session.c */
/* The session line of GPU g (set.session) at row y, from column x, w
 * columns wide: peak/mean util, temperature and power, "--" for what was
 * never known this session. */
void tui_session_draw(struct tui *t, const struct gpu *g, int y, int x, int w);

/* draw_procs.c */
/* Draws the process table from row y to y + h - 1. */
void tui_draw_procs(struct tui *t, int y, int h);
void tui_draw_overlays(struct tui *t);
/* Rebuilds the view of the process table for the current frame. */
void tui_build_view(struct tui *t);
const struct gpu_process *tui_selected(const struct tui *t);
/* A box with a title at (y, x), h x w, cleared inside; false (nothing
 * drawn) when it does not fit. */
bool tui_box(struct tui *t, int y, int x, int h, int w, const char *title);

/* dialog_signal.c */
/* K / F9: opens the dialog on the selected row, or says on the status line
 * why that row may not be signalled (--read-only, a replay, not this
 * machine's pid, no start time to check its identity against). */
void dialog_signal_open(struct tui *t);
/* A key while the dialog is open: choose, Enter sends (the outcome on the
 * status line and as a `signal` event through the feed), Esc cancels. */
void dialog_signal_key(struct tui *t, int ch);
void dialog_signal_draw(struct tui *t);

/* view_details.c */
/* The details screen of the selected process, when show_cmd. */
void tui_details_draw(struct tui *t);

/* view_fleet.c */
/* A new frame f (consumed) from a fleet source: keeps it for the summary
 * when keep, and returns what the screen shows (a reference): the opened
 * host's frame, or f itself. */
struct frame *tui_fleet_take(struct tui *t, struct frame *f, bool keep);
/* Whether the fleet summary is on the screen (a fleet, no host opened). */
bool tui_fleet_listing(const struct tui *t);
/* Keys of the summary (select, sort, filter, Enter opens a host) and of an
 * opened host (Esc or Backspace: back). Returns whether ch was taken. */
bool tui_fleet_key(struct tui *t, int ch);
/* The summary from row y to y + h - 1. */
void tui_fleet_draw(struct tui *t, int y, int h);
/* The summary's key hints (or its filter being typed) on row y. */
void tui_fleet_draw_keys(struct tui *t, int y);
/* The source's failure for the header (stale since, error, next retry), or
 * NULL when it answers. Into buf. */
const char *tui_fleet_problem(const struct tui *t, char *buf, size_t n);
void tui_fleet_free(struct tui *t);

/* view_tree.c */
/* The selected process's tree, when show_tree. */
void tui_tree_draw(struct tui *t);
/* view_groups.c */
/* Whether the table shows the list of groups (grouped, none opened). */
bool tui_groups_listing(const struct tui *t);
/* After the view is built: narrows it to the opened group, or groups it. */
void tui_groups_after_view(struct tui *t);
/* g cycles the grouping; in the list: select, Enter opens; in an opened
 * group: Esc or Backspace goes back. Returns whether ch was taken. */
bool tui_groups_key(struct tui *t, int ch);
/* The table's title line when grouped at row y: the rows it took (0 or 1). */
int tui_groups_title(struct tui *t, int y);
/* The list of groups from row y to y + h - 1. */
void tui_groups_draw(struct tui *t, int y, int h);

#endif
