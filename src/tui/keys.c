/* keys: the dashboard's key table, its dispatch, and the handlers of the
 * keys that act on the screen as a whole; the fleet's, the groups' and the
 * dialog's own handlers are in their files. The rows are in the order in
 * which the help screen and the footers list them. */
#include "tui/keys.h"

#include <curses.h>
#include <string.h>

#include "tui/tui_priv.h"
#include "util/when.h"

/* Moves the selection of the list on the screen, processes or groups, by
 * delta rows. */
static void move_in_list(struct tui *t, long delta)
{
	if (tui_mode(t) == TUI_MODE_GROUPS)
		tui_groups_move(t, delta);
	else
		tui_move_sel(t, delta);
}

static unsigned key_quit(struct tui *t, int ch)
{
	(void)t;
	(void)ch;
	return KEYS_QUIT;
}

static unsigned open_mode(struct tui *t, enum tui_mode m)
{
	t->mode = m;
	return KEYS_REDRAW;
}

static unsigned key_help(struct tui *t, int ch)
{
	(void)ch;
	return open_mode(t, TUI_MODE_HELP);
}

/* In a replay, or live on the virtual clock, space pauses and resumes, '.'
 * takes one record (one poll), and + and - change the replay's speed. */
static unsigned key_pause(struct tui *t, int ch)
{
	(void)ch;
	if (t->st.replay || t->st.stepped)
		feed_set_paused(t->feed, !t->st.paused);
	return KEYS_REDRAW;
}

static unsigned key_step(struct tui *t, int ch)
{
	(void)ch;
	if (t->st.replay || t->st.stepped) {
		feed_set_paused(t->feed, true);
		feed_step(t->feed);
	}
	return KEYS_REDRAW;
}

static unsigned key_speed(struct tui *t, int ch)
{
	if (t->st.replay) {
		double s = ch == '+' ? t->st.speed * 2 : t->st.speed / 2;
		s = s > 64 ? 64 : s < 0.25 ? 0.25 : s;
		feed_set_speed(t->feed, s);
	}
	return KEYS_REDRAW;
}

/* Home and End go to a replay's first and last record, else to the list's
 * first and last row. */
static unsigned key_ends(struct tui *t, int ch)
{
	if (t->st.replay) {
		tui_seek_edge(t, ch == KEY_END);
	} else {
		long n = (long)(tui_mode(t) == TUI_MODE_GROUPS ? t->groups.list.ngroups : t->table.nview);
		move_in_list(t, ch == KEY_HOME ? -n : n);
	}
	return KEYS_REDRAW;
}

static unsigned key_seek(struct tui *t, int ch)
{
	if (ch == KEY_LEFT || ch == KEY_RIGHT)
		tui_seek_by(t, ch == KEY_LEFT ? -10000 : 10000);
	else
		tui_seek_by(t, ch == KEY_SLEFT || ch == '{' ? -60000 : 60000);
	return KEYS_REDRAW;
}

static unsigned key_jump(struct tui *t, int ch)
{
	(void)ch;
	if (!t->st.replay)
		return 0;
	lineedit_clear(&t->seek.jump);
	return open_mode(t, TUI_MODE_JUMP);
}

static unsigned key_move(struct tui *t, int ch)
{
	move_in_list(t, ch == KEY_UP || ch == 'k' ? -1 : 1);
	return KEYS_REDRAW;
}

static unsigned key_page(struct tui *t, int ch)
{
	long page = t->table.rows > 1 ? t->table.rows - 1 : 1;
	move_in_list(t, ch == KEY_PPAGE ? -page : page);
	return KEYS_REDRAW;
}

/* The next column on screen in direction dir (< and >). */
static unsigned key_sort(struct tui *t, int ch)
{
	uint32_t shown = t->table.shown ? t->table.shown : t->set.columns;
	int dir = ch == '<' ? -1 : 1, c = (int)t->set.sort;

	for (int i = 0; i < PROCTABLE__COUNT; i++) {
		c = (c + dir + PROCTABLE__COUNT) % PROCTABLE__COUNT;
		if (shown >> c & 1u)
			break;
	}
	t->set.sort = (enum proctable_col)c;
	t->set_dirty = true;
	return KEYS_REDRAW | KEYS_REBUILD;
}

