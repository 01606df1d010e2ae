/* run: the non-interactive modes and their exit statuses. */
#include "run.h"

#include <errno.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/prometheus.h"
#include "record/replay.h"
#include "feed.h"
#include "model/gpusel.h"
#include "output/hook_kinds.h"
#include "output/hooks.h"
#include "output/sink.h"
#include "output/table.h"
#include "output/table_fleet.h"
#include "model/fleet.h"
#include "pick/pick_run.h"
#include "proc/pidwant.h"
#include "proc/sysstat.h"
#include "record/record_encode.h"
#include "record/recorder.h"
#include "report/report.h"
#include "sampler.h"
#include "serve/serve.h"
#include "source.h"
#include "tui/tui.h"
#include "util/buf.h"
#include "util/msg.h"
#include "util/ratewin.h"
#include "util/readfile.h"
#include "util/xalloc.h"

#ifndef GPUR_DATADIR
#define GPUR_DATADIR "/usr/local/share/gpur"
#endif

volatile sig_atomic_t run_stop_requested;
volatile sig_atomic_t run_reload_fd = -1;

struct inputs {
	struct clock_virtual virt_clock;
	struct clock_virtual *virt; /* for GPUR_VIRTUAL_CLOCK_MS, exact steps with no sleeping (virt_clock) */
	char host[256];             /* the records' host, which the sampler keeps a pointer to */
	struct replay *replay;
	struct sampler *sampler;
	struct sysstat *sysstat;
	struct source *source; /* one of the two above, as the pipeline sees it */
	struct frame *early;   /* the events of detection's polls, for the first frame */
	const char *replay_path;
};

static bool utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

static const char *demo_path(void)
{
	static const char *const candidates[] = {
		GPUR_DATADIR "/demo.jsonl",
#ifdef GPUR_SOURCE_DIR
		GPUR_SOURCE_DIR "/share/demo/demo.jsonl",
#endif
	};
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (access(candidates[i], R_OK) == 0)
			return candidates[i];
	return candidates[0];
}

static void host_name(const struct config *cfg, char *out, size_t n)
{
	const char *env = getenv("NODE_NAME");

	if (cfg->hostname)
		snprintf(out, n, "%s", cfg->hostname);
	else if (env && *env && strlen(env) < 256)
		snprintf(out, n, "%s", env);
	else if (gethostname(out, n) != 0)
		snprintf(out, n, "localhost");
	out[n - 1] = '\0';
}

/* How long detection waits for the first backend to open, and then for the
 * others; a slow one joins later, as a come-back. */
#define DETECT_LIMIT_NS (15 * 1000000000ull)
#define DETECT_GRACE_NS (2 * 1000000000ull)

static void report_absent(const char *name, const char *why, void *ctx)
{
	(void)ctx;
	msg_error("%s: %s", name, why && *why ? why : "not detected");
}

static void sleep_until(uint64_t deadline_ns);

/* Detects the live backends of cfg on the sampler's workers, so that a
 * library that hangs stalls only itself and a signal still ends gpur.
 * Finding none at all is a runtime failure that says why, backend by
 * backend. Returns 0, 1 when a signal stopped detection, or -1 when there is
 * nothing to monitor. */
