/* fdinfo_scan: one /proc sweep for DRM clients, with a per-(pid, start)
 * cache of DRM fd numbers (see fdinfo_scan.h and docs/drm-fdinfo.md).
 *
 * A known process costs one fstatat of /proc/PID/fd per sweep. A known DRM
 * process also costs one read of /proc/PID/stat, to detect pid reuse, and
 * one of each of its DRM fds' fdinfo. Its fd directory is listed, with a
 * readdir and a readlink of each entry, only when the process is new, its fd
 * directory's identity changed, a DRM fd it knew is gone or no longer a DRM
 * client, or on its round-robin turn. */
#include "drm/fdinfo_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/pidstart.h"
#include "util/kvparse.h"
#include "util/readfile.h"
#include "util/xalloc.h"

#define SCAN_PID_MAX 4194304u /* the kernel's PID_MAX_LIMIT */

struct pent {
	struct pent *next;
	unsigned pid;
	uint64_t start_ticks;
	uint64_t gen; /* sweep that last saw it, or 0 to drop it */
	/* The identity of /proc/PID/fd when it was last listed. */
	ino_t fd_ino;
	off_t fd_size;
	struct timespec fd_mtime;
	int *drm; /* DRM fd numbers, ascending */
	unsigned ndrm;
	signed char service; /* -1 when not read yet */
};

struct fdinfo_scan {
	char *root;
	int rootfd;
	struct pent **tab;
	size_t nbuckets, count;
	uint64_t gen;
	unsigned every;
	struct fdinfo_scan_hit *hits;
	size_t nhits, hcap;
	char buf[FDINFO_SCAN_FDINFO_MAX];
	int fds[FDINFO_SCAN_MAX_DRM_FDS];
};

struct fdinfo_scan *fdinfo_scan_new(const char *procfs)
{
	struct fdinfo_scan *s = xcalloc(1, sizeof(*s));

	s->root = xstrdup(procfs);
	s->rootfd = readfile_opendir(procfs);
	s->nbuckets = 1024;
	s->tab = xcalloc(s->nbuckets, sizeof(*s->tab));
	s->every = FDINFO_SCAN_RESCAN_DEFAULT;
	return s;
}

static void pent_free(struct pent *e)
{
	free(e->drm);
	free(e);
}

void fdinfo_scan_free(struct fdinfo_scan *s)
{
	if (!s)
		return;
	for (size_t b = 0; b < s->nbuckets; b++)
		for (struct pent *e = s->tab[b], *next; e; e = next) {
			next = e->next;
			pent_free(e);
		}
	if (s->rootfd >= 0)
		close(s->rootfd);
	free(s->tab);
	free(s->hits);
	free(s->root);
	free(s);
}

void fdinfo_scan_set_rescan(struct fdinfo_scan *s, unsigned every)
{
	s->every = every;
}

static struct pent *lookup(struct fdinfo_scan *s, unsigned pid)
{
	for (struct pent *e = s->tab[pid & (s->nbuckets - 1)]; e; e = e->next)
		if (e->pid == pid)
			return e;
	return NULL;
}

static void grow(struct fdinfo_scan *s)
{
	size_t nb = s->nbuckets * 2;
	struct pent **tab = xcalloc(nb, sizeof(*tab));

	for (size_t b = 0; b < s->nbuckets; b++)
		for (struct pent *e = s->tab[b], *next; e; e = next) {
			next = e->next;
			e->next = tab[e->pid & (nb - 1)];
			tab[e->pid & (nb - 1)] = e;
		}
	free(s->tab);
	s->tab = tab;
	s->nbuckets = nb;
}

static struct pent *insert(struct fdinfo_scan *s, unsigned pid)
{
	if (s->count >= s->nbuckets)
		grow(s);
	struct pent *e = xcalloc(1, sizeof(*e));
	e->pid = pid;
	e->service = -1;
	e->next = s->tab[pid & (s->nbuckets - 1)];
	s->tab[pid & (s->nbuckets - 1)] = e;
	s->count++;
	return e;
}

/* Forgets the processes this sweep did not see, which are gone or
 * unreadable. */
