/* fdinfo: what the DRM fdinfo engine costs per poll on a host with many
 * processes (issue 10). It writes a procfs tree of N processes × F fds
 * (real symlinks; D of the processes DRM clients, amdgpu 6.13+ fdinfo)
 * under a temporary directory, then reports CPU µs per poll for
 *   - the engine's first sweep and its later sweeps (the default round-robin
 *     re-listing of unchanged processes included), and
 *   - a plain C loop doing the naive full walk of the same tree: readdir of
 *     every /proc/PID/fd, readlink of every fd, read of every DRM fdinfo.
 * and the later sweeps again without the round-robin (the cache's floor).
 * Usage: fdinfo [N F D POLLS] (default 2000 64 50 32); exits 1 when later
 * sweeps cost more than a tenth of the naive walk. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "drm/fdinfo.h"

static double cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void mk(const char *path)
{
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
}

static const char *const TARGETS[] = {"/dev/null", "pipe:[4242]", "socket:[9191]", "/usr/lib/x86_64-linux-gnu/libc.so.6",
				      "anon_inode:[eventfd]", "/var/log/app.log"};

static void make_tree(const char *proc, unsigned n, unsigned fds, unsigned drm)
{
	char path[512], text[2048];
	unsigned every = drm ? n / drm : 0;

	if (strlen(proc) > 256) {
		fprintf(stderr, "%s: path too long\n", proc);
		exit(2);
	}
	mk(proc);
	for (unsigned i = 0; i < n; i++) {
		unsigned pid = 1000 + i;
		bool is_drm = every && i % every == 0 && i / every < drm;
		snprintf(path, sizeof(path), "%s/%u", proc, pid);
		mk(path);
		snprintf(path, sizeof(path), "%s/%u/fd", proc, pid);
		mk(path);
		snprintf(path, sizeof(path), "%s/%u/fdinfo", proc, pid);
		mk(path);
		snprintf(path, sizeof(path), "%s/%u/stat", proc, pid);
		snprintf(text, sizeof(text), "%u (p%u) S 1 %u %u 0 -1 4194560 1 0 0 0 5 5 0 0 20 0 1 0 %u 1 1 1 0 0 0\n", pid,
			 pid, pid, pid, 100 + i);
		put(path, text);
		snprintf(path, sizeof(path), "%s/%u/cmdline", proc, pid);
		put(path, "/usr/bin/app");
		for (unsigned fd = 0; fd < fds; fd++) {
			snprintf(path, sizeof(path), "%s/%u/fd/%u", proc, pid, fd);
			const char *target = is_drm && fd == fds / 2 ? "/dev/dri/renderD128" : TARGETS[fd % 6];
			if (symlink(target, path) != 0) {
				perror(path);
				exit(1);
			}
			snprintf(path, sizeof(path), "%s/%u/fdinfo/%u", proc, pid, fd);
			if (is_drm && fd == fds / 2)
				snprintf(text, sizeof(text),
					 "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t9\n"
					 "drm-driver:\tamdgpu\ndrm-client-id:\t%u\ndrm-pdev:\t0000:03:00.0\npasid:\t32791\n"
					 "drm-total-gtt:\t46356 KiB\ndrm-shared-gtt:\t8196 KiB\ndrm-resident-gtt:\t46356 KiB\n"
					 "drm-purgeable-gtt:\t0\ndrm-total-vram:\t2162692 KiB\ndrm-shared-vram:\t33796 KiB\n"
					 "drm-resident-vram:\t2154500 KiB\ndrm-purgeable-vram:\t0\n"
					 "drm-memory-vram:\t2154500 KiB\ndrm-memory-gtt: \t46356 KiB\n"
					 "drm-engine-gfx:\t38124561233 ns\ndrm-engine-dma:\t182330112 ns\n",
					 4000 + i);
			else
				snprintf(text, sizeof(text), "pos:\t0\nflags:\t02\nmnt_id:\t23\nino:\t%u\n", fd);
			put(path, text);
		}
	}
}

/* The naive walk: every fd directory, every link, every DRM fdinfo. */
static unsigned naive_walk(const char *proc)
{
	char path[4200], target[256], buf[16384];
	unsigned found = 0;
	DIR *d = opendir(proc);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/fd", proc, de->d_name);
		DIR *fd = opendir(path);
		struct dirent *fe;
		while (fd && (fe = readdir(fd))) {
			if (fe->d_name[0] == '.')
				continue;
			ssize_t l = readlinkat(dirfd(fd), fe->d_name, target, sizeof(target));
			if (l <= 0 || strncmp(target, "/dev/dri/", 9) != 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s/fdinfo/%s", proc, de->d_name, fe->d_name);
			int f = open(path, O_RDONLY | O_CLOEXEC);
			if (f >= 0) {
				found += read(f, buf, sizeof(buf)) > 0 && strstr(buf, "drm-driver") != NULL;
				close(f);
			}
		}
		if (fd)
			closedir(fd);
	}
	if (d)
		closedir(d);
	return found;
}

