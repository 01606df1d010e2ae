/* json_out: the summary for pipelines. */
#include "report/json_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/json_write.h"

struct obj {
	struct report_out *o;
	bool first;
};

static void key(struct obj *j, const char *k)
{
	buf_puts(&j->o->b, j->first ? "\"" : ",\"");
	buf_puts(&j->o->b, k);
	buf_puts(&j->o->b, "\":");
	j->first = false;
}

static void kstr_upto(struct obj *j, const char *k, const char *v, size_t max)
{
	if (!v)
		return;
	key(j, k);
	json_put_string(&j->o->b, v, strlen(v), max);
}

static void kstr(struct obj *j, const char *k, const char *v)
{
	kstr_upto(j, k, v, SUMMARY_STR_MAX);
}

static void ku64(struct obj *j, const char *k, uint64_t v)
{
	key(j, k);
	json_put_u64(&j->o->b, v);
}

static void knum(struct obj *j, const char *k, double v)
{
	if (!isfinite(v)) /* sums of hostile extremes are left out, so the JSON is never invalid */
		return;
	key(j, k);
	json_put_double(&j->o->b, v);
}

/* PREFIX_mean and PREFIX_max of st, or nothing when it was never known. */
static void kstat(struct obj *j, const char *prefix, const struct summary_stat *st)
{
	char k[64];

	if (!st->n)
		return;
	snprintf(k, sizeof(k), "%s_mean", prefix);
	knum(j, k, st->sum / (double)st->n);
	snprintf(k, sizeof(k), "%s_max", prefix);
	knum(j, k, st->max);
}

static void span(struct report_out *o, const struct summary *s)
{
	struct obj j = {o, true};

	buf_puts(&o->b, "\"span\":{");
	kstr(&j, "host", s->host);
	kstr(&j, "backend", s->backend);
	kstr(&j, "driver", s->driver);
	if (s->ts_known) {
		ku64(&j, "from_ms", s->first_ms);
		ku64(&j, "to_ms", s->last_ms);
		knum(&j, "duration_s", (double)(s->last_ms - s->first_ms) / 1000.0);
	}
	ku64(&j, "records", s->records);
	ku64(&j, "gaps", s->gaps);
	knum(&j, "gap_s", (double)s->gap_ms / 1000.0);
	ku64(&j, "events", s->events_total);
	if (s->gpus_dropped)
		ku64(&j, "gpus_not_summed", s->gpus_dropped);
	buf_puts(&o->b, "}");
}

static void gpus(struct report_out *o, const struct summary *s)
{
	buf_puts(&o->b, ",\n\"gpus\":[");
	for (size_t i = 0; i < s->ngpus; i++) {
		const struct summary_gpu *g = &s->gpus[i];
		struct obj j = {o, true};
		buf_puts(&o->b, i ? ",\n{" : "\n{");
		ku64(&j, "index", g->index);
		kstr(&j, "device_id", g->device_id);
		kstr(&j, "name", g->name);
		kstat(&j, "util_pct", &g->util);
		kstat(&j, "sm_active_pct", &g->sm);
		kstat(&j, "tensor_active_pct", &g->tensor);
		kstat(&j, "mem_used_bytes", &g->mem);
		if (g->temp.n)
			knum(&j, "temp_c_max", g->temp.max);
		if (g->energy_known)
			knum(&j, "energy_j", g->energy_j);
		if (g->state_known)
			knum(&j, "lost_s", (double)g->lost_ms / 1000.0);
		if (g->throttle_known)
			knum(&j, "throttled_s", (double)g->throttled_ms / 1000.0);
		buf_puts(&o->b, "}");
		report_out_flush(o, false);
	}
	buf_puts(&o->b, "]");
}

static void procs(struct report_out *o, const struct summary *s)
{
	buf_puts(&o->b, ",\n\"processes\":[");
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct summary_proc *p = &s->procs[i];
		struct obj j = {o, true};
		buf_puts(&o->b, i ? ",\n{" : "\n{");
		ku64(&j, "pid", p->pid);
		if (p->start_known)
			ku64(&j, "start_ms", p->start_ms);
		ku64(&j, "gpu_index", s->gpus[p->gpu].index);
		kstr(&j, "user", p->user);
		kstr(&j, "name", p->name);
		kstr_upto(&j, "cmdline", p->cmdline, PROCESS_CMDLINE_MAX); /* whole, as the record bounds it */
		kstr(&j, "container", p->container);
		kstr(&j, "pod", p->pod);
		if (p->ts_known) {
			ku64(&j, "first_ms", p->first_ms);
			ku64(&j, "last_ms", p->last_ms);
		}
		if (p->mem_known) {
			knum(&j, "gpu_mem_bytes_max", p->mem_max);
			knum(&j, "gpu_mem_gib_h", summary_gib_h(p->mem_byte_ms));
		}
		if (p->util.n)
			knum(&j, "gpu_util_pct_mean", p->util.sum / (double)p->util.n);
		if (p->idle_since_ms) {
			ku64(&j, "idle_since_ms", p->idle_since_ms);
			knum(&j, "idle_gib_h", summary_gib_h(p->idle_byte_ms));
		}
		buf_puts(&o->b, "}");
		report_out_flush(o, false);
	}
	if (s->proc_rest.count) {
		struct obj j = {o, true};
		buf_puts(&o->b, s->nprocs ? ",\n{" : "\n{");
		ku64(&j, "others", s->proc_rest.count);
		if (s->proc_rest.mem_known) {
			knum(&j, "gpu_mem_bytes_max", s->proc_rest.mem_max);
			knum(&j, "gpu_mem_gib_h", summary_gib_h(s->proc_rest.mem_byte_ms));
		}
		buf_puts(&o->b, "}");
	}
	buf_puts(&o->b, "]");
}

