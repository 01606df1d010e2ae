/* pidns: PID namespace of a procfs. */
#include "proc/pidns.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/kvparse.h"
#include "util/readfile.h"

/* The initial PID namespace's inode (include/linux/proc_ns.h, fixed since
 * Linux 3.8). */
#define PIDNS_INIT_INO "4026531836"

int pidns_nested(const char *procfs)
{
	char path[PATH_MAX], link[64];

	if (snprintf(path, sizeof(path), "%s/1/ns/pid", procfs) < (int)sizeof(path)) {
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			if (strncmp(link, "pid:[", 5) == 0)
				return strcmp(link, "pid:[" PIDNS_INIT_INO "]") != 0;
		}
	}
	char buf[4096];
	ssize_t r = readfile_at(procfs, "self/status", buf, sizeof(buf));
	if (r <= 0)
		return -1;
	struct kvparse_iter it;
	struct kvparse_kv kv;
	kvparse_iter_init(&it, buf, kvparse_complete(buf, (size_t)r, sizeof(buf)));
	while (kvparse_next(&it, ':', &kv)) {
		if (!kvparse_key_is(&kv, "NSpid"))
			continue;
		/* "NSpid:\t4242\t7": one pid per namespace, outermost first. */
		size_t fields = 0;
		for (size_t i = 0; i < kv.vlen; i++)
			if (kv.val[i] != ' ' && kv.val[i] != '\t' && (i == 0 || kv.val[i - 1] == ' ' || kv.val[i - 1] == '\t'))
				fields++;
		return fields > 1;
	}
	return -1;
}
