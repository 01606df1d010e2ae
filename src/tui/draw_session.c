/* draw_session: the session line under each GPU (key S), with its peak and
 * mean utilisation, temperature and power since the dashboard started, or
 * since the replay was last rewound or sought. view/session.h keeps the
 * figures. */
#include <string.h>

#include "tui/tui_priv.h"

/* The width in columns from which the line spells out "peak" and "mean". */
#define SESSION_WIDE 110

/* Writes one metric as "util 50/30%", peak then mean, or spelt out when wide
 * as "util peak 50% mean 30%", or "util --" when never known this
 * session. */
static void put_stat(struct tui_line *p, const char *name, const struct session_stat *st, const char *unit, bool wide)
{
	tui_line_put(p, name);
	if (!st->n) {
		tui_line_put(p, " --");
		return;
	}
	tui_line_put(p, wide ? " peak " : " ");
	tui_line_fixed(p, field_num_whole(st->peak), 0);
	tui_line_put(p, wide ? unit : "/");
	if (wide)
		tui_line_put(p, " mean ");
	tui_line_fixed(p, field_num_whole(st->mean), 0);
	tui_line_put(p, unit);
}

/* Writes the session's length as "45s", "2m05s" or "1h02m". */
static void put_span(struct tui_line *p, uint64_t ms)
{
	uint64_t s = ms / 1000;

	if (s < 60) {
		tui_line_u64(p, s, 0, ' ');
		tui_line_put(p, "s");
		return;
	}
	tui_line_u64(p, s < 3600 ? s / 60 : s / 3600, 0, ' ');
	tui_line_put(p, s < 3600 ? "m" : "h");
	tui_line_u64(p, s < 3600 ? s % 60 : s / 60 % 60, 2, '0');
	tui_line_put(p, s < 3600 ? "s" : "m");
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
	struct tui_line p;
	uint64_t ms;
	int cx = x + 4, end = x + w;

	if (cx >= end)
		return;
	tui_line_init(&p, buf, sizeof(buf));
	tui_line_put(&p, "session");
	if (session_span_ms(t->hist.sess, &ms)) {
		tui_line_put(&p, " ");
		put_span(&p, ms);
	}
	tui_line_put(&p, "  ");
	tui_attr(t, TC_DIM, true);
	cx += tui_text(t, y, cx, buf, end - cx);
	tui_attr(t, TC_DIM, false);
	tui_line_init(&p, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		struct session_stat st;
		session_get(t->hist.sess, id, metrics[i].m, &st); /* a GPU not tracked has every figure unknown */
		if (i)
			tui_line_put(&p, "  ");
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