static unsigned key_reverse(struct tui *t, int ch)
{
	(void)ch;
	t->set.reverse = !t->set.reverse;
	t->set_dirty = true;
	return KEYS_REDRAW | KEYS_REBUILD;
}

static unsigned key_filter(struct tui *t, int ch)
{
	(void)ch;
	return open_mode(t, TUI_MODE_FILTER);
}

static unsigned key_mine(struct tui *t, int ch)
{
	(void)ch;
	t->table.only_mine = !t->table.only_mine;
	tui_set_status(t, t->table.only_mine ? "only my processes" : "everyone's processes");
	return KEYS_REDRAW | KEYS_REBUILD;
}

static unsigned key_idle(struct tui *t, int ch)
{
	(void)ch;
	t->table.hide_idle = !t->table.hide_idle;
	tui_set_status(t, t->table.hide_idle ? "idle GPUs hidden" : "idle GPUs shown");
	return KEYS_REDRAW | KEYS_REBUILD;
}

static unsigned key_chart(struct tui *t, int ch)
{
	(void)ch;
	enum history_metric m = t->set.chart;
	/* SM and tensor activity are skipped where no GPU shown has them
	 * (GPM), so that c does not stop at an empty chart. */
	for (int k = 0; k < HISTORY__COUNT; k++) {
		m = (enum history_metric)((m + 1) % HISTORY__COUNT);
		enum gpu_field need = m == HISTORY_SM ? GPU_F_SM_ACTIVE : m == HISTORY_TENSOR ? GPU_F_TENSOR_ACTIVE
											 : GPU_F__COUNT;
		bool any = need == GPU_F__COUNT;
		for (size_t i = 0; !any && t->frame && i < t->frame->ngpus; i++)
			any = gpu_has(&t->frame->gpus[i], need);
		if (any)
			break;
	}
	t->set.chart = m;
	t->set_dirty = true;
	return KEYS_REDRAW;
}

static unsigned key_session(struct tui *t, int ch)
{
	(void)ch;
	t->set.session = !t->set.session;
	t->set_dirty = true;
	tui_set_status(t, !t->set.session  ? "session line hidden"
			  : t->st.replay   ? "session line: peak/mean since the replay began or was sought"
					   : "session line: peak/mean since gpur started");
	return KEYS_REDRAW;
}

static unsigned key_freeze(struct tui *t, int ch)
{
	(void)ch;
	t->frozen = !t->frozen;
	if (!t->frozen)
		t->seq = 0; /* show the latest frame at once */
	return KEYS_REDRAW;
}

static unsigned key_gpus(struct tui *t, int ch)
{
	if (ch == '[')
		t->gpu_top = t->gpu_top > 4 ? t->gpu_top - 4 : 0;
	else
		t->gpu_top += 4; /* the drawing clamps it */
	return KEYS_REDRAW;
}

static unsigned key_signal(struct tui *t, int ch)
{
	(void)ch;
	dialog_signal_open(t);
	return KEYS_REDRAW;
}

static unsigned key_details(struct tui *t, int ch)
{
	(void)ch;
	return open_mode(t, TUI_MODE_DETAILS);
}

static unsigned key_tree(struct tui *t, int ch)
{
	(void)ch;
	return open_mode(t, TUI_MODE_TREE);
}

static unsigned key_columns(struct tui *t, int ch)
{
	(void)ch;
	return open_mode(t, TUI_MODE_COLUMNS);
}

static unsigned key_interval(struct tui *t, int ch)
{
	tui_change_interval(t, ch == 'd' ? -1 : 1);
	return KEYS_REDRAW;
}