static void group_fields(struct obj *j, const struct summary *s, double gpu_ms, double mem_ms, bool mem_known,
			 double energy)
{
	knum(j, "gpu_h", gpu_ms / 3600000.0);
	if (mem_known)
		knum(j, "gpu_mem_gib_h", summary_gib_h(mem_ms));
	if (s->energy_total_j > 0) {
		knum(j, "energy_j", energy);
		knum(j, "energy_share", energy / s->energy_total_j);
	}
}

static void groups(struct report_out *o, const struct summary *s)
{
	buf_puts(&o->b, ",\n\"groups\":[");
	for (size_t i = 0; i < s->ngroups; i++) {
		const struct summary_group *g = &s->groups[i];
		struct obj j = {o, true};
		buf_puts(&o->b, i ? ",\n{" : "\n{");
		kstr(&j, "kind", SUMMARY_GROUP_KIND_NAMES[g->kind]);
		kstr(&j, "id", g->id);
		kstr(&j, "name", g->name);
		group_fields(&j, s, g->gpu_ms, g->mem_byte_ms, g->mem_known, g->energy_j);
		if (g->idle_byte_ms > 0)
			knum(&j, "idle_gib_h", summary_gib_h(g->idle_byte_ms));
		buf_puts(&o->b, "}");
		report_out_flush(o, false);
	}
	if (s->group_rest.count) {
		struct obj j = {o, true};
		buf_puts(&o->b, s->ngroups ? ",\n{" : "\n{");
		ku64(&j, "others", s->group_rest.count);
		group_fields(&j, s, s->group_rest.gpu_ms, s->group_rest.mem_byte_ms, s->group_rest.mem_known,
			     s->group_rest.energy_j);
		buf_puts(&o->b, "}");
	}
	buf_puts(&o->b, "]");
}

static void events(struct report_out *o, const struct summary *s)
{
	buf_puts(&o->b, ",\n\"events\":[");
	for (size_t i = 0; i < s->nevents; i++) {
		const struct summary_event *se = &s->events[i];
		const struct event *e = &se->e;
		struct obj j = {o, true};
		buf_puts(&o->b, i ? ",\n{" : "\n{");
		if (se->ts_known)
			ku64(&j, "ts_ms", se->ts_ms);
		kstr(&j, "kind", event_has(e, EVENT_F_KIND) ? e->kind : NULL);
		if (event_has(e, EVENT_F_GPU_INDEX))
			ku64(&j, "gpu_index", e->gpu_index);
		kstr(&j, "device_id", event_has(e, EVENT_F_DEVICE_ID) ? e->device_id : NULL);
		kstr(&j, "backend", event_has(e, EVENT_F_BACKEND) ? e->backend : NULL);
		if (event_has(e, EVENT_F_PID))
			ku64(&j, "pid", e->pid);
		if (event_has(e, EVENT_F_XID))
			ku64(&j, "xid", e->xid);
		if (event_has(e, EVENT_F_GPU_INSTANCE))
			ku64(&j, "gpu_instance_id", e->gpu_instance);
		kstr(&j, "signal", event_has(e, EVENT_F_SIGNAL) ? e->signal : NULL);
		kstr(&j, "result", event_has(e, EVENT_F_RESULT) ? e->result : NULL);
		kstr(&j, "detail", event_has(e, EVENT_F_DETAIL) ? e->detail : NULL);
		buf_puts(&o->b, "}");
		report_out_flush(o, false);
	}
	buf_puts(&o->b, "]");
}

void json_out_write(struct report_out *o, const struct summary *s)
{
	buf_puts(&o->b, "{");
	span(o, s);
	gpus(o, s);
	procs(o, s);
	groups(o, s);
	events(o, s);
	buf_puts(&o->b, "}\n");
	report_out_flush(o, true);
}
