/* fdinfo_tree: procfs fixture trees for the DRM client engine's unit tests
 * (test_fdinfo*.c): processes with a start time, fd symlinks to a render
 * node with their fdinfo text, and lookups of a client's engines and
 * regions that fail the running cmocka test when absent. */
#ifndef GPUR_TEST_FDINFO_TREE_H
#define GPUR_TEST_FDINFO_TREE_H

#include <stdint.h>

#include "drm/fdinfo.h"

#define SEC 1000000000ull

struct ft_tree {
	char *root, *proc;
	long mtime; /* the next fd directory mtime (see ft_touch_fd_dir) */
};

struct ft_tree *ft_make(void);
void ft_free(struct ft_tree *t);
/* A process: PID/stat with starttime (field 22), PID/cmdline, empty fd/
 * and fdinfo/. */
void ft_proc(struct ft_tree *t, unsigned pid, unsigned long long start, const char *cmdline);
/* On a real procfs a change of a process's fd table shows as another size
 * of /proc/PID/fd (its fd count, Linux >= 6.2); a fixture directory's
 * size need not change, and its mtime moves in clock ticks. Each change
 * here gives the directory an mtime of its own instead. */
void ft_touch_fd_dir(struct ft_tree *t, unsigned pid);
void ft_set_fdinfo(struct ft_tree *t, unsigned pid, int fd, const char *text);
/* fd N → target (a real symlink), with its fdinfo text (NULL: none). */
void ft_fd(struct ft_tree *t, unsigned pid, int fd, const char *target, const char *fdinfo);
void ft_rm_proc(struct ft_tree *t, unsigned pid);
const struct fdinfo_engine *ft_engine(const struct fdinfo_client *c, const char *name);
const struct fdinfo_region *ft_region(const struct fdinfo_client *c, const char *name);
void ft_assert_pct(const struct fdinfo_client *c, const char *name, double want);
void ft_assert_unknown(const struct fdinfo_client *c, const char *name);
/* Sweeps at now (never reusing) and returns the one client expected. */
struct fdinfo_client ft_one(struct fdinfo *e, uint64_t now);
/* An amdgpu client's fdinfo with these gfx and dma busy times (ns); a
 * static buffer, overwritten by the next call. */
char *ft_amd64(unsigned long long gfx, unsigned long long dma);

#endif