static int open_live(const struct config *cfg, struct inputs *src, const struct backend_env *env,
		     const char *host)
{
	struct backend *all[8];
	size_t n = 0;

	if (cfg->prometheus)
		all[n++] = backend_new(&BACKEND_PROMETHEUS);
	for (size_t i = 0; i < BACKEND_REGISTRY_LEN && n < 8 && !cfg->prometheus; i++)
		if (cfg->backends >> i & 1u)
			all[n++] = backend_new(BACKEND_REGISTRY[i]);
	src->sysstat = sysstat_new(cfg->procfs);
	sysstat_set_rate_window(src->sysstat, env->rate_window_ns);
	uint64_t iv = (uint64_t)(cfg->interval * 1000.0);
	struct sampler_opts o = {
		.clock = env->clock,
		.env = env,
		.host = host,
		.wait_ms = iv == 0 || iv > 1000 ? 1000 : iv,
		.stale_ms = 2 * iv > 1000 ? 2 * iv : 1000,
		.hang_note_ms = 5000,
		.backoff_min_ms = 1000,
		.backoff_max_ms = 30000,
		.sysstat = src->sysstat,
	};
	src->sampler = sampler_new(all, n, &o);
	if (!src->sampler) {
		msg_error("cannot start a worker thread (too many processes or threads?)");
		return -1;
	}
	struct sampler_census c;
	uint64_t start = clock_mono_ns(), first_open = 0;
	src->early = frame_new();
	for (;;) {
		/* Detection's frames are not shown, but what they said is, such
		 * as a GPU left out or a note, so their events go into the first
		 * frame. */
		struct frame *f = sampler_tick(src->sampler, NULL);
		for (size_t i = 0; i < f->nevents; i++) {
			struct event *e = frame_add_event(src->early);
			if (e)
				frame_copy_event(src->early, e, &f->events[i]);
		}
		frame_unref(f);
		sampler_census(src->sampler, &c);
		uint64_t now = clock_mono_ns();
		if (c.open && !first_open)
			first_open = now;
		if (!c.pending || (first_open && now - first_open > DETECT_GRACE_NS) || now - start > DETECT_LIMIT_NS)
			break;
		if (run_stop_requested)
			return 1;
		sleep_until(now + 50000000u);
	}
	if (c.open == 0) {
		sampler_drop_absent(src->sampler, report_absent, NULL);
		for (size_t i = 0; i < sampler_nbackends(src->sampler); i++)
			msg_error("%s: no answer while detecting for %llu s", sampler_backend_name(src->sampler, i),
				  DETECT_LIMIT_NS / 1000000000ull);
		if (cfg->prometheus)
			return -1;
		msg_error("no GPU found; to see gpur at work, play the demo recording: gpur --replay %s",
			demo_path());
		return -1;
	}
	/* Backends that are absent here are not looked for again. When one is
	 * dropped, GPU positions start afresh, so detection's events keep what
	 * they say, without an index that may now name another GPU. */
	if (sampler_drop_absent(src->sampler, NULL, NULL))
		for (size_t i = 0; i < src->early->nevents; i++)
			src->early->events[i].valid &= ~(UINT64_C(1) << EVENT_F_GPU_INDEX);
	return 0;
}

static void sleep_until(uint64_t deadline_ns)
{
	while (!run_stop_requested) {
		uint64_t now = clock_mono_ns();
		if (now >= deadline_ns)
			return;
		struct timespec ts = {(time_t)((deadline_ns - now) / 1000000000u), (long)((deadline_ns - now) % 1000000000u)};
		nanosleep(&ts, NULL); /* a signal ends it early, and the loop re-checks */
	}
}

/* Writes the --once table of f, or of each host of the fleet fl beside it. */
static void print_table(const struct frame *f, const struct fleet *fl, const struct config *cfg)
{
	struct buf b;
	char drv[600];
	struct table_opts to = {.utf8 = utf8_locale(), .replay = cfg->replay_path};

	to.source = f->driver_line ? f->driver_line : replay_driver_line(f, drv, sizeof(drv), !to.utf8);
	buf_init(&b);
	if (fl) {
		to.source = NULL; /* each host's table names its source */
		table_render_fleet(&b, fl, clock_wall(&CLOCK_SYSTEM), &to);
	} else {
		table_render(&b, f, &to);
	}
	writefile_all(STDOUT_FILENO, b.data, b.len); /* a closed stdout ends quietly */
	buf_fini(&b);
}

/* serve_watch's view of the source: how long a backend has not answered. */
static uint64_t source_busy(void *ctx, const char **name)
{
	return source_busy_ms(ctx, name);
}

/* The exporter's messages, while the dashboard owns the terminal: a note
 * event in the next frame. */
static void post_note(void *ctx, const char *text)
{
	struct frame *tmp = frame_new();
	struct event *e = frame_note(tmp, EVENT_NOTE, "%s", text);
	if (e)
		feed_post_event(ctx, e);
	frame_unref(tmp);
}

