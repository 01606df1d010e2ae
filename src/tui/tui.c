/* tui: the dashboard's loop, with terminal set-up and hygiene, frames from
 * the feed, keys and the mouse, and its settings. */
#include "tui/tui.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <langinfo.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "proc/pidwant.h"
#include "tui/tui_priv.h"
#include "util/clock.h"
#include "util/readfile.h"
#include "util/xalloc.h"

/* Set by SIGWINCH; the loop resizes curses to the terminal's new size. */
static volatile sig_atomic_t resized;

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

/* Set by SIGCONT, after which the screen is drawn again whole. */
static volatile sig_atomic_t continued;

static void on_cont(int sig)
{
	(void)sig;
	continued = 1;
}

static void resize_to_terminal(struct tui *t)
{
	struct winsize ws;

	resized = 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	getmaxyx(stdscr, t->rows, t->cols);
	canvas_invalidate(&t->canvas);
}

void tui_set_status(struct tui *t, const char *msg)
{
	size_t n = strlen(msg) < sizeof(t->msg.status) - 1 ? strlen(msg) : sizeof(t->msg.status) - 1;
	memcpy(t->msg.status, msg, n);
	t->msg.status[n] = '\0';
	t->msg.until = clock_wall_ms() + 5000;
}

static size_t history_capacity(double interval)
{
	/* One hour at the current interval. */
	double n = 3600.0 / (interval > 0 ? interval : 1.0);
	return n > HISTORY_MAX_CAPACITY ? HISTORY_MAX_CAPACITY : (size_t)n;
}

/* gpur's own CPU % over all threads and its RSS, once a second. */
static void self_stats(struct tui *t)
{
	struct rusage ru;
	uint64_t now = clock_mono_ns();
	char buf[128];

	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		uint64_t cpu = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
			       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
		if (t->self.wall_prev_ns && now > t->self.wall_prev_ns)
			t->self.cpu = 100.0 * (double)(cpu - t->self.cpu_prev_ns) / (double)(now - t->self.wall_prev_ns);
		t->self.cpu_prev_ns = cpu;
		t->self.wall_prev_ns = now;
	}
	/* The file is held open and re-read (see readfile_held). */
	if (t->self.statm_fd < 0)
		t->self.statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	static uint64_t page;
	if (!page)
		page = sysconf(_SC_PAGESIZE) > 0 ? (uint64_t)sysconf(_SC_PAGESIZE) : 4096;
	if (t->self.statm_fd >= 0 && readfile_pread(t->self.statm_fd, buf, sizeof(buf)) > 0) {
		/* The file reads "size resident ...", in pages. */
		const char *p = strchr(buf, ' ');
		uint64_t pages = 0;
		if (p && p[1] >= '0' && p[1] <= '9') {
			for (p++; *p >= '0' && *p <= '9' && pages < (UINT64_C(1) << 50); p++)
				pages = pages * 10 + (uint64_t)(*p - '0');
			t->self.rss = pages * page;
		}
	}
}

static void add_events(struct tui *t, const struct frame *f)
{
	for (size_t i = 0; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		struct tui_event *te = &t->events[t->nevents++ % TUI_EVENTS];
		te->ts_ms = frame_has(f, FRAME_F_TS) ? f->ts_ms : 0;
		te->bad = event_is_bad(e);
		event_describe(e, te->text, sizeof(te->text));
	}
}

/* Takes a new frame from the feed. The history, events and session always
 * take it, and the screen only when not paused. A frame taken again, after p
 * resumed and set t->seq to 0, is shown but not counted twice. */
