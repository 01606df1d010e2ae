/* nvml_procs: the processes of an NVIDIA device. The compute, graphics and
 * MPS lists are merged per pid, with kind "both" for a pid in two of them.
 * Per-process utilisation comes from samples newer than the last seen, and
 * /proc details are read per pid. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "backend/nvml_priv.h"
#include "util/xalloc.h"

/* A process seen on one device, merged across the three lists. */
struct prow {
	unsigned pid;
	bool compute, graphics;
	bool mem_known;
	unsigned long long mem;
	bool util_known;
	nvmlProcessUtilizationSample_t s;
	bool have_sample;
};

struct prows {
	struct prow *v;
	size_t n, cap;
	bool failed; /* a list failed with an error other than "never" */
	nvmlReturn_t fail_code; /* the first such error */
};

static struct prow *prow_get(struct prows *pr, unsigned pid)
{
	for (size_t i = 0; i < pr->n; i++)
		if (pr->v[i].pid == pid)
			return &pr->v[i];
	if (pr->n == pr->cap) {
		pr->cap = pr->cap ? pr->cap * 2 : 16;
		pr->v = xreallocarray(pr->v, pr->cap, sizeof(*pr->v));
	}
	struct prow *p = &pr->v[pr->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

/* One call of a sized list: a process list, or the utilisation samples
 * through the old call or the newer one. */
struct sized_call {
	nvmlReturn_t (*plist)(nvmlDevice_t, unsigned int *, void *);
	nvmlReturn_t (*putil)(nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned int *, unsigned long long);
	nvmlReturn_t (*info)(nvmlDevice_t, nvmlProcessesUtilizationInfo_v1_t *);
	nvmlDevice_t h;
	unsigned long long last_seen;
};

static nvmlReturn_t call(const struct sized_call *c, unsigned *count, void *buf)
{
	if (c->plist)
		return c->plist(c->h, count, buf);
	if (c->putil)
		return c->putil(c->h, buf, count, c->last_seen);
	nvmlProcessesUtilizationInfo_v1_t s = {
		.version = nvmlProcessesUtilizationInfo_v1,
		.processSamplesCount = *count,
		.lastSeenTimeStamp = c->last_seen,
		.procUtilArray = buf,
	};
	nvmlReturn_t r = c->info(c->h, &s);
	*count = s.processSamplesCount;
	return r;
}

/* The largest entry any of these calls is known to write. Every buffer is
 * sized for this many bytes per entry passed, so a wrong guess of the
 * process-list stride can mis-read but never overflow. */
#define NVML_ENTRY_MAX 40u
_Static_assert(sizeof(nvmlProcessDetail_v1_t) <= NVML_ENTRY_MAX && sizeof(nvmlProcessUtilizationSample_t) <= NVML_ENTRY_MAX &&
		       sizeof(nvmlProcessUtilizationInfo_v1_t) <= NVML_ENTRY_MAX,
	       "NVML_ENTRY_MAX covers every entry");

/* Passes room for `want` entries of NVML_ENTRY_MAX bytes, zeroed so that
 * what the library did not write reads as no entry. */
static unsigned prepare(struct nvml *n, size_t want)
{
	if (n->pbuf_cap < want * NVML_ENTRY_MAX) {
		n->pbuf_cap = want * NVML_ENTRY_MAX;
		n->pbuf = xreallocarray(n->pbuf, n->pbuf_cap, 1);
	}
	memset(n->pbuf, 0, n->pbuf_cap);
	return (unsigned)(n->pbuf_cap / NVML_ENTRY_MAX);
}

/* NVIDIA's sizing protocol is to ask with no buffer, and on INSUFFICIENT_SIZE
 * (or a count with SUCCESS) to allocate that many plus slack, since processes
 * start between the calls, and ask again. Once a buffer exists, left by the
 * lists before, the first call passes it, which makes one call instead of two
 * when the processes fit and follows the protocol when they do not. Returns
 * the last answer. *valid is the number of entries in n->pbuf that the
 * library filled, never more than the count passed, because the library's
 * count is not trusted. */
static nvmlReturn_t sized(struct nvml *n, const struct sized_call *c, unsigned *valid)
{
	unsigned count = 0;
	nvmlReturn_t r;

	*valid = 0;
	if (n->pbuf_cap >= NVML_ENTRY_MAX) {
		unsigned passed = prepare(n, 0);
		count = passed;
		r = call(c, &count, n->pbuf);
		if (r == NVML_SUCCESS) {
			*valid = count < passed ? count : passed;
			return r;
		}
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			return r;
	} else {
		r = call(c, &count, NULL);
	}
	for (int tries = 0; (r == NVML_ERROR_INSUFFICIENT_SIZE || (r == NVML_SUCCESS && count)) && tries < 4; tries++) {
		unsigned passed = prepare(n, (count > FRAME_MAX_PROCESSES ? FRAME_MAX_PROCESSES : count) + 8);
		count = passed;
		r = call(c, &count, n->pbuf);
		if (r == NVML_SUCCESS) {
			*valid = count < passed ? count : passed;
			break;
		}
	}
	return r;
}

/* Scores how well entries read at `stride` look like processes. An entry
 * scores 2 for a pid in range and a believable memory figure, and 1 more
 * when the pid is running; that is checked only when `running` is set, and
 * EPERM counts as running too. */
static unsigned plausibility(const unsigned char *buf, unsigned count, size_t stride, bool running)
{
	unsigned score = 0;

	for (unsigned i = 0; i < count; i++) {
		unsigned pid;
		unsigned long long mem;
		memcpy(&pid, buf + i * stride, sizeof(pid));
		memcpy(&mem, buf + i * stride + 8, sizeof(mem));
		if (pid == 0 || pid > NVML_PID_MAX || (mem != NVML_VALUE_NOT_AVAILABLE && mem > (1ULL << 48)))
			continue;
		score += 2;
		if (running && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			score++;
	}
	return score;
}

/* The 535-series ABI break made _v3 entries 24 or 32 bytes, and which one is
 * a guess (nvml_lib.c). With two entries or more the data tells. Entries read
 * at the wrong stride have pids of 0, of 0xFFFFFFFF (an instance id), of
 * processes that do not run, or absurd memory. The stride that reads better
 * wins, is kept for the library's life and is reported once. */
static void check_stride(struct nvml *n, enum nvml_plist which, unsigned count)
{
	size_t *stride = &n->lib.plist_stride[which];
	size_t alt = *stride == sizeof(nvmlProcessInfo_t)        ? sizeof(nvmlProcessDetail_v1_t)
		     : *stride == sizeof(nvmlProcessDetail_v1_t) ? sizeof(nvmlProcessInfo_t)
								 : 0;

	if (!alt || count < 2 || n->stride_fixed[which])
		return;
	bool running = !n->stride_verified[which];
	unsigned guess = plausibility(n->pbuf, count, *stride, running);
	if (guess == count * (running ? 3u : 2u)) {
		n->stride_verified[which] = true;
		return;
	}
	unsigned other = plausibility(n->pbuf, count, alt, running);
	if (other <= guess) {
		n->stride_verified[which] = true; /* judged with the pids, so only range checks from now on */
		return;
	}
	nvml_note(n, "nvml: the process list entries are %zu bytes, not the %zu expected; reading them as %zu",
		  alt, *stride, alt);
	*stride = alt;
	n->stride_fixed[which] = true;
}

/* Merges one process list, compute, graphics or MPS, into pr. Returns
 * whether the list answered, with *digest a digest of its pids (0 for none)
 * by which a change of the list is seen. */
static bool read_plist(struct rd *rd, enum nvml_plist which, struct prows *pr, uint64_t *digest)
{
	struct nvml *n = rd->n;
	struct sized_call c = {.plist = n->lib.plist[which], .h = rd->h};
	unsigned count;

	*digest = 0;
	if (!c.plist || rd->fatal != NV_OK || (rd->d->plist_never >> which & 1u))
		return false;
	nvmlReturn_t r = sized(n, &c, &count);
	if (r != NVML_SUCCESS) {
		if (nvml_never(r))
			rd->d->plist_never |= 1u << which;
		else if (!pr->failed) {
			pr->failed = true;
			pr->fail_code = r;
		}
		nvml_took(rd, r);
		return false;
	}
	check_stride(n, which, count);
	size_t stride = n->lib.plist_stride[which];
	for (unsigned i = 0; i < count; i++) {
		const unsigned char *e = n->pbuf + i * stride;
		unsigned pid;
		unsigned long long mem;
		memcpy(&pid, e, sizeof(pid));
		memcpy(&mem, e + 8, sizeof(mem));
		if (pid == 0 || pid > NVML_PID_MAX)
			continue; /* not a pid, so a stride this build does not know */
		/* A sum of mixed pids, so that the order of the list does not
		 * matter. */
		*digest += (uint64_t)pid * UINT64_C(0x9E3779B97F4A7C15) + 1;
		struct prow *p = prow_get(pr, pid);
		if (which == NVML_PLIST_GRAPHICS)
			p->graphics = true;
		else
			p->compute = true; /* MPS clients are compute */
		if (mem != NVML_VALUE_NOT_AVAILABLE && (!p->mem_known || mem > p->mem)) {
			p->mem = mem;
			p->mem_known = true;
		}
	}
	return true;
}

/* Whether the MPS list is to be asked in this poll: while it lists
 * somebody, when the compute list has changed (the MPS server appears there
 * when its first client connects), and every NVML_MPS_IDLE_MS. */
static bool mps_due(struct rd *rd, uint64_t compute_digest)
{
	struct nvml_dev *d = rd->d;
	bool changed = compute_digest != d->compute_sig;

	d->compute_sig = compute_digest;
	return d->mps_busy || changed || rd->now_ms >= d->mps_next_ms;
}

/* Takes one sample newer than the last seen for its pid's row, the newest
 * per pid, and moves *newest on. */
static void take_sample(struct prows *pr, const struct nvml_dev *d, const nvmlProcessUtilizationSample_t *sample,
			unsigned long long *newest)
{
	if (sample->timeStamp <= d->last_seen)
		return;
	if (sample->timeStamp > *newest)
		*newest = sample->timeStamp;
	for (size_t k = 0; k < pr->n; k++) {
		struct prow *p = &pr->v[k];
		if (p->pid != sample->pid || (p->have_sample && p->s.timeStamp >= sample->timeStamp))
			continue;
		p->s = *sample;
		p->have_sample = true;
	}
}

/* Asks one of the two utilisation calls for the samples newer than the last
 * seen and takes them. NOT_FOUND, meaning nothing new, is no sample. Returns
 * NVML's answer. */
static nvmlReturn_t ask_putil(struct rd *rd, const struct sized_call *c, struct prows *pr)
{
	struct nvml *n = rd->n;
	struct nvml_dev *d = rd->d;
	unsigned count;
	nvmlReturn_t r = sized(n, c, &count);

	if (r == NVML_ERROR_NOT_FOUND)
		return NVML_SUCCESS;
	if (r != NVML_SUCCESS)
		return r;
	unsigned long long newest = d->last_seen;
	for (unsigned i = 0; i < count; i++) {
		nvmlProcessUtilizationSample_t sample;
		if (c->info) {
			nvmlProcessUtilizationInfo_v1_t e;
			memcpy(&e, n->pbuf + i * sizeof(e), sizeof(e));
			sample = (nvmlProcessUtilizationSample_t){e.pid, e.timeStamp, e.smUtil, e.memUtil, e.encUtil, e.decUtil};
		} else {
			memcpy(&sample, n->pbuf + i * sizeof(sample), sizeof(sample));
		}
		/* Any process's SM share, listed or not, shows the call
		 * answering under load. */
		if (sample.timeStamp > d->last_seen && sample.smUtil > 0 && sample.smUtil <= 100) {
			d->putil_shared = true;
			d->putil_share_ms = rd->now_ms;
		}
		take_sample(pr, d, &sample, &newest);
	}
	d->last_seen = newest;
	return NVML_SUCCESS;
}

/* Whether the old call's answers contradict the GPU: busy, yet no process
 * given an SM share for NVML_PUTIL_SILENT_MS or ever. Blackwell's drivers
 * answer so under load, where the newer call answers. A poll faster than
 * the driver samples finds nothing new now and then, which the time allows
 * for. */
static bool putil_contradicts(const struct rd *rd, const struct gpu *g)
{
	const struct nvml_dev *d = rd->d;

	if (!g || !gpu_has(g, GPU_F_UTIL) || g->util_pct < NVML_PUTIL_BUSY_PCT)
		return false;
	return !d->putil_shared || rd->now_ms - d->putil_share_ms >= NVML_PUTIL_SILENT_MS;
}

/* Reads per-process utilisation: from nvmlDeviceGetProcessesUtilizationInfo
 * (driver 550 and later) where the driver has it, else from
 * nvmlDeviceGetProcessUtilization. A process without a sample has a measured
 * 0, except when the old call's answer contradicts a busy GPU: then every
 * process's share is unknown for that poll, never a made-up 0. */
static void read_putil(struct rd *rd, struct prows *pr, const struct gpu *g)
{
	struct nvml *n = rd->n;
	struct nvml_dev *d = rd->d;
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;

	if (d->mig || rd->fatal != NV_OK || !pr->n)
		return;
	if (n->lib.get_processes_utilization_info && !d->putil_info_unsupported) {
		struct sized_call c = {.info = n->lib.get_processes_utilization_info, .h = rd->h, .last_seen = d->last_seen};
		r = ask_putil(rd, &c, pr);
		if (nvml_never(r))
			d->putil_info_unsupported = true;
		else if (r != NVML_SUCCESS)
			nvml_took(rd, r);
	}
	bool old = nvml_never(r) && n->lib.get_process_utilization && !d->putil_unsupported;
	if (old) {
		struct sized_call c = {.putil = n->lib.get_process_utilization, .h = rd->h, .last_seen = d->last_seen};
		r = ask_putil(rd, &c, pr);
		if (nvml_never(r))
			d->putil_unsupported = true;
		else if (r != NVML_SUCCESS)
			nvml_took(rd, r);
	}
	if (r != NVML_SUCCESS)
		return;
	if (old && putil_contradicts(rd, g)) {
		if (++d->putil_quiet >= NVML_PUTIL_QUIET_POLLS && !d->putil_quiet_said) {
			nvml_note(n, "nvml: GPU %zu is busy but nvmlDeviceGetProcessUtilization gives no process a share; "
				     "per-process utilisation is unknown while that lasts",
				  (size_t)(d - n->dev));
			d->putil_quiet_said = true;
		}
		return;
	}
	d->putil_quiet = 0;
	for (size_t k = 0; k < pr->n; k++)
		pr->v[k].util_known = true;
}

static void put_util(struct gpu_process *p, enum process_field f, long double *slot, bool known, unsigned v)
{
	if (!known || v > 100)
		return;
	*slot = v;
	process_set(p, f);
}

static void emit_rows(struct frame *f, struct prows *pr, size_t index)
{
	for (size_t k = 0; k < pr->n; k++) {
		const struct prow *r = &pr->v[k];
		struct gpu_process *p = frame_add_process(f);
		if (!p)
			return;
		p->pid = r->pid;
		p->gpu_index = index;
		p->valid = UINT64_C(1) << PROC_F_PID | UINT64_C(1) << PROC_F_GPU_INDEX;
		p->kind = r->compute && r->graphics ? PROCESS_BOTH : r->graphics ? PROCESS_GRAPHICS : PROCESS_COMPUTE;
		process_set(p, PROC_F_KIND);
		if (r->mem_known) {
			p->gpu_mem_bytes = r->mem;
			process_set(p, PROC_F_GPU_MEM);
		}
		if (r->util_known) {
			bool s = r->have_sample;
			put_util(p, PROC_F_GPU_UTIL, &p->gpu_util_pct, true, s ? r->s.smUtil : 0);
			put_util(p, PROC_F_MEM_BW, &p->mem_bw_pct, true, s ? r->s.memUtil : 0);
			put_util(p, PROC_F_ENC, &p->enc_pct, true, s ? r->s.encUtil : 0);
			put_util(p, PROC_F_DEC, &p->dec_pct, true, s ? r->s.decUtil : 0);
		}
	}
}

void nvml_device_processes(struct rd *rd, struct frame *f, size_t index, bool util)
{
	struct nvml_dev *d = rd->d;
	struct prows pr = {0};
	uint64_t compute, graphics, mps;

	read_plist(rd, NVML_PLIST_COMPUTE, &pr, &compute);
	read_plist(rd, NVML_PLIST_GRAPHICS, &pr, &graphics);
	if (mps_due(rd, compute)) {
		if (read_plist(rd, NVML_PLIST_MPS, &pr, &mps)) {
			/* A pid already listed as compute adds no row, so judge
			 * by the digest rather than by new rows. */
			d->mps_busy = mps != 0;
			d->mps_next_ms = d->mps_busy ? 0 : rd->now_ms + NVML_MPS_IDLE_MS;
		} else {
			d->mps_next_ms = 0; /* no answer: asked again next poll */
		}
	}
	if (util)
		read_putil(rd, &pr, index < f->ngpus ? &f->gpus[index] : NULL);
	/* The rows of the lists that answered are still true; the GPU says
	 * that they may not be all. */
	if (pr.failed && index < f->ngpus) {
		f->gpus[index].procs_unknown = true;
		gpu_set(&f->gpus[index], GPU_F_PROCS_UNKNOWN);
		/* Said once per GPU, so that a list that fails every poll (or
		 * every other) is explained without a note each time. */
		if (!d->plist_failed_said && rd->fatal == NV_OK) {
			char msg[128];
			d->plist_failed_said = true;
			nvml_note(rd->n, "nvml: GPU %zu's process list failed (%s); its processes are unknown in such polls",
				  (size_t)(d - rd->n->dev), nvml_lib_strerror(&rd->n->lib, pr.fail_code, msg, sizeof(msg)));
		}
	}
	if (rd->fatal == NV_OK)
		emit_rows(f, &pr, index);
	free(pr.v);
}

