/* pick_run: the polling of --select and --wait, the locks they respect or
 * take, and what they say meanwhile. */
#include "pick/pick_run.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "model/fleet.h"
#include "pick/pick_lock.h"
#include "pick/pick_text.h"
#include "pick/pick_window.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/readfile.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* A status line that is not on a terminal is written at most this often,
 * and, when it says the same as before, only this seldom. */
#define STATUS_EVERY_MS 5000u
#define STATUS_SAME_MS 60000u
/* How many reasons the status line gives. */
#define STATUS_REASONS 3

struct run {
	const struct pick_opts *o;
	const struct pick_env *e;
	struct pick_window *w;
	uint64_t t0;       /* the monotonic ms the run started at */
	uint64_t last_ts;  /* the window's clock at the latest poll */
	bool any;          /* a poll was taken */
	bool warm;         /* live, the first poll is behind, and the next ones count */
	bool fleet;        /* the source gave a fleet: the GPUs are other hosts' */
	char *fleet_error; /* why the fleet's latest poll failed, or NULL */
	int dirfd;         /* the lock directory, or -1 */
	/* The status line of --wait. */
	bool tty, open;
	bool judged;       /* a line after sampling was shown */
	uint64_t shown_ms;
	struct buf shown;
};

static uint64_t mono_ms(void)
{
	return clock_mono_ns() / 1000000u;
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "a signal";
	}
}

/* The exit status for a stop by signal, which handlers store as its
 * number (1 when it is not known). */
static int stop_status(const struct run *r)
{
	int sig = (int)*r->e->stop;
	return sig > 1 ? 128 + sig : 130;
}

/* Sleeps until the monotonic deadline, or until a signal asks to stop. */
static void sleep_until(const struct run *r, uint64_t deadline)
{
	while (!*r->e->stop) {
		uint64_t now = mono_ms();
		if (now >= deadline)
			return;
		struct timespec ts = {(time_t)((deadline - now) / 1000u), (long)((deadline - now) % 1000u) * 1000000L};
		nanosleep(&ts, NULL); /* a signal ends it early, and the loop looks again */
	}
}

/* Takes one poll into the window. Returns 1; 2 when the poll does not count
 * (live, the first; a fleet's before it has hosts); 0 at the end of a
 * recording; or
 * -1 with a message when --gpus names no GPU of the first poll. */
static int poll_once(struct run *r)
{
	struct fleet *fl = NULL;
	struct frame *f = source_next(r->e->source, &fl);
	uint64_t step = (uint64_t)(r->e->interval * 1000.0 + 0.5);

	if (!f)
		return 0;
	/* A fleet source may have no hosts to give yet. Live, the first poll
	 * warms up: rates such as GPM's activity need two samples (more than
	 * 100 ms apart), so it would hold unknowns that no GPU has. */
	if ((r->e->fleet && !fl) || !r->warm) {
		r->warm = true;
		frame_unref(f);
		fleet_unref(fl);
		return 2;
	}
	if (!r->any && r->e->sel && !fl) {
		const char *miss = gpusel_unmatched(r->e->sel, f);
		if (miss) {
			msg_error("--gpus: no GPU matches '%s' (%zu GPU%s here)", miss, f->ngpus, f->ngpus == 1 ? "" : "s");
			frame_unref(f);
			return -1;
		}
	}
	uint64_t ts;
	if (!r->e->recorded)
		ts = mono_ms();
	else if (frame_has(f, FRAME_F_TS))
		ts = f->ts_ms;
	else
		ts = r->any ? r->last_ts + step : 0;
	free(r->fleet_error);
	r->fleet_error = fl && fl->error ? xstrdup(fl->error) : NULL;
	/* A fleet that did not answer holds its last hosts, which say nothing
	 * of now, so the poll finds no GPU. */
	if (fl && fl->error)
		pick_window_add(r->w, ts, NULL, NULL, NULL);
	else if (fl)
		pick_window_add(r->w, ts, NULL, fl, r->e->sel);
	else
		pick_window_add(r->w, ts, f, NULL, r->e->sel);
	r->fleet = r->fleet || fl;
	r->last_ts = ts;
	r->any = true;
	frame_unref(f);
	fleet_unref(fl);
	return 1;
}

