/* backend: the vtable every source of GPU data implements (NVML, amdgpu,
 * intel, drm, replay, prometheus) and the explicit, ordered registry of the
 * live ones. Callers go through the backend_* wrappers, which supply the
 * default for a missing op. */
#ifndef GPUR_BACKEND_H
#define GPUR_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"
#include "util/clock.h"

#define BACKEND_ERRLEN 256

struct fleet;
/* Where a backend reads the machine from. The caller owns it. */
struct pidwant;

struct backend_env {
	const char *procfs; /* default "/proc" */
	const char *sysfs;  /* default "/sys" */
	const char *rootfs; /* default "/", the host's root where container names are read; NULL for none */
	const struct clock *clock;
	/* The shortest window in ns from which a rate is taken, as
	 * ratewin_min_ns() makes it from the poll interval; 0 allows any window
	 * that is not empty. A backend that measures a rate between two of its
	 * samples judges each window with ratewin_judge() (util/ratewin.h). */
	uint64_t rate_window_ns;
	struct pidwant *want; /* whose /proc figures are needed fresh, NULL for all */
	bool no_tree;         /* no dashboard shows the process tree, so parents are not walked */
	bool no_gpm;          /* --no-gpm: NVML's GPM is never called */
	const char *prometheus_url;   /* --prometheus, the server's base URL */
	const char *prometheus_match; /* --prometheus-match, a selector, or NULL */
	/* Set by the dashboard. A Prometheus that does not answer at start is
	 * then waited for, with a status line and backoff, instead of being
	 * absent. */
	bool prometheus_wait;
};

struct backend;

struct backend_ops {
	const char *name;
	/* Detects and initialises the backend. Returns 0, or -errno with the
	 * reason in b->error (such as "libnvidia-ml.so.1 not found"), and
	 * then the backend is absent. */
	int (*open)(struct backend *b, const struct backend_env *env);
	/* Reads every device into f, which the caller has reset. The GPUs come
	 * in the backend's order, each with a device_id. Process rows have a
	 * gpu_index relative to that order and hold only the GPU side: pid,
	 * kind, GPU memory and utilisation. For a local backend the sampler
	 * fills name, command line, user, CPU %, RSS and start time from
	 * /proc. The driver string goes in f->driver. A per-device fault makes
	 * the GPU `lost` rather than being an error. Returns 0, or -ENODEV
	 * when the library failed as a whole; the backend is then closed and
	 * re-detected. */
	int (*poll)(struct backend *b, struct frame *f);
	/* Re-initialises the library while a GPU is lost, keeping the handles
	 * of healthy ones where it can. It is optional, and returns 0 or
	 * -errno. */
	int (*reinit)(struct backend *b);
	/* A fleet source's hosts (model/fleet.h), as its last poll read them
	 * or kept them from the last good poll. They travel beside the poll's
	 * frame, which holds only what is the source's own, its driver string
	 * and its events. Returns a new reference that the caller unrefs. The
	 * op is optional; without it there is no fleet. */
	struct fleet *(*fleet)(struct backend *b);
	/* Whether the pids in its rows are this machine's and may be signalled.
	 * Without the op they may not. */
	bool (*can_signal)(const struct backend *b);
	/* Whether its pids belong to another machine. Without the op they are
	 * this machine's. A remote source's rows are never filled from the
	 * local /proc. */
	bool (*is_remote)(const struct backend *b);
	/* Releases everything open() acquired. */
	void (*close)(struct backend *b);
};

struct backend {
	const struct backend_ops *ops;
	void *priv;
	char error[BACKEND_ERRLEN]; /* last failure text, kept for the UI */
};

/* The explicit registry of live backends, in detection and display order. */
extern const struct backend_ops *const BACKEND_REGISTRY[];
extern const size_t BACKEND_REGISTRY_LEN;
const struct backend_ops *backend_find(const char *name, size_t len);

/* Returns a new, closed backend of ops. backend_free() closes it if it is
 * open. */
struct backend *backend_new(const struct backend_ops *ops);
void backend_free(struct backend *b);
int backend_open(struct backend *b, const struct backend_env *env);
int backend_poll(struct backend *b, struct frame *f);
int backend_reinit(struct backend *b);
/* After a poll, returns the fleet it read, which the caller unrefs, or NULL
 * for an open backend of one machine or a closed one. */
struct fleet *backend_fleet(struct backend *b);
bool backend_can_signal(const struct backend *b);
bool backend_is_local(const struct backend *b);
void backend_close(struct backend *b);
static inline const char *backend_name(const struct backend *b) { return b->ops->name; }
/* Formats a message into b->error as printf does. */
__attribute__((format(printf, 2, 3))) void backend_fail(struct backend *b, const char *fmt, ...);

#endif
