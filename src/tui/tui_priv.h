/* tui_priv: the dashboard's state, shared by its files. tui.c has the loop
 * and keys; draw.c the header, GPUs and charts; draw_session.c each GPU's
 * session line; draw_procs.c the process table and overlays;
 * dialog_signal.c the signal dialog; view_groups.c the grouped table;
 * view_fleet.c the fleet summary; view_details.c one process's details;
 * view_tree.c its process tree; tui_want.c the processes the screen needs
 * figures of; canvas.c the screen; and text.c safe text. A part that one
 * file owns is a struct of its own, declared in that file's header. */
#ifndef GPUR_TUI_PRIV_H
#define GPUR_TUI_PRIV_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "feed.h"
#include "model/frame.h"
#include "output/sink.h"
#include "tui/canvas.h"
#include "tui/dialog_signal.h"
#include "tui/draw_procs.h"
#include "tui/keys.h"
#include "tui/tui.h"
#include "tui/tui_want.h"
#include "tui/view_fleet.h"
#include "tui/view_groups.h"
#include "view/history.h"
#include "view/lineedit.h"
#include "view/prochist.h"
#include "view/proctable.h"
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

/* The replay's seeks: the time typed after J and why it was not taken, and
 * the last seek asked for while its frame is not on the screen yet, so that
 * keys typed ahead add up. tui.c seeks, and keys.c has the J prompt. */
struct tui_seek {
	struct lineedit jump;
	char err[64];
	bool req;
	uint64_t target, req_seq;
};

/* The status line, and the header's message that did not fit there, which
 * draw.c draws over the events line, wrapped onto the footer. */
struct tui_msg {
	char status[256];
	uint64_t until; /* wall-clock ms the status goes at */
	char low[640];
	enum tui_color low_color;
};

/* gpur's own cost, for the header, kept by tui.c. */
struct tui_self {
	uint64_t cpu_prev_ns, wall_prev_ns;
	double cpu;
	uint64_t rss;
	int statm_fd; /* /proc/self/statm, held open */
};

/* What the header works out once rather than every frame, kept by draw.c. */
struct tui_header {
	double iv_value; /* the interval iv_str shows */
	char iv_str[32];
	time_t clock_at; /* the second clock shows */
	char clock[16];
};

/* The charts' and the session line's figures. */
struct tui_hist {
	struct history *gpus;     /* per GPU, for the charts */
	struct prochist *procs;   /* per process, for the details screen */
	double interval;          /* the interval gpus was sized for */
	/* For S, each GPU's peak and mean since the dashboard started, or
	 * since the replay's last seek; seeks is the feed's count of them. */
	struct session *sess;
	uint64_t seeks;
};

struct tui {
	const struct tui_opts *opts;
	struct feed *feed;
	struct sink *sink;
	bool utf8, color;
	int rows, cols;
	char me[64];         /* the user, for u */
	/* The frame shown, and the feed's view of it. */
	struct frame *frame;
	uint64_t seq;
	uint64_t counted_seq; /* the last frame counted in history, events and session */
	bool frozen;          /* p, screen updates paused */
	/* The footer's key hints as last joined, and what they were joined
	 * for, since they change only with the mode. */
	struct {
		bool valid, utf8;
		unsigned mode;
		enum key_foot kinds[2];
		size_t nkinds;
		char text[600];
	} foot;
	struct feed_status st;
	struct settings set;
	bool set_dirty;
	/* What is open over the screen (help, picker, details, tree, dialog,
	 * prompt), or TUI_MODE_PROCS for the screen's own, where tui_mode()
	 * tells which of its modes that is. */
	enum tui_mode mode;
	int col_cursor; /* the column picker's line */
	/* The parts, each owned by its file. */
	struct tui_table table;   /* draw_procs.c */
	size_t gpu_top;           /* the first GPU shown when they do not all fit, moved with [ and ] */
	struct tui_groups groups; /* view_groups.c */
	struct tui_fleet fleet;   /* view_fleet.c */
	struct tui_sigdlg sig;    /* dialog_signal.c */
	struct tui_want want;     /* tui_want.c */
	struct tui_seek seek;
	struct tui_hist hist;
	struct tui_event events[TUI_EVENTS];
	size_t nevents;
	struct tui_msg msg;
	struct tui_self self;
	struct tui_header hdr;
	struct canvas canvas; /* the screen (canvas.c) */
	WINDOW *keys;         /* a pad that keys are read from, never drawn */
};

/* text.c */
/* Draws s at (y, x) in at most w columns, made safe. Control characters and
 * invalid UTF-8 become U+FFFD, or '?' outside UTF-8, and wide characters
 * take two columns. Returns the columns used. */
int tui_text(struct tui *t, int y, int x, const char *s, int w);
/* The same, right-aligned in w columns. */
int tui_text_right(struct tui *t, int y, int x, const char *s, int w);
/* The display columns of s as tui_text would draw it. */
int tui_text_width(struct tui *t, const char *s);
void tui_attr(struct tui *t, enum tui_color c, bool on);
/* Draws a bar of w columns filled to pct, 0..100, or < 0 for unknown. */
void tui_bar(struct tui *t, int y, int x, int w, double pct, enum tui_color c);
/* Draws the prompt of mode m on row y as "title: text_   (hints)", with the
 * cursor as '_' and the hints of its rows (keys.c). */
