/* fleet: the hosts of one fleet poll, their names made safe and bounded. */
#include "model/fleet.h"

#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"
#include "util/xalloc.h"

struct fleet *fleet_new(const char *url)
{
	struct fleet *fl = xcalloc(1, sizeof(*fl));

	arena_init(&fl->arena);
	atomic_init(&fl->refs, 1);
	fl->url = url ? fleet_str(fl, url) : NULL;
	return fl;
}

struct fleet *fleet_ref(struct fleet *fl)
{
	atomic_fetch_add(&fl->refs, 1);
	return fl;
}

void fleet_unref(struct fleet *fl)
{
	if (!fl || atomic_fetch_sub(&fl->refs, 1) != 1)
		return;
	for (size_t i = 0; i < fl->nhosts; i++)
		frame_unref(fl->hosts[i].frame);
	free(fl->hosts);
	arena_fini(&fl->arena);
	free(fl);
}

void fleet_safe_name(char *out, size_t n, const char *s)
{
	size_t len = strlen(s), o = 0;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		char enc[4];
		size_t used = utf8_decode(s + i, len - i, &cp);
		size_t w = utf8_is_unsafe(cp) ? (enc[0] = '?', 1) : utf8_encode(cp, enc);
		if (o + w >= n)
			break;
		memcpy(out + o, enc, w);
		o += w;
		i += used;
	}
	out[o] = '\0';
}

const char *fleet_str(struct fleet *fl, const char *s)
{
	char tmp[FLEET_NAME_MAX + 1];

	if (!s)
		return NULL;
	fleet_safe_name(tmp, sizeof(tmp), s);
	return arena_strdup(&fl->arena, tmp);
}

struct fleet_host *fleet_add_host(struct fleet *fl, const char *name, struct frame *frame)
{
	if (fl->nhosts >= FLEET_MAX_HOSTS) {
		fl->hosts_left_out++;
		return NULL;
	}
	if (fl->nhosts == fl->cap) {
		fl->cap = fl->cap ? 2 * fl->cap : 16;
		fl->hosts = xreallocarray(fl->hosts, fl->cap, sizeof(*fl->hosts));
	}
	struct fleet_host *h = &fl->hosts[fl->nhosts++];
	memset(h, 0, sizeof(*h));
	h->name = fleet_str(fl, name ? name : "?");
	h->frame = frame_ref(frame);
	return h;
}

const struct fleet_host *fleet_find(const struct fleet *fl, const char *name)
{
	for (size_t i = 0; fl && i < fl->nhosts; i++)
		if (strcmp(fl->hosts[i].name, name) == 0)
			return &fl->hosts[i];
	return NULL;
}
