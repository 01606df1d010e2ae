/* procinfo: /proc/PID/{stat,cmdline,status,cgroup} with a per-(pid, start)
 * cache. The samples between full reads are in procinfo_sample.c.
 *
 * On a real procfs each known process's /proc/PID/stat stays open and is
 * re-read with pread(2) at offset 0. The kernel then generates the line
 * without a path walk, a file allocation and a close, which are about half
 * of the cost of a poll at a 1 s interval with 64 processes. Such a
 * descriptor names one process for good: once the process has gone the read
 * fails with ESRCH and the pid is looked up afresh, so a reused pid is never
 * read as the old process. Descriptors are bounded by PROCINFO_MAX_FDS and a
 * quarter of RLIMIT_NOFILE. Beyond that bound, and on fixture trees whose
 * plain files tests replace, every read opens the file.
 *
 * On the procfs of gpur's own PID namespace it is cheaper still. Full reads
 * of stat come every PROCINFO_FULL_NS, for the start time, and at once when
 * the parent has exited, because the dashboard shows parents. Between them a
 * known process is sampled with its CPU-time clock (clock_gettime of
 * clock_getcpuclockid, which covers all its threads in ns with no text) and a
 * held /proc/PID/statm for RSS; they cost a tenth and a third of a stat
 * read's kernel time. The clock is read first. The held statm, read after
 * it, fails once the process has gone, and a pid is reused only after that,
 * so a reading that passes is the process's own. A process whose clock has
 * not moved since the last sample has not run, and its statm is not read at
 * all, so an idle notebook holding GPU memory costs one clock read a poll;
 * its RSS is still read every PROCINFO_RSS_NS, for pages the kernel took.
 * CPU time comes from the clock in both kinds of sample, so rates never mix
 * two sources. */
#include "proc/procinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "proc/cgroup.h"
#include "proc/cnames.h"
#include "proc/pidstart.h"
#include "proc/pidwant.h"
#include "proc/proctree.h"
#include "proc/psignal.h"
#include "util/kvparse.h"
#include "util/readfile.h"
#include "util/utf8.h"
#include "util/xalloc.h"

#include "proc/procinfo_priv.h"

struct procinfo *procinfo_new(const char *procfs)
{
	struct procinfo *pi = xcalloc(1, sizeof(*pi));

	pi->root = xstrdup(procfs);
	pi->nsnap = -1;
	pi->rootfd = readfile_opendir(procfs);
	pi->system_users = strcmp(procfs, "/proc") == 0;
	struct rlimit rl;
	if (readfile_is_procfs(pi->rootfd)) {
		pi->max_fds = PROCINFO_MAX_FDS;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < pi->max_fds)
			pi->max_fds = (unsigned)(rl.rlim_cur / 4);
	}
	pi->ticks = sysconf(_SC_CLK_TCK);
	pi->page = sysconf(_SC_PAGESIZE);
	if (pi->ticks <= 0)
		pi->ticks = 100;
	if (pi->page <= 0)
		pi->page = 4096;
	pi->have_btime = pidstart_btime_ms(procfs, &pi->btime_ms) == 0;
	pi->own = pi->max_fds && psignal_procfs_is_ours(procfs);
	return pi;
}

static void drop_statmfd(struct procinfo *pi, struct entry *e)
{
	if (e->statmfd >= 0) {
		close(e->statmfd);
		e->statmfd = -1;
		pi->nfds--;
	}
}

static void drop_statfd(struct procinfo *pi, struct entry *e)
{
	if (e->statfd >= 0) {
		close(e->statfd);
		e->statfd = -1;
		pi->nfds--;
	}
	drop_statmfd(pi, e);
}

static void entry_drop_strings(struct entry *e)
{
	free(e->name);
	free(e->cmdline);
	free(e->user);
	free(e->att.container);
	free(e->att.pod);
	free(e->att.unit);
	free(e->att.cgroup_path);
	free(e->att.cgroup_id);
	free(e->att.container_name);
	free(e->att.pod_name);
	free(e->att.pod_namespace);
	free(e->tree);
}

static void entry_free(struct procinfo *pi, struct entry *e)
{
	drop_statfd(pi, e);
	entry_drop_strings(e);
	free(e);
}

