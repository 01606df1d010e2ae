/* procinfo_priv: procinfo's cache and its entries, shared by procinfo.c
 * (full reads, attribution, the cache) and procinfo_sample.c (the cheap
 * samples between full reads). It is not for other modules. */
#ifndef GPUR_PROCINFO_PRIV_H
#define GPUR_PROCINFO_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "proc/cgroup.h"
#include "proc/procinfo.h"
#include "proc/proctree.h"

#define PROCINFO_BUCKETS 1024
#define PROCINFO_MIN_SAMPLE_NS 900000000ull
#define PROCINFO_MAX_FDS 1024
#define PROCINFO_FULL_NS 30000000000ull /* a full stat read at least this often */
#define PROCINFO_RSS_NS 5000000000ull  /* RSS read at least this often, run or not */
/* A process whose CPU clock stood still at its last PROCINFO_IDLE_RUNS
 * samples is sampled once per PROCINFO_IDLE_SAMPLE_NS, its 0 % held between:
 * an idle notebook or a stopped job costs a clock read every 2 s, not every
 * poll. Once its clock moves it is sampled every poll again. */
#define PROCINFO_IDLE_RUNS 3
#define PROCINFO_IDLE_SAMPLE_NS 1900000000ull
#define PROCINFO_PARENTS 16            /* parents probed per poll that are remembered */
#define PROCINFO_PID_MAX 4194304u /* the kernel's PID_MAX_LIMIT */
#define PROCINFO_NSPID_MAX 33     /* pid namespaces nest 32 deep below the first */

/* Who a process belongs to, read once per (pid, start): the record's
 * strings, NULL when unknown, and the runtime and its full id for a later
 * name lookup. */
struct attribution {
	char *container, *pod, *unit, *cgroup_path, *cgroup_id;
	char *container_name, *pod_name, *pod_namespace; /* from --rootfs (cnames.h) */
	bool names_pending; /* a name the container could have is unknown, so it is asked again each poll */
	bool names_rt_known; /* names_rt was found; a CRI container's runtime takes one look at the node */
	unsigned char names_rt; /* enum cnames_runtime */
	enum cgroup_runtime runtime;
	long owner_uid; /* a rootless container's user (cgroup_info), else -1 */
	uint64_t container_pid;
	bool have_cpid;
};

struct entry {
	struct entry *next;
	unsigned pid;
	uint64_t start_ticks; /* the identity, (pid, start time) */
	uint64_t gen;         /* poll in which it was last refreshed */
	char *name, *cmdline, *user;
	struct attribution att;
	uint64_t start_ms;
	bool have_start;
	uint64_t cpu_time_ns, cpu_ns; /* the previous sample's CPU time used, and when it was taken */
	unsigned idle_runs;           /* samples in a row at which the CPU clock had not moved */
	bool have_cpu;
	double cpu_pct;
	bool cpu_valid;
	uint64_t rss;
	bool rss_valid;
	bool gone;
	int statfd; /* /proc/PID/stat held open, or -1 */
	int statmfd; /* /proc/PID/statm held open for the quick sample, or -1 */
	clockid_t clk; /* its CPU-time clock, when have_clk */
	bool have_clk;
	uint64_t full_ns; /* when stat was last read */
	uint64_t rss_ns;  /* when RSS was last read, from stat or statm */
	/* Its parents (proctree.h), walked when first seen and again when
	 * its parent pid changes. */
	unsigned ppid;
	bool have_tree;
	size_t ntree;
	struct proctree_node *tree;
};

struct user {
	struct user *next;
	unsigned uid;
	char *name;
};

struct procinfo {
	char *root;
	int rootfd; /* procfs root, for openat */
	bool system_users; /* root is /proc, so ask NSS */
	struct entry *tab[PROCINFO_BUCKETS];
	struct user *users;
	uint64_t gen, now_ns;
	long ticks, page;
	uint64_t btime_ms;
	bool have_btime;
	unsigned count;
	unsigned long cgroup_reads; /* /proc/PID/cgroup reads, for tests */
	unsigned long tree_walks;   /* parent chains walked, for tests */
	bool no_tree;               /* parents are not walked, because nothing shows them */
	bool no_tree_fixed;         /* no dashboard at all shows them (procinfo_set_tree) */
	bool tree_refresh;          /* the tree opened: this poll reads every process in full */
	unsigned nfds, max_fds; /* stat descriptors held, and the bound (0 for none) */
	bool own;               /* the procfs of gpur's own PID namespace, whose pids CPU clocks name */
	unsigned long quick;    /* quick samples taken, for tests */
	unsigned long idle;     /* of those, processes that had not run, with no statm read */
	struct pidwant *want;   /* which pids need fresh figures, NULL for all */
	uint64_t min_window_ns; /* the shortest window of a CPU % (procinfo_set_rate_window) */
	/* Parents probed this poll with kill(2) and signal 0, so that
	 * siblings cost one probe. */
	struct {
		unsigned pid;
		bool alive;
	} parents[PROCINFO_PARENTS];
	unsigned nparents;
	unsigned long probes; /* parent probes made, for tests */
	struct cnames *names;   /* container and pod names under --rootfs, or NULL */
	unsigned *snap;         /* its copy for this poll, sorted */
	size_t snap_cap;
	long nsnap;             /* -1 for every pid */
};

/* A CPU rate from the CPU time used (ns) since the baseline sample, which a
 * window too short for a rate keeps (procinfo_set_rate_window). */
void procinfo_cpu_sample(struct procinfo *pi, struct entry *e, uint64_t cpu_time_ns);
/* The process's CPU time over all threads, in ns, from its CPU-time clock. */
bool procinfo_read_clock(struct entry *e, unsigned pid, uint64_t *ns);
/* Samples between full reads: the CPU clock, then, when the process has
 * run, the held statm. Returns false when either fails, because the process
 * has gone. */
bool procinfo_quick_sample(struct procinfo *pi, struct entry *e);
/* Whether the parent pid still exists, probed once per parent per poll. */
bool procinfo_parent_alive(struct procinfo *pi, unsigned ppid);

#endif
