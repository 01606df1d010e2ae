/* procinfo: what /proc says about a GPU process (name, command line, user,
 * start time, CPU %, RSS, container, pod, unit and pid in its container),
 * cached per (pid, start time) so that each poll reads only /proc/PID/stat
 * for a known process. */
#ifndef GPUR_PROCINFO_H
#define GPUR_PROCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frame.h"

struct procinfo;

/* procfs is where /proc is mounted, and it is copied. User names come from
 * the system (getpwuid) for /proc, else from PROCFS/../etc/passwd when it is
 * present, else they are the numeric uid. */
struct procinfo *procinfo_new(const char *procfs);
void procinfo_free(struct procinfo *pi);
/* Starts a poll at monotonic time now_ns. The lookups that follow refresh
 * each pid at most once, and a known pid at most about once a second. */
void procinfo_begin(struct procinfo *pi, uint64_t now_ns);
/* Fills p's name, cmdline, user, cpu_pct, host_mem_bytes, start_ms,
 * container, pod, unit and container_pid from /proc/PID, with the strings in
 * f's arena. Unknown stays unknown, so a pid that is gone or unreadable
 * leaves those fields unset. cmdline, status (uid, NSpid) and cgroup are read
 * once per (pid, start time), when the process is first seen. */
bool procinfo_fill(struct procinfo *pi, unsigned pid, struct frame *f, struct gpu_process *p);
/* From the next poll on, a known process that want does not list keeps its
 * last CPU % and RSS instead of being read again (see pidwant.h). want is
 * kept but not owned, and NULL means every pid. New processes are always
 * read. */
struct pidwant;
void procinfo_set_want(struct procinfo *pi, struct pidwant *want);
/* Container and pod names are read under rootfs, the host's root, which is
 * "/" or "/host" in a container, once per container. NULL means no names. */
void procinfo_set_rootfs(struct procinfo *pi, const char *rootfs);
/* A CPU % comes only from a window of at least min_ns between the baseline
 * sample of a process's CPU time and a later one (util/ratewin.h). A shorter
 * window leaves it unknown and keeps the baseline, so that a later poll
 * measures over a window long enough. The default, 0, allows any window
 * that is not empty. */
void procinfo_set_rate_window(struct procinfo *pi, uint64_t min_ns);
/* Ends a poll and forgets the pids not looked up since procinfo_begin. */
void procinfo_end(struct procinfo *pi);
/* The number of cached processes, for tests and benchmarks. */
unsigned procinfo_cached(const struct procinfo *pi);
/* How many times /proc/PID/cgroup has been read; tests check it is once per
 * process. */
unsigned long procinfo_cgroup_reads(const struct procinfo *pi);
/* How many parent chains have been walked; tests check it is once per
 * process, and again only when its parent changes. */
/* Whether rows get their parents, on by default. It is turned off where
 * nothing shows the tree, in every mode but the dashboard, and then the walk
 * is not made. */
void procinfo_set_tree(struct procinfo *pi, bool on);
unsigned long procinfo_tree_walks(const struct procinfo *pi);
/* The samples taken with the CPU clock and statm alone, without a stat read. */
unsigned long procinfo_quick_samples(const struct procinfo *pi);
/* Of those, the samples of a process that had not run since the last one,
 * whose statm was not read. */
unsigned long procinfo_idle_samples(const struct procinfo *pi);
/* The parents probed for having exited, once per parent per poll. */
unsigned long procinfo_parent_probes(const struct procinfo *pi);
/* The files opened and directories listed for container names, for
 * benchmarks and tests. */
unsigned long procinfo_name_reads(const struct procinfo *pi);

/* Reads the NSpid line of the /proc/PID/status text buf[0..len), which lists
 * the outermost pid first ("NSpid:\t48211\t7"). Returns 1 with *inner set to
 * the innermost pid when there is more than one; 0 when there is one, in the
 * reader's own namespace; -ENOENT without the line; and -EINVAL when it holds
 * anything but 1 to 33 pids. */
int procinfo_nspid(const char *buf, size_t len, uint64_t *inner);

#endif