void tui_prompt(struct tui *t, int y, enum tui_mode m);
/* Draws a box of h x w with a title at (y, x), cleared inside. Returns false,
 * drawing nothing, when it does not fit. */
bool tui_box(struct tui *t, int y, int x, int h, int w, const char *title);
/* The first row to show of a list of n rows with row sel selected, when
 * `rows` rows fit and top was shown last, so that the selection stays in
 * sight. A top past the list goes back to 0. With fill, the list also never
 * ends above the last screen row while it has rows to fill it. */
size_t tui_scroll_top(size_t sel, size_t top, size_t n, int rows, bool fill);
/* Where a screen over the whole dashboard, the details or the tree, draws:
 * inside its box, in columns x to x + w - 1 and rows y to end - 1. */
struct tui_inside {
	int x, w, y, end;
};
/* Draws the box of the screen of mode m about the selected process, titled
 * "<what> <pid>". Returns true with *in set when m is on and the box fits,
 * and puts the selected process in *p; when it is NULL, the box says
 * "(no process selected)". */
bool tui_overlay(struct tui *t, enum tui_mode m, const char *what, const struct gpu_process **p,
		 struct tui_inside *in);
/* Writes a size in the "12.3G" style, or "--" when !known. */
void tui_size(char *buf, size_t n, bool known, uint64_t bytes);
/* A line built without printf, because the header and every GPU's lines are
 * drawn every frame. Pieces are appended, cut at cap - 1 and always
 * NUL-terminated. */
struct tui_line {
	char *b;
	size_t n, cap; /* cap includes the NUL */
};
void tui_line_init(struct tui_line *l, char *buf, size_t cap);
void tui_line_put(struct tui_line *l, const char *s);
/* Appends the strings of parts, which is NULL-terminated, one after
 * another. */
void tui_line_puts(struct tui_line *l, const char *const *parts);
/* Appends v in decimal, at least width digits, padded with pad (fmt_u64). */
void tui_line_u64(struct tui_line *l, uint64_t v, int width, char pad);
/* Appends v with the given decimals (fmt_fixed). */
void tui_line_fixed(struct tui_line *l, double v, int decimals);
/* Writes the strings of parts, which is NULL-terminated, one after another
 * into buf. */
void tui_join(char *buf, size_t n, const char *const *parts);
/* Writes the local time of ts as HH:MM:SS, or "--:--:--" when it cannot be
 * told. */
void tui_hms(char *buf, size_t n, time_t ts);

/* tui.c */
/* Shows msg, which is copied, on the status line for 5 s. */
void tui_set_status(struct tui *t, const char *msg);
/* The screen's own mode, which is the fleet summary, the list of groups, or
 * the process table. */
enum tui_mode tui_screen_mode(const struct tui *t);
/* The mode that keys act in, which is what is open over the screen, else the
 * screen's own. */
enum tui_mode tui_mode(const struct tui *t);
/* Handles the mouse's event. A click selects a row or sorts by a column, and
 * the wheel scrolls. */
void tui_mouse(struct tui *t);
/* For d and D, moves to the next shorter (dir < 0) or longer interval. */
void tui_change_interval(struct tui *t, int dir);
/* Moves the replay to ts_ms; or by delta_ms from the record shown, or from
 * the one last asked for while that is not on the screen yet; or to its
 * first record, or its last when end is set. */
void tui_seek_to(struct tui *t, uint64_t ts_ms);
void tui_seek_by(struct tui *t, int64_t delta_ms);
void tui_seek_edge(struct tui *t, bool end);

/* draw.c */
void tui_draw(struct tui *t);

/* draw_gpu.c */
/* Draws GPU i of f on one line at (y, x) in w columns: index, name, util and
 * memory bars, temperature and power, or a lost or suspended GPU's last
 * readings. */
void tui_gpu_draw_line(struct tui *t, const struct frame *f, size_t i, int y, int x, int w);
/* Draws the second line of a full panel: clocks, voltage, fan, PCIe,
 * engines, P-state, throttle reasons and the memory no process accounts
 * for. */
void tui_gpu_draw_details(struct tui *t, const struct frame *f, size_t i, int y, int x, int w);

/* draw_session.c */
/* Draws the session line of GPU g (set.session) at row y, from column x and
 * w columns wide, with the peak and mean util, temperature and power, and
 * "--" for what was never known this session. */
void tui_session_draw(struct tui *t, const struct gpu *g, int y, int x, int w);

/* In draw_procs.c: the help and the column picker over the screen. */
void tui_draw_overlays(struct tui *t);

/* view_details.c */
/* Draws the details screen of the selected process (TUI_MODE_DETAILS). */
void tui_details_draw(struct tui *t);

/* view_tree.c */
/* Draws the selected process's tree (TUI_MODE_TREE). */
void tui_tree_draw(struct tui *t);

#endif