static bool take_frame(struct tui *t)
{
	uint64_t seq, seeks, fleet_seq;
	struct frame *f = feed_latest_seeks(t->feed, &seq, &seeks);
	struct fleet *fl = feed_latest_fleet(t->feed, &fleet_seq);

	/* Another seq means a newer frame came between the two calls, and
	 * its wake-up takes it with its own fleet. */
	if (!f || seq == t->seq || fleet_seq != seq) {
		frame_unref(f);
		fleet_unref(fl);
		return false;
	}
	bool fresh = seq != t->counted_seq;
	t->seq = t->counted_seq = seq;
	/* A replay rewound, sought or jumped begins a new session, but
	 * pausing does not, because it publishes nothing. */
	if (fresh && seeks != t->hist.seeks) {
		session_reset(t->hist.sess);
		t->hist.seeks = seeks;
	}
	if (fresh)
		add_events(t, f); /* a fleet poll's events are the source's, not a host's */
	/* A fleet's frame taken again may show another host's GPUs, which
	 * are new to the history. */
	bool count = fresh || fl;
	if (fl)
		f = tui_fleet_take(t, f, fl, !t->frozen); /* when paused, the summary holds too */
	/* A recording's cadence is known from its first frame on, so the
	 * history covers the same span whatever it is. */
	if (t->st.interval != t->hist.interval) {
		history_set_capacity(t->hist.gpus, history_capacity(t->st.interval));
		t->hist.interval = t->st.interval;
	}
	if (count) {
		history_push(t->hist.gpus, f);
		prochist_push(t->hist.procs, f);
		session_push(t->hist.sess, f);
	}
	if (t->frozen) {
		frame_unref(f);
		return false;
	}
	frame_unref(t->frame);
	t->frame = f;
	for (size_t i = 0; i < f->ngpus && i < FRAME_MAX_GPUS; i++)
		t->table.hidden_gpu[i] = gpu_is_idle(f, i);
	tui_build_view(t);
	return true;
}

void tui_change_interval(struct tui *t, int dir)
{
	static const double steps[] = {0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60};
	const size_t n = sizeof(steps) / sizeof(steps[0]);
	double cur = t->st.interval;
	size_t i = 0;

	while (i < n && steps[i] < cur - 1e-9)
		i++;
	if (dir < 0)
		i = i > 0 ? i - 1 : 0;
	else if (i < n && steps[i] <= cur + 1e-9)
		i = i + 1 < n ? i + 1 : n - 1;
	feed_set_interval(t->feed, steps[i]);
	history_set_capacity(t->hist.gpus, history_capacity(steps[i]));
	char msg[64];
	snprintf(msg, sizeof(msg), "interval %gs", steps[i]);
	tui_set_status(t, msg);
}

void tui_mouse(struct tui *t)
{
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON4_PRESSED) {
		tui_move_sel(t, -3);
		return;
	}
	if (ev.bstate & BUTTON5_PRESSED) {
		tui_move_sel(t, 3);
		return;
	}
	if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)))
		return;
	if (ev.y == t->table.y) {
		for (int i = 0; i < t->table.ncols; i++) {
			if (ev.x >= t->table.col_x[i] && ev.x < t->table.col_x[i + 1]) {
				if (t->set.sort == t->table.col_of[i])
					t->set.reverse = !t->set.reverse;
				t->set.sort = t->table.col_of[i];
				t->set_dirty = true;
				tui_build_view(t);
			}
		}
	} else if (ev.y > t->table.y && ev.y <= t->table.y + t->table.rows && tui_groups_listing(t)) {
		size_t row = t->groups.top + (size_t)(ev.y - t->table.y - 1);
		if (row < t->groups.list.ngroups) {
			t->groups.sel = row;
			t->groups.sel_valid = false;
		}
	} else if (ev.y > t->table.y && ev.y <= t->table.y + t->table.rows) {
		size_t row = t->table.top + (size_t)(ev.y - t->table.y - 1);
		if (row < t->table.nview)
			tui_move_sel(t, (long)row - (long)t->table.sel);
	}
}

void tui_seek_to(struct tui *t, uint64_t ts_ms)
{
	t->seek.req = true;
	t->seek.target = ts_ms;
	t->seek.req_seq = t->seq;
	feed_seek_time(t->feed, ts_ms);
}

void tui_seek_by(struct tui *t, int64_t delta_ms)
{
	if (!t->st.replay || !t->frame || !frame_has(t->frame, FRAME_F_TS))
		return;
	/* Keys typed ahead add up, counting from the time last asked for
	 * while its frame is not on the screen yet. */
	uint64_t now = t->seek.req && t->seq == t->seek.req_seq ? t->seek.target : t->frame->ts_ms;
	uint64_t to = delta_ms < 0 && (uint64_t)-delta_ms > now ? 0 : now + (uint64_t)delta_ms;
	tui_seek_to(t, to);
}

