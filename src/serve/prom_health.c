/* prom_health: what gpur knows of itself across frames (struct
 * prom_health in prom.h), and its families: the frame's time and size,
 * the series left out, the backends, dropped records and gpur's own cost.
 * XID errors are counted here and served with the GPU's labels by prom.c. */
#include "serve/prom_health.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "serve/prom_write.h"

void prom_health_init(struct prom_health *h)
{
	memset(h, 0, sizeof(*h));
	h->render_seconds = -1;
	h->cpu_seconds = -1;
	h->rss_bytes = -1;
}

/* Where the XID record of device_id is, or -1. */
static long xid_index(const struct prom_health *h, const char *id)
{
	for (size_t i = 0; i < h->nxid_gpus; i++)
		if (strcmp(h->xid_gpus[i].device_id, id) == 0)
			return (long)i;
	return -1;
}

const struct prom_xid_gpu *prom_health_xid(const struct prom_health *h, const char *id)
{
	long i = xid_index(h, id);
	return i < 0 ? NULL : &h->xid_gpus[i];
}

/* The XID record of a GPU, made on first use; NULL when the table is full. */
static struct prom_xid_gpu *xid_add(struct prom_health *h, const char *id)
{
	long i = xid_index(h, id);
	if (i >= 0)
		return &h->xid_gpus[i];
	if (h->nxid_gpus == PROM_MAX_XID_GPUS || strlen(id) >= sizeof(h->xid_gpus[0].device_id))
		return NULL;
	struct prom_xid_gpu *x = &h->xid_gpus[h->nxid_gpus++];
	memset(x, 0, sizeof(*x));
	strcpy(x->device_id, id);
	return x;
}

static size_t backend_slot(struct prom_health *h, const char *name, size_t len)
{
	if (len >= sizeof(h->backends[0].name))
		len = sizeof(h->backends[0].name) - 1;
	for (size_t i = 0; i < h->nbackends; i++)
		if (strlen(h->backends[i].name) == len && memcmp(h->backends[i].name, name, len) == 0)
			return i;
	if (h->nbackends == PROM_MAX_BACKENDS)
		return PROM_MAX_BACKENDS;
	size_t i = h->nbackends++;
	memcpy(h->backends[i].name, name, len);
	h->backends[i].name[len] = '\0';
	h->backends[i].up = true;
	return i;
}

static void take_xid(struct prom_health *h, const struct event *e)
{
	if (!event_has(e, EVENT_F_XID) || !event_has(e, EVENT_F_DEVICE_ID) || !e->device_id)
		return;
	struct prom_xid_gpu *x = xid_add(h, e->device_id);
	if (!x)
		return;
	x->last = e->xid;
	for (size_t k = 0; k < x->nxids; k++)
		if (x->xids[k].xid == e->xid) {
			x->xids[k].count++;
			return;
		}
	if (x->nxids < PROM_MAX_XIDS) {
		x->xids[x->nxids].xid = e->xid;
		x->xids[x->nxids++].count = 1;
	}
}

void prom_health_update(struct prom_health *h, const struct frame *f)
{
	if (frame_has(f, FRAME_F_BACKEND) && f->backend)
		for (const char *p = f->backend; *p;) {
			size_t len = strcspn(p, "+");
			if (len)
				backend_slot(h, p, len);
			p += len + (p[len] == '+');
		}
	for (size_t i = 0; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (event_has(e, EVENT_F_KIND) && e->kind && strcmp(e->kind, EVENT_XID) == 0)
			take_xid(h, e);
		if (!event_has(e, EVENT_F_KIND) || !event_has(e, EVENT_F_BACKEND) || !e->backend)
			continue;
		bool lost = strcmp(e->kind, EVENT_BACKEND_LOST) == 0, back = strcmp(e->kind, EVENT_BACKEND_BACK) == 0;
		if (!lost && !back)
			continue;
		size_t s = backend_slot(h, e->backend, strlen(e->backend));
		if (s == PROM_MAX_BACKENDS)
			continue;
		h->backends[s].up = back;
		h->backends[s].errors += lost;
	}
}

