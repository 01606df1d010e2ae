/* scripted_backend: a test backend whose behaviour the test scripts. */
#include "scripted_backend.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/xalloc.h"

struct scripted {
	struct backend b; /* first: backend_free() frees the whole struct */
	struct script *sc;
};

static struct script *script_of(struct backend *b)
{
	return ((struct scripted *)b)->sc;
}

static int s_open(struct backend *b, const struct backend_env *env)
{
	struct script *sc = script_of(b);
	int rc = 0;

	(void)env;
	pthread_mutex_lock(&sc->mu);
	if (sc->opens < 64)
		sc->open_times[sc->opens] = clock_mono(sc->clock);
	sc->opens++;
	if (sc->open_failures > 0) {
		sc->open_failures--;
		rc = -ENODEV;
	}
	pthread_mutex_unlock(&sc->mu);
	if (rc) {
		backend_fail(b, "%s: driver not loaded", sc->name);
		return rc;
	}
	b->priv = sc;
	return 0;
}

static int s_poll(struct backend *b, struct frame *f)
{
	struct script *sc = script_of(b);
	char id[64];

	pthread_mutex_lock(&sc->mu);
	sc->polls++;
	sc->in_poll = true;
	pthread_cond_broadcast(&sc->cv);
	while (sc->hang)
		pthread_cond_wait(&sc->cv, &sc->mu);
	sc->in_poll = false;
	if (sc->fail_polls) {
		pthread_mutex_unlock(&sc->mu);
		backend_fail(b, "%s: library failed", sc->name);
		return -ENODEV;
	}
	for (size_t i = 0; i < sc->ngpus; i++) {
		struct gpu *g = frame_add_gpu(f);
		snprintf(id, sizeof(id), "GPU-%s-%zu", sc->name, i);
		g->device_id = frame_str(f, id);
		gpu_set(g, GPU_F_DEVICE_ID);
		snprintf(id, sizeof(id), "%s card %zu", sc->name, i);
		g->name = frame_str(f, id);
		gpu_set(g, GPU_F_NAME);
		g->mem_total_bytes = 1u << 30;
		gpu_set(g, GPU_F_MEM_TOTAL);
		gpu_set(g, GPU_F_STATE);
		if (sc->lost[i]) {
			g->state = GPU_STATE_LOST;
			continue;
		}
		g->state = GPU_STATE_OK;
		g->util_pct = (double)(10 * i + 1);
		gpu_set(g, GPU_F_UTIL);
		struct gpu_process *p = frame_add_process(f);
		p->pid = (sc->pid_base ? sc->pid_base : 1000) + i;
		p->gpu_index = i;
		process_set(p, PROC_F_PID);
		process_set(p, PROC_F_GPU_INDEX);
	}
	if (sc->stray_row) {
		struct gpu_process *p = frame_add_process(f);
		p->pid = 999;
		p->gpu_index = sc->ngpus;
		process_set(p, PROC_F_PID);
		process_set(p, PROC_F_GPU_INDEX);
	}
	if (sc->driver) {
		f->driver = frame_str(f, sc->driver);
		frame_set(f, FRAME_F_DRIVER);
	}
	pthread_mutex_unlock(&sc->mu);
	return 0;
}

static int s_reinit(struct backend *b)
{
	struct script *sc = script_of(b);

	pthread_mutex_lock(&sc->mu);
	sc->reinits++;
	pthread_mutex_unlock(&sc->mu);
	return 0;
}

static void s_close(struct backend *b)
{
	(void)b;
}

static bool s_is_remote(const struct backend *b)
{
	struct script *sc = ((const struct scripted *)b)->sc;

	pthread_mutex_lock(&sc->mu);
	bool r = sc->remote;
	pthread_mutex_unlock(&sc->mu);
	return r;
}

static const struct backend_ops SCRIPTED_OPS = {
	.name = "scripted", .open = s_open, .poll = s_poll, .reinit = s_reinit, .close = s_close,
	.is_remote = s_is_remote,
};

void script_init(struct script *sc, const char *name, size_t ngpus, const struct clock *clock)
{
	memset(sc, 0, sizeof(*sc));
	pthread_mutex_init(&sc->mu, NULL);
	pthread_cond_init(&sc->cv, NULL);
	snprintf(sc->name, sizeof(sc->name), "%s", name);
	sc->ngpus = ngpus;
	sc->clock = clock;
}

void script_fini(struct script *sc)
{
	pthread_mutex_destroy(&sc->mu);
	pthread_cond_destroy(&sc->cv);
}

struct backend *scripted_backend_new(struct script *sc, bool opened)
{
	struct scripted *s = xcalloc(1, sizeof(*s));
	static struct backend_ops ops[8];
	static size_t nops;

	/* Each script gets ops named after it, so names in frames differ. */
	struct backend_ops *o = NULL;
	for (size_t i = 0; i < nops; i++)
		if (strcmp(ops[i].name, sc->name) == 0)
			o = &ops[i];
	if (!o && nops < 8) {
		o = &ops[nops++];
		*o = SCRIPTED_OPS;
		o->name = xstrdup(sc->name);
	}
	s->b.ops = o;
	s->sc = sc;
	if (opened)
		s->b.priv = sc;
	return &s->b;
}

void script_wait_in_poll(struct script *sc)
{
	pthread_mutex_lock(&sc->mu);
	while (!sc->in_poll)
		pthread_cond_wait(&sc->cv, &sc->mu);
	pthread_mutex_unlock(&sc->mu);
}

void script_release(struct script *sc)
{
	pthread_mutex_lock(&sc->mu);
	sc->hang = false;
	pthread_cond_broadcast(&sc->cv);
	pthread_mutex_unlock(&sc->mu);
}

void script_set(struct script *sc, void (*fn)(struct script *, void *), void *arg)
{
	pthread_mutex_lock(&sc->mu);
	fn(sc, arg);
	pthread_mutex_unlock(&sc->mu);
}

static unsigned long long fc_mono(const struct clock *c)
{
	return atomic_load(&((const struct fake_clock *)c)->ms);
}

static uint64_t fc_mono64(const struct clock *c)
{
	return fc_mono(c);
}

static uint64_t fc_wall(const struct clock *c)
{
	return 1700000000000ull + fc_mono(c);
}

void fake_clock_init(struct fake_clock *fc, unsigned long long start_ms)
{
	fc->c.mono_ms = fc_mono64;
	fc->c.wall_ms = fc_wall;
	fc->c.ctx = fc;
	atomic_init(&fc->ms, start_ms);
}

void fake_clock_advance(struct fake_clock *fc, unsigned long long ms)
{
	atomic_fetch_add(&fc->ms, ms);
}

struct sampler_opts script_sampler_opts(struct fake_clock *fc, struct backend_env *env, uint64_t wait_ms)
{
	struct sampler_opts o = {
		.clock = &fc->c,
		.env = env,
		.host = "testhost",
		.wait_ms = wait_ms,
		.stale_ms = 1000,
		.hang_note_ms = 5000,
		.backoff_min_ms = 1000,
		.backoff_max_ms = 30000,
	};
	return o;
}
