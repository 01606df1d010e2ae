/* draw_session: the session line under each GPU (key S): its peak and mean
 * utilisation, temperature and power since the dashboard started, or since
 * the replay was last rewound or sought (view/session.h keeps the figures). */
#include <string.h>

#include "tui/tui_priv.h"
#include "util/fmt.h"

/* Columns from which the line spells out "peak" and "mean". */
#define SESSION_WIDE 110

/* A piece of text appended to a fixed buffer, cut at its end. */
struct piece {
	char *b;
	size_t n, cap; /* cap includes the NUL */
};

static void put(struct piece *p, const char *s)
{
	size_t len = strlen(s);

	if (p->n + 1 >= p->cap)
		return;
	if (len > p->cap - 1 - p->n)
		len = p->cap - 1 - p->n;
	memcpy(p->b + p->n, s, len);
	p->n += len;
	p->b[p->n] = '\0';
}

static void put_whole(struct piece *p, double v)
{
	char num[32];

	fmt_fixed(num, sizeof(num), field_num_whole(v), 0);
	put(p, num);
}

/* One metric: "util 50/30%" (peak/mean), or spelt out when wide,
 * "util peak 50% mean 30%"; "util --" when never known this session. */
static void put_stat(struct piece *p, const char *name, const struct session_stat *st, const char *unit, bool wide)
{
	put(p, name);
	if (!st->n) {
		put(p, " --");
		return;
	}
	put(p, wide ? " peak " : " ");
	put_whole(p, st->peak);
	put(p, wide ? unit : "/");
	if (wide)
		put(p, " mean ");
	put_whole(p, st->mean);
	put(p, unit);
}

/* The session's length: "45s", "2m05s", "1h02m". */
static void put_span(struct piece *p, uint64_t ms)
{
	uint64_t s = ms / 1000;
	char num[24];

	if (s < 60) {
		fmt_u64(num, sizeof(num), s, 0, ' ');
		put(p, num);
		put(p, "s");
		return;
	}
	fmt_u64(num, sizeof(num), s < 3600 ? s / 60 : s / 3600, 0, ' ');
	put(p, num);
	put(p, s < 3600 ? "m" : "h");
	fmt_u64(num, sizeof(num), s < 3600 ? s % 60 : s / 60 % 60, 2, '0');
	put(p, num);
	put(p, s < 3600 ? "s" : "m");
}

void tui_session_draw(struct tui *t, const struct gpu *g, int y, int x, int w)
{
	static const struct {
		enum session_metric m;
		const char *name, *unit_utf8, *unit_ascii;
	} metrics[] = {
		{SESSION_UTIL, "util", "%", "%"},
		{SESSION_TEMP, "temp", "\u00b0C", "C"},
		{SESSION_POWER, "power", "W", "W"},
	};
	const char *id = gpu_has(g, GPU_F_DEVICE_ID) ? g->device_id : NULL;
	bool wide = w >= SESSION_WIDE;
	char buf[256];
	struct piece p = {buf, 0, sizeof(buf)};
	uint64_t ms;
	int cx = x + 4, end = x + w;

	if (cx >= end)
		return;
	buf[0] = '\0';
	put(&p, "session");
	if (session_span_ms(t->hist.sess, &ms)) {
		put(&p, " ");
		put_span(&p, ms);
	}
	put(&p, "  ");
	tui_attr(t, TC_DIM, true);
	cx += tui_text(t, y, cx, buf, end - cx);
	tui_attr(t, TC_DIM, false);
	p.n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		struct session_stat st;
		session_get(t->hist.sess, id, metrics[i].m, &st); /* not tracked: all unknown */
		if (i)
			put(&p, "  ");
		put_stat(&p, metrics[i].name, &st, t->utf8 ? metrics[i].unit_utf8 : metrics[i].unit_ascii, wide);
	}
	if (cx < end)
		cx += tui_text(t, y, cx, buf, end - cx);
	if (!wide && cx < end) {
		tui_attr(t, TC_DIM, true);
		tui_text(t, y, cx, "  (peak/mean)", end - cx);
		tui_attr(t, TC_DIM, false);
	}
}