/* A family with a sample per backend, labelled with ls and the backend:
 * whether it is up, or how many times it was lost (errors). */
static void backend_family(struct buf *b, const struct buf *ls, const struct prom_health *h, const char *name,
			   const char *type, const char *help, bool errors)
{
	struct buf bl;

	buf_init(&bl);
	prom_family(b, name, type, help);
	for (size_t i = 0; i < h->nbackends; i++) {
		bool first = ls->len == 0;
		buf_reset(&bl);
		prom_put(&bl, ls->data, ls->len);
		prom_label(&bl, &first, "backend", h->backends[i].name);
		double v = errors ? (double)h->backends[i].errors : h->backends[i].up ? 1 : 0;
		prom_sample(b, name, bl.data, bl.len, NULL, v);
	}
	buf_fini(&bl);
}

void prom_health_render(struct buf *b, const struct frame *f, const struct prom_opts *o, const struct prom_health *h,
			  const char *host, const uint64_t left[2])
{
	struct buf ls;
	bool first = true;

	buf_init(&ls);
	prom_label(&ls, &first, "Hostname", host);
	const char *hl = buf_cstr(&ls);
	if (frame_has(f, FRAME_F_TS))
		prom_one(b, "gpur_frame_timestamp_seconds", "gauge", "when the served frame was taken (Unix time)", hl,
			 (double)f->ts_ms / 1000.0);
	if (o->live)
		prom_one(b, "gpur_poll_duration_seconds", "gauge", "how long composing the served frame took", hl,
			 (double)f->poll_us / 1e6);
	prom_one(b, "gpur_gpus", "gauge", "GPUs in the served frame (MIG instances included)", hl, (double)f->ngpus);
	prom_one(b, "gpur_process_rows", "gauge", "GPU process rows in the served frame", hl, (double)f->nprocs);

	static const char *const FAMS[2] = {"process", "container"};
	size_t mark = prom_begin(b, "gpur_exporter_series_left_out", "gauge",
				 "rows (process) or groups (container) of the served frame over the series cap");
	for (int k = 0; k < 2; k++) {
		char extra[32];
		snprintf(extra, sizeof(extra), "family=\"%s\"", FAMS[k]);
		prom_sample(b, "gpur_exporter_series_left_out", ls.data, ls.len, extra, (double)left[k]);
	}
	prom_end(b, mark, true);
	prom_family(b, "gpur_exporter_series_left_out_total", "counter", "rows or groups left out over the cap, all frames");
	for (int k = 0; k < 2; k++) {
		char extra[32];
		snprintf(extra, sizeof(extra), "family=\"%s\"", FAMS[k]);
		prom_sample(b, "gpur_exporter_series_left_out_total", ls.data, ls.len, extra, (double)h->left_out_total[k]);
	}

	if (h->nbackends) {
		backend_family(b, &ls, h, "gpur_backend_up", "gauge", "1 while the backend answers (0 after backend_lost)",
			       false);
		backend_family(b, &ls, h, "gpur_backend_errors_total", "counter", "times the backend was lost as a whole",
			       true);
	}
	if (h->have_records)
		prom_one(b, "gpur_records_dropped_total", "counter", "records --log or --json could not write", hl,
			 (double)h->records_dropped);
	prom_one(b, "gpur_exporter_frames_total", "counter", "frames rendered for scrapes", hl, (double)h->frames);
	if (h->render_seconds >= 0)
		prom_one(b, "gpur_exporter_render_seconds", "gauge", "how long rendering the previous frame took", hl,
			 h->render_seconds);
	if (h->cpu_seconds >= 0)
		prom_one(b, "gpur_self_cpu_seconds_total", "counter", "CPU time gpur itself has used (user + system)", hl,
			 h->cpu_seconds);
	if (h->rss_bytes >= 0)
		prom_one(b, "gpur_self_resident_memory_bytes", "gauge", "gpur's own resident memory", hl, h->rss_bytes);
	buf_fini(&ls);
}