/* Esc and Backspace go back to the fleet from a host, with Esc clearing the
 * process filter first, and back to the groups from an opened one; else Esc
 * clears the filter. */
static unsigned key_back(struct tui *t, int ch)
{
	bool esc = ch == KEYS_ESC;

	if (t->fleet.host_open && (!esc || lineedit_empty(&t->table.filter))) {
		tui_fleet_close_host(t);
		return KEYS_REDRAW;
	}
	if (t->groups.open) {
		t->groups.open = false;
		return KEYS_REDRAW | KEYS_REBUILD;
	}
	if (!esc)
		return 0;
	lineedit_clear(&t->table.filter);
	return KEYS_REDRAW | KEYS_REBUILD;
}

static unsigned key_mouse(struct tui *t, int ch)
{
	(void)ch;
	tui_mouse(t);
	return KEYS_REDRAW;
}

/* The terminal was scribbled on, so draw it all again. */
static unsigned key_redraw(struct tui *t, int ch)
{
	(void)ch;
	canvas_invalidate(&t->canvas);
	return KEYS_REDRAW;
}

/* From what is over the screen, go back to the screen. */
static unsigned key_close(struct tui *t, int ch)
{
	(void)ch;
	return open_mode(t, TUI_MODE_PROCS);
}

/* Closes what is open, and the key acts on what is under it. */
static unsigned key_close_pass(struct tui *t, int ch)
{
	return key_close(t, ch) | KEYS_PASS;
}

static unsigned key_help_quit(struct tui *t, int ch)
{
	return key_close(t, ch) | KEYS_QUIT;
}

static unsigned key_column_move(struct tui *t, int ch)
{
	if (ch == KEY_UP || ch == 'k')
		t->col_cursor = t->col_cursor > 0 ? t->col_cursor - 1 : 0;
	else if (t->col_cursor + 1 < PROCTABLE__COUNT)
		t->col_cursor++;
	return KEYS_REDRAW;
}

static unsigned key_column_toggle(struct tui *t, int ch)
{
	uint32_t bit = 1u << t->col_cursor;

	(void)ch;
	/* At least one column stays. */
	if ((t->set.columns & ~bit) || !(t->set.columns & bit))
		t->set.columns ^= bit;
	t->set_dirty = true;
	return KEYS_REDRAW;
}

/* Over a process, in its details or tree, go to the previous or next
 * process. */
static unsigned key_process_move(struct tui *t, int ch)
{
	tui_move_sel(t, ch == KEY_UP || ch == 'k' ? -1 : 1);
	return KEYS_REDRAW;
}

/* In a prompt, Enter keeps what was typed and Esc clears it, and both close
 * it. */
static unsigned key_prompt_keep(struct tui *t, int ch)
{
	const struct key_prompt *p = keys_prompt(t->mode);

	(void)ch;
	t->mode = TUI_MODE_PROCS;
	return KEYS_REDRAW | (p && p->edited ? p->edited(t) : 0);
}

static unsigned key_prompt_clear(struct tui *t, int ch)
{
	const struct key_prompt *p = keys_prompt(t->mode);

	if (p)
		lineedit_clear(p->line(t));
	return key_prompt_keep(t, ch);
}

static unsigned key_prompt_backspace(struct tui *t, int ch)
{
	const struct key_prompt *p = keys_prompt(t->mode);

	(void)ch;
	if (!p)
		return 0;
	lineedit_backspace(p->line(t));
	return KEYS_REDRAW | (p->edited ? p->edited(t) : 0);
}

/* In J's prompt, Enter seeks to the time typed, on the shown record's day. */
static unsigned key_jump_go(struct tui *t, int ch)
{
	struct when w = {.set = true, .clock = true};
	const char *typed = lineedit_text(&t->seek.jump);

	(void)ch;
	t->mode = TUI_MODE_PROCS;
	if (!when_parse_clock(typed, &w.secs))
		snprintf(t->seek.err, sizeof(t->seek.err), "not a time: '%.15s' (HH:MM or HH:MM:SS)", typed);
	else if (t->frame && frame_has(t->frame, FRAME_F_TS))
		tui_seek_to(t, when_resolve(&w, t->frame->ts_ms));
	return KEYS_REDRAW;
}