void tui_seek_edge(struct tui *t, bool end)
{
	feed_seek(t->feed, end ? FEED_SEEK_END : FEED_SEEK_START);
	/* Home then Left counts from the start. */
	t->seek.req = !end;
	t->seek.target = 0;
	t->seek.req_seq = t->seq;
}

enum tui_mode tui_mode(const struct tui *t)
{
	return t->mode != TUI_MODE_PROCS ? t->mode : tui_screen_mode(t);
}

enum tui_mode tui_screen_mode(const struct tui *t)
{
	if (tui_fleet_listing(t))
		return TUI_MODE_FLEET;
	if (tui_groups_listing(t))
		return TUI_MODE_GROUPS;
	return TUI_MODE_PROCS;
}

/* Handles a key from the terminal, and returns what keys_dispatch returns. */
static unsigned on_key(struct tui *t, int ch)
{
	if (ch == KEY_RESIZE) {
		/* curses resized itself, and calling resizeterm() here would
		 * queue another KEY_RESIZE, for ever. */
		getmaxyx(stdscr, t->rows, t->cols);
		canvas_invalidate(&t->canvas);
		return KEYS_REDRAW;
	}
	/* Why the time typed after J was not taken shows until the next key,
	 * not counting one typed into the filter, the mouse or Ctrl-L. */
	unsigned done = 0;
	if (t->seek.err[0] && tui_mode(t) != TUI_MODE_FILTER && !keys_global(ch)) {
		t->seek.err[0] = '\0';
		done = KEYS_REDRAW;
	}
	return done | keys_dispatch(t, ch);
}

/* The colour pairs, and the canvas that draws with them. */
static void init_colors(struct tui *t)
{
	static const short fg[TC__COUNT] = {
		[TC_NONE] = -1, [TC_HEAD] = COLOR_CYAN, [TC_OK] = COLOR_GREEN, [TC_WARN] = COLOR_YELLOW,
		[TC_CRIT] = COLOR_RED, [TC_DIM] = COLOR_WHITE, [TC_SEL] = COLOR_BLACK, [TC_BAR] = COLOR_GREEN,
	};
	static const short bg[TC__COUNT] = {
		[TC_NONE] = -1, [TC_HEAD] = -1, [TC_OK] = -1, [TC_WARN] = -1,
		[TC_CRIT] = -1, [TC_DIM] = -1, [TC_SEL] = COLOR_CYAN, [TC_BAR] = -1,
	};
	const char *nc = getenv("NO_COLOR");

	t->color = has_colors() && !t->opts->no_color && !(nc && *nc);
	if (t->color) {
		start_color();
		use_default_colors();
		for (int c = TC_NONE + 1; c < TC__COUNT; c++)
			init_pair((short)c, fg[c], bg[c]);
	}
	struct canvas_caps caps;
	canvas_caps_terminfo(&caps, t->color ? fg : NULL, t->color ? bg : NULL, TC__COUNT);
	canvas_init(&t->canvas, &caps, t->utf8, STDOUT_FILENO);
}

static void load_settings(struct tui *t)
{
	char err[512];

	if (settings_load(&t->set, err, sizeof(err)) != 0)
		tui_set_status(t, err); /* reported and ignored, since it is not fatal */
	if (!t->set.columns)
		settings_defaults(&t->set);
}

static void save_settings(struct tui *t)
{
	char err[512];

	if (t->set_dirty && settings_save(&t->set, err, sizeof(err)) != 0) {
		fprintf(stderr, "gpur: %s\n", err);
	}
}

/* Sets up the dashboard's state before the terminal is touched: the options,
 * the user, the settings and the histories. */
static void tui_init(struct tui *t, const struct tui_opts *opts, struct feed *feed, struct sink *sink,
		     struct pidwant *want)
{
	const char *cs = nl_langinfo(CODESET);
	struct passwd pw, *res = NULL;
	char pwbuf[1024];

