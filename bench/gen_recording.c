/* gen_recording: writes a deterministic, realistic gpur recording (one record
 * per interval) for benchmarks, built with gpur's own frame and record_encode
 * so the bytes are exactly what `gpur --log` writes. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/frame.h"
#include "record/record_encode.h"
#include "util/buf.h"
#include "util/readfile.h"

#define GEN_DEFAULT_START_MS UINT64_C(1717236000000) /* 2024-06-01 10:00:00 UTC */
#define GIB (UINT64_C(1) << 30)
#define MIB (UINT64_C(1) << 20)

struct opts {
	unsigned gpus, procs;
	double seconds, interval;
	uint64_t start_ms, seed;
	const char *out;
};

/* splitmix64: tiny, fast and the same on every platform. Only integer and
 * IEEE arithmetic feed the values, never libm transcendentals, so a given
 * seed gives byte-identical files everywhere. */
struct rng {
	uint64_t s;
};

static uint64_t rng_u64(struct rng *r)
{
	uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
	return n ? rng_u64(r) % n : 0;
}

/* Uniform in [lo, hi). */
static double rng_range(struct rng *r, double lo, double hi)
{
	return lo + (hi - lo) * ((double)(rng_u64(r) >> 11) / 9007199254740992.0);
}

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A value that drifts toward a target with some noise: smooth enough to look
 * like a real metric, varied enough that consecutive records differ. */
static double walk(struct rng *r, double v, double target, double noise, double lo, double hi)
{
	return clampd(v + (target - v) * 0.1 + rng_range(r, -noise, noise), lo, hi);
}

/* Rounds to a multiple of 1/1000 (NVML's mW and mJ give three decimals). */
static double milli(double v)
{
	return round(v * 1000.0) / 1000.0;
}

enum job_kind { JOB_TRAIN, JOB_INFER, JOB_NOTEBOOK, JOB_BATCH, JOB_RENDER, JOB__COUNT };

struct proc_slot {
	uint64_t pid, start_ms, end_ms, container_pid;
	unsigned gpu, kind;
	unsigned user, job;
	char name[32];
	char cmdline[PROCESS_CMDLINE_MAX];
	char container[96], pod[96], unit[96];
	double base_util; /* what the job drives its GPU to when that GPU is busy */
	double util, bw, cpu;
	uint64_t gpu_mem, host_mem, gpu_mem_target;
};

struct gpu_slot {
	char device_id[64], pci[16];
	double util, mem_util, temp, temp_mem, power, energy;
	double clock_gfx, pcie_rx, pcie_tx;
	uint64_t mem_base;
};

struct gen {
	struct opts o;
	struct rng r;
	struct gpu_slot *gpus;
	struct proc_slot *procs;
	uint64_t next_pid;
	double sys_cpu, sys_mem, load;
	uint64_t *gpu_mem_sum; /* per record: GPU memory of each GPU's processes */
	unsigned *gpu_nprocs;
	uint64_t mem_budget; /* GPU memory one process may take, so a GPU stays under 80 GB */
};

static const char *const USERS[] = {"alice", "bob", "chen", "dmitri", "svc-infer", "jupyter", "1001", "priya"};
static const char *const MODELS[] = {"llama-3-8b", "llama-3-70b", "mistral-7b", "sdxl-base", "bert-large",
				     "resnet152", "whisper-large-v3", "t5-xl"};
static const char *const NAMESPACES[] = {"research", "prod-inference", "ml-platform", "team-vision"};

static void hex(struct rng *r, char *out, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++)
		out[i] = digits[rng_below(r, 16)];
	out[n] = '\0';
}

/* With eight or more GPUs every eighth one sits idle, as spare capacity does. */
static bool gpu_is_spare(const struct gen *g, unsigned i)
{
	return g->o.gpus >= 8 && i % 8 == 7;
}

