/* gpusel: matching user selectors against GPU identities. */
#include "model/gpusel.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/pciaddr.h"
#include "util/xalloc.h"

struct gpusel {
	size_t n;
	char **items;
};

struct gpusel *gpusel_parse(const char *list, char *err, size_t errlen)
{
	struct gpusel *s = xcalloc(1, sizeof(*s));
	const char *p = list;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len > 128 || s->n >= GPUSEL_MAX_ITEMS) {
			snprintf(err, errlen, "--gpus: %s in '%.64s'",
				 len == 0 ? "empty item" : len > 128 ? "item too long" : "too many items", list);
			gpusel_free(s);
			return NULL;
		}
		s->items = xreallocarray(s->items, s->n + 1, sizeof(*s->items));
		s->items[s->n] = xmalloc(len + 1);
		memcpy(s->items[s->n], p, len);
		s->items[s->n][len] = '\0';
		s->n++;
		if (!comma)
			return s;
		p = comma + 1;
	}
}

void gpusel_free(struct gpusel *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i]);
	free(s->items);
	free(s);
}

static bool matches(const char *sel, const struct frame *f, size_t i)
{
	const struct gpu *g = &f->gpus[i];
	char a[16], b[16];
	char *end;

	if (isdigit((unsigned char)sel[0])) {
		errno = 0;
		unsigned long v = strtoul(sel, &end, 10);
		if (!errno && *end == '\0')
			return v == i;
	}
	if (gpu_has(g, GPU_F_DEVICE_ID) && strcasecmp(sel, g->device_id) == 0)
		return true;
	if (pciaddr_normalise(sel, a)) {
		if (gpu_has(g, GPU_F_PCI_BUS_ID) && pciaddr_normalise(g->pci_bus_id, b) && strcmp(a, b) == 0)
			return true;
		/* A DRM GPU's id is its slot ("pci:0000:c4:00.0"), so a
		 * recording without a pci_bus_id, such as the original gpur's,
		 * still has it. */
		if (gpu_has(g, GPU_F_DEVICE_ID) && strncmp(g->device_id, "pci:", 4) == 0 &&
		    pciaddr_normalise(g->device_id + 4, b) && strcmp(a, b) == 0)
			return true;
	}
	return false;
}

bool gpusel_match(const struct gpusel *s, const struct frame *f, size_t i)
{
	for (size_t k = 0; k < s->n; k++)
		if (matches(s->items[k], f, i))
			return true;
	return false;
}

void gpusel_apply(const struct gpusel *s, struct frame *f)
{
	bool keep[FRAME_MAX_GPUS];

	for (size_t i = 0; i < f->ngpus; i++)
		keep[i] = gpusel_match(s, f, i);
	frame_keep_gpus(f, keep);
}

const char *gpusel_unmatched(const struct gpusel *s, const struct frame *f)
{
	for (size_t k = 0; k < s->n; k++) {
		bool any = false;
		for (size_t i = 0; i < f->ngpus && !any; i++)
			any = matches(s->items[k], f, i);
		if (!any)
			return s->items[k];
	}
	return NULL;
}