static struct lineedit *filter_line(struct tui *t)
{
	return &t->table.filter;
}

static unsigned filter_edited(struct tui *t)
{
	(void)t;
	return KEYS_REBUILD;
}

static struct lineedit *jump_line(struct tui *t)
{
	return &t->seek.jump;
}

static const struct key_prompt PROMPTS[TUI_MODE__COUNT] = {
	[TUI_MODE_FILTER] = {"filter", NULL, filter_line, filter_edited},
	[TUI_MODE_FLEET_FILTER] = {"filter hosts", NULL, tui_fleet_filter_line, tui_fleet_filter_edited},
	[TUI_MODE_JUMP] = {"jump to time (HH:MM[:SS], this record's day)", "0123456789:", jump_line, NULL},
};

#define M(m) (1u << TUI_MODE_##m)
#define TABLE (M(PROCS) | M(GROUPS))
#define MAIN (TABLE | M(FLEET))
#define EVERY ((1u << TUI_MODE__COUNT) - 1)
#define PROMPTS_ALL (M(FILTER) | M(FLEET_FILTER) | M(JUMP))
/* A hint in the footer of every source. */
#define SOURCES(s) [KEYS_FOOT_LIVE] = s, [KEYS_FOOT_REPLAY] = s, [KEYS_FOOT_STEPPED] = s
#define ENTER '\n', '\r', KEY_ENTER
#define BACKSPACE KEY_BACKSPACE, 127, KEYS_CTRL('h')
#define UPDOWN KEY_UP, 'k', KEY_DOWN, 'j'
#define ENTER_KEY {"\u23ce", "Enter"}

