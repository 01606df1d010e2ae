/* hooks: the queue of events for --on-event and the thread that runs their
 * hooks. The thread sleeps in poll(2) with no timeout while nothing runs,
 * and otherwise wakes for a hook's pipes, its end (a pidfd) or its
 * deadline. */
#include "output/hooks.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output/hook_kinds.h"
#include "output/hook_proc.h"
#include "record/record_encode.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/json_write.h"
#include "util/msg.h"
#include "util/stopwait.h"
#include "util/utf8.h"
#include "util/xalloc.h"

extern char **environ;

/* Notes that wait for a frame; more are counted and said in one. */
#define HOOKS_NOTES_MAX 32
#define HOOKS_NOTE_LEN 512
/* Without pidfds, the thread looks for ended hooks this often while any
 * runs. */
#define HOOKS_REAP_POLL_MS 50

/* One event for the hook: its line and the values of its variables. */
struct hook_job {
	char event[sizeof("GPUR_EVENT=") + HOOKS_ENV_MAX];
	char gpu[32], pid[32]; /* "GPUR_GPU=N", "GPUR_PID=N", or "" when the event names none */
	size_t len;
	char line[]; /* len bytes and a NUL */
};

struct hook_slot {
	struct hook_proc p;
	struct hook_job *job; /* NULL when the slot is free */
	uint64_t deadline_ns; /* when to send SIGKILL, or UINT64_MAX once sent */
	bool timed_out;       /* killed for running too long */
	bool stopped;         /* ended by gpur's stop, which needs no note */
};

struct hooks {
	char *command;
	uint32_t kinds;
	bool quiet;
	uint64_t timeout_ns, grace_ns;
	char **env; /* the environment at the start, less GPUR_EVENT, GPUR_GPU and GPUR_PID */
	size_t nenv;
	pthread_t tid;
	bool started; /* the thread runs */
	int wake_fd; /* wakes the thread: an event queued, or the stop */
	int idle_fd; /* readable each time the thread becomes idle */
	pthread_mutex_t mu;
	/* Guarded by mu. */
	struct hook_job *queue[HOOKS_QUEUE_MAX];
	size_t qhead, qlen;
	uint64_t dropped, drop_since_ns; /* events dropped since the last note about it, and since when */
	char notes[HOOKS_NOTES_MAX][HOOKS_NOTE_LEN];
	size_t nnotes;
	uint64_t notes_lost;
	bool stopping, idle;
	struct hooks_stats st;
	/* The thread's own. */
	struct hook_slot slots[HOOKS_RUNNING_MAX];
	unsigned nrun;
	bool term_sent;
};

static void wake(int fd)
{
	uint64_t one = 1;
	ssize_t w = write(fd, &one, sizeof(one));
	(void)w;
}

static void drain(int fd)
{
	uint64_t v;
	ssize_t r = read(fd, &v, sizeof(v));
	(void)r;
}