void procinfo_free(struct procinfo *pi)
{
	if (!pi)
		return;
	for (size_t i = 0; i < PROCINFO_BUCKETS; i++)
		for (struct entry *e = pi->tab[i], *n; e; e = n) {
			n = e->next;
			entry_free(pi, e);
		}
	for (struct user *u = pi->users, *n; u; u = n) {
		n = u->next;
		free(u->name);
		free(u);
	}
	if (pi->rootfd >= 0)
		close(pi->rootfd);
	cnames_free(pi->names);
	free(pi->snap);
	free(pi->root);
	free(pi);
}

void procinfo_begin(struct procinfo *pi, uint64_t now_ns)
{
	pi->gen++;
	pi->now_ns = now_ns;
	pi->nparents = 0;
	pi->nsnap = pidwant_snapshot(pi->want, &pi->snap, &pi->snap_cap);
	bool no_tree = pi->no_tree_fixed || !pidwant_tree_wanted(pi->want);
	/* The tree is shown again: in this poll every process is read in full,
	 * on the screen or not, for its parent as it is now, since the tree
	 * lists a process's children from their parents. */
	pi->tree_refresh = pi->no_tree && !no_tree;
	pi->no_tree = no_tree;
}

void procinfo_set_rootfs(struct procinfo *pi, const char *rootfs)
{
	cnames_free(pi->names);
	pi->names = rootfs ? cnames_new(rootfs) : NULL;
}

void procinfo_set_want(struct procinfo *pi, struct pidwant *want)
{
	pi->want = want;
	pi->nsnap = -1;
}

void procinfo_set_rate_window(struct procinfo *pi, uint64_t min_ns)
{
	pi->min_window_ns = min_ns;
}

void procinfo_end(struct procinfo *pi)
{
	for (size_t i = 0; i < PROCINFO_BUCKETS; i++) {
		struct entry **pp = &pi->tab[i];
		while (*pp) {
			struct entry *e = *pp;
			if (e->gen != pi->gen) {
				*pp = e->next;
				entry_free(pi, e);
				pi->count--;
			} else {
				pp = &e->next;
			}
		}
	}
}

unsigned procinfo_cached(const struct procinfo *pi)
{
	return pi->count;
}

unsigned long procinfo_cgroup_reads(const struct procinfo *pi)
{
	return pi->cgroup_reads;
}

unsigned long procinfo_quick_samples(const struct procinfo *pi)
{
	return pi->quick;
}

unsigned long procinfo_idle_samples(const struct procinfo *pi)
{
	return pi->idle;
}

unsigned long procinfo_parent_probes(const struct procinfo *pi)
{
	return pi->probes;
}

void procinfo_set_tree(struct procinfo *pi, bool on)
{
	pi->no_tree = pi->no_tree_fixed = !on;
}

unsigned long procinfo_tree_walks(const struct procinfo *pi)
{
	return pi->tree_walks;
}

/* The name of uid from a passwd(5) file, or NULL. */
static char *passwd_lookup(const char *path, unsigned uid)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	char *found = NULL;

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char *name = line, *c1 = strchr(line, ':'), *c2, *c3;
		uint64_t v;
		if (!c1 || !(c2 = strchr(c1 + 1, ':')) || !(c3 = strchr(c2 + 1, ':')))
			continue;
		size_t n = (size_t)(c3 - c2 - 1);
		if (n && kvparse_u64(c2 + 1, n, UINT_MAX, &v) == (ssize_t)n && v == uid && c1 > name) {
			*c1 = '\0';
			found = xstrdup(name);
		}
	}
	fclose(f);
	return found;
}

static const char *user_name(struct procinfo *pi, unsigned uid)
{
	for (struct user *u = pi->users; u; u = u->next)
		if (u->uid == uid)
			return u->name;
	struct user *u = xcalloc(1, sizeof(*u));
	u->uid = uid;
	if (pi->system_users) {
		struct passwd pw, *res = NULL;
		char buf[4096];
		if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name)
			u->name = xstrdup(res->pw_name);
	} else {
		char path[4200];
		snprintf(path, sizeof(path), "%s/../etc/passwd", pi->root);
		u->name = passwd_lookup(path, uid);
	}
	if (!u->name) {
		char num[16];
		snprintf(num, sizeof(num), "%u", uid);
		u->name = xstrdup(num);
	}
	u->next = pi->users;
	pi->users = u;
	return u->name;
}

