/* test_procinfo_sample: procinfo's samples between full reads of
 * /proc/PID/stat, on the real /proc with processes started here: the CPU
 * clock and the held statm of a busy process, no statm for one that has not
 * run (and its RSS again after 5 s), the full read every 30 s, and a
 * parent's exit sending its children to a full read and new parents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/frame.h"
#include "proc/pidwant.h"
#include "proc/procinfo.h"

/* One poll of procinfo at t for pid alone: its row into *out (its strings
 * are gone with the frame: only numbers and flags are for looking at). */
static bool sample_one(struct procinfo *pi, uint64_t t, pid_t pid, struct gpu_process *out)
{
	struct frame *f = frame_new();
	struct gpu_process *row = frame_add_process(f);
	procinfo_begin(pi, t);
	bool ok = procinfo_fill(pi, (unsigned)pid, f, row);
	procinfo_end(pi);
	*out = *row;
	out->parents = NULL;
	out->nparents = row->nparents;
	frame_unref(f);
	return ok;
}

/* Field 3 (state) and 4 (parent pid) of /proc/PID/stat. */
static void proc_state(pid_t pid, char *state, unsigned long *ppid)
{
	char path[64], st[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	size_t n = fread(st, 1, sizeof(st) - 1, fp);
	fclose(fp);
	st[n] = '\0';
	char *rp = strrchr(st, ')');
	assert_non_null(rp);
	assert_int_equal(sscanf(rp + 2, "%c %lu", state, ppid), 2);
}

/* A child running body(go, ack) (it never returns), go its end to read
 * and ack its end to write; the parent's other ends into *go and *ack. */
static pid_t fork_child(void (*body)(int go, int ack), int *go, int *ack)
{
	int g[2], a[2];
	assert_int_equal(pipe(g), 0);
	assert_int_equal(pipe(a), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(g[1]);
		close(a[0]);
		body(g[0], a[1]);
		_exit(0);
	}
	close(g[0]);
	close(a[1]);
	*go = g[1];
	*ack = a[0];
	return child;
}

/* In a child: allocates and touches 64 MiB (kept: stored where the compiler
 * cannot drop it), then says so on ack. */
static void *volatile touched;
static void touch_64m(int ack)
{
	size_t sz = 64u << 20;
	char *m = malloc(sz);
	if (!m)
		_exit(1);
	memset(m, 1, sz);
	touched = m;
	if (write(ack, "k", 1) != 1)
		_exit(1);
}

/* Spins until a byte comes, allocates and touches 64 MiB, says so, then
 * spins on. */
static void spinner(int go, int ack)
{
	fcntl(go, F_SETFL, O_NONBLOCK);
	char c;
	volatile unsigned long n = 0;
	for (;;) {
		n++;
		if ((n & 0xfffff) == 0 && read(go, &c, 1) == 1)
			touch_64m(ack);
	}
}

/* Waits in read(2); for each byte, allocates and touches 64 MiB and says so. */
static void blocker(int go, int ack)
{
	char c;
	while (read(go, &c, 1) == 1)
		touch_64m(ack);
}

/* On gpur's own /proc, between full stat reads, a known process is
 * sampled with its CPU-time clock and its held statm: the CPU rate is real
 * (a child that spins), RSS follows a 64 MiB allocation, a stat read comes
 * back every 30 s, and once the child has gone (and been reaped) it answers
 * as gone, not with the last figures. */
static void test_real_proc_quick(void **state)
{
	(void)state;
	int go, ack;
	pid_t child = fork_child(spinner, &go, &ack);
	clockid_t clk;
	assert_int_equal(clock_getcpuclockid(child, &clk), 0);
	struct procinfo *pi = procinfo_new("/proc");
	uint64_t t = 1000000000000ull; /* the polls' own times, 1 s apart */
	struct gpu_process p[7];
	for (int round = 0; round < 7; round++, t += round == 5 ? 26000000000ull : 1000000000ull) {
		if (round == 2) {
			assert_int_equal(write(go, "g", 1), 1);
			char c;
			assert_int_equal(read(ack, &c, 1), 1);
		}
		if (round == 6) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
		}
		/* The child has used CPU since the last poll (a condition, not
		 * a time). */
		struct timespec a, b;
		clock_gettime(clk, &a);
		do
			clock_gettime(clk, &b);
		while (round < 6 && (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 2000000L);
		assert_int_equal(sample_one(pi, t, child, &p[round]), round < 6);
	}
	/* Rounds 1-4 are quick (1 s apart); round 5, 30 s after the full read
	 * of round 0, reads stat again; round 6 tries a quick one, finds the
	 * child gone, and stat says so. */
	assert_int_equal(procinfo_quick_samples(pi), 4);
	for (int round = 1; round < 6; round++) {
		assert_true(process_has(&p[round], PROC_F_CPU));
		assert_true(p[round].cpu_pct > 0);
		assert_true(process_has(&p[round], PROC_F_HOST_MEM));
	}
	assert_true(p[2].host_mem_bytes >= p[1].host_mem_bytes + (60u << 20));
	assert_false(process_has(&p[6], PROC_F_NAME));
	procinfo_free(pi);
	close(go);
	close(ack);
}

/* Until PID sleeps (state S) and its CPU clock has stopped moving: it has
 * left the CPU, in read(2). */
static void wait_blocked(pid_t pid, clockid_t clk)
{
	for (;;) {
		struct timespec a, b;
		char state;
		unsigned long ppid;
		assert_int_equal(clock_gettime(clk, &a), 0);
		proc_state(pid, &state, &ppid);
		for (int i = 0; i < 100; i++)
			sched_yield();
		assert_int_equal(clock_gettime(clk, &b), 0);
		if (state == 'S' && a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec)
			return;
	}
}

/* A process that has not run since the last sample (blocked in read(2))
 * costs a clock read: CPU 0 %, RSS as last read, no statm. Once it has run
 * (touching 64 MiB), statm is read again; once it has gone (and been
 * reaped) its clock fails and it answers as gone, not with the last
 * figures. */
static void test_real_proc_idle(void **state)
{
	(void)state;
	int go, ack;
	pid_t child = fork_child(blocker, &go, &ack);
	clockid_t clk;
	assert_int_equal(clock_getcpuclockid(child, &clk), 0);
	wait_blocked(child, clk);
	struct procinfo *pi = procinfo_new("/proc");
	uint64_t t = 1000000000000ull;
	struct gpu_process p[6];
	for (int round = 0; round < 6; round++, t += round == 4 ? 5000000000ull : 1000000000ull) {
		if (round == 2) {
			char c;
			assert_int_equal(write(go, "g", 1), 1);
			assert_int_equal(read(ack, &c, 1), 1);
			wait_blocked(child, clk);
		}
		if (round == 5) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
		}
		assert_int_equal(sample_one(pi, t, child, &p[round]), round < 5);
	}
	/* Round 0 reads stat; 1 is idle; 2 reads statm (it ran); 3 is idle;
	 * 4, 5 s after the RSS of round 2, reads statm though it has not run. */
	assert_int_equal(procinfo_quick_samples(pi), 4);
	assert_int_equal(procinfo_idle_samples(pi), 2);
	assert_true(p[4].cpu_pct == 0.0);
	assert_int_equal(p[4].host_mem_bytes, p[3].host_mem_bytes);
	assert_true(process_has(&p[1], PROC_F_CPU));
	assert_true(p[1].cpu_pct == 0.0);
	assert_int_equal(p[1].host_mem_bytes, p[0].host_mem_bytes);
	assert_true(p[2].cpu_pct > 0);
	assert_true(p[2].host_mem_bytes >= p[1].host_mem_bytes + (60u << 20));
	assert_true(p[3].cpu_pct == 0.0);
	assert_int_equal(p[3].host_mem_bytes, p[2].host_mem_bytes);
	assert_false(process_has(&p[5], PROC_F_NAME));
	procinfo_free(pi);
	close(go);
	close(ack);
}

