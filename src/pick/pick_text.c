/* pick_text: the names, values and reasons of --select and --wait. */
#include "pick/pick_text.h"

#include <stdio.h>

void pick_text_name(struct buf *b, const struct pick_candidate *c)
{
	if (c->host)
		buf_printf(b, "%s ", c->host);
	if (c->instance && c->id)
		buf_puts(b, c->id);
	else
		buf_printf(b, "GPU %zu", c->position);
}

void pick_text_value(struct buf *b, const struct pick_candidate *c, enum pick_format format)
{
	if (c->host)
		buf_printf(b, "%s:", c->host);
	if (format == PICK_FORMAT_INDEX && !c->instance)
		buf_printf(b, "%ld", c->index);
	else
		buf_puts(b, c->id ? c->id : "?");
}

void pick_text_values(struct buf *b, const struct pick_candidate *c, size_t n, enum pick_format format)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_putc(b, ',');
		pick_text_value(b, &c[i], format);
	}
}

/* A percentage without needless decimals: "45", "7.5". */
static const char *pct_text(double v, char *buf, size_t n)
{
	snprintf(buf, n, "%.4g", v);
	return buf;
}

void pick_text_reason(struct buf *b, const struct pick_candidate *c, const struct pick_opts *o)
{
	char when[48], win[32], v[32], need[32];

	pick_duration_text(pick_stable_ms(o), win, sizeof(win));
	snprintf(when, sizeof(when), " in the last %s", win);
	pick_text_name(b, c);
	switch (c->why) {
	case PICK_FREE:
		buf_puts(b, " is free");
		break;
	case PICK_NO_ID:
		buf_puts(b, " has no device id to name it by");
		break;
	case PICK_LOST:
		buf_puts(b, c->now ? " is lost" : " was lost");
		if (!c->now)
			buf_puts(b, when);
		break;
	case PICK_UNREAD:
		buf_puts(b, c->now ? " is suspended (its readings are unknown)" : " was suspended");
		if (!c->now)
			buf_puts(b, when);
		break;
	case PICK_SHORT:
		buf_printf(b, " was not seen for all of the last %s (--stable)", win);
		break;
	case PICK_MEM_UNKNOWN:
		buf_printf(b, "'s free memory %s%s (--min-free)", c->now ? "is unknown" : "was unknown", c->now ? "" : when);
		break;
	case PICK_MEM_LOW:
		pick_bytes_text(c->now ? c->free_now : c->free_bytes, v, sizeof(v));
		pick_bytes_text(c->need_bytes, need, sizeof(need));
		buf_printf(b, " %s %s free%s (< %s, --min-free)", c->now ? "has" : "had", v, c->now ? "" : when, need);
		break;
	case PICK_UTIL_UNKNOWN:
		buf_printf(b, "'s utilisation %s%s (--max-util)", c->now ? "is unknown" : "was unknown", c->now ? "" : when);
		break;
	case PICK_UTIL_HIGH:
		pct_text(c->now ? c->util_now : c->util_pct, v, sizeof(v));
		pct_text(pick_max_util(o), need, sizeof(need));
		buf_printf(b, " %s at %s%%%s (> %s%%, --max-util)", c->now ? "is" : "was", v, c->now ? "" : when, need);
		break;
	case PICK_OTHER_USER:
		buf_printf(b, " %s a process of ", c->now ? "runs" : "ran");
		if (c->user)
			buf_printf(b, "user %s", c->user);
		else
			buf_puts(b, "an unknown user");
		buf_printf(b, "%s (--shared)", c->now ? "" : when);
		break;
	case PICK_PROCS_UNKNOWN:
		buf_printf(b, "'s processes %s%s, so another user's may be on it (--shared)",
			   c->now ? "cannot be listed" : "could not be listed", c->now ? "" : when);
		break;
	case PICK_LOCKED:
		buf_puts(b, " is locked by another gpur --lock");
		break;
	}
}

void pick_text_brief(struct buf *b, const struct pick_candidate *c, const struct pick_opts *o)
{
	char v[32], need[32];

	pick_text_name(b, c);
	buf_puts(b, ": ");
	switch (c->why) {
	case PICK_FREE:
		buf_puts(b, "free");
		break;
	case PICK_NO_ID:
		buf_puts(b, "no id");
		break;
	case PICK_LOST:
		buf_puts(b, "lost");
		break;
	case PICK_UNREAD:
		buf_puts(b, "suspended");
		break;
	case PICK_SHORT:
		pick_duration_text(pick_stable_ms(o), v, sizeof(v));
		buf_printf(b, "seen < %s", v);
		break;
	case PICK_MEM_UNKNOWN:
		buf_puts(b, "memory unknown");
		break;
	case PICK_MEM_LOW:
		buf_printf(b, "%s free < %s", pick_bytes_text(c->free_bytes, v, sizeof(v)),
			   pick_bytes_text(c->need_bytes, need, sizeof(need)));
		break;
	case PICK_UTIL_UNKNOWN:
		buf_puts(b, "utilisation unknown");
		break;
	case PICK_UTIL_HIGH:
		buf_printf(b, "%s%% > %s%%", pct_text(c->util_pct, v, sizeof(v)),
			   pct_text(pick_max_util(o), need, sizeof(need)));
		break;
	case PICK_OTHER_USER:
		buf_printf(b, "process of %s", c->user ? c->user : "an unknown user");
		break;
	case PICK_PROCS_UNKNOWN:
		buf_puts(b, "processes unknown");
		break;
	case PICK_LOCKED:
		buf_puts(b, "locked");
		break;
	}
}

void pick_text_shortfall(struct buf *b, const struct pick_candidate *c, size_t n, size_t nfree,
			 const struct pick_opts *o)
{
	if (nfree == 0)
		buf_puts(b, "no GPU qualifies");
	else
		buf_printf(b, "only %zu GPU%s", nfree, nfree == 1 ? " qualifies" : "s qualify");
	if (n == nfree) {
		if (n == 0)
			buf_puts(b, ": there is no GPU");
		else
			buf_printf(b, ": there %s only %zu GPU%s", n == 1 ? "is" : "are", n, n == 1 ? "" : "s");
		return;
	}
	buf_puts(b, ": ");
	for (size_t i = nfree; i < n; i++) {
		if (i - nfree == PICK_TEXT_REASONS) {
			buf_printf(b, "; and %zu more", n - i);
			break;
		}
		if (i > nfree)
			buf_puts(b, "; ");
		pick_text_reason(b, &c[i], o);
	}
}
