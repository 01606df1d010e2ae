/* fdinfo_tree: see fdinfo_tree.h. */
#include "fdinfo_tree.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"



struct ft_tree *ft_make(void)
{
	struct ft_tree *t = calloc(1, sizeof(*t));
	t->root = testutil_tmpdir();
	t->proc = testutil_path(t->root, "proc");
	mkdir(t->proc, 0755);
	t->mtime = 1000;
	return t;
}

void ft_free(struct ft_tree *t)
{
	testutil_rmtree(t->root);
	free(t->root);
	free(t->proc);
	free(t);
}

static void ft_write_rel(struct ft_tree *t, const char *rel, const char *s)
{
	char *p = testutil_path(t->proc, rel);
	testutil_write_str(p, s);
	free(p);
}

/* A process: PID/stat with starttime (field 22), PID/cmdline, empty fd/
 * and fdinfo/. */
void ft_proc(struct ft_tree *t, unsigned pid, unsigned long long start, const char *cmdline)
{
	char rel[64], buf[512];
	snprintf(rel, sizeof(rel), "%u", pid);
	char *dir = testutil_path(t->proc, rel);
	mkdir(dir, 0755);
	free(dir);
	snprintf(rel, sizeof(rel), "%u/fd", pid);
	dir = testutil_path(t->proc, rel);
	mkdir(dir, 0755);
	free(dir);
	snprintf(rel, sizeof(rel), "%u/fdinfo", pid);
	dir = testutil_path(t->proc, rel);
	mkdir(dir, 0755);
	free(dir);
	snprintf(buf, sizeof(buf), "%u (p) S 1 %u %u 0 -1 4194560 100 0 0 0 5 5 0 0 20 0 1 0 %llu 123456 10 184467 0 0 0\n",
		 pid, pid, pid, start);
	snprintf(rel, sizeof(rel), "%u/stat", pid);
	ft_write_rel(t, rel, buf);
	snprintf(rel, sizeof(rel), "%u/cmdline", pid);
	char *p = testutil_path(t->proc, rel);
	testutil_write_file(p, cmdline, strlen(cmdline) + 1);
	free(p);
}

/* On a real procfs a change of a process's fd table shows as another size
 * of /proc/PID/fd (its fd count, Linux >= 6.2); a fixture directory's
 * size need not change, and its mtime moves in clock ticks. Each change
 * here gives the directory an mtime of its own instead. */
void ft_touch_fd_dir(struct ft_tree *t, unsigned pid)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "%u/fd", pid);
	char *p = testutil_path(t->proc, rel);
	struct timespec ts[2] = {{t->mtime, 0}, {t->mtime, 0}};
	t->mtime++;
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
}

void ft_set_fdinfo(struct ft_tree *t, unsigned pid, int fd, const char *text)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "%u/fdinfo/%d", pid, fd);
	ft_write_rel(t, rel, text);
}

/* fd N → target (a real symlink), with its fdinfo text (NULL: none). */
void ft_fd(struct ft_tree *t, unsigned pid, int fd, const char *target, const char *fdinfo)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "%u/fd/%d", pid, fd);
	char *p = testutil_path(t->proc, rel);
	unlink(p);
	assert_int_equal(symlink(target, p), 0);
	free(p);
	if (fdinfo)
		ft_set_fdinfo(t, pid, fd, fdinfo);
	ft_touch_fd_dir(t, pid);
}

void ft_rm_proc(struct ft_tree *t, unsigned pid)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "%u", pid);
	char *p = testutil_path(t->proc, rel);
	testutil_rmtree(p);
	free(p);
}

const struct fdinfo_engine *ft_engine(const struct fdinfo_client *c, const char *name)
{
	for (size_t i = 0; i < c->nengines; i++)
		if (strcmp(c->engines[i].name, name) == 0)
			return &c->engines[i];
	fail_msg("no engine %s", name);
	return NULL;
}

const struct fdinfo_region *ft_region(const struct fdinfo_client *c, const char *name)
{
	for (size_t i = 0; i < c->nregions; i++)
		if (strcmp(c->regions[i].name, name) == 0)
			return &c->regions[i];
	fail_msg("no region %s", name);
	return NULL;
}

void ft_assert_pct(const struct fdinfo_client *c, const char *name, double want)
{
	const struct fdinfo_engine *e = ft_engine(c, name);
	if (!e->known)
		fail_msg("%s unknown, want %.2f", name, want);
	if ((double)e->pct < want - 0.01 || (double)e->pct > want + 0.01)
		fail_msg("%s is %.4Lf %%, want %.2f", name, e->pct, want);
}

void ft_assert_unknown(const struct fdinfo_client *c, const char *name)
{
	assert_false(ft_engine(c, name)->known);
}

/* Sweeps at now (never reusing) and returns the one client expected. */
struct fdinfo_client ft_one(struct fdinfo *e, uint64_t now)
{
	struct fdinfo_client c;
	assert_int_equal(fdinfo_sweep(e, now, 0), 0);
	assert_int_equal(fdinfo_clients(e, NULL, NULL, &c, 1), 1);
	return c;
}

char *ft_amd64(unsigned long long gfx, unsigned long long dma)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf),
		 "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t77\n"
		 "pasid:\t32791\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t4187\n"
		 "drm-memory-vram:\t2154500 KiB\ndrm-memory-gtt: \t46356 KiB\ndrm-memory-cpu: \t0 KiB\n"
		 "amd-requested-vram:\t2162692 KiB\n"
		 "drm-engine-gfx:\t%llu ns\ndrm-engine-compute:\t4021771 ns\ndrm-engine-dma:\t%llu ns\n",
		 gfx, dma);
	return buf;
}