/* A process idle at its last three samples is sampled every 2 s, not every
 * poll, its 0 % held between; once it has run it is sampled every poll
 * again. Polls here are 1 s apart. */
static void test_real_proc_idle_cadence(void **state)
{
	(void)state;
	int go, ack;
	pid_t child = fork_child(blocker, &go, &ack);
	clockid_t clk;
	assert_int_equal(clock_getcpuclockid(child, &clk), 0);
	wait_blocked(child, clk);
	struct procinfo *pi = procinfo_new("/proc");
	uint64_t t = 1000000000000ull;
	struct gpu_process p[10];
	unsigned long quick[10];
	for (int round = 0; round < 10; round++, t += 1000000000ull) {
		if (round == 6) {
			char c;
			assert_int_equal(write(go, "g", 1), 1);
			assert_int_equal(read(ack, &c, 1), 1);
			wait_blocked(child, clk);
		}
		assert_true(sample_one(pi, t, child, &p[round]));
		quick[round] = procinfo_quick_samples(pi);
	}
	/* Round 0 reads stat; 1, 2, 3 sample idle; 4 holds; 5 samples; 6
	 * holds though it ran; 7 samples and sees it ran; 8 and 9 sample. */
	assert_int_equal(quick[3], 3);
	assert_int_equal(quick[4], 3);
	assert_int_equal(quick[5], 4);
	assert_int_equal(quick[6], 4);
	assert_true(p[6].cpu_pct == 0.0);
	assert_int_equal(quick[7], 5);
	assert_true(p[7].cpu_pct > 0);
	assert_int_equal(quick[8], 6);
	assert_int_equal(quick[9], 7);
	procinfo_free(pi);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(go);
	close(ack);
}

/* The parents shown by the dashboard: between full reads each parent is
 * probed once a poll, whatever its number of children; when it has exited
 * (its children reparented, here to this test as their subreaper), the
 * next poll reads stat and walks the new parents. */