static void drop_unseen(struct fdinfo_scan *s)
{
	for (size_t b = 0; b < s->nbuckets; b++)
		for (struct pent **pp = &s->tab[b]; *pp;) {
			struct pent *e = *pp;
			if (e->gen == s->gen) {
				pp = &e->next;
				continue;
			}
			*pp = e->next;
			pent_free(e);
			s->count--;
		}
}

/* A link target naming a DRM device node: /dev/dri/renderDN or cardN. */
static bool drm_target(const char *t, size_t n)
{
	static const char *const PREFIXES[] = {"/dev/dri/renderD", "/dev/dri/card"};

	for (size_t i = 0; i < 2; i++) {
		size_t pl = strlen(PREFIXES[i]);
		if (n > pl && memcmp(t, PREFIXES[i], pl) == 0 && t[pl] >= '0' && t[pl] <= '9')
			return true;
	}
	return false;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Lists /proc/PID/fd to find which of its fds are DRM device files, looking
 * at most at FDINFO_SCAN_MAX_LINKS of them. An unreadable directory has
 * none. */
static void list_fds(struct fdinfo_scan *s, struct pent *e, struct fdinfo_stats *st)
{
	char rel[32], target[64];
	unsigned n = 0, links = 0;

	e->ndrm = 0;
	snprintf(rel, sizeof(rel), "%u/fd", e->pid);
	int dfd = openat(s->rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	st->fd_dirs_read++;
	struct dirent *de;
	while ((de = readdir(d))) {
		uint64_t fd;
		size_t nl = strlen(de->d_name);
		if (kvparse_u64(de->d_name, nl, INT_MAX, &fd) != (ssize_t)nl)
			continue;
		if (links == FDINFO_SCAN_MAX_LINKS) {
			st->dropped++;
			break;
		}
		links++;
		st->links_read++;
		ssize_t l = readlinkat(dfd, de->d_name, target, sizeof(target));
		if (l <= 0 || !drm_target(target, (size_t)l))
			continue;
		if (n == FDINFO_SCAN_MAX_DRM_FDS) {
			st->dropped++;
			continue;
		}
		s->fds[n++] = (int)fd;
	}
	closedir(d);
	qsort(s->fds, n, sizeof(s->fds[0]), cmp_int);
	e->drm = xreallocarray(e->drm, n ? n : 1, sizeof(*e->drm));
	memcpy(e->drm, s->fds, n * sizeof(*e->drm));
	e->ndrm = n;
}

static void drop_fd(struct pent *e, unsigned i)
{
	memmove(&e->drm[i], &e->drm[i + 1], (e->ndrm - i - 1) * sizeof(*e->drm));
	e->ndrm--;
}

/* Whether the process is pid 1 or a systemd service, read once per (pid,
 * start). gnome-shell shares its DRM context with systemd, so a client's
 * owner is not simply the first process holding its fd. */
static bool is_service(struct fdinfo_scan *s, struct pent *e, struct fdinfo_stats *st)
{
	char rel[32], buf[64];

	if (e->service < 0) {
		snprintf(rel, sizeof(rel), "%u/cmdline", e->pid);
		st->cmdline_read++;
		ssize_t r = readfile_fd(s->rootfd, rel, buf, sizeof(buf));
		size_t n = r > 0 ? (size_t)r : 0;
		e->service = e->pid == 1 || (n >= 12 && memcmp(buf, "/lib/systemd", 12) == 0) ||
			     (n >= 16 && memcmp(buf, "/usr/lib/systemd", 16) == 0);
	}
	return e->service > 0;
}

static struct fdinfo_scan_hit *hit_slot(struct fdinfo_scan *s, struct fdinfo_stats *st)
{
	if (s->nhits == FDINFO_SCAN_MAX_HITS) {
		st->dropped++;
		return NULL;
	}
	if (s->nhits == s->hcap) {
		s->hcap = s->hcap ? s->hcap * 2 : 64;
		s->hits = xreallocarray(s->hits, s->hcap, sizeof(*s->hits));
	}
	return &s->hits[s->nhits];
}

enum read_result { READ_OK, READ_STALE, READ_GONE };

/* Reads the fdinfo of each DRM fd of e into hits. It returns STALE when a fd
 * it knew is closed or no longer a DRM client; when the directory is listed,
 * such fds are dropped instead. */
static enum read_result read_fds(struct fdinfo_scan *s, struct pent *e, bool listed, struct fdinfo_stats *st)
{
	char rel[48];

	for (unsigned i = 0; i < e->ndrm;) {
		struct fdinfo_scan_hit *h = hit_slot(s, st);
		if (!h)
			return READ_OK;
		snprintf(rel, sizeof(rel), "%u/fdinfo/%d", e->pid, e->drm[i]);
		ssize_t r = readfile_fd(s->rootfd, rel, s->buf, sizeof(s->buf));
		st->fdinfo_read++;
		if (r < 0 && r != -ENOENT)
			return READ_GONE; /* ESRCH and EACCES mean the process went or hid */
		/* A 1 MiB fdinfo is read as its first 16 KiB, less a cut last
		 * line. */
		if (r < 0 || fdinfo_parse(s->buf, kvparse_complete(s->buf, (size_t)r, sizeof(s->buf)), &h->p) != 0) {
			if (!listed)
				return READ_STALE;
			drop_fd(e, i);
			continue;
		}
		h->pid = e->pid;
		h->fd = e->drm[i];
		h->start_ticks = e->start_ticks;
		h->service = is_service(s, e, st);
		s->nhits++;
		i++;
	}
	return READ_OK;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static void scan_pid(struct fdinfo_scan *s, unsigned pid, struct fdinfo_stats *st)
{
	char rel[32];
	struct stat sb;

	snprintf(rel, sizeof(rel), "%u/fd", pid);
	st->fd_dir_stats++;
	if (fstatat(s->rootfd, rel, &sb, 0) != 0)
		return; /* gone, or not ours to see, so left out and forgotten */
	struct pent *e = lookup(s, pid);
	bool fresh = !e;
	if (fresh) {
		if (s->count >= FDINFO_SCAN_MAX_PROCS) {
			st->dropped++;
			return;
		}
		e = insert(s, pid);
	}
	bool changed = fresh || sb.st_ino != e->fd_ino || sb.st_size != e->fd_size ||
		       !same_time(&sb.st_mtim, &e->fd_mtime);
	if (fresh || sb.st_ino != e->fd_ino || e->ndrm) {
		/* A new fd directory may be a new process with the old pid. A DRM
		 * process is checked every sweep, because its rates depend on
		 * it. */
		uint64_t t;
		st->stat_read++;
		if (pidstart_ticks(s->root, pid, &t, NULL) != 0)
			return;
		if (!fresh && t != e->start_ticks) {
			e->ndrm = 0;
			e->service = -1;
			changed = true;
		}
		e->start_ticks = t;
	}
	e->gen = s->gen;
	e->fd_ino = sb.st_ino;
	e->fd_size = sb.st_size;
	e->fd_mtime = sb.st_mtim;
	bool listed = changed || (s->every && (s->gen + pid) % s->every == 0);
	if (listed)
		list_fds(s, e, st);
	size_t first = s->nhits;
	enum read_result r = read_fds(s, e, listed, st);
	if (r == READ_STALE) {
		s->nhits = first;
		list_fds(s, e, st);
		r = read_fds(s, e, true, st);
	}
	if (r == READ_GONE) {
		s->nhits = first;
		e->gen = 0;
	}
}

int fdinfo_scan_sweep(struct fdinfo_scan *s, const struct fdinfo_scan_hit **hits, size_t *nhits,
		      struct fdinfo_stats *st)
{
	memset(st, 0, sizeof(*st));
	*hits = s->hits;
	*nhits = 0;
	s->nhits = 0;
	if (s->rootfd < 0)
		s->rootfd = readfile_opendir(s->root);
	if (s->rootfd < 0)
		return -errno;
	int dfd = openat(s->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	DIR *d = fdopendir(dfd);
	if (!d) {
		int rc = -errno;
		close(dfd);
		return rc;
	}
	s->gen++;
	struct dirent *de;
	while ((de = readdir(d))) {
		uint64_t pid;
		size_t nl = strlen(de->d_name);
		if (kvparse_u64(de->d_name, nl, SCAN_PID_MAX, &pid) != (ssize_t)nl || pid == 0)
			continue;
		st->pids_listed++;
		scan_pid(s, (unsigned)pid, st);
	}
	closedir(d);
	drop_unseen(s);
	*hits = s->hits;
	*nhits = s->nhits;
	return 0;
}
