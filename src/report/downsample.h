/* downsample: a time series folded into a fixed number of columns as it
 * streams by, so a recording of any length plots in bounded memory. Every
 * column keeps the min, max and mean of the values that fell in it, so a
 * one-record spike survives as its column's max, and an OR of flag bits
 * (lost, suspended, throttled). All series of one grid share its columns.
 * When a value lands past the last column, every column's width doubles and
 * neighbours merge, in every series. */
#ifndef GPUR_DOWNSAMPLE_H
#define GPUR_DOWNSAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The columns of a grid, so the plots are this many pixels wide. */
#define DOWNSAMPLE_COLUMNS 640
/* The narrowest column in ms, so a short recording is not stretched past 1 s a column. */
#define DOWNSAMPLE_MIN_WIDTH_MS 1000

struct downsample_col {
	double min, max, sum;
	uint32_t n;     /* values in the column, 0 when nothing is known there */
};

struct downsample_series {
	struct downsample_col col[DOWNSAMPLE_COLUMNS];
};

struct downsample_flags {
	uint32_t bits[DOWNSAMPLE_COLUMNS];
};

/* A grid: the time origin, the column width, and the series on it, which are
 * registered with downsample_attach and not owned by the grid. */
struct downsample_grid {
	bool started;
	uint64_t t0_ms, width_ms;
	size_t used;  /* columns up to the latest one touched */
	struct downsample_series **series;
	size_t nseries, series_cap;
	struct downsample_flags **flags;
	size_t nflags, flags_cap;
};

void downsample_grid_init(struct downsample_grid *g);
void downsample_grid_fini(struct downsample_grid *g);
/* Registers a zeroed series or flag row with the grid, which merges it
 * with the others from now on. */
void downsample_attach(struct downsample_grid *g, struct downsample_series *s);
void downsample_attach_flags(struct downsample_grid *g, struct downsample_flags *f);
/* The column of time t_ms, widening the grid when t is past its end; the
 * first call fixes the origin. Returns SIZE_MAX for a time before the
 * origin. */
size_t downsample_column(struct downsample_grid *g, uint64_t t_ms);
/* Adds the finite value v to column c of s. */
void downsample_add(struct downsample_series *s, size_t c, double v);
/* The start of column c in ms since the epoch. */
uint64_t downsample_col_start(const struct downsample_grid *g, size_t c);

#endif