/* Every mode runs the one frame pipeline (feed.c). The dashboard reads its
 * latest frame, and --once, --json and --headless wait for it to finish. */
/* Starts --on-event's hooks, quiet under the dashboard. Returns NULL, having
 * said why, when their thread cannot start. */
static struct hooks *start_hooks(const struct config *cfg, bool tui)
{
	struct hooks_opts ho = {
		.command = cfg->on_event,
		.kinds = cfg->on_event_kinds ? cfg->on_event_kinds : HOOK_KINDS_DEFAULT,
		.quiet = tui,
	};
	struct hooks *hooks = hooks_new(&ho);

	if (!hooks)
		msg_error("--on-event: cannot start the hooks' thread: %s", strerror(errno));
	return hooks;
}

/* Stops the pipeline once its run is over, lets the hooks finish or ends
 * them, and says how it went: the pipeline's failure, a fleet that failed
 * after detection, or --once's table. Returns the exit status, status
 * unless the pipeline failed. */
static int finish_pipeline(const struct config *cfg, struct feed *feed, struct hooks *hooks, struct sink *o,
			   int status)
{
	bool tui = cfg->mode == CLI_MODE_TUI, once = cli_mode_once(cfg->mode);
	struct frame *last = feed_latest(feed, NULL);
	struct fleet *last_fleet = feed_latest_fleet(feed, NULL);
	char why[256];
	int result = feed_result(feed, why, sizeof(why));

	if (o->serve)
		serve_notes(o->serve, NULL, NULL);
	feed_stop(feed);
	/* A run that ended by itself, at the end of a replay or by --count,
	 * lets its hooks finish, each within its time; a stop ends them. */
	if (hooks && !tui)
		hooks_wait(hooks, &run_stop_requested);
	hooks_free(hooks);
	o->quiet = false;
	if (result) {
		msg_error("%s", why);
		status = result;
	} else if (once && last && last_fleet && last_fleet->error) {
		/* The fleet's source answered detection and then failed, so there is
		 * no snapshot. */
		msg_error("%s", last_fleet->error);
		status = 1;
	} else if (once && last && !cli_mode_json(cfg->mode)) {
		print_table(last, last_fleet, cfg);
	}
	frame_unref(last);
	fleet_unref(last_fleet);
	return status;
}

static int run_pipeline(const struct config *cfg, struct inputs *in, struct sink *o, const struct gpusel *sel,
			struct pidwant *want)
{
	bool tui = cfg->mode == CLI_MODE_TUI, once = cli_mode_once(cfg->mode);
	uint64_t first_due = 0;

	/* Live, --once takes its second sample a short interval after the one
	 * detection took, so that rates are measured. */
	if (once)
		first_due = (uint64_t)((cfg->interval_set ? cfg->interval : 0.1) * 1000.0 + 0.5);
	in->source = in->replay ? source_replay(in->replay, !tui) : source_live(in->sampler, first_due);
	if (o->serve && in->source)
		serve_watch(o->serve, source_busy, in->source); /* /health asks it whether a backend answers */
	struct hooks *hooks = NULL;
	if (cfg->on_event && !(hooks = start_hooks(cfg, tui)))
		return 1;
	struct feed_opts fo = {
		.source = in->source,
		.sel = sel,
		.sink = o,
		.hooks = hooks,
		.interval = tui && !(cfg->interval > 0) ? 1.0 : cfg->interval,
		.speed = cfg->speed,
		.count = once ? 1 : cfg->count,
		.hold = tui || cfg->serve, /* a replay's last frame is served until a signal */
		.virt = in->virt,
		.early = in->early,
		.notify = tui,
		/* The dashboard on the virtual clock polls only when stepped ('.')
		 * or resumed (space), for a scripted session such as the demo's. */
		.start_paused = tui,
		.idle = {.mem_bytes = cfg->idle_mem, .after_ms = cfg->idle_after_ms},
	};
	struct feed *feed = feed_start(&fo);

