/* proctree: a process's parents from /proc, nearest first, up to its
 * container's init (pid 1 in its own PID namespace) or PID 1 — what the
 * dashboard's tree view (`t`) shows above a GPU process. */
#ifndef GPUR_PROCTREE_H
#define GPUR_PROCTREE_H

#include <stdbool.h>
#include <stddef.h>

#define PROCTREE_MAX 32      /* parents kept; a deeper chain is cut there */
#define PROCTREE_NAMELEN 16  /* comm: TASK_COMM_LEN */

struct proctree_node {
	unsigned pid;
	bool name_known; /* false: its /proc entry could not be read */
	char name[PROCTREE_NAMELEN];
};

/* The comm of /proc/PID/stat text buf[0..len): between the first '(' and
 * the last ')' (a comm may itself hold both), cut to commlen - 1 bytes.
 * Returns that last ')', or NULL when there is none. */
const char *proctree_stat_comm(const char *buf, size_t len, char *comm, size_t commlen);
/* From /proc/PID/stat text buf[0..len): comm (cut to commlen - 1 bytes) and
 * the parent pid (field 4). false when the text is not a stat line. */
bool proctree_parse_stat(const char *buf, size_t len, char *comm, size_t commlen, unsigned *ppid);

/* The chain starting at ppid under a procfs (rootfd from readfile_opendir,
 * else root as a path), into out[0..max): each parent's pid and comm. It
 * stops after PID 1, after a container's init, after a process whose own
 * parent is 0, after an entry that cannot be read (kept, its name unknown)
 * and at a loop. Returns the number of nodes; 0 for ppid 0. */
size_t proctree_walk(int rootfd, const char *root, unsigned ppid, struct proctree_node *out, size_t max);

#endif
