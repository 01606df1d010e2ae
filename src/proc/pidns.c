/* pidns: PID namespace of a procfs. */
#include "proc/pidns.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc/procinfo.h"
#include "util/readfile.h"

/* The initial PID namespace's inode (include/linux/proc_ns.h, fixed since
 * Linux 3.8). */
#define PIDNS_INIT_INO "4026531836"

/* Reads the namespace link PROCFS/REL, "pid:[INODE]". Returns 1 for the
 * initial namespace, 0 for another, and -1 when the link cannot be read. */
static int is_init(const char *procfs, const char *rel)
{
	char path[PATH_MAX], link[64];

	if (snprintf(path, sizeof(path), "%s/%s", procfs, rel) >= (int)sizeof(path))
		return -1;
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = '\0';
	if (strncmp(link, "pid:[", 5) != 0)
		return -1;
	return strcmp(link, "pid:[" PIDNS_INIT_INO "]") == 0;
}

/* Returns 1 when PROCFS/self/status's NSpid lists more than one pid for
 * gpur, 0 for one, and -1 when it cannot be told. */
static int nspid_many(const char *procfs)
{
	char buf[16384];
	uint64_t inner;
	ssize_t r = readfile_at(procfs, "self/status", buf, sizeof(buf));

	if (r <= 0)
		return -1;
	int n = procinfo_nspid(buf, (size_t)r, &inner);
	return n < 0 ? -1 : n;
}

int pidns_nested(const char *procfs)
{
	/* Look at the procfs's own pid 1 first; root may read its link. */
	int init = is_init(procfs, "1/ns/pid");
	if (init >= 0)
		return !init;
	/* Else look at gpur's own namespace, which is always readable. If it
	 * is the initial one, any procfs that gpur mounted is the host's. */
	int own = is_init(procfs, "self/ns/pid");
	if (own < 0)
		return -1;
	if (own)
		return 0;
	/* gpur is nested. Seen through its own namespace's procfs it has one
	 * pid, because NSpid starts at the procfs's namespace. Seen through an
	 * ancestor's, such as a host /proc at /host/proc, it has more, and the
	 * host's pids are there. */
	int many = nspid_many(procfs);
	return many < 0 ? -1 : !many;
}