static void test_real_proc_reparent(void **state)
{
	(void)state;
	int wp[2], hold[2];
	assert_int_equal(pipe(wp), 0);
	assert_int_equal(pipe(hold), 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	pid_t mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		/* Two workers that wait on hold, their pids to wp, then wait too. */
		close(wp[0]);
		close(hold[1]);
		char c;
		for (int i = 0; i < 2; i++) {
			pid_t w = fork();
			if (w < 0)
				_exit(1);
			if (w == 0) {
				while (read(hold[0], &c, 1) > 0)
					;
				_exit(0);
			}
			if (write(wp[1], &w, sizeof(w)) != (ssize_t)sizeof(w))
				_exit(1);
		}
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(wp[1]);
	close(hold[0]);
	pid_t w[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(read(wp[0], &w[i], sizeof(w[i])), (ssize_t)sizeof(w[i]));
	close(wp[0]);
	struct procinfo *pi = procinfo_new("/proc");
	uint64_t t = 1000000000000ull;
	unsigned long walks = 0;
	for (int round = 0; round < 3; round++, t += 1000000000ull) {
		if (round == 2) {
			/* The middle process goes: its workers are reparented. */
			kill(mid, SIGKILL);
			waitpid(mid, NULL, 0);
			for (int i = 0; i < 2; i++) {
				char sc;
				unsigned long pp = 0;
				for (proc_state(w[i], &sc, &pp); pp != (unsigned long)getpid(); proc_state(w[i], &sc, &pp))
					sched_yield();
			}
		}
		struct frame *f = frame_new();
		procinfo_begin(pi, t);
		for (int i = 0; i < 2; i++) {
			struct gpu_process *row = frame_add_process(f);
			assert_true(procinfo_fill(pi, (unsigned)w[i], f, row));
			assert_true(row->nparents >= 1);
			assert_int_equal(row->parents[0].pid, (uint64_t)(round < 2 ? mid : getpid()));
		}
		procinfo_end(pi);
		frame_unref(f);
		if (round == 0)
			walks = procinfo_tree_walks(pi);
	}
	/* Round 1: both quick, their parent probed once. Round 2: the probe
	 * finds it gone, and both are read in full and walked again. */
	assert_int_equal(procinfo_parent_probes(pi), 2);
	assert_int_equal(procinfo_quick_samples(pi), 2);
	assert_int_equal(procinfo_tree_walks(pi), walks + 2);
	procinfo_free(pi);
	close(hold[1]);
	for (int i = 0; i < 2; i++)
		waitpid(w[i], NULL, 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0), 0);
}

/* The dashboard wants parents only while its process tree is open: until
 * then no parent is probed and none walked; once it opens, that poll reads
 * every process in full, on the screen or not (the tree lists a process's
 * children from their parents), and the polls after it probe the parent
 * again. Child A is on the screen, child B is not. */
static void test_real_proc_tree_on_demand(void **state)
{
	(void)state;
	int hold[2];
	pid_t kid[2];
	assert_int_equal(pipe(hold), 0);
	for (int i = 0; i < 2; i++) {
		kid[i] = fork();
		assert_true(kid[i] >= 0);
		if (kid[i] == 0) {
			char c;
			close(hold[1]);
			while (read(hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(hold[0]);
	struct pidwant *w = pidwant_get();
	const unsigned shown = (unsigned)kid[0];
	struct procinfo *pi = procinfo_new("/proc");
	procinfo_set_want(pi, w);
	pidwant_set(w, &shown, 1);
	pidwant_tree(w, false);
	uint64_t t = 1000000000000ull;
	for (int round = 0; round < 6; round++, t += round < 4 ? 1000000000ull : 2000000000ull) {
		if (round == 4)
			pidwant_tree(w, true);
		struct frame *f = frame_new();
		struct gpu_process *row[2];
		procinfo_begin(pi, t);
		for (int i = 0; i < 2; i++) {
			row[i] = frame_add_process(f);
			assert_true(procinfo_fill(pi, (unsigned)kid[i], f, row[i]));
		}
		procinfo_end(pi);
		if (round == 3) {
			assert_int_equal(procinfo_parent_probes(pi), 0);
			assert_int_equal(procinfo_tree_walks(pi), 0);
		}
		if (round == 4) {
			/* Both read in full and walked, with their parent. */
			assert_int_equal(procinfo_tree_walks(pi), 2);
			for (int i = 0; i < 2; i++) {
				assert_true(row[i]->nparents >= 1);
				assert_int_equal(row[i]->parents[0].pid, (uint64_t)getpid());
			}
		}
		frame_unref(f);
	}
	/* Round 5, 2 s on: A, on the screen, sampled quickly with its parent
	 * probed; B keeps its figures. */
	assert_int_equal(procinfo_parent_probes(pi), 1);
	assert_int_equal(procinfo_tree_walks(pi), 2);
	procinfo_free(pi);
	pidwant_tree(w, true);
	pidwant_all(w);
	close(hold[1]);
	for (int i = 0; i < 2; i++)
		waitpid(kid[i], NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_proc_tree_on_demand),
		cmocka_unit_test(test_real_proc_idle_cadence),
		cmocka_unit_test(test_real_proc_quick),
		cmocka_unit_test(test_real_proc_idle),
		cmocka_unit_test(test_real_proc_reparent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
