/* downsample: per-column min/max/mean of streaming series on a shared grid. */
#include "report/downsample.h"

#include <string.h>

#include "util/xalloc.h"

void downsample_grid_init(struct downsample_grid *g)
{
	memset(g, 0, sizeof(*g));
	g->width_ms = DOWNSAMPLE_MIN_WIDTH_MS;
}

void downsample_grid_fini(struct downsample_grid *g)
{
	free(g->series);
	free(g->flags);
	memset(g, 0, sizeof(*g));
}

void downsample_attach(struct downsample_grid *g, struct downsample_series *s)
{
	if (g->nseries == g->series_cap) {
		g->series_cap = g->series_cap ? g->series_cap * 2 : 16;
		g->series = xreallocarray(g->series, g->series_cap, sizeof(*g->series));
	}
	g->series[g->nseries++] = s;
}

void downsample_attach_flags(struct downsample_grid *g, struct downsample_flags *f)
{
	if (g->nflags == g->flags_cap) {
		g->flags_cap = g->flags_cap ? g->flags_cap * 2 : 16;
		g->flags = xreallocarray(g->flags, g->flags_cap, sizeof(*g->flags));
	}
	g->flags[g->nflags++] = f;
}

static void merge_col(struct downsample_col *d, const struct downsample_col *a, const struct downsample_col *b)
{
	struct downsample_col r = *a;

	if (b->n) {
		if (!r.n) {
			r = *b;
		} else {
			r.min = b->min < r.min ? b->min : r.min;
			r.max = b->max > r.max ? b->max : r.max;
			r.sum += b->sum;
			r.n += b->n;
		}
	}
	*d = r;
}

/* Doubles the column width, so that columns 2j and 2j+1 become column j. */
static void widen(struct downsample_grid *g)
{
	const size_t half = DOWNSAMPLE_COLUMNS / 2;

	for (size_t s = 0; s < g->nseries; s++) {
		struct downsample_col *c = g->series[s]->col;
		for (size_t j = 0; j < half; j++)
			merge_col(&c[j], &c[2 * j], &c[2 * j + 1]);
		memset(&c[half], 0, half * sizeof(*c));
	}
	for (size_t s = 0; s < g->nflags; s++) {
		uint32_t *b = g->flags[s]->bits;
		for (size_t j = 0; j < half; j++)
			b[j] = b[2 * j] | b[2 * j + 1];
		memset(&b[half], 0, half * sizeof(*b));
	}
	g->width_ms *= 2;
	g->used = (g->used + 1) / 2;
}

size_t downsample_column(struct downsample_grid *g, uint64_t t_ms)
{
	if (!g->started) {
		g->started = true;
		g->t0_ms = t_ms;
	}
	if (t_ms < g->t0_ms)
		return SIZE_MAX;
	uint64_t k;
	/* ms timestamps cannot reach past a width of 2^62 ms, so the loop
	 * ends. */
	while ((k = (t_ms - g->t0_ms) / g->width_ms) >= DOWNSAMPLE_COLUMNS)
		widen(g);
	if (k + 1 > g->used)
		g->used = (size_t)k + 1;
	return (size_t)k;
}

void downsample_add(struct downsample_series *s, size_t c, double v)
{
	struct downsample_col *d;

	if (c >= DOWNSAMPLE_COLUMNS || v != v)
		return;
	d = &s->col[c];
	if (!d->n) {
		d->min = d->max = v;
	} else {
		d->min = v < d->min ? v : d->min;
		d->max = v > d->max ? v : d->max;
	}
	d->sum += v;
	d->n++;
}

uint64_t downsample_col_start(const struct downsample_grid *g, size_t c)
{
	return g->t0_ms + (uint64_t)c * g->width_ms;
}
