/* procscan: what process details with attribution cost per poll — /proc
 * name, command line, user, start time, CPU %, RSS, cgroup → container /
 * pod / unit, and container names under --rootfs — for N GPU processes,
 * first poll and later polls (docs/benchmarks.md, issue 9). Two sources:
 *   procscan fixture N   a generated procfs tree of N Kubernetes processes
 *                        (each with cgroup, status, cmdline) and a rootfs
 *                        with the kubelet's log links for their names
 *   procscan real N      N real child processes read through the real /proc
 *                        (held /proc/PID/stat descriptors, as gpur does)
 * Prints CPU µs per poll and the files read, so later polls can be seen to
 * read no cgroup or name file for a known process. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/frame.h"
#include "proc/procinfo.h"

static double cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[8400];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

/* N processes 10000.. in pods, with the kubelet's log links for each. */
static void make_fixture(const char *root, unsigned n)
{
	char dir[4096], text[4096], id[65];

	snprintf(dir, sizeof(dir), "%s/proc", root);
	mkdirs(dir);
	put(dir, "stat", "cpu  1 2 3 4 5 6 7 8 9 10\nbtime 1764583200\n");
	snprintf(dir, sizeof(dir), "%s/rootfs/var/log/containers", root);
	mkdirs(dir);
	for (unsigned i = 0; i < n; i++) {
		unsigned pid = 10000 + i;
		snprintf(id, sizeof(id), "%064x", i + 1);
		char uid[37];
		snprintf(uid, sizeof(uid), "%08x-0000-4000-8000-%012x", i / 8, i / 8);
		snprintf(dir, sizeof(dir), "%s/proc/%u", root, pid);
		mkdirs(dir);
		snprintf(text, sizeof(text), "%u (python3) S 1 %u %u 0 -1 4194304 1 0 0 0 %u %u 0 0 20 0 8 0 %u 1000000 %u\n",
			 pid, pid, pid, 100 + i, 50, 1000 + i, 2000 + i);
		put(dir, "stat", text);
		snprintf(text, sizeof(text), "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\nNSpid:\t%u\t%u\n", pid, 1 + i % 8);
		put(dir, "status", text);
		char cmd[128];
		int cl = snprintf(cmd, sizeof(cmd), "python3%c-u%ctrain.py%c--rank=%u", 0, 0, 0, i);
		char path[4200];
		snprintf(path, sizeof(path), "%s/cmdline", dir);
		FILE *f = fopen(path, "w");
		fwrite(cmd, 1, (size_t)cl + 1, f);
		fclose(f);
		char u_[37];
		snprintf(u_, sizeof(u_), "%s", uid);
		for (char *p = u_; *p; p++)
			if (*p == '-')
				*p = '_';
		snprintf(text, sizeof(text),
			 "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope\n",
			 u_, id);
		put(dir, "cgroup", text);
		char link[4200];
		snprintf(link, sizeof(link), "%s/rootfs/var/log/containers/train-%u_research_worker-%s.log", root, i / 8, id);
		put("/", link + 1, "");
	}
}

static void run(const char *proc, const char *rootfs, const unsigned *pids, unsigned n, int polls)
{
	struct procinfo *pi = procinfo_new(proc);
	if (rootfs)
		procinfo_set_rootfs(pi, rootfs);
	struct frame *f = frame_new();
	uint64_t now = 1000000000ull;
	double first = 0, later = 0;
	unsigned long cg_first = 0, cg_later = 0, nm_first = 0, nm_later = 0;
	size_t attributed = 0, named = 0;

	for (int k = 0; k < polls; k++) {
		frame_reset(f);
		unsigned long cg0 = procinfo_cgroup_reads(pi), nm0 = procinfo_name_reads(pi);
		double t0 = cpu_us();
		procinfo_begin(pi, now);
		for (unsigned i = 0; i < n; i++) {
			struct gpu_process *p = frame_add_process(f);
			p->pid = pids[i];
			procinfo_fill(pi, pids[i], f, p);
		}
		procinfo_end(pi);
		double dt = cpu_us() - t0;
		unsigned long dcg = procinfo_cgroup_reads(pi) - cg0, dnm = procinfo_name_reads(pi) - nm0;
		if (k == 0) {
			first = dt;
			cg_first = dcg;
			nm_first = dnm;
			for (size_t i = 0; i < f->nprocs; i++) {
				attributed += process_has(&f->procs[i], PROC_F_CONTAINER) || process_has(&f->procs[i], PROC_F_UNIT);
				named += process_has(&f->procs[i], PROC_F_POD_NAME);
			}
		} else {
			later += dt;
			cg_later += dcg;
			nm_later += dnm;
		}
		now += 1100000000ull; /* past procinfo's 1 s sampling floor: every stat is read again */
	}
	printf("%5u processes: first poll %8.0f us (%lu cgroup reads, %lu name files, %zu rows attributed, %zu named); "
	       "later polls %7.0f us (%.1f us/process, %lu cgroup reads and %lu name files in %d polls)\n",
	       n, first, cg_first, nm_first, attributed, named, later / (polls - 1), later / (polls - 1) / n, cg_later,
	       nm_later, polls - 1);
	frame_unref(f);
	procinfo_free(pi);
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "fixture") && strcmp(argv[1], "real"))) {
		fprintf(stderr, "usage: procscan fixture|real N\n");
		return 2;
	}
	unsigned n = (unsigned)strtoul(argv[2], NULL, 10);
	unsigned *pids = calloc(n ? n : 1, sizeof(*pids));
	if (!strcmp(argv[1], "fixture")) {
		char root[] = "/tmp/gpur-procscan.XXXXXX";
		if (!mkdtemp(root))
			return 1;
		make_fixture(root, n);
		for (unsigned i = 0; i < n; i++)
			pids[i] = 10000 + i;
		char proc[4096], rootfs[4096];
		snprintf(proc, sizeof(proc), "%s/proc", root);
		snprintf(rootfs, sizeof(rootfs), "%s/rootfs", root);
		run(proc, rootfs, pids, n, 21);
		char cmd[4200];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		return system(cmd) == 0 ? 0 : 1;
	}
	for (unsigned i = 0; i < n; i++) {
		pid_t c = fork();
		if (c == 0) {
			pause();
			_exit(0);
		}
		pids[i] = (unsigned)c;
	}
	run("/proc", "/", pids, n, 21);
	for (unsigned i = 0; i < n; i++)
		kill((pid_t)pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	free(pids);
	return 0;
}