static void gpu_init_slot(struct gen *g, unsigned i)
{
	/* DGX H100 bus ids for the first eight, then made-up ones. */
	static const unsigned buses[] = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};
	struct gpu_slot *s = &g->gpus[i];
	char a[9], b[5], c[5], d[5], e[13];

	hex(&g->r, a, 8);
	hex(&g->r, b, 4);
	hex(&g->r, c, 4);
	hex(&g->r, d, 4);
	hex(&g->r, e, 12);
	snprintf(s->device_id, sizeof(s->device_id), "GPU-%s-%s-%s-%s-%s", a, b, c, d, e);
	if (i < 8)
		snprintf(s->pci, sizeof(s->pci), "0000:%02x:00.0", buses[i]);
	else
		snprintf(s->pci, sizeof(s->pci), "%04x:%02x:00.0", (i / 8) & 0xffff, buses[i % 8]);
	s->util = rng_range(&g->r, 0, 100);
	s->mem_util = s->util * 0.4;
	s->temp = 35;
	s->temp_mem = 40;
	s->power = 120;
	s->energy = rng_range(&g->r, 1e6, 5e8);
	s->clock_gfx = 1980;
	s->mem_base = 512 * MIB;
}

/* A process's GPU memory: lo% to hi% of its share of the GPU, whole MiB. */
static uint64_t share(struct gen *g, unsigned lo, unsigned hi)
{
	uint64_t pct = lo + rng_below(&g->r, hi - lo + 1);
	return (g->mem_budget / 100 * pct) & ~(MIB - 1);
}

/* Fills a slot with a fresh process: a new pid, a job picked at random, its
 * command line, container and lifetime. */
static void proc_spawn(struct gen *g, struct proc_slot *p, unsigned gpu, uint64_t now_ms)
{
	struct rng *r = &g->r;
	const char *model = MODELS[rng_below(r, sizeof(MODELS) / sizeof(MODELS[0]))];
	const char *ns = NAMESPACES[rng_below(r, sizeof(NAMESPACES) / sizeof(NAMESPACES[0]))];
	char id[65];
	unsigned run = (unsigned)rng_below(r, 10000);

	memset(p, 0, sizeof(*p));
	p->pid = g->next_pid;
	g->next_pid += 1 + rng_below(r, 97);
	if (g->next_pid > 4000000)
		g->next_pid = 300;
	p->gpu = gpu;
	p->kind = (unsigned)rng_below(r, JOB__COUNT);
	p->user = (unsigned)rng_below(r, sizeof(USERS) / sizeof(USERS[0]));
	/* Some processes were already running when the recording began. */
	uint64_t back = rng_below(r, 6 * 3600 * 1000);
	p->start_ms = back < now_ms ? now_ms - back : 0;
	p->end_ms = now_ms + 600000 + rng_below(r, 3 * 3600 * 1000);
	p->container_pid = 1 + rng_below(r, 200);
	hex(r, id, 64);

	switch (p->kind) {
	case JOB_TRAIN:
		snprintf(p->name, sizeof(p->name), "python3");
		snprintf(p->cmdline, sizeof(p->cmdline),
			 "/opt/conda/bin/python3 -u /workspace/train.py --model %s --data /datasets/%s/shards "
			 "--batch-size %u --grad-accum 8 --lr 3e-4 --warmup-steps 2000 --bf16 --fsdp full_shard "
			 "--checkpoint-dir /checkpoints/%s/run-%04u --local_rank=%u --wandb-project %s",
			 model, model, 8u << rng_below(r, 4), model, run, gpu, ns);
		snprintf(p->container, sizeof(p->container), "containerd:%.64s", id);
		snprintf(p->pod, sizeof(p->pod), "%s/train-%s-%04u-worker-%u", ns, model, run, gpu);
		p->gpu_mem_target = share(g, 70, 100);
		p->base_util = 90;
		break;
	case JOB_INFER:
		snprintf(p->name, sizeof(p->name), "python3");
		snprintf(p->cmdline, sizeof(p->cmdline),
			 "python3 -m vllm.entrypoints.openai.api_server --model /models/%s --port 8000 "
			 "--tensor-parallel-size 1 --gpu-memory-utilization 0.90 --max-num-seqs 256 "
			 "--served-model-name %s",
			 model, model);
		snprintf(p->container, sizeof(p->container), "docker:%.12s", id);
		snprintf(p->pod, sizeof(p->pod), "%s/%s-server-%.5s", ns, model, id + 12);
		p->gpu_mem_target = share(g, 50, 95);
		p->base_util = 55;
		break;
	case JOB_NOTEBOOK:
		snprintf(p->name, sizeof(p->name), "python");
		snprintf(p->cmdline, sizeof(p->cmdline),
			 "/usr/bin/python -m ipykernel_launcher -f /home/%s/.local/share/jupyter/runtime/kernel-%.8s-%.4s.json",
			 USERS[p->user], id, id + 8);
		snprintf(p->unit, sizeof(p->unit), "jupyter-%s.service", USERS[p->user]);
		p->gpu_mem_target = share(g, 5, 30);
		p->base_util = 5;
		break;
	case JOB_BATCH:
		snprintf(p->name, sizeof(p->name), "%s", rng_below(r, 2) ? "ffmpeg" : "whisper");
		snprintf(p->cmdline, sizeof(p->cmdline),
			 "%s -hwaccel cuda -i /scratch/in/batch-%04u/input.mkv -c:v h264_nvenc -preset p5 "
			 "/scratch/out/batch-%04u/out.mp4",
			 p->name, run, run);
		snprintf(p->unit, sizeof(p->unit), "slurm-job-%u", 100000 + run);
		p->gpu_mem_target = share(g, 5, 15);
		p->base_util = 30;
		break;
	default:
		snprintf(p->name, sizeof(p->name), "blender");
		snprintf(p->cmdline, sizeof(p->cmdline),
			 "/opt/blender/blender -b /projects/scene-%04u.blend -E CYCLES -o /render/frame_#### "
			 "-s 1 -e 240 -a -- --cycles-device OPTIX",
			 run);
		snprintf(p->container, sizeof(p->container), "podman:%.12s", id);
		p->gpu_mem_target = share(g, 20, 60);
		p->base_util = 75;
		break;
	}
	p->util = p->base_util;
	p->gpu_mem = p->gpu_mem_target / 4;
	p->host_mem = (2 + rng_below(r, 30)) * GIB + rng_below(r, GIB);
	p->cpu = 100;
}