const struct key_row KEYS[] = {
	{{'q', KEY_F(10), KEYS_CTRL('c')}, MAIN, "q, F10, Ctrl-C", NULL, "quit", .hint_key = {"q"},
	 .hint = {SOURCES("quit"), [KEYS_FOOT_OWN] = "quit"}, .run = key_quit},
	{{'?', KEY_F(1)}, MAIN, "?, F1", NULL, "this help (any key closes it)", .hint_key = {"?"},
	 .hint = {SOURCES("help"), [KEYS_FOOT_OWN] = "help"}, .run = key_help},
	{{' '}, TABLE, "space", NULL, "pause/resume", .section = "replay:",
	 .hint = {[KEYS_FOOT_REPLAY] = "pause", [KEYS_FOOT_STEPPED] = "run/pause"}, .run = key_pause},
	{{'.'}, TABLE, ".", NULL, "one record", KEYS_NEXT, "replay:",
	 .hint = {[KEYS_FOOT_REPLAY] = "step", [KEYS_FOOT_STEPPED] = "one poll"}, .run = key_step},
	{{'+', '-'}, TABLE, "+ -", NULL, "speed x2 / /2", KEYS_NEXT, "replay:", .hint_key = {"+/-"},
	 .hint = {[KEYS_FOOT_REPLAY] = "speed"}, .run = key_speed},
	{{KEY_HOME, KEY_END}, TABLE, "Home / End", NULL, "first / last record; live: the first / last row", KEYS_LINE,
	 "replay:", .hint_key = {"Home/End"}, .hint = {[KEYS_FOOT_REPLAY] = ""}, .run = key_ends},
	{{KEY_LEFT, KEY_RIGHT}, TABLE, "\u2190 / \u2192", "Left / Right", "10 s back / on", KEYS_LINE, "replay:",
	 .hint_key = {"\u2190/\u2192", "Left/Right"}, .hint = {[KEYS_FOOT_REPLAY] = "10s"}, .run = key_seek},
	{{'J'}, TABLE, "J", NULL, "jump to a clock time", KEYS_JOIN, "replay:", .hint = {[KEYS_FOOT_REPLAY] = "time"},
	 .run = key_jump},
	{{KEY_SLEFT, KEY_SRIGHT, '{', '}'}, TABLE, "Shift+\u2190 / Shift+\u2192, { }", "Shift+Left / Shift+Right, { }",
	 "1 min back / on", KEYS_LINE, "replay:", .run = key_seek},
	{{UPDOWN}, TABLE, "Up/Down, j/k", NULL, "select a row", .hint_key = {"\u2191\u2193", "j/k"},
	 .hint = {SOURCES("select")}, .run = key_move},
	{{KEY_PPAGE, KEY_NPAGE}, TABLE, "PgUp/PgDn", NULL, "a page", KEYS_JOIN, .run = key_page},
	{{UPDOWN}, M(FLEET), "Up/Down, j/k", NULL, "select a host", .hint_key = {"\u2191\u2193", "j/k"},
	 .hint = {[KEYS_FOOT_OWN] = "select"}, .run = tui_fleet_key_move},
	{{KEY_PPAGE, KEY_NPAGE}, M(FLEET), "PgUp/PgDn", NULL, "a page", KEYS_JOIN, .run = tui_fleet_key_move},
	{{KEY_HOME, KEY_END}, M(FLEET), "Home / End", NULL, "the first / last host", KEYS_JOIN,
	 .run = tui_fleet_key_move},
	{{'<', '>'}, TABLE, "< >", NULL, "sort by the previous/next column", .hint_key = {"</>"},
	 .hint = {SOURCES("sort")}, .run = key_sort},
	{{'r'}, TABLE, "r", NULL, "reverse", KEYS_JOIN, .hint = {[KEYS_FOOT_LIVE] = "rev"}, .run = key_reverse},
	{{'<', '>'}, M(FLEET), "< >", NULL, "sort by the previous/next column", .hint_key = {"</>"},
	 .hint = {[KEYS_FOOT_OWN] = "sort"}, .run = tui_fleet_key_sort},
	{{'r'}, M(FLEET), "r", NULL, "reverse", KEYS_JOIN, .hint = {[KEYS_FOOT_OWN] = "rev"}, .run = tui_fleet_key_sort},
	{{'/'}, TABLE, "/", NULL, "filter processes by text", .hint = {SOURCES("filter")}, .run = key_filter},
	{{'/'}, M(FLEET), "/", NULL, "filter the hosts", .hint = {[KEYS_FOOT_OWN] = "filter"}, .flags = KEYS_F_TEXT,
	 .run = tui_fleet_key_filter},
	{{KEYS_ESC}, M(FLEET), "Esc", NULL, "clears it", KEYS_JOIN, .run = tui_fleet_key_filter},
	{{'u'}, TABLE, "u", NULL, "only my processes", KEYS_JOIN, .hint = {[KEYS_FOOT_LIVE] = "mine"}, .run = key_mine},
	{{'i'}, TABLE, "i", NULL, "hide idle GPUs", .hint = {[KEYS_FOOT_LIVE] = "idle"}, .run = key_idle},
	{{'c'}, TABLE, "c", NULL, "next chart metric", KEYS_JOIN,
	 .hint = {[KEYS_FOOT_LIVE] = "chart", [KEYS_FOOT_REPLAY] = "chart"}, .run = key_chart},
	{{'S'}, TABLE, "S", NULL, "peak/mean util, temp, power since start or seek",
	 .hint = {[KEYS_FOOT_LIVE] = "session", [KEYS_FOOT_REPLAY] = "session"}, .run = key_session},
	{{'p'}, MAIN, "p", NULL, "pause screen updates", .hint = {[KEYS_FOOT_LIVE] = "pause"}, .run = key_freeze},
	{{'[', ']'}, TABLE, "[ ]", NULL, "scroll the GPUs", KEYS_JOIN, .run = key_gpus},
	{{'K', KEY_F(9)}, TABLE, "K, F9", NULL, "send a signal to the selected process (a dialog)", .hint_key = {"K"},
	 .hint = {[KEYS_FOOT_STEPPED] = "signal"}, .run = key_signal},
	{{ENTER}, M(PROCS), "Enter", NULL, "the process's details and history; Esc closes", .hint_key = ENTER_KEY,
	 .hint = {SOURCES("cmd")}, .run = key_details},
	{{ENTER}, M(GROUPS), "Enter", NULL, "the selected group's processes; Esc goes back", .hint_key = ENTER_KEY,
	 .hint = {SOURCES("open")}, .run = tui_groups_key_open},
	{{ENTER}, M(FLEET), "Enter", NULL, "the host's GPUs and processes (Esc: back)", .hint_key = ENTER_KEY,
	 .hint = {[KEYS_FOOT_OWN] = "host's GPUs"}, .run = tui_fleet_key_open},
	{{'t'}, TABLE, "t", NULL, "the process's tree (up to its container's init)", .run = key_tree},
	{{'g'}, TABLE, "g", NULL, "group by container, pod, job, user, none; Enter\nopens a group, Esc or Backspace goes back",
	 .run = tui_groups_key_cycle},
	{{'C'}, TABLE, "C", NULL, "choose columns", .hint = {[KEYS_FOOT_LIVE] = "cols"}, .run = key_columns},
	{{'d', 'D'}, MAIN, "d / D", NULL, "shorter / longer interval", KEYS_JOIN, .hint_key = {"d/D"},
	 .hint = {[KEYS_FOOT_LIVE] = "interval"}, .run = key_interval},
	{{KEYS_ESC, BACKSPACE}, TABLE, "Esc, Backspace", NULL, "clear the filter, or go back (a group, a host)",
	 .hint_key = {"Esc/\u232b", "Esc/BS"}, .hint = {[KEYS_FOOT_HOST] = "fleet"}, .run = key_back},
	{{KEY_MOUSE}, EVERY, "mouse", NULL, "click a row to select it, a title to sort", .run = key_mouse},
	{{KEYS_CTRL('l')}, EVERY, "Ctrl-L", NULL, "draw the whole screen again", .run = key_redraw},

	/* The help. */
	{{'q', KEY_F(10)}, M(HELP), "q, F10", NULL, "close the help and quit", .run = key_help_quit},
	{{KEYS_ANY}, M(HELP), "any other key", NULL, "close the help", .run = key_close},
	/* The column picker, whose title and last line give the hints. */
	{{UPDOWN}, M(COLUMNS), "Up/Down, j/k", NULL, "the previous / next column", .run = key_column_move},
	{{' '}, M(COLUMNS), "space", NULL, "show or hide the column (one stays)", .hint = {[KEYS_FOOT_OWN] = "toggles"},
	 .run = key_column_toggle},
	{{ENTER, KEYS_ESC, 'C', 'q'}, M(COLUMNS), "Enter, Esc, C, q", NULL, "close the picker",
	 .hint_key = {"Enter or Esc"}, .hint = {[KEYS_FOOT_OWN] = "closes"}, .run = key_close},
	/* Over a process, its details and its tree. */
	{{UPDOWN}, M(DETAILS) | M(TREE), "Up/Down, j/k", NULL, "the previous / next process", .run = key_process_move},
	{{ENTER, KEYS_ESC}, M(DETAILS), "Enter, Esc", NULL, "close the details", .run = key_close},
	{{ENTER, KEYS_ESC, 't'}, M(TREE), "Enter, Esc, t", NULL, "close the tree", .run = key_close},
	{{KEYS_ANY}, M(DETAILS) | M(TREE), "any other key", NULL, "close, then act on the table", .run = key_close_pass},
	/* The signal dialog, whose last line gives the hints. */
	{{ENTER}, M(SIGNAL), "Enter", NULL, "send the signal chosen", .hint = {[KEYS_FOOT_OWN] = "sends"},
	 .run = dialog_signal_key_send},
	{{KEYS_ESC, 'q', KEY_F(10)}, M(SIGNAL), "Esc, q, F10", NULL, "send nothing", .hint_key = {"Esc"},
	 .hint = {[KEYS_FOOT_OWN] = "cancels"}, .run = dialog_signal_key_cancel},
	{{UPDOWN, '1', '2', '3', '4', '5', '6'}, M(SIGNAL), "Up/Down, j/k, 1-6", NULL, "choose the signal",
	 .hint_key = {"Up/Down or 1-6"}, .hint = {[KEYS_FOOT_OWN] = "choose"}, .run = dialog_signal_key_choose},
	/* The prompts, whose keys are typed into their line. */
	{{ENTER}, M(FILTER) | M(FLEET_FILTER), "Enter", NULL, "keep the filter", .hint = {[KEYS_FOOT_OWN] = "keep"},
	 .run = key_prompt_keep},
	{{KEYS_ESC}, M(FILTER) | M(FLEET_FILTER), "Esc", NULL, "clear the filter", .hint = {[KEYS_FOOT_OWN] = "clear"},
	 .run = key_prompt_clear},
	{{ENTER}, M(JUMP), "Enter", NULL, "go to the time typed", .hint = {[KEYS_FOOT_OWN] = "go"}, .run = key_jump_go},
	{{KEYS_ESC}, M(JUMP), "Esc", NULL, "go nowhere", .hint = {[KEYS_FOOT_OWN] = "cancel"}, .run = key_close},
	{{BACKSPACE}, PROMPTS_ALL, "Backspace", NULL, "delete the character before the cursor",
	 .run = key_prompt_backspace},
};
const size_t KEYS_COUNT = sizeof(KEYS) / sizeof(KEYS[0]);

