/* prom_write: the pieces of Prometheus' text exposition format that every
 * family is written with (prom_write.h). */
#include "serve/prom_write.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/json_write.h"
#include "util/utf8.h"

void prom_put_label_value(struct buf *out, const char *value)
{
	size_t n = strlen(value);

	n = utf8_trim(value, n, PROM_MAX_LABEL_BYTES);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t used = utf8_decode(value + i, n - i, &cp);
		char enc[4];
		i += used;
		if (cp == '\\')
			buf_puts(out, "\\\\");
		else if (cp == '"')
			buf_puts(out, "\\\"");
		else if (cp == '\n')
			buf_puts(out, "\\n");
		else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
			continue; /* other controls are dropped */
		else
			buf_append(out, enc, utf8_encode(cp, enc));
	}
}

/* A buf_append that accepts an empty buffer's NULL data. */
void prom_put(struct buf *b, const char *s, size_t n)
{
	if (n)
		buf_append(b, s, n);
}

/* Appends name="value", with a comma first unless it is the first label. An
 * unknown or empty value gives no label at all, as Prometheus reads it. */
void prom_label(struct buf *b, bool *first, const char *name, const char *value)
{
	if (!value || !*value)
		return;
	if (!*first)
		buf_putc(b, ',');
	*first = false;
	buf_puts(b, name);
	buf_puts(b, "=\"");
	prom_put_label_value(b, value);
	buf_putc(b, '"');
}

void prom_label_u64(struct buf *b, bool *first, const char *name, uint64_t v)
{
	char tmp[24];
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	prom_label(b, first, name, tmp);
}

/* Appends the # HELP and # TYPE of a family; help escapes \\ and \n. */
void prom_family(struct buf *b, const char *name, const char *type, const char *help)
{
	buf_puts(b, "# HELP ");
	buf_puts(b, name);
	buf_putc(b, ' ');
	for (const char *p = help; *p; p++) {
		if (*p == '\\')
			buf_puts(b, "\\\\");
		else if (*p == '\n')
			buf_puts(b, "\\n");
		else
			buf_putc(b, *p);
	}
	buf_puts(b, "\n# TYPE ");
	buf_puts(b, name);
	buf_putc(b, ' ');
	buf_puts(b, type);
	buf_putc(b, '\n');
}

/* Appends one sample, name{labels[,extra]} value. Non-finite values are not
 * measurements here, so they give no sample. */
bool prom_sample(struct buf *b, const char *name, const char *labels, size_t llen, const char *extra, double v)
{
	if (!isfinite(v))
		return false;
	buf_puts(b, name);
	if (llen || extra) {
		buf_putc(b, '{');
		prom_put(b, labels, llen);
		if (extra) {
			if (llen)
				buf_putc(b, ',');
			buf_puts(b, extra);
		}
		buf_putc(b, '}');
	}
	buf_putc(b, ' ');
	json_put_double(b, v);
	buf_putc(b, '\n');
	return true;
}

/* A family is written only when it has a sample. begin remembers where its
 * header starts, and end takes the header back when nothing followed. */
size_t prom_begin(struct buf *b, const char *name, const char *type, const char *help)
{
	size_t mark = b->len;
	prom_family(b, name, type, help);
	return mark;
}
void prom_end(struct buf *b, size_t mark, bool any)
{
	if (!any)
		b->len = mark;
}

void prom_one(struct buf *b, const char *name, const char *type, const char *help, const char *labels, double v)
{
	if (!isfinite(v))
		return;
	prom_family(b, name, type, help);
	prom_sample(b, name, labels, labels ? strlen(labels) : 0, NULL, v);
}
