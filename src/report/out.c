/* out: the report's buffered output and its escaping. */
#include "report/out.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/readfile.h"
#include "util/utf8.h"

#define OUT_FLUSH_BYTES (256u << 10)

void report_out_init(struct report_out *o, int fd)
{
	buf_init(&o->b);
	o->fd = fd;
	o->err = 0;
}

void report_out_fini(struct report_out *o)
{
	buf_fini(&o->b);
}

void report_out_flush(struct report_out *o, bool force)
{
	if (o->fd < 0 || (!force && o->b.len < OUT_FLUSH_BYTES))
		return;
	if (!o->err && o->b.len) {
		int e = writefile_all(o->fd, o->b.data, o->b.len);
		if (e < 0)
			o->err = e;
	}
	buf_reset(&o->b);
}

void report_out_text(struct report_out *o, const char *s)
{
	if (!s)
		return;
	size_t n = strlen(s), i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f) {
			switch (c) {
			case '&': buf_puts(&o->b, "&amp;"); break;
			case '<': buf_puts(&o->b, "&lt;"); break;
			case '>': buf_puts(&o->b, "&gt;"); break;
			case '"': buf_puts(&o->b, "&quot;"); break;
			case '\'': buf_puts(&o->b, "&#39;"); break;
			default: buf_putc(&o->b, (char)c);
			}
			i++;
			continue;
		}
		uint32_t cp;
		size_t k = utf8_decode(s + i, n - i, &cp);
		if (cp == UTF8_REPLACEMENT || utf8_is_unsafe(cp) || (cp & 0xFFFEu) == 0xFFFEu)
			buf_puts(&o->b, "\xEF\xBF\xBD");
		else
			buf_append(&o->b, s + i, k);
		i += k;
	}
	report_out_flush(o, false);
}

void report_out_event(struct report_out *o, const struct event *e)
{
	char line[1200];

	event_describe(e, line, sizeof(line));
	report_out_text(o, line);
}

void report_out_time(struct report_out *o, uint64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char s[64];

	if (ms / 1000 > (uint64_t)253402300799 || !gmtime_r(&t, &tm)) { /* past 9999-12-31 */
		buf_printf(&o->b, "%llu ms", (unsigned long long)ms);
		return;
	}
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%SZ", &tm);
	buf_puts(&o->b, s);
}

void report_out_duration(struct report_out *o, double ms)
{
	double s = ms / 1000.0;

	if (s < 60)
		buf_printf(&o->b, "%.1f s", s);
	else if (s < 3600)
		buf_printf(&o->b, "%d min %02d s", (int)(s / 60), (int)s % 60);
	else if (s < 86400 * 1000.0)
		buf_printf(&o->b, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
	else
		buf_printf(&o->b, "%.0f d", s / 86400);
}