static void rmtree(const char *root)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 2000, fds = argc > 2 ? (unsigned)atoi(argv[2]) : 64;
	unsigned drm = argc > 3 ? (unsigned)atoi(argv[3]) : 50, polls = argc > 4 ? (unsigned)atoi(argv[4]) : 32;
	char root[] = "/tmp/gpur-bench-fdinfo-XXXXXX", proc[256];

	if (n == 0 || fds < 2 || drm > n || polls < 2 || !mkdtemp(root)) {
		fprintf(stderr, "usage: fdinfo [PROCS FDS DRM POLLS]\n");
		return 2;
	}
	snprintf(proc, sizeof(proc), "%s/proc", root);
	make_tree(proc, n, fds, drm);
	printf("tree: %u processes x %u fds, %u DRM clients (%s)\n", n, fds, drm, proc);

	/* Warm the dentry cache for both contenders alike. */
	naive_walk(proc);
	double t0 = cpu_us();
	unsigned found = 0;
	for (unsigned i = 0; i < polls; i++)
		found = naive_walk(proc);
	double naive = (cpu_us() - t0) / polls;

	struct fdinfo *e = fdinfo_acquire(proc);
	struct fdinfo_stats st, sum = {0};
	t0 = cpu_us();
	fdinfo_sweep(e, 1000000000ull, 0);
	double first = cpu_us() - t0;
	fdinfo_last_stats(e, &st);
	printf("first sweep:  %9.0f us CPU  (%llu fd dirs, %llu links, %llu fdinfo, %llu clients)\n", first,
	       (unsigned long long)st.fd_dirs_read, (unsigned long long)st.links_read,
	       (unsigned long long)st.fdinfo_read, (unsigned long long)st.clients);
	t0 = cpu_us();
	for (unsigned i = 1; i <= polls; i++) {
		fdinfo_sweep(e, (1 + i) * 1000000000ull, 0);
		fdinfo_last_stats(e, &st);
		sum.fd_dirs_read += st.fd_dirs_read;
		sum.links_read += st.links_read;
		sum.fdinfo_read += st.fdinfo_read;
		sum.stat_read += st.stat_read;
	}
	double later = (cpu_us() - t0) / polls;
	printf("later sweeps: %9.0f us CPU  (per sweep: %.1f fd dirs, %.0f links, %.0f fdinfo, %.0f stat; %llu clients)\n",
	       later, (double)sum.fd_dirs_read / polls, (double)sum.links_read / polls,
	       (double)sum.fdinfo_read / polls, (double)sum.stat_read / polls, (unsigned long long)st.clients);
	/* The floor: no round-robin re-listing, only what the cache needs. */
	fdinfo_set_rescan(e, 0);
	t0 = cpu_us();
	for (unsigned i = 1; i <= polls; i++)
		fdinfo_sweep(e, (100 + i) * 1000000000ull, 0);
	double floor_us = (cpu_us() - t0) / polls;
	fdinfo_last_stats(e, &st);
	printf("  no rescan:  %9.0f us CPU  (per sweep: %llu fd dirs, %llu links, %llu fdinfo, %llu stat)\n", floor_us,
	       (unsigned long long)st.fd_dirs_read, (unsigned long long)st.links_read,
	       (unsigned long long)st.fdinfo_read, (unsigned long long)st.stat_read);
	printf("naive walk:   %9.0f us CPU  (%u clients)\n", naive, found);
	printf("later / naive: %.3f (must be <= 0.100)\n", later / naive);
	fdinfo_release(e);
	rmtree(root);
	return later / naive <= 0.1 ? 0 : 1;
}