const struct key_prompt *keys_prompt(enum tui_mode m)
{
	return (unsigned)m < TUI_MODE__COUNT && PROMPTS[m].line ? &PROMPTS[m] : NULL;
}

bool keys_prompt_takes(const struct key_prompt *p, int ch)
{
	/* Text is printable ASCII and the bytes of UTF-8 characters. */
	if (ch < 0x20 || ch >= 0x100 || ch == 0x7f)
		return false;
	return !p->accept || (ch < 0x80 && strchr(p->accept, ch));
}

const struct key_row *keys_find(enum tui_mode m, int ch)
{
	const struct key_row *any = NULL;

	for (size_t i = 0; i < KEYS_COUNT; i++) {
		const struct key_row *r = &KEYS[i];
		if (!(r->modes >> m & 1u))
			continue;
		for (int k = 0; k < KEYS_ROW_KEYS && r->keys[k]; k++) {
			if (r->keys[k] == ch)
				return r;
			if (r->keys[k] == KEYS_ANY)
				any = r;
		}
	}
	return any;
}

bool keys_global(int ch)
{
	for (size_t i = 0; i < KEYS_COUNT; i++) {
		if (KEYS[i].modes != EVERY)
			continue;
		for (int k = 0; k < KEYS_ROW_KEYS && KEYS[i].keys[k]; k++)
			if (KEYS[i].keys[k] == ch)
				return true;
	}
	return false;
}

unsigned keys_dispatch(struct tui *t, int ch)
{
	unsigned done = 0;

	/* A key passed on goes to the mode under the one it closed, which
	 * takes a few hops at most. */
	for (int hop = 0; hop < 4; hop++) {
		enum tui_mode m = tui_mode(t);
		const struct key_prompt *p = keys_prompt(m);
		if (p && keys_prompt_takes(p, ch)) {
			lineedit_byte(p->line(t), (unsigned char)ch);
			done |= KEYS_REDRAW | (p->edited ? p->edited(t) : 0);
			break;
		}
		const struct key_row *r = keys_find(m, ch);
		unsigned got = r ? r->run(t, ch) : 0;
		done |= got & ~KEYS_PASS;
		if (!(got & KEYS_PASS))
			break;
	}
	if (done & KEYS_REBUILD)
		tui_build_view(t);
	return done;
}