/* When the poll after the one about to be taken is due: an interval on,
 * or after the warm-up poll, its own shorter wait. */
static uint64_t next_due(const struct run *r)
{
	double s = r->warm ? r->e->interval : r->e->warmup;
	return mono_ms() + (uint64_t)(s * 1000.0 + 0.5);
}

/* The number of free candidates, which come first. */
static size_t count_free(const struct pick_candidate *c, size_t n)
{
	size_t k = 0;

	while (k < n && c[k].why == PICK_FREE)
		k++;
	return k;
}

/* Opens the lock directory for looking, when it exists and there are
 * local GPUs to look at. */
static void look_at_locks(struct run *r)
{
	char err[512];

	if (r->dirfd < 0 && !r->e->recorded && !r->fleet)
		r->dirfd = pick_lock_open_dir(false, err, sizeof(err));
}

/* Marks the free candidates c[0..nfree) that another gpur --lock holds.
 * Returns the number still free, which come first again. */
static size_t skip_locked(struct run *r, struct pick_candidate *c, size_t n, size_t nfree)
{
	bool any = false;

	look_at_locks(r);
	if (r->dirfd < 0)
		return nfree;
	for (size_t i = 0; i < nfree; i++)
		if (pick_lock_held(r->dirfd, c[i].id)) {
			c[i].why = PICK_LOCKED;
			any = true;
		}
	return any ? pick_window_sort(c, n) : nfree;
}

/* Locks the first want free candidates that no one else holds, in order,
 * marking the others as locked. Returns how many it took, their
 * descriptors in fds and first again in c, or -1 with a message. */
static int take_locks(struct run *r, struct pick_candidate *c, size_t n, size_t *nfree, unsigned want, int *fds)
{
	unsigned taken = 0;
	bool any = false;

	for (size_t i = 0; i < *nfree && taken < want; i++) {
		int fd = pick_lock_take(r->dirfd, c[i].id);
		if (fd >= 0) {
			fds[taken++] = fd;
		} else if (fd == -EWOULDBLOCK) {
			c[i].why = PICK_LOCKED;
			any = true;
		} else {
			char name[256];
			msg_error("--lock: cannot open the lock of %s (%s): %s", c[i].id,
				  pick_lock_name(c[i].id, name, sizeof(name)), strerror(-fd));
			while (taken)
				close(fds[--taken]);
			return -1;
		}
	}
	if (any)
		*nfree = pick_window_sort(c, n);
	return (int)taken;
}

/* Shows text and the time waited as the status line: rewritten in place on
 * a terminal, cut to its width; otherwise a plain line now and then (and
 * seldom when the text is the same), and at once the first after sampling,
 * which says why GPUs are not free. */
