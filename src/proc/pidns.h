/* pidns: whether the processes that a procfs shows live in a PID namespace
 * of their own, below the host's, so that the host pids a GPU driver reports
 * (NVML's) are not theirs. That happens when gpur started in a container
 * without --pid=host or hostPID, or under `unshare --pid --mount-proc`. */
#ifndef GPUR_PIDNS_H
#define GPUR_PIDNS_H

/* Returns 1 when procfs (such as "/proc") belongs to a PID namespace below
 * the host's; 0 when it is the host's, because its pid 1 is in the initial
 * namespace, as with --pid=host or a host /proc mounted at /host/proc; and -1
 * when it cannot be told, as for a fixture tree. The answer comes from
 * PROCFS/1/ns/pid, since the initial namespace has a fixed inode
 * (PROC_PID_INIT_INO). Where that link may not be read, when gpur is not
 * root, it comes from gpur's own namespace (PROCFS/self/ns/pid) and, when
 * that is nested, from how many pids PROCFS/self/status's NSpid lists for
 * gpur: one means the procfs is its own namespace's, and more means it is an
 * ancestor's. */
int pidns_nested(const char *procfs);

#endif