	if (!feed) {
		msg_error("cannot start the frame pipeline's thread: %s", strerror(errno));
		hooks_free(hooks);
		return 1;
	}
	int status = 0;
	if (tui) {
		o->quiet = true; /* the dashboard owns the terminal and shows failures itself */
		if (o->serve)
			serve_notes(o->serve, post_note, feed); /* a re-read web config says so on the events line */
		struct tui_opts to = {
			.procfs = cfg->procfs,
			.replay_path = cfg->replay_path,
			.fleet = cfg->prometheus != NULL,
			.read_only = cfg->read_only,
			.no_color = cfg->no_color,
			.stop = &run_stop_requested,
		};
		status = tui_run(&to, feed, o, want);
	} else {
		feed_wait(feed, &run_stop_requested);
	}
	return finish_pipeline(cfg, feed, hooks, o, status);
}

/* --select and --wait take the source's frames one by one themselves. */
static int run_pick(const struct config *cfg, struct inputs *in, const struct gpusel *sel,
		    struct pick_launch **launch)
{
	in->source = in->replay ? source_replay(in->replay, false) : source_live(in->sampler, 0);
	struct pick_env pe = {.source = in->source,
			      .recorded = in->replay != NULL,
			      .fleet = cfg->prometheus != NULL,
			      .interval = cfg->interval,
			      .warmup = 0.25, /* more than NVIDIA's 100 ms between two GPM samples */
			      .sel = sel,
			      .stop = &run_stop_requested};
	return pick_run(&cfg->pick, &pe, launch);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return S_ISREG(a->st_mode) && a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A replay written into the file it reads would read its own output for
 * ever, so refuse a --log FILE, or a --json > FILE, that names the
 * recording. */
static bool replays_into_itself(const struct config *cfg)
{
	struct stat in, st;

	if (stat(cfg->replay_path, &in) != 0)
		return false;
	if (cfg->log_path && stat(cfg->log_path, &st) == 0 && same_file(&in, &st)) {
		msg_error("--log %s: that is the recording being replayed", cfg->log_path);
		return true;
	}
	if (cli_mode_json(cfg->mode) && fstat(STDOUT_FILENO, &st) == 0 && same_file(&in, &st)) {
		msg_error("--json: stdout is %s, the recording being replayed", cfg->replay_path);
		return true;
	}
	return false;
}

/* The backends' view of the machine for cfg's mode. */
static void env_init(const struct config *cfg, struct backend_env *env)
{
	*env = (struct backend_env){
		.procfs = cfg->procfs, .sysfs = cfg->sysfs, .rootfs = cfg->rootfs, .clock = &CLOCK_SYSTEM,
		.prometheus_url = cfg->prometheus, .prometheus_match = cfg->prometheus_match};
	/* Rates need a window of at least the smaller of 100 ms and the
	 * interval. --once's two samples are the interval apart, or 0.1 s,
	 * which gives the same window as its default interval of 1 s. */
	env->rate_window_ns = ratewin_min_ns(cfg->interval);
	/* The dashboard alone, live and recording nothing, may ask for fresh
	 * /proc figures of the processes on its screen only. */
	if (cfg->mode == CLI_MODE_TUI && !cfg->log_path && !cfg->replay_path)
		env->want = pidwant_get();
	/* Only the dashboard's tree shows parents, which are not recorded,
	 * so other modes do not walk them. */
	env->no_tree = cfg->mode != CLI_MODE_TUI;
	env->no_gpm = cfg->no_gpm;
	env->prometheus_wait = cfg->mode == CLI_MODE_TUI;
}

/* GPUR_VIRTUAL_CLOCK_MS, in epoch ms, makes a live run on a clock that moves
 * by exact steps instead of sleeping. Returns 0, or the exit status, which
 * is 2 when the value is not a number or the run is a replay. */
static int use_virtual_clock(const struct config *cfg, struct inputs *src, struct backend_env *env)
{
	const char *vstart = getenv("GPUR_VIRTUAL_CLOCK_MS");

	if (!vstart || !*vstart)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(vstart, &end, 10);
	if (errno || *end || *vstart == '-' || cfg->replay_path) {
		msg_error("GPUR_VIRTUAL_CLOCK_MS=%s: needs epoch milliseconds and a live source (not --replay)", vstart);
		return 2;
	}
	clock_virtual_init(&src->virt_clock, v);
	env->clock = &src->virt_clock.c;
	src->virt = &src->virt_clock;
	return 0;
}


/* Starts the --serve exporter, which the sink hands every frame. Returns 0,
 * or the exit status. */
static int open_serve(const struct config *cfg, struct sink *o, struct serve **serve)
{
	char err[1024];
	struct serve_opts so = {.addr = cfg->serve,
				.hostname = cfg->hostname,
				.processes = cfg->serve_processes,
				.live = !cfg->replay_path,
				.web_config = cfg->web_config,
				.health_auth = cfg->health_auth,
				.interval_ms = (uint64_t)(cfg->interval * 1000.0 + 0.5),
				.names = cfg->serve_names};
	bool usage;

	if (!(*serve = serve_start(&so, &usage, err, sizeof(err)))) {
		msg_error("%s", err);
		return usage ? 2 : 1;
	}
	o->serve = *serve;
	run_reload_fd = serve_reload_fd(*serve);
	if (cfg->mode != CLI_MODE_TUI)
		msg_error("serving metrics at %s://%s/metrics", serve_scheme(*serve), serve_where(*serve));
	return 0;
}

/* Applies --from and --to, the span of the recording that is played.
 * Returns 0, or the exit status. */
static int set_span(const struct config *cfg, struct replay *r)
{
	/* A clock time is on the recording's first day. */
	uint64_t day = 0;
	if ((cfg->from.clock || cfg->to.clock) && !replay_first_ts(r, &day)) {
		msg_error("%s: its first record has no ts_ms, so %s HH:MM has no day", cfg->replay_path,
			  cfg->from.clock ? "--from" : "--to");
		return 1;
	}
	uint64_t from = cfg->from.set ? when_resolve(&cfg->from, day) : 0;
	uint64_t to = cfg->to.set ? when_resolve(&cfg->to, day) : UINT64_MAX;
	if (from > to) {
		msg_error("--from is after --to (an empty span)");
		return 2;
	}
	if (replay_set_span(r, from, to) < 0) {
		msg_error("%s: no record between --from and --to", cfg->replay_path);
		return 1;
	}
	return 0;
}

/* Opens the --replay recording, sets its span and, for the dashboard, starts
 * its time index. Returns 0, or the exit status. */
static int open_replay(const struct config *cfg, struct inputs *src)
{
	char err[1024];

	src->replay = replay_open(cfg->replay_path, err, sizeof(err));
	if (!src->replay) {
		msg_error("%s", err);
		return 1;
	}
	if (cfg->from.set || cfg->to.set) {
		int status = set_span(cfg, src->replay);
		if (status)
			return status;
	}
	/* The dashboard seeks by time, so index the recording meanwhile. */
	if (cfg->mode == CLI_MODE_TUI)
		replay_index_start(src->replay);
	return 0;
}

/* Makes the sink's recorders for --log, which may rotate, and --json on
 * stdout; they give up a write that a stop interrupts. Returns 0, or the
 * exit status. */
static int open_outputs(const struct config *cfg, struct sink *o)
{
	char err[1024];
	struct recorder_rotation rot = {
		.max_size = cfg->log_max_size,
		.max_age_ms = cfg->log_max_age_ms,
		.zstd_level = cfg->log_zstd_level,
		.keep = cfg->log_keep,
		.max_total = cfg->log_max_total,
	};

	if (cfg->log_path && !(o->log = recorder_open_rotating(cfg->log_path, &rot, err, sizeof(err)))) {
		msg_error("%s", err);
		return 1;
	}
	if (cli_mode_json(cfg->mode))
		o->json = recorder_fdopen(STDOUT_FILENO, "stdout");
	if (o->log)
		recorder_set_cancel(o->log, &run_stop_requested);
	if (o->json)
		recorder_set_cancel(o->json, &run_stop_requested);
	return 0;
}

/* The run's status once the outputs have their say. Lost records make it 1
 * and are reported for --log; --json's losses are reported as they happen,
 * and a reader that went away is no failure. */
static int outputs_status(struct sink *o, int status)
{
	if (o->log) {
		/* A clean exit finishes compressing what it closed. */
		char note[512];
		recorder_drain(o->log);
		if (recorder_take_note(o->log, note, sizeof(note)))
			msg_error("%s", note);
	}
	if (o->log && recorder_dropped(o->log)) {
		msg_error("%s: %llu of %llu records lost (last error: %s)", recorder_name(o->log),
			(unsigned long long)recorder_dropped(o->log),
			(unsigned long long)(recorder_dropped(o->log) + recorder_written(o->log)),
			strerror(recorder_last_error(o->log)));
		status = 1;
	}
	if (o->json && recorder_dropped(o->json) && !o->epipe)
		status = 1;
	return status;
}

/* The run's status once the recording has its say. Skipped lines are
 * reported, and a read error makes it 1. */
static int replay_status(const struct config *cfg, struct replay *r, int status)
{
	const struct replay_stats *st = replay_stats(r);

	if (st->skipped)
		msg_error("%s: skipped %llu line%s that %s not a valid record (%llu over 8 MiB, %llu over the record limits)",
			cfg->replay_path, (unsigned long long)st->skipped, st->skipped == 1 ? "" : "s",
			st->skipped == 1 ? "was" : "were", (unsigned long long)st->oversized,
			(unsigned long long)st->too_big);
	/* -EINTR is a read that waited for input and was ended by a stop. */
	if (st->read_error && st->read_error != -EINTR) {
		msg_error("%s: read error after %llu records: %s", cfg->replay_path,
			(unsigned long long)st->records, strerror(-st->read_error));
		status = 1;
	}
	return status;
}

int run_main(const struct config *cfg)
{
	struct inputs src = {.replay_path = cfg->replay_path};
	struct backend_env env;
	struct sink o;
	struct serve *serve = NULL;
	struct gpusel *sel = NULL;
	struct pick_launch *launch = NULL;
	char err[1024];
	int status;

	sink_init(&o);
	env_init(cfg, &env);
	if (cfg->gpus && !(sel = gpusel_parse(cfg->gpus, err, sizeof(err)))) {
		msg_error("%s", err);
		return 2;
	}
	host_name(cfg, src.host, sizeof(src.host));
	if ((status = use_virtual_clock(cfg, &src, &env)) != 0) {
		gpusel_free(sel);
		return status;
	}
	/* Bind first, so that a port in use fails before detection takes its
	 * time. */
	if (cfg->serve && (status = open_serve(cfg, &o, &serve)) != 0)
		goto out;
	if (cfg->replay_path) {
		if ((status = open_replay(cfg, &src)) != 0)
			goto out;
	} else if ((status = open_live(cfg, &src, &env, src.host)) != 0) {
		status = status > 0 ? 0 : 1; /* a signal during detection is a clean stop */
		if (status == 0 && pick_wanted(&cfg->pick))
			status = 128 + (int)run_stop_requested; /* but it chose no GPU */
		goto out;
	}
	if ((status = open_outputs(cfg, &o)) != 0)
		goto out;
	if (src.replay && replays_into_itself(cfg)) {
		status = 2;
		goto out;
	}

	struct idle_opts io = {.mem_bytes = cfg->idle_mem, .after_ms = cfg->idle_after_ms};
	if (cfg->report_path)
		status = report_run(src.replay, sel, &io, cfg->report_path, cfg->replay_path, &run_stop_requested);
	else if (pick_wanted(&cfg->pick))
		status = run_pick(cfg, &src, sel, &launch);
	else
		status = run_pipeline(cfg, &src, &o, sel, env.want);
	status = outputs_status(&o, status);
	if (src.replay)
		status = replay_status(cfg, src.replay, status);
out:
	run_reload_fd = -1;
	serve_stop(serve);
	sink_fini(&o);
	source_free(src.source);
	frame_unref(src.early);
	sampler_free(src.sampler);
	sysstat_free(src.sysstat);
	replay_free(src.replay);
	gpusel_free(sel);
	/* The command runs once the GPUs are no longer watched, with nothing of
	 * the backends open, holding only the locks. */
	if (launch)
		status = pick_exec(launch);
	return status;
}