static bool is_ours(const char *var)
{
	static const char *const names[] = {"GPUR_EVENT=", "GPUR_GPU=", "GPUR_PID="};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(var, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

/* Copies the environment, so that the thread never reads environ while
 * another thread might change it. */
static void env_snapshot(struct hooks *h)
{
	size_t n = 0;

	while (environ && environ[n])
		n++;
	h->env = xreallocarray(NULL, n + 1, sizeof(*h->env));
	for (size_t i = 0; i < n; i++)
		if (!is_ours(environ[i]))
			h->env[h->nenv++] = xstrdup(environ[i]);
	h->env[h->nenv] = NULL;
}

/* Appends s to out, of size n, as an environment value: without control
 * characters (C0, DEL, C1) or invalid UTF-8, and cut on a character
 * boundary at max bytes. */
static void env_value(char *out, size_t n, const char *s, size_t max)
{
	size_t len = strlen(out), added = 0, slen = strlen(s);

	for (size_t i = 0; i < slen;) {
		uint32_t cp;
		size_t k = utf8_decode(s + i, slen - i, &cp);
		bool invalid = cp == UTF8_REPLACEMENT && !(k == 3 && memcmp(s + i, "\xEF\xBF\xBD", 3) == 0);
		bool control = cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
		if (!invalid && !control) {
			if (added + k > max || len + k >= n)
				break;
			memcpy(out + len, s + i, k);
			len += k;
			added += k;
		}
		i += k;
	}
	out[len] = '\0';
}

/* The event as one JSON line, the record format's event object with the
 * host and ts_ms of its frame, and the values of its variables. The caller
 * frees it. */
static struct hook_job *make_job(const struct frame *fr, const struct event *e)
{
	struct buf b;
	buf_init(&b);
	buf_putc(&b, '{');
	record_encode_fields(&b, EVENT_FIELDS, EVENT_NFIELDS, e, false, NULL);
	if (frame_has(fr, FRAME_F_HOST) && fr->host) {
		buf_puts(&b, b.len > 1 ? ",\"host\":" : "\"host\":");
		json_put_string(&b, fr->host, strlen(fr->host), 256);
	}
	if (frame_has(fr, FRAME_F_TS)) {
		buf_puts(&b, b.len > 1 ? ",\"ts_ms\":" : "\"ts_ms\":");
		json_put_u64(&b, fr->ts_ms);
	}
	buf_puts(&b, "}\n");

	struct hook_job *j = xcalloc(1, sizeof(*j) + b.len + 1);
	memcpy(j->line, b.data, b.len);
	j->len = b.len;
	buf_fini(&b);
	strcpy(j->event, "GPUR_EVENT=");
	if (event_has(e, EVENT_F_KIND) && e->kind)
		env_value(j->event, sizeof(j->event), e->kind, HOOKS_ENV_MAX);
	if (event_has(e, EVENT_F_GPU_INDEX))
		snprintf(j->gpu, sizeof(j->gpu), "GPUR_GPU=%" PRIu64, e->gpu_index);
	if (event_has(e, EVENT_F_PID))
		snprintf(j->pid, sizeof(j->pid), "GPUR_PID=%" PRIu64, e->pid);
	return j;
}

/* The kind as the notes name it. */
static const char *job_kind(const struct hook_job *j)
{
	const char *k = j->event + strlen("GPUR_EVENT=");
	return *k ? k : "an event without a kind";
}

/* Keeps a note for the next frame and, unless quiet, says it on stderr. */
static void add_note(struct hooks *h, const char *text)
{
	pthread_mutex_lock(&h->mu);
	if (h->nnotes < HOOKS_NOTES_MAX)
		snprintf(h->notes[h->nnotes++], HOOKS_NOTE_LEN, "%s", text);
	else
		h->notes_lost++;
	pthread_mutex_unlock(&h->mu);
	if (!h->quiet)
		msg_error("%s", text);
}

void hooks_feed(struct hooks *h, struct frame *fr)
{
	size_t n = fr->nevents;
	bool queued = false;

	for (size_t i = 0; i < n; i++) {
		const struct event *e = &fr->events[i];
		if (!hook_kinds_match(h->kinds, event_has(e, EVENT_F_KIND) ? e->kind : NULL))
			continue;
		struct hook_job *j = make_job(fr, e);
		pthread_mutex_lock(&h->mu);
		if (h->qlen < HOOKS_QUEUE_MAX && !h->stopping) {
			h->queue[(h->qhead + h->qlen++) % HOOKS_QUEUE_MAX] = j;
			h->st.queued++;
			h->idle = false;
			j = NULL;
			queued = true;
		} else {
			if (!h->dropped)
				h->drop_since_ns = clock_mono_ns();
			h->dropped++;
			h->st.dropped++;
		}
		pthread_mutex_unlock(&h->mu);
		free(j);
	}
	if (queued)
		wake(h->wake_fd);

	pthread_mutex_lock(&h->mu);
	for (size_t i = 0; i < h->nnotes; i++)
		frame_note(fr, EVENT_NOTE, "%s", h->notes[i]);
	if (h->notes_lost)
		frame_note(fr, EVENT_NOTE, "--on-event: %" PRIu64 " more notes about hooks were left out", h->notes_lost);
	h->nnotes = 0;
	h->notes_lost = 0;
	pthread_mutex_unlock(&h->mu);
}

/* Starts a hook for j in a free slot, or turns its failure into a note. */
static void start_job(struct hooks *h, struct hook_job *j)
{
	struct hook_slot *s = NULL;
	for (size_t i = 0; i < HOOKS_RUNNING_MAX && !s; i++)
		if (!h->slots[i].job)
			s = &h->slots[i];

	char **envp = xreallocarray(NULL, h->nenv + 4, sizeof(*envp));
	size_t k = h->nenv;
	memcpy(envp, h->env, h->nenv * sizeof(*envp));
	envp[k++] = j->event;
	if (j->gpu[0])
		envp[k++] = j->gpu;
	if (j->pid[0])
		envp[k++] = j->pid;
	envp[k] = NULL;
	struct hook_spawn sp = {.command = h->command, .envp = envp, .quiet = h->quiet};
	int rc = hook_proc_start(&s->p, &sp, j->line, j->len);
	free(envp);
	if (rc < 0) {
		char text[HOOKS_NOTE_LEN];
		snprintf(text, sizeof(text), "--on-event: the hook for %s could not start: %s", job_kind(j), strerror(-rc));
		pthread_mutex_lock(&h->mu);
		h->st.failed++;
		pthread_mutex_unlock(&h->mu);
		add_note(h, text);
		free(j);
		return;
	}
	s->job = j;
	s->deadline_ns = clock_mono_ns() + h->timeout_ns;
	s->timed_out = s->stopped = false;
	h->nrun++;
	pthread_mutex_lock(&h->mu);
	h->st.started++;
	h->st.running = h->nrun;
	if (h->nrun > h->st.running_max)
		h->st.running_max = h->nrun;
	pthread_mutex_unlock(&h->mu);
}

/* Says how a hook ended, when it failed, as a note. */
static void end_job(struct hooks *h, struct hook_slot *s, int status)
{
	char text[HOOKS_NOTE_LEN], err[HOOK_PROC_ERR_HEAD + 1];
	int n = 0;

	hook_proc_read_err(&s->p);
	hook_proc_close(&s->p);
	bool failed = s->timed_out || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	if (failed && !s->stopped) {
		const char *kind = job_kind(s->job);
		if (s->timed_out) {
			n = snprintf(text, sizeof(text), "--on-event: the hook for %s was killed after %.3g s (timeout)", kind,
				     (double)h->timeout_ns / 1e9);
		} else if (status == -1) {
			n = snprintf(text, sizeof(text), "--on-event: the hook for %s ended with an unknown status", kind);
		} else if (WIFEXITED(status)) {
			n = snprintf(text, sizeof(text), "--on-event: the hook for %s exited with status %d", kind,
				     WEXITSTATUS(status));
		} else {
			const char *abbrev = sigabbrev_np(WTERMSIG(status));
			n = snprintf(text, sizeof(text), "--on-event: the hook for %s was killed by %s%s", kind,
				     abbrev ? "SIG" : "signal ", abbrev ? abbrev : "");
			if (!abbrev && n > 0 && (size_t)n < sizeof(text))
				n += snprintf(text + n, sizeof(text) - (size_t)n, "%d", WTERMSIG(status));
		}
		if (n > 0 && (size_t)n < sizeof(text) && hook_proc_err_line(&s->p, err, sizeof(err)))
			snprintf(text + n, sizeof(text) - (size_t)n, ": %s", err);
	}
	free(s->job);
	s->job = NULL;
	h->nrun--;
	pthread_mutex_lock(&h->mu);
	h->st.running = h->nrun;
	if (failed && !s->stopped)
		h->st.failed++;
	pthread_mutex_unlock(&h->mu);
	if (failed && !s->stopped)
		add_note(h, text);
}

/* The poll(2) timeout until the nearest deadline, -1 for none. */
static int next_timeout(const struct hooks *h, uint64_t now)
{
	uint64_t nearest = UINT64_MAX;
	bool no_pidfd = false;

	for (size_t i = 0; i < HOOKS_RUNNING_MAX; i++) {
		const struct hook_slot *s = &h->slots[i];
		if (!s->job)
			continue;
		if (s->deadline_ns < nearest)
			nearest = s->deadline_ns;
		if (s->p.pidfd < 0)
			no_pidfd = true;
	}
	int ms = -1;
	if (nearest != UINT64_MAX)
		ms = nearest <= now ? 0 : (int)((nearest - now + 999999) / 1000000);
	if (no_pidfd && (ms < 0 || ms > HOOKS_REAP_POLL_MS))
		ms = HOOKS_REAP_POLL_MS;
	return ms;
}

/* Waits once for the wake descriptor, a hook's pipes, its end or the
 * nearest deadline, and handles what came. */
static void wait_round(struct hooks *h)
{
	struct pollfd pfd[1 + 3 * HOOKS_RUNNING_MAX];
	struct hook_slot *of[1 + 3 * HOOKS_RUNNING_MAX];
	nfds_t n = 0;

	pfd[n] = (struct pollfd){h->wake_fd, POLLIN, 0};
	of[n++] = NULL;
	for (size_t i = 0; i < HOOKS_RUNNING_MAX; i++) {
		struct hook_slot *s = &h->slots[i];
		if (!s->job)
			continue;
		if (s->p.pidfd >= 0) {
			pfd[n] = (struct pollfd){s->p.pidfd, POLLIN, 0};
			of[n++] = s;
		}
		if (s->p.in_fd >= 0) {
			pfd[n] = (struct pollfd){s->p.in_fd, POLLOUT, 0};
			of[n++] = s;
		}
		if (s->p.err_fd >= 0) {
			pfd[n] = (struct pollfd){s->p.err_fd, POLLIN, 0};
			of[n++] = s;
		}
	}
	if (poll(pfd, n, next_timeout(h, clock_mono_ns())) < 0)
		return; /* EINTR, and the loop looks again */
	if (pfd[0].revents)
		drain(h->wake_fd);
	for (nfds_t i = 1; i < n; i++) {
		if (!pfd[i].revents)
			continue;
		if (pfd[i].fd == of[i]->p.in_fd)
			hook_proc_write(&of[i]->p);
		else if (pfd[i].fd == of[i]->p.err_fd)
			hook_proc_read_err(&of[i]->p);
	}
	uint64_t now = clock_mono_ns();
	for (size_t i = 0; i < HOOKS_RUNNING_MAX; i++) {
		struct hook_slot *s = &h->slots[i];
		int status;
		if (!s->job)
			continue;
		if (hook_proc_reap(&s->p, &status)) {
			end_job(h, s, status);
		} else if (now >= s->deadline_ns) {
			hook_proc_kill(&s->p, SIGKILL);
			s->timed_out = !s->stopped;
			s->deadline_ns = UINT64_MAX;
		}
	}
}

/* At the stop, every hook that runs gets SIGTERM, and SIGKILL after the
 * grace. */
static void terminate_all(struct hooks *h)
{
	uint64_t kill_at = clock_mono_ns() + h->grace_ns;

	for (size_t i = 0; i < HOOKS_RUNNING_MAX; i++) {
		struct hook_slot *s = &h->slots[i];
		if (!s->job || s->deadline_ns == UINT64_MAX)
			continue;
		hook_proc_kill(&s->p, SIGTERM);
		s->stopped = true;
		if (kill_at < s->deadline_ns)
			s->deadline_ns = kill_at;
	}
	h->term_sent = true;
}

static void *hooks_main(void *arg)
{
	struct hooks *h = arg;

	for (;;) {
		struct hook_job *job = NULL;
		char drop_note[HOOKS_NOTE_LEN] = "", stop_note[HOOKS_NOTE_LEN] = "";
		bool became_idle = false;

		pthread_mutex_lock(&h->mu);
		bool stopping = h->stopping;
		if (stopping && h->qlen) {
			snprintf(stop_note, sizeof(stop_note), "--on-event: %zu waiting event%s not run: gpur is stopping",
				 h->qlen, h->qlen == 1 ? "" : "s");
			for (; h->qlen; h->qlen--, h->qhead = (h->qhead + 1) % HOOKS_QUEUE_MAX)
				free(h->queue[h->qhead]);
		}
		if (!stopping && h->nrun < HOOKS_RUNNING_MAX && h->qlen) {
			job = h->queue[h->qhead];
			h->qhead = (h->qhead + 1) % HOOKS_QUEUE_MAX;
			h->qlen--;
		}
		if (h->dropped && (h->qlen == 0 || clock_mono_ns() - h->drop_since_ns >= HOOKS_DROP_NOTE_MS * 1000000ull)) {
			snprintf(drop_note, sizeof(drop_note),
				 "--on-event: %" PRIu64 " event%s dropped, with %d waiting for a hook already", h->dropped,
				 h->dropped == 1 ? "" : "s", HOOKS_QUEUE_MAX);
			h->dropped = 0;
		}
		if (!job && !h->nrun && !h->qlen && !h->idle)
			h->idle = became_idle = true;
		pthread_mutex_unlock(&h->mu);

		if (drop_note[0])
			add_note(h, drop_note);
		if (stop_note[0] && !h->quiet)
			msg_error("%s", stop_note);
		if (became_idle)
			wake(h->idle_fd);
		if (stopping && !h->term_sent)
			terminate_all(h);
		if (job) {
			start_job(h, job);
			continue;
		}
		if (stopping && !h->nrun)
			break;
		wait_round(h);
	}
	return NULL;
}

/* A SIGCHLD that gpur's parent left ignored is inherited across exec, and
 * would make the kernel reap the hooks before gpur could read how they
 * ended, so it gets its default action back. */
static void keep_exit_statuses(void)
{
	struct sigaction sa;

	if (sigaction(SIGCHLD, NULL, &sa) != 0)
		return;
	if (sa.sa_handler == SIG_IGN || (sa.sa_flags & SA_NOCLDWAIT)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGCHLD, &sa, NULL);
	}
}

struct hooks *hooks_new(const struct hooks_opts *o)
{
	struct hooks *h = xcalloc(1, sizeof(*h));
	sigset_t all, old;

	h->command = xstrdup(o->command);
	h->kinds = o->kinds;
	h->quiet = o->quiet;
	h->timeout_ns = (o->timeout_ms ? o->timeout_ms : HOOKS_TIMEOUT_MS) * 1000000ull;
	h->grace_ns = (o->grace_ms ? o->grace_ms : HOOKS_GRACE_MS) * 1000000ull;
	h->idle = true;
	keep_exit_statuses();
	h->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	h->idle_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	env_snapshot(h);
	pthread_mutex_init(&h->mu, NULL);
	int rc = h->wake_fd < 0 || h->idle_fd < 0 ? errno : 0;
	if (!rc) {
		/* The thread blocks every signal: they are the main thread's, and
		 * a hook's SIGPIPE must not end gpur. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		rc = pthread_create(&h->tid, NULL, hooks_main, h);
		h->started = rc == 0;
		if (rc == 0)
			pthread_setname_np(h->tid, "gpur-hooks");
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (rc) {
		hooks_free(h);
		errno = rc;
		return NULL;
	}
	return h;
}

static bool hooks_idle(void *ctx)
{
	struct hooks *h = ctx;

	pthread_mutex_lock(&h->mu);
	bool idle = h->idle;
	pthread_mutex_unlock(&h->mu);
	return idle;
}

static void hooks_readable(void *ctx)
{
	drain(((struct hooks *)ctx)->idle_fd);
}

bool hooks_wait(struct hooks *h, const volatile sig_atomic_t *stop)
{
	return stopwait(h->idle_fd, hooks_idle, hooks_readable, h, stop);
}

void hooks_free(struct hooks *h)
{
	if (!h)
		return;
	if (h->started) {
		pthread_mutex_lock(&h->mu);
		h->stopping = true;
		pthread_mutex_unlock(&h->mu);
		wake(h->wake_fd);
		pthread_join(h->tid, NULL);
	}
	for (; h->qlen; h->qlen--, h->qhead = (h->qhead + 1) % HOOKS_QUEUE_MAX)
		free(h->queue[h->qhead]);
	if (h->wake_fd >= 0)
		close(h->wake_fd);
	if (h->idle_fd >= 0)
		close(h->idle_fd);
	for (size_t i = 0; i < h->nenv; i++)
		free(h->env[i]);
	free(h->env);
	free(h->command);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

void hooks_stats(struct hooks *h, struct hooks_stats *st)
{
	pthread_mutex_lock(&h->mu);
	*st = h->st;
	pthread_mutex_unlock(&h->mu);
}