/* "PID/name" relative to the procfs root, without printf. */
static const char *pid_path(char *buf, size_t n, unsigned pid, const char *name)
{
	char digits[16];
	size_t d = 0, i = 0;

	do {
		digits[d++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid);
	while (d && i + 1 < n)
		buf[i++] = digits[--d];
	if (i + 1 < n)
		buf[i++] = '/';
	while (*name && i + 1 < n)
		buf[i++] = *name++;
	buf[i] = '\0';
	return buf;
}

static ssize_t read_pid_file(struct procinfo *pi, unsigned pid, const char *name, char *buf, size_t n)
{
	char rel[48];

	pid_path(rel, sizeof(rel), pid, name);
	return pi->rootfd >= 0 ? readfile_fd(pi->rootfd, rel, buf, n) : readfile_at(pi->root, rel, buf, n);
}

/* Parses /proc/PID/stat. comm comes in parentheses and may itself hold
 * spaces and ')'. After the last ')' come fields 3 and on, separated by
 * single spaces: ppid is field 4, utime 14, stime 15, starttime 22 and
 * rss 24. */
/* Reads /proc/PID/stat into buf, NUL-terminated, through e's held descriptor
 * when it has one. Otherwise it opens the file and, within the bound, keeps
 * it open. */
static ssize_t read_stat_file(struct procinfo *pi, struct entry *e, unsigned pid, char *buf, size_t n)
{
	char rel[48];
	ssize_t r;

	pid_path(rel, sizeof(rel), pid, "stat");
	if (pi->rootfd < 0)
		return readfile_at(pi->root, rel, buf, n);
	if (e->statfd >= 0) {
		r = readfile_held(pi->rootfd, rel, &e->statfd, true, buf, n);
		if (r > 0)
			return r;
		/* That process has gone (ESRCH). Whatever has the pid now is
		 * another process, which is opened afresh below. */
		pi->nfds--;
	}
	r = readfile_held(pi->rootfd, rel, &e->statfd, pi->nfds < pi->max_fds, buf, n);
	if (e->statfd >= 0)
		pi->nfds++;
	return r;
}

static bool read_stat(struct procinfo *pi, struct entry *e, unsigned pid, char *comm, size_t commlen,
		      uint64_t *cpu, uint64_t *start, uint64_t *rss_pages, unsigned *ppid)
{
	char buf[1024];
	uint64_t f[25] = {0};
	struct kvparse_cur c;
	const char *field;
	size_t flen;

	ssize_t r = read_stat_file(pi, e, pid, buf, sizeof(buf));
	if (r <= 0)
		return false;
	const char *close = proctree_stat_comm(buf, (size_t)r, comm, commlen);
	if (!close)
		return false;
	kvparse_cur_init(&c, close + 1, (size_t)(buf + r - close - 1));
	for (int i = 3; i <= 24; i++) {
		/* These bounds keep the sums and products below from wrapping:
		 * utime + stime, starttime in ms and rss in bytes. */
		uint64_t max = i == 22 ? UINT64_MAX / 1000 : i == 24 ? UINT64_MAX / (uint64_t)pi->page : i == 4 ? UINT32_MAX : UINT64_MAX / 2;
		if (i == 4 || i == 14 || i == 15 || i == 22 || i == 24) {
			if (!kvparse_field_u64(&c, max, &f[i]))
				return false;
		} else if (!kvparse_field(&c, &field, &flen)) {
			return false;
		}
	}
	*cpu = f[14] + f[15];
	*start = f[22];
	*rss_pages = f[24];
	*ppid = (unsigned)f[4];
	return true;
}

/* The length of cmdline s[0..n) without its trailing NULs. */
static size_t strip_nuls(const char *s, size_t n)
{
	while (n > 0 && s[n - 1] == '\0')
		n--;
	return n;
}

static char *read_cmdline(struct procinfo *pi, unsigned pid)
{
	/* Read 3 bytes past the cap, so that a character the cap cuts is
	 * there whole and the cut goes before it (utf8_trim), not into it. */
	char buf[PROCESS_CMDLINE_MAX + 4];
	ssize_t r = read_pid_file(pi, pid, "cmdline", buf, sizeof(buf));
	if (r <= 0)
		return NULL; /* kernel threads and zombies have none */
	size_t n = strip_nuls(buf, (size_t)r);
	if (n > PROCESS_CMDLINE_MAX)
		n = strip_nuls(buf, utf8_trim(buf, n, PROCESS_CMDLINE_MAX));
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return xstrdup(buf);
}

int procinfo_nspid(const char *buf, size_t len, uint64_t *inner)
{
	struct kvparse_iter it;
	struct kvparse_kv kv;
	struct kvparse_cur c;
	uint64_t v = 0;
	unsigned n = 0;

	kvparse_iter_init(&it, buf, len);
	while (kvparse_next(&it, ':', &kv)) {
		if (!kvparse_key_is(&kv, "NSpid"))
			continue;
		kvparse_cur_init(&c, kv.val, kv.vlen);
		while (kvparse_field_u64(&c, PROCINFO_PID_MAX, &v))
			if (++n > PROCINFO_NSPID_MAX)
				return -EINVAL;
		const char *rest;
		size_t rlen;
		if (n == 0 || kvparse_field(&c, &rest, &rlen))
			return -EINVAL; /* empty, or something that is not a pid */
		if (n == 1)
			return 0;
		*inner = v;
		return 1;
	}
	return -ENOENT;
}

/* Reads the real uid from /proc/PID/status, and the innermost NSpid when the
 * process is in a deeper pid namespace. */
static bool read_status(struct procinfo *pi, unsigned pid, unsigned *uid, struct entry *e)
{
	char buf[16384]; /* NSpid follows Groups:, which is long with hundreds of groups */
	struct kvparse_iter it;
	struct kvparse_kv kv;
	struct kvparse_cur c;
	uint64_t v;
	bool have_uid = false;

	ssize_t r = read_pid_file(pi, pid, "status", buf, sizeof(buf));
	if (r <= 0)
		return false;
	size_t len = kvparse_complete(buf, (size_t)r, sizeof(buf));
	kvparse_iter_init(&it, buf, len);
	while (kvparse_next(&it, ':', &kv)) {
		if (kvparse_key_is(&kv, "Uid")) {
			/* Of "Uid:\treal\teffective\tsaved\tfs", take the real one. */
			kvparse_cur_init(&c, kv.val, kv.vlen);
			if (kvparse_field_u64(&c, UINT_MAX, &v)) {
				*uid = (unsigned)v;
				have_uid = true;
			}
			break;
		}
	}
	e->att.have_cpid = procinfo_nspid(buf, len, &e->att.container_pid) == 1;
	return have_uid;
}

static char *dup_known(const char *s)
{
	return s[0] ? xstrdup(s) : NULL;
}

/* Sets *dst to src when src is a name and differs; a known name is never
 * forgotten. */
static void set_name(char **dst, const char *src)
{
	if (!src[0] || (*dst && strcmp(*dst, src) == 0))
		return;
	free(*dst);
	*dst = xstrdup(src);
}

/* Reads the container's and pod's names from the node's files (cnames.h),
 * whose cache reads them once per container. A process whose container still
 * lacks a name it could have asks the cache again at every poll. That is a
 * lookup in memory, and the files are read again only as the cache allows.
 * So every process of one container shows the same names, and a name that
 * appears late, such as a kubelet log link or a config written after the
 * process started, reaches the processes seen before it. A Kubernetes
 * container under the cgroupfs driver (CGROUP_RT_CRI) is "k8s:<12 hex>" until
 * the node's own files name its runtime. The first time, the directory that
 * Docker, containerd or CRI-O keeps for its id (cnames_cri_runtime) makes it
 * "docker:", "containerd:" or "crio:". With no such directory it stays
 * "k8s:", never a guess, and its names still come from the kubelet's log
 * links and pod directories. */
static void read_names(struct procinfo *pi, struct entry *e)
{
	/* The record's runtime for the one cnames found. */
	static const enum cgroup_runtime FOUND[] = {
		[CNAMES_DOCKER] = CGROUP_RT_DOCKER, [CNAMES_PODMAN] = CGROUP_RT_PODMAN,
		[CNAMES_CONTAINERD] = CGROUP_RT_CONTAINERD, [CNAMES_CRIO] = CGROUP_RT_CRIO,
		[CNAMES_OTHER] = CGROUP_RT_CRI,
	};
	enum cnames_runtime rt;
	struct cnames_result r;

	if (!pi->names || !e->att.cgroup_id)
		return;
	switch (e->att.runtime) {
	case CGROUP_RT_DOCKER: rt = CNAMES_DOCKER; break;
	case CGROUP_RT_PODMAN: rt = CNAMES_PODMAN; break;
	case CGROUP_RT_CONTAINERD: rt = CNAMES_CONTAINERD; break;
	case CGROUP_RT_CRIO: rt = CNAMES_CRIO; break;
	case CGROUP_RT_CRI:
		/* When asked again, reuse the runtime that the first look found. */
		if (e->att.names_rt_known) {
			rt = (enum cnames_runtime)e->att.names_rt;
			break;
		}
		rt = cnames_cri_runtime(pi->names, e->att.cgroup_id);
		e->att.names_rt = (unsigned char)rt;
		e->att.names_rt_known = true;
		if (rt != CNAMES_OTHER) {
			char c[32];
			snprintf(c, sizeof(c), "%s:%.12s", cgroup_runtime_name(FOUND[rt]), e->att.cgroup_id);
			free(e->att.container);
			e->att.container = xstrdup(c);
		}
		break;
	default: return; /* lxc, nspawn and Slurm jobs are named by their paths */
	}
	if (cnames_lookup(pi->names, rt, e->att.cgroup_id, e->att.pod, e->att.owner_uid, pi->now_ns / 1000000u, &r) != 0) {
		e->att.names_pending = false;
		return;
	}
	set_name(&e->att.container_name, r.container_name);
	set_name(&e->att.pod_name, r.pod_name);
	set_name(&e->att.pod_namespace, r.pod_namespace);
	e->att.names_pending = !e->att.container_name || (e->att.pod && (!e->att.pod_name || !e->att.pod_namespace));
}

/* Reads /proc/PID/cgroup once per process (cgroup.h). */
static void read_cgroup(struct procinfo *pi, unsigned pid, struct entry *e)
{
	/* Ten v1 hierarchies of a nested path fit many times over. */
	char buf[16384];
	struct cgroup_info ci;

	pi->cgroup_reads++;
	ssize_t r = read_pid_file(pi, pid, "cgroup", buf, sizeof(buf));
	if (r <= 0 || cgroup_parse(buf, kvparse_complete(buf, (size_t)r, sizeof(buf)), &ci) != 0)
		return;
	e->att.runtime = ci.runtime;
	e->att.owner_uid = ci.owner_uid;
	e->att.container = dup_known(ci.container);
	e->att.pod = dup_known(ci.pod);
	e->att.unit = dup_known(ci.unit);
	e->att.cgroup_path = dup_known(ci.path);
	e->att.cgroup_id = dup_known(ci.id);
	read_names(pi, e);
}

static void walk_tree(struct procinfo *pi, struct entry *e, unsigned ppid)
{
	struct proctree_node nodes[PROCTREE_MAX];

	pi->tree_walks++;
	e->ppid = ppid;
	e->have_tree = true;
	/* A container's init, pid 1 in a PID namespace of its own, ends its
	 * tree. What is above it, a shim or the runtime, is the host's. */
	e->ntree = e->att.have_cpid && e->att.container_pid == 1 ? 0
							   : proctree_walk(pi->rootfd, pi->root, ppid, nodes, PROCTREE_MAX);
	free(e->tree);
	e->tree = NULL;
	if (e->ntree) {
		e->tree = xmalloc(e->ntree * sizeof(*e->tree));
		memcpy(e->tree, nodes, e->ntree * sizeof(*e->tree));
	}
}

/* Whether a known entry can stand for this poll without a full read. It can
 * when its figures are recent enough or not wanted fresh, or when a quick
 * sample of the CPU clock and a held statm keeps them up to date. */
static bool recent_enough(struct procinfo *pi, struct entry *e, unsigned pid)
{
	if (e->gone || !e->name || pi->tree_refresh)
		return false;
	/* A known process with a CPU rate is sampled at most once per
	 * PROCINFO_MIN_SAMPLE_NS, and faster polls show its last CPU % and
	 * RSS. A CPU % over 0.1 s is noise, and /proc costs the kernel more
	 * than anything else here. The second sample, which gives the first
	 * rate, is always taken. */
	if (e->cpu_valid && pi->now_ns >= e->cpu_ns && pi->now_ns - e->cpu_ns < PROCINFO_MIN_SAMPLE_NS)
		return true;
	/* An idle process on gpur's own procfs, whose held statm proved it
	 * alive at its last sample, is sampled every 2 s (procinfo_priv.h).
	 * One that exits meanwhile shows its held 0 % until the next sample
	 * or until the GPU's lists drop it and its entry is swept. */
	if (e->cpu_valid && e->statmfd >= 0 && e->idle_runs >= PROCINFO_IDLE_RUNS && pi->now_ns >= e->cpu_ns &&
	    pi->now_ns - e->cpu_ns < PROCINFO_IDLE_SAMPLE_NS)
		return true;
	/* A process that is not wanted fresh, being off the dashboard's screen
	 * with nothing else reading, and that has a rate already keeps its
	 * last figures (pidwant.h). */
	if (e->cpu_valid && pi->nsnap >= 0 && !pidwant_has(pi->snap, pi->nsnap, pid))
		return true;
	if (e->have_cpu && e->statmfd >= 0 && pi->now_ns >= e->full_ns && pi->now_ns - e->full_ns < PROCINFO_FULL_NS &&
	    (pi->no_tree || procinfo_parent_alive(pi, e->ppid))) {
		if (procinfo_quick_sample(pi, e))
			return true;
		drop_statmfd(pi, e); /* most likely gone, which the stat read below tells */
	}
	return false;
}

/* The entry of pid, or a new one when there is none. */
static struct entry *entry_get(struct procinfo *pi, unsigned pid)
{
	struct entry **head = &pi->tab[pid % PROCINFO_BUCKETS], *e;

	for (e = *head; e; e = e->next)
		if (e->pid == pid)
			return e;
	e = xcalloc(1, sizeof(*e));
	e->pid = pid;
	e->statfd = -1;
	e->statmfd = -1;
	e->next = *head;
	*head = e;
	pi->count++;
	return e;
}

/* Forgets all of e except a descriptor just opened on the pid's process,
 * because the process has gone or the pid names another process now. */
static void entry_forget(struct procinfo *pi, struct entry *e, bool keep_stat)
{
	if (!keep_stat)
		drop_statfd(pi, e);
	drop_statmfd(pi, e);
	entry_drop_strings(e);
	struct entry *next = e->next;
	unsigned pid = e->pid;
	int fd = e->statfd;
	memset(e, 0, sizeof(*e));
	e->next = next;
	e->pid = pid;
	e->statfd = fd;
	e->statmfd = -1;
}

/* What a process keeps for life, read once: its name, command line, user,
 * attribution and start time. */
static void read_once(struct procinfo *pi, struct entry *e, const char *comm, uint64_t start)
{
	unsigned uid;

	e->gone = false;
	e->name = xstrdup(comm);
	e->cmdline = read_cmdline(pi, e->pid);
	if (read_status(pi, e->pid, &uid, e))
		e->user = xstrdup(user_name(pi, uid));
	read_cgroup(pi, e->pid, e);
	e->have_start = pi->have_btime && pidstart_ms(start, pi->ticks, pi->btime_ms, &e->start_ms);
}

/* Takes the figures of a full read: CPU, from the clock when by_clk and else
 * from the ticks of stat, and RSS in pages. Then, when the clock works and
 * the descriptor bound allows, it holds statm open for the quick samples
 * between full reads. */
static void take_sample(struct procinfo *pi, struct entry *e, bool by_clk, uint64_t clk_ns, uint64_t ticks,
			uint64_t rss_pages)
{
	if (!by_clk && e->have_clk) {
		/* The clock failed where it had worked. A rate from ticks would
		 * mix two sources, so start the rate afresh. */
		e->have_clk = false;
		e->have_cpu = false;
	}
	procinfo_cpu_sample(pi, e, by_clk ? clk_ns : ticks * (1000000000u / (uint64_t)pi->ticks));
	e->rss = rss_pages * (uint64_t)pi->page;
	e->rss_valid = true;
	e->full_ns = e->rss_ns = pi->now_ns;
	if (by_clk && e->statmfd < 0 && e->statfd >= 0 && pi->nfds < pi->max_fds) {
		char rel[48];
		pid_path(rel, sizeof(rel), e->pid, "statm");
		e->statmfd = openat(pi->rootfd, rel, O_RDONLY | O_CLOEXEC);
		if (e->statmfd >= 0)
			pi->nfds++;
	}
}

static struct entry *refresh(struct procinfo *pi, unsigned pid)
{
	struct entry *e = entry_get(pi, pid);
	char comm[64];
	uint64_t cpu, start, rss;
	unsigned ppid = 0;

	if (e->gen == pi->gen && (e->name || e->gone)) /* read this poll already */
		return e->gone ? NULL : e;
	if (recent_enough(pi, e, pid)) {
		e->gen = pi->gen;
		return e;
	}
	/* Read the clock before stat, so that stat proves whose time it was. */
	uint64_t clk_ns = 0;
	bool by_clk = pi->own && procinfo_read_clock(e, pid, &clk_ns);
	bool ok = read_stat(pi, e, pid, comm, sizeof(comm), &cpu, &start, &rss, &ppid);
	if (!ok || (e->name && e->start_ticks != start)) {
		entry_forget(pi, e, ok);
		/* The clock read before may have been the old process's. */
		by_clk = ok && pi->own && procinfo_read_clock(e, pid, &clk_ns);
	}
	e->gen = pi->gen;
	if (!ok) {
		e->gone = true;
		return NULL;
	}
	e->start_ticks = start;
	if (!e->name)
		read_once(pi, e, comm, start);
	if (!pi->no_tree && (!e->have_tree || e->ppid != ppid))
		walk_tree(pi, e, ppid);
	take_sample(pi, e, by_clk, clk_ns, cpu, rss);
	return e;
}

bool procinfo_fill(struct procinfo *pi, unsigned pid, struct frame *f, struct gpu_process *p)
{
	struct entry *e = refresh(pi, pid);

	if (!e)
		return false;
	if (e->att.names_pending)
		read_names(pi, e);
	p->name = frame_str(f, e->name);
	process_set(p, PROC_F_NAME);
	if (e->cmdline) {
		p->cmdline = frame_str(f, e->cmdline);
		process_set(p, PROC_F_CMDLINE);
	}
	if (e->user) {
		p->user = frame_str(f, e->user);
		process_set(p, PROC_F_USER);
	}
	if (e->att.container) {
		p->container = frame_str(f, e->att.container);
		process_set(p, PROC_F_CONTAINER);
	}
	if (e->att.pod) {
		p->pod = frame_str(f, e->att.pod);
		process_set(p, PROC_F_POD);
	}
	if (e->att.container_name) {
		p->container_name = frame_str(f, e->att.container_name);
		process_set(p, PROC_F_CONTAINER_NAME);
	}
	if (e->att.pod_name) {
		p->pod_name = frame_str(f, e->att.pod_name);
		process_set(p, PROC_F_POD_NAME);
	}
	if (e->att.pod_namespace) {
		p->pod_namespace = frame_str(f, e->att.pod_namespace);
		process_set(p, PROC_F_POD_NAMESPACE);
	}
	if (e->att.unit) {
		p->unit = frame_str(f, e->att.unit);
		process_set(p, PROC_F_UNIT);
	}
	if (e->att.cgroup_path)
		p->cgroup_path = frame_str(f, e->att.cgroup_path);
	if (e->att.have_cpid) {
		p->container_pid = e->att.container_pid;
		process_set(p, PROC_F_CONTAINER_PID);
	}
	if (e->have_start) {
		p->start_ms = e->start_ms;
		process_set(p, PROC_F_START);
	}
	p->start_ticks = e->start_ticks;
	/* Parents only while something shows the tree: a chain walked before
	 * is not copied into every frame for nothing. */
	if (e->ntree && !pi->no_tree) {
		struct process_parent pp[PROCTREE_MAX];
		for (size_t i = 0; i < e->ntree; i++) {
			pp[i].pid = e->tree[i].pid;
			pp[i].name = e->tree[i].name_known ? e->tree[i].name : NULL;
		}
		frame_set_parents(f, p, pp, e->ntree);
	}
	if (e->cpu_valid) {
		p->cpu_pct = e->cpu_pct;
		process_set(p, PROC_F_CPU);
	}
	if (e->rss_valid) {
		p->host_mem_bytes = e->rss;
		process_set(p, PROC_F_HOST_MEM);
	}
	return true;
}

unsigned long procinfo_name_reads(const struct procinfo *pi)
{
	return pi->names ? cnames_reads(pi->names) : 0;
}