static void set_gpu(struct frame *f, struct gen *g, unsigned i, uint64_t gpu_mem_sum)
{
	struct gpu_slot *s = &g->gpus[i];
	struct gpu *d = frame_add_gpu(f);
	double target_power;

	d->name = frame_str(f, "NVIDIA H100 80GB HBM3");
	d->device_id = frame_str(f, s->device_id);
	d->vendor = frame_str(f, "nvidia");
	d->pci_bus_id = frame_str(f, s->pci);
	d->state = GPU_STATE_OK;
	d->mig_mode = false;
	d->mem_total_bytes = UINT64_C(85520809984);
	d->mem_used_bytes = s->mem_base + gpu_mem_sum;
	if (d->mem_used_bytes > d->mem_total_bytes)
		d->mem_used_bytes = d->mem_total_bytes;
	/* NVML reports utilisation, temperatures and clocks as integers. */
	d->util_pct = round(s->util);
	d->mem_util_pct = round(s->mem_util);
	d->pstate = d->util_pct > 0 ? 0 : 2;
	d->temp_c = (int64_t)round(s->temp);
	d->temp_mem_c = (int64_t)round(s->temp_mem);
	d->temp_slowdown_c = 87;
	d->temp_shutdown_c = 92;
	target_power = 70 + 6.2 * s->util;
	s->power = walk(&g->r, s->power, target_power, 8, 60, 700);
	d->power_w = milli(s->power);
	d->power_limit_w = 700;
	s->energy += s->power * g->o.interval;
	d->energy_j = milli(s->energy);
	d->clock_gfx_mhz = (uint64_t)s->clock_gfx;
	d->clock_gfx_max_mhz = 1980;
	d->clock_mem_mhz = 2619;
	d->clock_mem_max_mhz = 2619;
	d->enc_pct = 0;
	d->dec_pct = 0;
	d->link.gen = s->util > 1 ? 5 : 1; /* the link trains down when idle */
	d->link.width = 16;
	d->link.gen_max = 5;
	d->link.width_max = 16;
	d->pcie_rx_bytes_per_s = (uint64_t)s->pcie_rx * 1024;
	d->pcie_tx_bytes_per_s = (uint64_t)s->pcie_tx * 1024;
	d->ecc_errors_uncorrected = 0;
	d->throttle = 0;
	if (d->util_pct == 0)
		d->throttle |= 1u << GPU_THROTTLE_GPU_IDLE;
	if (s->power > 680)
		d->throttle |= 1u << GPU_THROTTLE_SW_POWER_CAP;
	/* Every field but the fan: H100 SXM boards have none, so fan_pct and
	 * fan_rpm stay unknown, as NVML reports them. */
	for (int b = 0; b < GPU_F__COUNT; b++)
		if (b != GPU_F_FAN_PCT && b != GPU_F_FAN_RPM && b != GPU_F_PARENT_DEVICE_ID)
			gpu_set(d, (enum gpu_field)b);
}

