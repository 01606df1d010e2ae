/* proctree: a process's parents, read once per (pid, start time) by procinfo
 * and again only when its parent changes (reparenting after a parent's
 * death). Each parent costs one stat and one status read. */
#include "proc/proctree.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "proc/procinfo.h"
#include "util/kvparse.h"
#include "util/readfile.h"

const char *proctree_stat_comm(const char *buf, size_t len, char *comm, size_t commlen)
{
	const char *open = memchr(buf, '(', len), *close = memrchr(buf, ')', len);

	if (!open || !close || close < open || commlen == 0)
		return NULL;
	size_t n = (size_t)(close - open - 1);
	if (n >= commlen)
		n = commlen - 1;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	return close;
}

bool proctree_parse_stat(const char *buf, size_t len, char *comm, size_t commlen, unsigned *ppid)
{
	const char *close = proctree_stat_comm(buf, len, comm, commlen);
	struct kvparse_cur c;
	const char *field;
	size_t flen;
	uint64_t v;

	if (!close)
		return false;
	/* After ") " come the state and then the parent pid. */
	kvparse_cur_init(&c, close + 1, (size_t)(buf + len - close - 1));
	if (!kvparse_field(&c, &field, &flen) || !kvparse_field_u64(&c, UINT32_MAX, &v))
		return false;
	*ppid = (unsigned)v;
	return true;
}

static ssize_t read_file(int rootfd, const char *root, unsigned pid, const char *name, char *buf, size_t n)
{
	char rel[48];

	snprintf(rel, sizeof(rel), "%u/%s", pid, name);
	return rootfd >= 0 ? readfile_fd(rootfd, rel, buf, n) : readfile_at(root, rel, buf, n);
}

/* Whether pid is a container's init, which is pid 1 in a PID namespace below
 * ours. */
static bool is_container_init(int rootfd, const char *root, unsigned pid)
{
	char buf[16384]; /* NSpid comes after Groups:, which can be long */
	uint64_t inner;

	ssize_t r = read_file(rootfd, root, pid, "status", buf, sizeof(buf));
	if (r <= 0)
		return false;
	return procinfo_nspid(buf, kvparse_complete(buf, (size_t)r, sizeof(buf)), &inner) == 1 && inner == 1;
}

size_t proctree_walk(int rootfd, const char *root, unsigned ppid, struct proctree_node *out, size_t max)
{
	size_t n = 0;
	unsigned pid = ppid;

	while (pid != 0 && n < max) {
		for (size_t i = 0; i < n; i++)
			if (out[i].pid == pid)
				return n; /* a loop, which only a hostile tree has */
		struct proctree_node *node = &out[n++];
		char buf[1024];
		unsigned next = 0;
		memset(node, 0, sizeof(*node));
		node->pid = pid;
		ssize_t r = read_file(rootfd, root, pid, "stat", buf, sizeof(buf) - 1);
		if (r <= 0 || !proctree_parse_stat(buf, (size_t)r, node->name, sizeof(node->name), &next))
			break;
		node->name_known = true;
		if (pid == 1 || next == 0 || is_container_init(rootfd, root, pid))
			break;
		pid = next;
	}
	return n;
}