	memset(t, 0, sizeof(*t));
	t->self.statm_fd = -1;
	lineedit_init(&t->table.filter, LINEEDIT_MAX);
	tui_fleet_init(&t->fleet);
	lineedit_init(&t->seek.jump, 15);
	t->want.set = want;
	t->opts = opts;
	t->feed = feed;
	t->sink = sink;
	t->utf8 = cs && strcmp(cs, "UTF-8") == 0;
	if (getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res)
		snprintf(t->me, sizeof(t->me), "%s", res->pw_name);
	else
		snprintf(t->me, sizeof(t->me), "%u", (unsigned)getuid());
	settings_defaults(&t->set);
	load_settings(t);
	feed_status(feed, &t->st);
	t->groups.by = (unsigned)t->set.group < GROUP_BY__COUNT ? t->set.group : GROUP_BY_NONE;
	t->hist.gpus = history_new(history_capacity(t->st.interval));
	t->hist.procs = prochist_new(PROCHIST_MAX_CAPACITY);
	t->hist.sess = session_new(SESSION_MAX_GPUS);
	t->hist.interval = t->st.interval;
}

static void tui_fini(struct tui *t)
{
	frame_unref(t->frame);
	tui_fleet_fini(&t->fleet);
	free(t->table.view);
	group_fini(&t->groups.list);
	history_free(t->hist.gpus);
	prochist_free(t->hist.procs);
	session_free(t->hist.sess);
	canvas_fini(&t->canvas);
	if (t->self.statm_fd >= 0)
		close(t->self.statm_fd);
}

/* curses sets the terminal up: keys, the mouse, colours, the canvas, and the
 * signals that resize and redraw the screen. Returns NULL, with the reason on
 * stderr, when it cannot. */
static SCREEN *start_terminal(struct tui *t)
{
	SCREEN *scr = newterm(NULL, stdout, stdin);

	if (!scr) {
		fprintf(stderr, "gpur: cannot start the dashboard: TERM=%s is not a terminal curses knows\n",
			getenv("TERM") ? getenv("TERM") : "(unset)");
		return NULL;
	}
	cbreak();
	noecho();
	nonl();
	set_escdelay(25);
	curs_set(0);
	/* Keys are read from a pad, which wgetch() never refreshes, because
	 * the screen is the canvas's (canvas.c), never curses'. */
	t->keys = newpad(1, 1);
	if (!t->keys) {
		endwin();
		delscreen(scr);
		fprintf(stderr, "gpur: cannot start the dashboard: out of memory\n");
		return NULL;
	}
	keypad(t->keys, TRUE);
	nodelay(t->keys, TRUE);
	init_colors(t);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	refresh(); /* curses' last drawing, its screen cleared */
	getmaxyx(stdscr, t->rows, t->cols);
	/* With our own SIGWINCH handler, poll() wakes with EINTR and the
	 * screen is resized at once, not at the next key. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_winch;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	/* Back from a stop (Ctrl-Z, fg), curses has redrawn its own idea of
	 * the screen, so the canvas draws all of it again. */
	sa.sa_handler = on_cont;
	sigaction(SIGCONT, &sa, NULL);
	return scr;
}

static void stop_terminal(struct tui *t, SCREEN *scr)
{
	canvas_end(&t->canvas, t->rows - 1);
	tui_want_fini(&t->want);
	sigaction(SIGCONT, &(struct sigaction){.sa_handler = SIG_DFL}, NULL);
	delwin(t->keys);
	endwin();
	delscreen(scr);
}

/* The loop's state: whether it goes on, whether the screen is owed a
 * draw, and its clocks. */
struct loop {
	bool running, dirty;
	int idle_reads; /* polls in a row that found the terminal readable with no key */
	uint64_t last_second, last_draw, last_frame;
};

/* Once a second, updates gpur's own cost, the feed's state, the status
 * line's end or the sink's note, and the clock on the screen. */