static void step_gpu(struct gen *g, unsigned i, double load)
{
	struct gpu_slot *s = &g->gpus[i];
	struct rng *r = &g->r;

	s->util = walk(r, s->util, load, load < 1 ? 0.5 : 6, 0, 100);
	if (load < 1 && s->util < 4)
		s->util = 0;
	s->mem_util = walk(r, s->mem_util, s->util * 0.45, 3, 0, 100);
	s->temp = walk(r, s->temp, 32 + 0.45 * s->util, 0.8, 25, 95);
	s->temp_mem = walk(r, s->temp_mem, 38 + 0.4 * s->util, 0.8, 25, 100);
	s->clock_gfx = s->util > 1 ? 1980 - 15 * (double)rng_below(r, 20) : 345;
	s->pcie_rx = walk(r, s->pcie_rx, 4000 * s->util, 20000, 0, 6e7);
	s->pcie_tx = walk(r, s->pcie_tx, 1500 * s->util, 8000, 0, 6e7);
}

static void add_event_signal(struct frame *f, const struct proc_slot *p)
{
	struct event *e = frame_add_event(f);

	if (!e)
		return;
	e->kind = frame_str(f, EVENT_SIGNAL);
	e->gpu_index = p->gpu;
	e->pid = p->pid;
	e->signal = frame_str(f, "SIGTERM");
	e->result = frame_str(f, "ok");
	e->valid = UINT64_C(1) << EVENT_F_KIND | UINT64_C(1) << EVENT_F_GPU_INDEX | UINT64_C(1) << EVENT_F_PID |
		   UINT64_C(1) << EVENT_F_SIGNAL | UINT64_C(1) << EVENT_F_RESULT;
}

static void set_process(struct frame *f, struct gen *g, struct proc_slot *p)
{
	struct gpu_process *d = frame_add_process(f);
	struct rng *r = &g->r;
	double target = p->base_util * (0.7 + 0.3 * g->gpus[p->gpu].util / 100.0);

	if (!d)
		return;
	p->util = walk(r, p->util, target, 4, 0, 100);
	p->bw = walk(r, p->bw, p->util * 0.5, 2, 0, 100);
	p->cpu = walk(r, p->cpu, p->kind == JOB_TRAIN ? 180 : 60, 10, 0, 3200);
	if (p->gpu_mem < p->gpu_mem_target)
		p->gpu_mem += (p->gpu_mem_target - p->gpu_mem) / 4 + 2 * MIB;
	p->gpu_mem &= ~(MIB - 1); /* the driver allocates in whole MiB here */
	p->host_mem += rng_below(r, 4) * 4096;
	d->pid = p->pid;
	d->gpu_index = p->gpu;
	d->name = frame_str(f, p->name);
	d->cmdline = frame_str(f, p->cmdline);
	d->user = frame_str(f, USERS[p->user]);
	d->kind = p->kind == JOB_RENDER ? PROCESS_GRAPHICS : PROCESS_COMPUTE;
	d->gpu_mem_bytes = p->gpu_mem;
	d->gpu_util_pct = round(p->util);
	d->mem_bw_pct = round(p->bw);
	d->enc_pct = p->kind == JOB_BATCH ? round(p->util * 0.6) : 0;
	d->dec_pct = p->kind == JOB_BATCH ? round(p->util * 0.3) : 0;
	d->cpu_pct = round(p->cpu * 10) / 10;
	d->host_mem_bytes = p->host_mem;
	d->start_ms = p->start_ms;
	d->valid = 0;
	for (int b = 0; b < PROC_F__COUNT; b++)
		process_set(d, (enum process_field)b);
	if (p->container[0]) {
		d->container = frame_str(f, p->container);
		d->container_pid = p->container_pid;
	} else {
		d->valid &= ~(UINT64_C(1) << PROC_F_CONTAINER | UINT64_C(1) << PROC_F_CONTAINER_PID);
	}
	if (p->pod[0])
		d->pod = frame_str(f, p->pod);
	else
		d->valid &= ~(UINT64_C(1) << PROC_F_POD);
	if (p->unit[0])
		d->unit = frame_str(f, p->unit);
	else
		d->valid &= ~(UINT64_C(1) << PROC_F_UNIT);
}

