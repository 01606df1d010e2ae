/* pick_window: the polls of the last --stable, GPU by GPU, and the verdict
 * on each GPU at the latest poll: free, or why not. A GPU is judged by the
 * worst of the window (the least free memory, the highest utilisation), and
 * a value unknown anywhere in the window never passes a filter that is on.
 * A poll's readings stand until the next poll, so the window is the polls
 * since the last one at or before (latest - stable): with --stable 0 the
 * latest poll alone, and a GPU must have been seen in that first poll. */
#ifndef GPUR_PICK_WINDOW_H
#define GPUR_PICK_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/fleet.h"
#include "model/frame.h"
#include "model/gpusel.h"
#include "pick/pick.h"

/* Why a GPU is not free, in the order the filters are tried; the first
 * that holds is the one given. */
enum pick_why {
	PICK_FREE,
	PICK_NO_ID,       /* it has no device id to name it by */
	PICK_LOST,        /* lost now, or within the window */
	PICK_UNREAD,      /* suspended now, or within the window: its readings are unknown */
	PICK_SHORT,       /* not seen for the whole window (new, or gone for a while) */
	PICK_MEM_UNKNOWN, /* free memory unknown in some poll of the window */
	PICK_MEM_LOW,     /* less than --min-free free in some poll of the window */
	PICK_UTIL_UNKNOWN,
	PICK_UTIL_HIGH,   /* above --max-util in some poll of the window */
	PICK_OTHER_USER,  /* a process of another user, or of an unknown one, in the window */
	PICK_PROCS_UNKNOWN, /* its process list failed in some poll of the window */
	PICK_LOCKED,      /* another gpur --lock holds it (set by the caller) */
};

/* One GPU of the latest poll that could be chosen: a GPU, or a MIG
 * instance, but never a GPU in MIG mode, whose instances are chosen
 * instead. Its strings live until the next pick_window_add(). */
struct pick_candidate {
	const char *id;    /* its device id (GPU-..., MIG-..., pci:...), or NULL */
	const char *host;  /* the fleet host, or NULL on this machine */
	size_t position;   /* its place in its frame, as gpur numbers GPUs */
	long index;        /* its place among the physical GPUs of its frame, -1 for a MIG instance */
	bool instance;     /* a MIG instance */
	size_t order;      /* its place among all candidates of the poll, hosts in order */
	enum pick_why why;
	bool now;          /* the reason holds at the latest poll, not only earlier in the window */
	/* The worst of the window, where known: the least free memory and the
	 * highest utilisation, and the latest poll's. */
	bool free_known, util_known;
	double free_bytes, util_pct;
	double free_now, util_now;
	double need_bytes; /* what --min-free asks of it, when its total is known */
	const char *user;  /* PICK_OTHER_USER: the user, or NULL when unknown */
};

struct pick_window;

/* A window for o (borrowed). me is the current user's name and uid the
 * current user's id as text: a process whose user is neither belongs to
 * another user. partial is for a recording: a GPU seen since its first
 * poll counts as seen for the whole window, even when the recording is
 * shorter than --stable. pick_window_free() frees it. */
struct pick_window *pick_window_new(const struct pick_opts *o, const char *me, const char *uid, bool partial);
void pick_window_free(struct pick_window *w);

/* Adds a poll taken at ts_ms, which never goes back: frame f of this
 * machine or, when fl is not NULL, the frames of its hosts. Only the GPUs
 * that sel matches are candidates, when sel is not NULL. */
void pick_window_add(struct pick_window *w, uint64_t ts_ms, const struct frame *f, const struct fleet *fl,
		     const struct gpusel *sel);
/* How long the window has been filling: the time from the first poll to the
 * latest. */
uint64_t pick_window_span_ms(const struct pick_window *w);

/* Judges every candidate of the latest poll. *out gets the candidates, the
 * free ones first, best first (the most free memory, then the lowest
 * utilisation, then the first in order), then the others in order; the
 * array belongs to the window and lives until the next call. Returns their
 * number. */
size_t pick_window_judge(struct pick_window *w, struct pick_candidate **out);
/* Sorts c[0..n) again as pick_window_judge() does, after the caller has
 * changed some verdicts (PICK_LOCKED). Returns the number of free ones. */
size_t pick_window_sort(struct pick_candidate *c, size_t n);

#endif
