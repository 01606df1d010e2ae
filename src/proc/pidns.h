/* pidns: whether the processes a procfs shows live in a PID namespace of
 * their own, below the host's, so that the host pids a GPU driver reports
 * (NVML's) are not theirs: gpur started in a container without
 * --pid=host / hostPID, or under `unshare --pid --mount-proc`. */
#ifndef GPUR_PIDNS_H
#define GPUR_PIDNS_H

/* 1 when procfs (e.g. "/proc") belongs to a PID namespace below the host's,
 * 0 when it is the host's (its pid 1 is in the initial namespace, as with
 * --pid=host or a host /proc mounted at /host/proc), -1 when it cannot be
 * told (a fixture tree). Decided from PROCFS/1/ns/pid (the initial
 * namespace has a fixed inode, PROC_PID_INIT_INO); where that link may not
 * be read (not root), from gpur's own namespace (PROCFS/self/ns/pid) and,
 * when that is nested, from how many pids PROCFS/self/status's NSpid lists
 * for gpur (one: the procfs is its own namespace's; more: an ancestor's). */
int pidns_nested(const char *procfs);

#endif