/* Builds the record of time now_ms into f. */
static void build_record(struct gen *g, struct frame *f, uint64_t now_ms)
{
	struct rng *r = &g->r;
	uint64_t *mem = g->gpu_mem_sum;
	unsigned *nprocs = g->gpu_nprocs;

	memset(mem, 0, g->o.gpus * sizeof(*mem));
	memset(nprocs, 0, g->o.gpus * sizeof(*nprocs));
	frame_reset(f);
	f->ts_ms = now_ms;
	f->host = frame_str(f, "gpu-node-07");
	f->backend = frame_str(f, "nvml");
	f->driver = frame_str(f, "550.54.15");
	frame_set(f, FRAME_F_TS);
	frame_set(f, FRAME_F_HOST);
	frame_set(f, FRAME_F_BACKEND);
	frame_set(f, FRAME_F_DRIVER);

	/* Processes that ended are replaced; some were stopped by a signal. */
	for (unsigned i = 0; i < g->o.procs; i++) {
		struct proc_slot *p = &g->procs[i];
		if (now_ms < p->end_ms)
			continue;
		if (rng_below(r, 4) == 0)
			add_event_signal(f, p);
		proc_spawn(g, p, p->gpu, now_ms);
		p->start_ms = now_ms;
	}
	for (unsigned i = 0; i < g->o.procs; i++) {
		mem[g->procs[i].gpu] += g->procs[i].gpu_mem;
		nprocs[g->procs[i].gpu]++;
	}
	for (unsigned i = 0; i < g->o.gpus; i++) {
		double load = gpu_is_spare(g, i) ? 0 : clampd(20.0 * nprocs[i] + 15, 0, 100);
		step_gpu(g, i, load);
		set_gpu(f, g, i, mem[i]);
	}
	for (unsigned i = 0; i < g->o.procs; i++)
		set_process(f, g, &g->procs[i]);

	g->sys_cpu = walk(r, g->sys_cpu, 35, 3, 0, 100);
	g->sys_mem = walk(r, g->sys_mem, 900.0 * (double)GIB, 2.0 * (double)GIB, 64.0 * (double)GIB,
			  2000.0 * (double)GIB);
	g->load = walk(r, g->load, 70, 2, 0, 1000);
	f->system.cpu_pct = round(g->sys_cpu * 10) / 10;
	f->system.mem_total_bytes = 2048 * GIB;
	f->system.mem_used_bytes = (uint64_t)g->sys_mem & ~UINT64_C(4095);
	f->system.load_1m = round(g->load * 100) / 100;
	f->system.valid = (UINT64_C(1) << SYS_F__COUNT) - 1;
	frame_set(f, FRAME_F_SYSTEM);
	if (now_ms % (15 * 60 * 1000) == 0) {
		/* gpur's own notes look like this (a backend slow to answer). */
		frame_note(f, EVENT_NOTE, "no answer from nvml for 5 s");
	}
}