static void each_second(struct tui *t, struct loop *l, uint64_t now)
{
	l->last_second = now / 1000;
	self_stats(t);
	feed_status(t->feed, &t->st);
	if (t->msg.status[0] && now > t->msg.until)
		t->msg.status[0] = '\0';
	if (!t->msg.status[0] && t->sink) {
		char note[256];
		sink_note(t->sink, note, sizeof(note));
		if (note[0])
			tui_set_status(t, note);
	}
	/* The clock moves, so redraw, unless a frame was drawn this second
	 * already; at a 1 s interval that makes one draw a second. */
	if (now - l->last_draw >= 1000)
		l->dirty = true;
}

/* How long to wait for a key or a frame. It is until the clock's next
 * second, but not while frames come at least once a second, since each one
 * redraws the clock too. Once they stop, when paused, after a hang or at the
 * end of a replay, the clock ticks alone again within 1.5 s. */
static int wait_ms(const struct tui *t, const struct loop *l)
{
	uint64_t w = clock_wall_ms(), mono = clock_mono_ns() / 1000000u;
	int timeout = (int)(1000 - w % 1000) + 1;

	if (l->last_frame && mono < l->last_frame + 1100 && t->st.interval <= 1.0)
		timeout = (int)(l->last_frame + 1500 - mono); /* 400 to 1500 ms */
	return timeout;
}

/* Handles every key waiting, each through the key table. */
static void read_keys(struct tui *t, struct loop *l)
{
	int ch, keys = 0;

	while ((ch = wgetch(t->keys)) != ERR) {
		keys++;
		unsigned done = on_key(t, ch);
		if (done & KEYS_QUIT) {
			l->running = false;
			return;
		}
		l->dirty |= (done & KEYS_REDRAW) != 0;
		feed_status(t->feed, &t->st);
	}
	/* The terminal is readable but holds no key, again and again, so its
	 * input has ended. */
	l->idle_reads = keys ? 0 : l->idle_reads + 1;
	if (l->idle_reads > 50)
		l->running = false;
}

/* One turn of the loop checks the screen's size, the second, a new frame and
 * the end of the feed, draws when a draw is owed, and then waits for keys or
 * a frame. */
static void loop_once(struct tui *t, struct loop *l)
{
	uint64_t now = clock_wall_ms();

	if (resized) {
		resize_to_terminal(t);
		l->dirty = true;
	}
	if (continued) {
		continued = 0;
		canvas_invalidate(&t->canvas);
		l->dirty = true;
	}
	if (now / 1000 != l->last_second)
		each_second(t, l, now);
	if (take_frame(t)) {
		l->dirty = true;
		l->last_frame = clock_mono_ns() / 1000000u;
	}
	if (t->st.finished && (t->seq || feed_result(t->feed, NULL, 0))) {
		feed_status(t->feed, &t->st);
		if (t->st.finished) {
			l->running = false; /* --count was reached, or there is nothing to show */
			return;
		}
	}
	if (l->dirty) {
		tui_draw(t);
		canvas_flush(&t->canvas);
		tui_want_update(t);
		l->dirty = false;
		l->last_draw = clock_wall_ms();
	}
	struct pollfd pfd[2] = {{STDIN_FILENO, POLLIN, 0}, {feed_fd(t->feed), POLLIN, 0}};
	int r = poll(pfd, 2, wait_ms(t, l));
	if (r < 0 && errno != EINTR)
		l->running = false;
	if (r <= 0)
		return;
	if (pfd[1].revents & POLLIN) {
		feed_drain(t->feed);
		feed_status(t->feed, &t->st);
	}
	if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
		l->running = false; /* the terminal went away */
	else if (pfd[0].revents & POLLIN)
		read_keys(t, l);
}

int tui_run(const struct tui_opts *opts, struct feed *feed, struct sink *sink, struct pidwant *want)
{
	struct tui t;
	struct loop l = {.running = true, .dirty = true};

	tui_init(&t, opts, feed, sink, want);
	SCREEN *scr = start_terminal(&t);
	if (!scr) {
		tui_fini(&t);
		return 1;
	}
	while (l.running && !(opts->stop && *opts->stop))
		loop_once(&t, &l);
	stop_terminal(&t, scr);
	save_settings(&t);
	tui_fini(&t);
	return 0;
}
