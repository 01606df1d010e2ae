/* proctree: a process's parents from /proc, nearest first, up to its
 * container's init (pid 1 in its own PID namespace) or PID 1. The dashboard's
 * tree view (`t`) shows them above a GPU process. */
#ifndef GPUR_PROCTREE_H
#define GPUR_PROCTREE_H

#include <stdbool.h>
#include <stddef.h>

#define PROCTREE_MAX 32      /* parents kept, where a deeper chain is cut */
#define PROCTREE_NAMELEN 16  /* comm's size, TASK_COMM_LEN */

struct proctree_node {
	unsigned pid;
	bool name_known; /* false when its /proc entry could not be read */
	char name[PROCTREE_NAMELEN];
};

/* Reads the comm of the /proc/PID/stat text buf[0..len), which lies between
 * the first '(' and the last ')', since a comm may itself hold both; it is
 * cut to commlen - 1 bytes. Returns that last ')', or NULL when there is
 * none. */
const char *proctree_stat_comm(const char *buf, size_t len, char *comm, size_t commlen);
/* Reads comm, cut to commlen - 1 bytes, and the parent pid (field 4) from the
 * /proc/PID/stat text buf[0..len). Returns false when the text is not a stat
 * line. */
bool proctree_parse_stat(const char *buf, size_t len, char *comm, size_t commlen, unsigned *ppid);

/* Reads the chain starting at ppid into out[0..max), each parent's pid and
 * comm, under a procfs given as rootfd from readfile_opendir or else as the
 * path root. It stops after PID 1, after a container's init, after a process
 * whose own parent is 0, after an entry that cannot be read, which is kept
 * with its name unknown, and at a loop. Returns the number of nodes, and 0
 * for ppid 0. */
size_t proctree_walk(int rootfd, const char *root, unsigned ppid, struct proctree_node *out, size_t max);

#endif
