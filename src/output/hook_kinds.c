/* hook_kinds: the table of list items and the kinds each one takes. */
#include "output/hook_kinds.h"

#include <stdio.h>
#include <string.h>

#include "model/event.h"
#include "model/idle.h"

#define BIT(k) (UINT32_C(1) << HOOK_KIND_##k)

/* The items of --on-event-kinds. The first eight are what the completion
 * scripts offer, since the four long names of losses and come-backs are
 * reached through "lost" and "back". */
static const struct {
	const char *name;
	uint32_t bits;
	bool kind; /* the item is one event kind, so an event of that kind gets its bit */
} ITEMS[] = {
	{"all", HOOK_KINDS_ALL, false},
	{"lost", BIT(GPU_LOST) | BIT(BACKEND_LOST), false},
	{"back", BIT(GPU_BACK) | BIT(BACKEND_BACK), false},
	{EVENT_XID, BIT(XID), true},
	{EVENT_IDLE, BIT(IDLE), true},
	{EVENT_ACTIVE, BIT(ACTIVE), true},
	{EVENT_SIGNAL, BIT(SIGNAL), true},
	{EVENT_NOTE, BIT(NOTE), true},
	{EVENT_GPU_LOST, BIT(GPU_LOST), true},
	{EVENT_GPU_BACK, BIT(GPU_BACK), true},
	{EVENT_BACKEND_LOST, BIT(BACKEND_LOST), true},
	{EVENT_BACKEND_BACK, BIT(BACKEND_BACK), true},
};
#define NITEMS (sizeof(ITEMS) / sizeof(ITEMS[0]))

int hook_kinds_parse(const char *list, uint32_t *mask, char *err, size_t errlen)
{
	const char *p = list;

	*mask = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		size_t i = 0;

		if (len == 0) {
			snprintf(err, errlen, "an empty item (known: %s)", HOOK_KINDS_KNOWN);
			return -1;
		}
		while (i < NITEMS && !(strlen(ITEMS[i].name) == len && strncmp(ITEMS[i].name, p, len) == 0))
			i++;
		if (i == NITEMS) {
			snprintf(err, errlen, "unknown kind '%.*s' (known: %s)", (int)(len < 64 ? len : 64), p,
				 HOOK_KINDS_KNOWN);
			return -1;
		}
		*mask |= ITEMS[i].bits;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

bool hook_kinds_match(uint32_t mask, const char *kind)
{
	uint32_t bit = BIT(OTHER);

	for (size_t i = 0; kind && i < NITEMS; i++)
		if (ITEMS[i].kind && strcmp(ITEMS[i].name, kind) == 0)
			bit = ITEMS[i].bits;
	return (mask & bit) != 0;
}

size_t hook_kinds_words(const char **out, size_t max)
{
	size_t n = 0;

	for (; n < NITEMS && n < max; n++)
		out[n] = ITEMS[n].name;
	return n;
}