static void usage(FILE *to)
{
	fputs("Usage: gen_recording [--gpus N] [--procs N] [--seconds S] [--interval S]\n"
	      "                     [--start-ms MS] [--seed N] [-o FILE]\n"
	      "Writes a deterministic gpur recording (JSON Lines, one record per interval)\n"
	      "to FILE or stdout. Defaults: 8 GPUs, 64 processes, 3600 s, 1 s, start\n"
	      "2024-06-01T10:00:00Z (1717236000000), seed 1.\n",
	      to);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{"gpus", required_argument, NULL, 'g'},   {"procs", required_argument, NULL, 'p'},
		{"seconds", required_argument, NULL, 's'}, {"interval", required_argument, NULL, 'i'},
		{"start-ms", required_argument, NULL, 't'}, {"seed", required_argument, NULL, 'S'},
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	char *end;
	int c;

	*o = (struct opts){.gpus = 8, .procs = 64, .seconds = 3600, .interval = 1,
			   .start_ms = GEN_DEFAULT_START_MS, .seed = 1};
	while ((c = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (parse_u64(optarg, &v) || v < 1 || v > FRAME_MAX_GPUS)
				return fprintf(stderr, "gen_recording: --gpus: 1 to %d\n", FRAME_MAX_GPUS), -1;
			o->gpus = (unsigned)v;
			break;
		case 'p':
			if (parse_u64(optarg, &v) || v > FRAME_MAX_PROCESSES)
				return fprintf(stderr, "gen_recording: --procs: 0 to %d\n", FRAME_MAX_PROCESSES), -1;
			o->procs = (unsigned)v;
			break;
		case 's':
		case 'i': {
			double d = strtod(optarg, &end);
			if (*end || !(d > 0) || d > 1e9)
				return fprintf(stderr, "gen_recording: %s: a positive number of seconds\n",
					       c == 's' ? "--seconds" : "--interval"), -1;
			if (c == 's')
				o->seconds = d;
			else
				o->interval = d;
			break;
		}
		case 't':
			if (parse_u64(optarg, &o->start_ms))
				return fprintf(stderr, "gen_recording: --start-ms: milliseconds since the epoch\n"), -1;
			break;
		case 'S':
			if (parse_u64(optarg, &o->seed))
				return fprintf(stderr, "gen_recording: --seed: a whole number\n"), -1;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gen_recording: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->interval < 0.001) {
		fputs("gen_recording: --interval: at least 0.001 s\n", stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct gen g;
	struct frame *f;
	struct buf line;
	int fd = STDOUT_FILENO, status = 0;

	memset(&g, 0, sizeof(g));
	if (parse_opts(argc, argv, &g.o))
		return 2;
	if (g.o.out && (fd = open(g.o.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
		fprintf(stderr, "gen_recording: %s: %s\n", g.o.out, strerror(errno));
		return 1;
	}
	uint64_t step_ms = (uint64_t)llround(g.o.interval * 1000.0);
	uint64_t records = (uint64_t)llround(g.o.seconds * 1000.0) / step_ms;
	if (records == 0)
		records = 1;

	g.r.s = g.o.seed;
	g.next_pid = 2200 + rng_below(&g.r, 1000);
	g.sys_cpu = 30;
	g.sys_mem = 800.0 * (double)GIB;
	g.load = 60;
	g.gpus = calloc(g.o.gpus, sizeof(*g.gpus));
	g.procs = calloc(g.o.procs ? g.o.procs : 1, sizeof(*g.procs));
	g.gpu_mem_sum = calloc(g.o.gpus, sizeof(*g.gpu_mem_sum));
	g.gpu_nprocs = calloc(g.o.gpus, sizeof(*g.gpu_nprocs));
	if (!g.gpus || !g.procs || !g.gpu_mem_sum || !g.gpu_nprocs) {
		fputs("gen_recording: out of memory\n", stderr);
		return 1;
	}
	for (unsigned i = 0; i < g.o.gpus; i++)
		gpu_init_slot(&g, i);
	/* Processes spread round-robin over the busy GPUs (with eight or more,
	 * every eighth one is left idle). */
	unsigned *busy = calloc(g.o.gpus, sizeof(*busy)), nbusy = 0;
	if (!busy) {
		fputs("gen_recording: out of memory\n", stderr);
		return 1;
	}
	for (unsigned i = 0; i < g.o.gpus; i++)
		if (!gpu_is_spare(&g, i))
			busy[nbusy++] = i;
	unsigned per_gpu = g.o.procs ? (g.o.procs + nbusy - 1) / nbusy : 1;
	g.mem_budget = 78 * GIB / per_gpu;
	for (unsigned i = 0; i < g.o.procs; i++)
		proc_spawn(&g, &g.procs[i], busy[i % nbusy], g.o.start_ms);
	free(busy);

	f = frame_new();
	buf_init(&line);
	for (uint64_t n = 0; n < records && status == 0; n++) {
		build_record(&g, f, g.o.start_ms + n * step_ms);
		buf_reset(&line);
		record_encode(&line, f, 0);
		if (line.len - 1 > RECORD_MAX_LINE) {
			fprintf(stderr, "gen_recording: record %" PRIu64 " is over 8 MiB; use fewer processes\n", n);
			status = 1;
			break;
		}
		int rc = writefile_all(fd, line.data, line.len);
		if (rc) {
			fprintf(stderr, "gen_recording: %s: %s\n", g.o.out ? g.o.out : "stdout", strerror(-rc));
			status = 1;
		}
	}
	buf_fini(&line);
	frame_unref(f);
	free(g.gpus);
	free(g.procs);
	free(g.gpu_mem_sum);
	free(g.gpu_nprocs);
	if (g.o.out && close(fd) != 0 && status == 0) {
		fprintf(stderr, "gen_recording: %s: %s\n", g.o.out, strerror(errno));
		status = 1;
	}
	return status;
}