static void status_show(struct run *r, const char *text, bool sampling)
{
	uint64_t now = mono_ms();
	struct buf b;

	if (!r->tty && (r->judged || sampling)) {
		bool same = r->shown.len && strcmp(buf_cstr(&r->shown), text) == 0;
		if (r->shown_ms && (now - r->shown_ms < STATUS_EVERY_MS || (same && now - r->shown_ms < STATUS_SAME_MS)))
			return;
	}
	r->judged = r->judged || !sampling;
	buf_init(&b);
	buf_puts(&b, r->tty ? "\rgpur: " : "gpur: ");
	size_t start = b.len;
	utf8_append_safe(&b, text, strlen(text), true);
	uint64_t s = (now - r->t0) / 1000u;
	if (s >= 3600)
		buf_printf(&b, " %llu:%02llu:%02llu", (unsigned long long)(s / 3600), (unsigned long long)(s / 60 % 60),
			   (unsigned long long)(s % 60));
	else
		buf_printf(&b, " %llu:%02llu", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
	if (r->tty) {
		struct winsize ws;
		size_t cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 8 ? ws.ws_col : 80;
		size_t chars = 6, i = start;
		/* Characters, not bytes, fill the line: count the bytes that start
		 * one. */
		for (; i < b.len; i++)
			if (((unsigned char)b.data[i] & 0xc0) != 0x80 && ++chars >= cols)
				break;
		b.len = i;
		buf_puts(&b, "\033[K");
	} else {
		buf_putc(&b, '\n');
	}
	writefile_all(STDERR_FILENO, b.data, b.len);
	buf_fini(&b);
	buf_reset(&r->shown);
	buf_puts(&r->shown, text);
	r->shown_ms = now ? now : 1;
	r->open = r->tty;
}

/* Clears the status line on a terminal, so that a message takes its
 * place. */
static void status_clear(struct run *r)
{
	if (r->open)
		writefile_all(STDERR_FILENO, "\r\033[K", 4);
	r->open = false;
}

/* Writes the waiting line's text: how many of the GPUs wanted are free, and
 * the first reasons of the others. */
static void status_text(struct run *r, struct buf *b, const struct pick_candidate *c, size_t n, size_t nfree,
			bool sampling)
{
	unsigned want = pick_count(r->o);
	char win[32];

	buf_printf(b, "waiting for %u GPU%s: ", want, want == 1 ? "" : "s");
	if (sampling) {
		buf_printf(b, "sampling for --stable %s", pick_duration_text(pick_stable_ms(r->o), win, sizeof(win)));
	} else {
		buf_printf(b, "%zu %s", nfree, nfree == 1 ? "qualifies" : "qualify");
		if (n > nfree) {
			buf_puts(b, " (");
			for (size_t i = nfree; i < n && i < nfree + STATUS_REASONS; i++) {
				if (i > nfree)
					buf_puts(b, "; ");
				pick_text_brief(b, &c[i], r->o);
			}
			if (n - nfree > STATUS_REASONS)
				buf_printf(b, "; %zu more", n - nfree - STATUS_REASONS);
			buf_putc(b, ')');
		} else if (n < want) {
			buf_printf(b, " (there %s only %zu)", n == 1 ? "is" : "are", n);
		}
	}
}

/* Says why --select or --wait has too few GPUs, after what. */
static void say_shortfall(struct run *r, const char *what, const struct pick_candidate *c, size_t n, size_t nfree)
{
	struct buf b;

	buf_init(&b);
	if (r->fleet_error) {
		buf_printf(&b, "%s: %s", what, r->fleet_error);
	} else {
		buf_printf(&b, "%s: ", what);
		pick_text_shortfall(&b, c, n, nfree, r->o);
	}
	msg_error("%s", buf_cstr(&b));
	buf_fini(&b);
}

static int run_select(struct run *r)
{
	const struct pick_opts *o = r->o;
	uint64_t stable = pick_stable_ms(o);
	char what[64];
	int got;

	snprintf(what, sizeof(what), "--select %u", o->select_n);
	for (;;) {
		uint64_t due = next_due(r);
		if ((got = poll_once(r)) < 0)
			return 1;
		if (*r->e->stop) {
			msg_error("%s: stopped while sampling (%s)", what, sig_name((int)*r->e->stop));
			return stop_status(r);
		}
		if (got == 0 || (got == 1 && !r->e->recorded && pick_window_span_ms(r->w) >= stable))
			break;
		if (!r->e->recorded)
			sleep_until(r, due);
	}
	struct pick_candidate *c;
	size_t n = pick_window_judge(r->w, &c);
	size_t nfree = skip_locked(r, c, n, count_free(c, n));
	if (nfree < o->select_n || r->fleet_error) {
		say_shortfall(r, what, c, n, nfree);
		return 1;
	}
	struct buf b;
	buf_init(&b);
	pick_text_values(&b, c, o->select_n, o->format);
	buf_putc(&b, '\n');
	writefile_all(STDOUT_FILENO, b.data, b.len); /* a closed stdout ends quietly */
	buf_fini(&b);
	return 0;
}

/* Judges the latest poll for --wait. Returns 1 with *launch set when the
 * GPUs are chosen (and locked), 0 to go on waiting, or -1 on a failure. */
static int wait_judge(struct run *r, struct pick_launch **launch)
{
	const struct pick_opts *o = r->o;
	struct pick_candidate *c;
	size_t n = pick_window_judge(r->w, &c), nfree = count_free(c, n);
	bool sampling = pick_window_span_ms(r->w) < pick_stable_ms(o);
	int *fds = NULL;
	int taken = 0;

	if (!sampling && o->lock && nfree >= o->wait_n) {
		fds = xreallocarray(NULL, o->wait_n, sizeof(*fds));
		if ((taken = take_locks(r, c, n, &nfree, o->wait_n, fds)) < 0) {
			free(fds);
			return -1;
		}
	} else if (!sampling) {
		nfree = skip_locked(r, c, n, nfree);
	}
	if (!sampling && nfree >= o->wait_n && (!o->lock || (unsigned)taken == o->wait_n)) {
		struct buf b;
		buf_init(&b);
		pick_text_values(&b, c, o->wait_n, o->format);
		*launch = pick_launch_new(o->argv);
		(*launch)->value = xstrdup(buf_cstr(&b));
		(*launch)->index = o->format == PICK_FORMAT_INDEX;
		(*launch)->locks = fds;
		(*launch)->nlocks = fds ? o->wait_n : 0;
		buf_fini(&b);
		return 1;
	}
	while (taken > 0)
		close(fds[--taken]);
	free(fds);
	struct buf b;
	buf_init(&b);
	status_text(r, &b, c, n, nfree, sampling);
	status_show(r, buf_cstr(&b), sampling);
	buf_fini(&b);
	return 0;
}

static int run_wait(struct run *r, struct pick_launch **launch)
{
	const struct pick_opts *o = r->o;
	char what[64], err[512];
	int got, rc = 0;

	snprintf(what, sizeof(what), "--wait %u", o->wait_n);
	if (o->lock && (r->dirfd = pick_lock_open_dir(true, err, sizeof(err))) < 0) {
		msg_error("%s", err);
		return 1;
	}
	for (;;) {
		uint64_t due = next_due(r);
		if ((got = poll_once(r)) <= 0) {
			rc = 1;
			if (got == 0)
				msg_error("%s: the source has ended", what);
			break;
		}
		if (*r->e->stop)
			break;
		if (got == 1 && (got = wait_judge(r, launch)) != 0) {
			rc = got > 0 ? 0 : 1;
			break;
		}
		uint64_t now = mono_ms();
		if (o->timeout.set && now - r->t0 >= o->timeout.ms) {
			char t[32];
			struct pick_candidate *c;
			size_t n = pick_window_judge(r->w, &c), nfree = skip_locked(r, c, n, count_free(c, n));
			snprintf(what, sizeof(what), "--wait %u: timed out after %s", o->wait_n,
				 pick_duration_text(o->timeout.ms, t, sizeof(t)));
			status_clear(r);
			say_shortfall(r, what, c, n, nfree);
			return 124;
		}
		if (o->timeout.set && r->t0 + o->timeout.ms < due)
			due = r->t0 + o->timeout.ms;
		sleep_until(r, due);
		if (*r->e->stop)
			break;
	}
	status_clear(r);
	if (*r->e->stop && !*launch) {
		msg_error("%s: stopped while waiting (%s); the command did not run", what, sig_name((int)*r->e->stop));
		return stop_status(r);
	}
	return rc;
}

/* The current user's name, else its uid, and its uid as text. */
static void who_am_i(char *me, size_t n, char *uid, size_t un)
{
	uid_t u = geteuid();
	struct passwd pw, *res = NULL;
	char buf[4096];

	snprintf(uid, un, "%lu", (unsigned long)u);
	if (getpwuid_r(u, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name)
		snprintf(me, n, "%s", res->pw_name);
	else
		snprintf(me, n, "%s", uid);
}

int pick_run(const struct pick_opts *o, const struct pick_env *e, struct pick_launch **launch)
{
	char me[256], uid[32];
	struct run r = {.o = o,
			.e = e,
			.dirfd = -1,
			.t0 = mono_ms(),
			.tty = isatty(STDERR_FILENO) == 1,
			.warm = e->recorded || e->fleet};
	int status;

	*launch = NULL;
	who_am_i(me, sizeof(me), uid, sizeof(uid));
	r.w = pick_window_new(o, me, uid, e->recorded);
	buf_init(&r.shown);
	status = o->select_n ? run_select(&r) : run_wait(&r, launch);
	if (r.dirfd >= 0)
		close(r.dirfd);
	buf_fini(&r.shown);
	free(r.fleet_error);
	pick_window_free(r.w);
	return status;
}
