/* test_psignal: identity-checked signals on real child processes — sent
 * through a pidfd and through kill(2), each child seen dying of that very
 * signal; a start time that does not match is refused and the child lives
 * on; a reaped pid is ESRCH, another user's process EPERM; pid 1, the test's
 * own pid and a process with no executable (a zombie child, kthreadd) are
 * never signalled — and the start time they check, which must be
 * procinfo's to the millisecond. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <errno.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc/pidstart.h"
#include "proc/procinfo.h"
#include "proc/psignal.h"
#include "testutil.h"

/* A child that waits for a signal. */
static pid_t spawn(void)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

/* The child's identity for psignal: its starttime in clock ticks. */
static uint64_t start_of(pid_t pid)
{
	uint64_t ticks = 0;
	assert_int_equal(pidstart_ticks("/proc", (unsigned)pid, &ticks, NULL), 0);
	return ticks;
}

static uint64_t start_ms_of(pid_t pid)
{
	uint64_t ms = 0;
	assert_int_equal(pidstart_read("/proc", (unsigned)pid, &ms, NULL), 0);
	return ms;
}

/* The child has not been signalled (nor exited): still waiting. */
static void assert_alive(pid_t pid)
{
	int st;
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
}

static void assert_died_of(pid_t pid, int signo)
{
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), signo);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static bool have_pidfd(void)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, (long)getpid(), 0L);
	if (fd >= 0) {
		close((int)fd);
		return true;
	}
#endif
	return false;
}

static void sends_by(enum psignal_way way, int signo)
{
	char detail[256];
	pid_t pid = spawn();
	int rc = psignal_send_via("/proc", (unsigned)pid, start_of(pid), signo, way, detail, sizeof(detail));
	assert_int_equal(rc, 0);
	assert_string_equal(psignal_result(rc), "sent");
	char want[64];
	snprintf(want, sizeof(want), "%s sent to pid %d", psignal_name(signo), (int)pid);
	assert_string_equal(detail, want);
	assert_died_of(pid, signo);
}

static void test_sends_through_pidfd(void **state)
{
	(void)state;
	if (!have_pidfd()) {
		skip();
		return;
	}
	sends_by(PSIGNAL_PIDFD, SIGTERM);
	sends_by(PSIGNAL_PIDFD, SIGKILL);
	sends_by(PSIGNAL_ANY, SIGINT);
}

static void test_sends_through_kill(void **state)
{
	(void)state;
	sends_by(PSIGNAL_KILL, SIGTERM);
	sends_by(PSIGNAL_KILL, SIGHUP);
}

/* A pid whose start time is not the expected one is refused, by every
 * way, and its process is not touched. */
static void test_changed_identity_refused(void **state)
{
	(void)state;
	char detail[256], want[96];
	pid_t pid = spawn();
	uint64_t start = start_of(pid);
	for (int way = PSIGNAL_ANY; way <= PSIGNAL_KILL; way++) {
		if (way == PSIGNAL_PIDFD && !have_pidfd())
			continue;
		uint64_t wrong[] = {start + 10, start - 10, 0};
		for (size_t i = 0; i < 3; i++) {
			int rc = psignal_send_via("/proc", (unsigned)pid, wrong[i], SIGKILL, (enum psignal_way)way, detail,
						  sizeof(detail));
			assert_int_equal(rc, PSIGNAL_REFUSED);
			assert_string_equal(psignal_result(rc), "refused");
			snprintf(want, sizeof(want), "pid %d now belongs to another process: SIGKILL not sent", (int)pid);
			assert_string_equal(detail, want);
			assert_alive(pid);
		}
	}
	reap(pid);
}

static void test_reaped_pid_is_esrch(void **state)
{
	(void)state;
	char detail[256];
	pid_t pid = spawn();
	uint64_t start = start_of(pid);
	reap(pid);
	for (int way = PSIGNAL_ANY; way <= PSIGNAL_KILL; way++) {
		if (way == PSIGNAL_PIDFD && !have_pidfd())
			continue;
		int rc = psignal_send_via("/proc", (unsigned)pid, start, SIGTERM, (enum psignal_way)way, detail, sizeof(detail));
		assert_int_equal(rc, -ESRCH);
		assert_string_equal(psignal_result(rc), "ESRCH");
		assert_non_null(strstr(detail, "no such process"));
	}
	/* Pids kill(2) would read as a process group or all processes. */
	assert_int_equal(psignal_send("/proc", 0, 0, SIGTERM, detail, sizeof(detail)), -ESRCH);
	assert_int_equal(psignal_send("/proc", 0x80000000u, 0, SIGTERM, detail, sizeof(detail)), -ESRCH);
}

/* A process of another user that gpur may be asked to signal: not pid 1
 * and with an executable (psignal_protected would refuse those first); 0
 * when there is none. */
static pid_t other_users_process(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	assert_non_null(d);
	while (!found && (de = readdir(d)) != NULL) {
		char *end, path[64], link[8];
		long pid = strtol(de->d_name, &end, 10);
		struct stat st;
		if (*end || pid <= 1)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld", pid);
		if (stat(path, &st) != 0 || st.st_uid == getuid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
		if (readlink(path, link, sizeof(link)) >= 0 || errno != ENOENT)
			found = (pid_t)pid;
	}
	closedir(d);
	return found;
}

/* Signalling another user's process: EPERM in words, and the process
 * lives on. As root, the target is a child of ours that stays root and
 * the sender a second child that has dropped to nobody. Not root: any
 * process of another user but pid 1 (which is never signalled at all). */
static void test_other_users_process_is_eperm(void **state)
{
	(void)state;
	char detail[256], want[128];
	if (getuid() != 0) {
		pid_t other = other_users_process();
		if (!other)
			skip();
		uint64_t start = start_of(other);
		int rc = psignal_send("/proc", (unsigned)other, start, SIGCONT, detail, sizeof(detail));
		assert_int_equal(rc, -EPERM);
		assert_string_equal(psignal_result(rc), "EPERM");
		snprintf(want, sizeof(want), "permission denied: pid %d belongs to another user (SIGCONT not sent)",
			 (int)other);
		assert_string_equal(detail, want);
		return;
	}
	pid_t target = spawn();
	uint64_t start = start_of(target);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(2);
		int rc = psignal_send("/proc", (unsigned)target, start, SIGTERM, detail, sizeof(detail));
		snprintf(want, sizeof(want), "permission denied: pid %d belongs to another user (SIGTERM not sent)", (int)target);
		if (rc != -EPERM)
			_exit(3);
		_exit(strcmp(detail, want) == 0 ? 0 : 4);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 2) { /* could not become nobody here */
		reap(target);
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_alive(target);
	reap(target);
}

/* Another user's process that procfs hides (hidepid=2: its /proc entry
 * is not there for us, though the process is): EPERM in words, like any
 * other user's, not a failure to read a file, and nothing sent. Needs
 * root to mount a procfs of our own with that option; skips elsewhere. */
static void test_hidden_process_is_eperm(void **state)
{
	(void)state;
	if (getuid() != 0)
		skip();
	char *dir = testutil_tmpdir();
	if (mount("proc", dir, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") != 0) {
		testutil_rmtree(dir);
		free(dir);
		skip(); /* no mount here (a container without CAP_SYS_ADMIN) */
	}
	pid_t target = spawn();
	uint64_t start = start_of(target);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char detail[256];
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(2);
		char path[4200];
		snprintf(path, sizeof(path), "%s/%d", dir, (int)target);
		if (access(path, F_OK) == 0)
			_exit(5); /* not hidden: hidepid had no effect */
		int rc = psignal_send(dir, (unsigned)target, start, SIGTERM, detail, sizeof(detail));
		_exit(rc == -EPERM && strstr(detail, "permission denied") ? 0 : 3);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	umount2(dir, MNT_DETACH);
	testutil_rmtree(dir);
	free(dir);
	int alive = waitpid(target, NULL, WNOHANG) == 0;
	reap(target); /* before any assert: a failure leaves no child behind */
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 2 || WEXITSTATUS(st) == 5)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_true(alive);
}

/* The start time psignal checks is the one procinfo gave the row. */
static void test_start_matches_procinfo(void **state)
{
	(void)state;
	pid_t pid = spawn();
	struct procinfo *pi = procinfo_new("/proc");
	struct frame *f = frame_new();
	struct gpu_process *p = frame_add_process(f);
	procinfo_begin(pi, 1000000000ull);
	procinfo_fill(pi, (unsigned)pid, f, p);
	procinfo_end(pi);
	assert_true(process_has(p, PROC_F_START));
	assert_int_equal(p->start_ms, start_ms_of(pid));
	assert_int_equal(p->start_ticks, start_of(pid));
	frame_unref(f);
	procinfo_free(pi);
	reap(pid);
}

static void test_start_ms_arithmetic(void **state)
{
	(void)state;
	uint64_t ms = 7;
	assert_true(pidstart_ms(12345, 100, 1700000000000ull, &ms));
	assert_int_equal(ms, 1700000123450ull);
	assert_true(pidstart_ms(3, 250, 0, &ms));
	assert_int_equal(ms, 12);
	ms = 7;
	assert_false(pidstart_ms(1, 0, 0, &ms));
	assert_false(pidstart_ms(UINT64_MAX / 1000 + 1, 100, 0, &ms));
	assert_false(pidstart_ms(UINT64_MAX / 1000, 1, 1000, &ms));
	assert_int_equal(ms, 7);
}

struct tree {
	char *root, *proc;
};

static void put(const char *dir, const char *rel, const char *s)
{
	char *p = testutil_path(dir, rel);
	testutil_write_str(p, s);
	free(p);
}

static void put_stat(struct tree *t, unsigned pid, const char *comm, unsigned long long start)
{
	char rel[32], buf[512];
	snprintf(rel, sizeof(rel), "%u", pid);
	char *dir = testutil_path(t->proc, rel);
	mkdir(dir, 0755);
	snprintf(buf, sizeof(buf), "%u (%s) S 1 %u %u 0 -1 4194560 100 0 0 0 5 5 0 0 20 0 1 0 %llu 123456 42 184467\n",
		 pid, comm, pid, pid, start);
	put(dir, "stat", buf);
	free(dir);
}

static struct tree *make_tree(const char *proc_stat)
{
	struct tree *t = calloc(1, sizeof(*t));
	t->root = testutil_tmpdir();
	t->proc = testutil_path(t->root, "proc");
	mkdir(t->proc, 0755);
	if (proc_stat)
		put(t->proc, "stat", proc_stat);
	return t;
}

static void free_tree(struct tree *t)
{
	testutil_rmtree(t->root);
	free(t->root);
	free(t->proc);
	free(t);
}

static void test_start_from_fixture(void **state)
{
	(void)state;
	struct tree *t = make_tree("cpu  1 2 3 4\nbtime 1700000000\n");
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ms = 0;
	char st = 0;

	put_stat(t, 4242, "a ) (b) c", (unsigned long long)hz * 5);
	assert_int_equal(pidstart_read(t->proc, 4242, &ms, &st), 0);
	assert_int_equal(ms, 1700000005000ull);
	assert_int_equal(st, 'S');
	assert_int_equal(pidstart_read(t->proc, 4243, &ms, NULL), -ESRCH);
	put(t->proc, "4242/stat", "4242 (x) S 1 2\n");
	assert_int_equal(pidstart_read(t->proc, 4242, &ms, NULL), -EINVAL);
	put(t->proc, "stat", "cpu  1 2 3 4\n");
	put_stat(t, 4242, "x", 5);
	assert_int_equal(pidstart_read(t->proc, 4242, &ms, NULL), -ENODATA);
	free_tree(t);
}

/* A real child seen through a fixture tree whose stat names another start
 * time (the tree the e2e test changes under the dashboard): refused, and
 * the child lives on; with its real start time, sent. */
static void test_fixture_with_changed_start(void **state)
{
	(void)state;
	char detail[256], rel[32], path[64];
	char *real = testutil_read_file("/proc/stat", NULL);
	struct tree *t = make_tree(real);
	pid_t pid = spawn();
	uint64_t start = start_of(pid), ticks = 0;
	long hz = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	char *stat = testutil_read_file(path, NULL);
	snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
	/* The process as it is: the same start time as through /proc, and an
	 * executable (without one it would be refused as a kernel thread). */
	put_stat(t, (unsigned)pid, "sleep", 0);
	put(t->proc, rel, stat);
	snprintf(rel, sizeof(rel), "%d/exe", (int)pid);
	char *exe = testutil_path(t->proc, rel);
	assert_int_equal(symlink("/usr/bin/sleep", exe), 0);
	free(exe);
	snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
	assert_int_equal(pidstart_ticks(t->proc, (unsigned)pid, &ticks, NULL), 0);
	assert_int_equal(ticks, start);
	/* As if the pid had been reused by a process started 1 s later. */
	put_stat(t, (unsigned)pid, "sleep", (unsigned long long)(start + (uint64_t)hz));
	for (int way = PSIGNAL_ANY; way <= PSIGNAL_KILL; way++) {
		if (way == PSIGNAL_PIDFD && !have_pidfd())
			continue;
		assert_int_equal(psignal_send_via(t->proc, (unsigned)pid, start, SIGTERM, (enum psignal_way)way, detail,
						  sizeof(detail)),
				 PSIGNAL_REFUSED);
		assert_alive(pid);
	}
	put(t->proc, rel, stat);
	/* The wall clock was stepped since the row was read (btime moves with
	 * it): the identity, in ticks after boot, has not changed. */
	put(t->proc, "stat", "cpu  1 2 3 4\nbtime 1000000000\n");
	int rc = psignal_send(t->proc, (unsigned)pid, start, SIGTERM, detail, sizeof(detail));
	if (rc != 0)
		reap(pid); /* no child left behind by a failure */
	assert_int_equal(rc, 0);
	assert_died_of(pid, SIGTERM);
	free(stat);
	free(real);
	free_tree(t);
}

/* A large machine's /proc/stat has its btime line past 16 KiB (a cpu line
 * per CPU, then an intr line of thousands of counters): still found, and a
 * file with no btime says so. */
static void test_btime_past_16k(void **state)
{
	(void)state;
	size_t cap = 600000, n = 0;
	char *text = malloc(cap);
	uint64_t bt = 0;

	for (int c = 0; c < 224; c++)
		n += (size_t)snprintf(text + n, cap - n, "cpu%d 1 2 3 4 5 6 7 8 9 10\n", c);
	n += (size_t)snprintf(text + n, cap - n, "intr 123456789");
	for (int i = 0; i < 60000; i++)
		n += (size_t)snprintf(text + n, cap - n, " %d", i % 7);
	n += (size_t)snprintf(text + n, cap - n, "\nctxt 1\nbtime 1700000123\nprocesses 5\n");
	assert_true(n > 100000);
	struct tree *t = make_tree(text);
	assert_int_equal(pidstart_btime_ms(t->proc, &bt), 0);
	assert_int_equal(bt, 1700000123000ull);
	free_tree(t);
	text[n - strlen("btime 1700000123\nprocesses 5\n")] = '\0';
	t = make_tree(text);
	assert_int_equal(pidstart_btime_ms(t->proc, &bt), -ENODATA);
	free_tree(t);
	free(text);
}

static void test_procfs_is_ours(void **state)
{
	(void)state;
	char *link, pid[32];
	struct tree *t = make_tree(NULL);

	assert_true(psignal_procfs_is_ours("/proc"));
	assert_false(psignal_procfs_is_ours(t->proc)); /* no self link */
	link = testutil_path(t->proc, "self");
	assert_int_equal(symlink("1", link), 0);
	assert_false(psignal_procfs_is_ours(t->proc));
	unlink(link);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	assert_int_equal(symlink(pid, link), 0);
	assert_true(psignal_procfs_is_ours(t->proc));
	unlink(link);
	snprintf(pid, sizeof(pid), "%dx", (int)getpid());
	assert_int_equal(symlink(pid, link), 0);
	assert_false(psignal_procfs_is_ours(t->proc));
	free(link);
	free_tree(t);
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int signo)
{
	(void)signo;
	got_usr1 = 1;
}

/* A child that has exited and that the test has not reaped: a zombie.
 * waitid with WNOWAIT returns once it has exited and leaves it so. */
static pid_t spawn_zombie(void)
{
	siginfo_t si;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	return pid;
}

/* Whether pid 2 is kthreadd with no executable link (a kernel thread, as
 * on a plain Linux host; not so in some PID namespaces). */
static bool have_kthreadd(void)
{
	char link[8], comm[32] = "";
	FILE *f = fopen("/proc/2/comm", "r");
	if (!f)
		return false;
	bool named = fgets(comm, sizeof(comm), f) && strcmp(comm, "kthreadd\n") == 0;
	fclose(f);
	return named && readlink("/proc/2/exe", link, sizeof(link)) < 0 && errno == ENOENT;
}

/* psignal_send_via by every way this kernel has: the pid is refused as
 * protected, with why in the detail naming the signal, and nothing is
 * sent. */
static void assert_protected_send(unsigned pid, int signo, const char *why)
{
	char detail[256], want[256];
	uint64_t start = start_of((pid_t)pid);

	snprintf(want, sizeof(want), "%s: %s not sent", why, psignal_name(signo));
	for (int way = PSIGNAL_ANY; way <= PSIGNAL_KILL; way++) {
		if (way == PSIGNAL_PIDFD && !have_pidfd())
			continue;
		memset(detail, 'x', sizeof(detail));
		int rc = psignal_send_via("/proc", pid, start, signo, (enum psignal_way)way, detail, sizeof(detail));
		assert_int_equal(rc, PSIGNAL_PROTECTED);
		assert_string_equal(psignal_result(rc), "refused");
		assert_string_equal(detail, want);
	}
}

/* Pid 1 (init) is never signalled. SIGCONT would be harmless to it even
 * if this test failed. */
static void test_init_refused(void **state)
{
	(void)state;
	char why[160];
	assert_true(psignal_protected("/proc", 1, why, sizeof(why)));
	assert_string_equal(why, "pid 1 is init");
	assert_protected_send(1, SIGCONT, "pid 1 is init");
}

/* gpur's own pid (here the test's) is never signalled: a SIGUSR1 handler
 * would see one that got through. */
static void test_own_pid_refused(void **state)
{
	(void)state;
	char why[160], want[64];
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	got_usr1 = 0;

	snprintf(want, sizeof(want), "pid %d is gpur itself", (int)getpid());
	assert_true(psignal_protected("/proc", (unsigned)getpid(), why, sizeof(why)));
	assert_string_equal(why, want);
	assert_protected_send((unsigned)getpid(), SIGUSR1, want);
	/* A signal a process sends itself is delivered before kill(2)
	 * returns: one sent would have run the handler by now. */
	assert_int_equal(got_usr1, 0);
	assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
}

/* A process with no executable is never signalled: a zombie child (its
 * exe link gives ENOENT, its /proc directory stays until it is reaped)
 * and, where pid 2 is kthreadd, a kernel thread. Once the zombie is
 * reaped its pid is not protected but gone: ESRCH. */
static void test_no_executable_refused(void **state)
{
	(void)state;
	char why[160], want[128], detail[256];
	pid_t z = spawn_zombie();
	uint64_t start = start_of(z);

	snprintf(want, sizeof(want), "pid %d has no executable (a kernel thread or a zombie)", (int)z);
	assert_true(psignal_protected("/proc", (unsigned)z, why, sizeof(why)));
	assert_string_equal(why, want);
	assert_protected_send((unsigned)z, SIGKILL, want);
	/* Still a zombie, still ours to reap: exited normally, not killed. */
	int st;
	assert_int_equal(waitpid(z, &st, 0), z);
	assert_true(WIFEXITED(st));
	assert_false(psignal_protected("/proc", (unsigned)z, why, sizeof(why)));
	assert_string_equal(why, "");
	assert_int_equal(psignal_send("/proc", (unsigned)z, start, SIGKILL, detail, sizeof(detail)), -ESRCH);

	if (have_kthreadd()) {
		assert_true(psignal_protected("/proc", 2, why, sizeof(why)));
		assert_string_equal(why, "pid 2 has no executable (a kernel thread or a zombie)");
		assert_protected_send(2, SIGCONT, why);
	}

	/* A live child has an executable: not protected. */
	pid_t pid = spawn();
	assert_false(psignal_protected("/proc", (unsigned)pid, why, sizeof(why)));
	assert_string_equal(why, "");
	reap(pid);
}

/* The exe link is read under the procfs given: a fixture tree's directory
 * with an exe link is not protected, one without is, a pid the tree does
 * not have is not (it is gone, not a kernel thread). */
static void test_protected_reads_procfs(void **state)
{
	(void)state;
	char why[160];
	struct tree *t = make_tree(NULL);
	put_stat(t, 4242, "python3", 100);
	put_stat(t, 4243, "kworker/0:1", 100);
	char *exe = testutil_path(t->proc, "4242/exe");
	assert_int_equal(symlink("/usr/bin/python3", exe), 0);
	free(exe);

	assert_false(psignal_protected(t->proc, 4242, why, sizeof(why)));
	assert_true(psignal_protected(t->proc, 4243, why, sizeof(why)));
	assert_string_equal(why, "pid 4243 has no executable (a kernel thread or a zombie)");
	assert_false(psignal_protected(t->proc, 4244, why, sizeof(why)));
	/* Pid 1 and gpur's own are refused whatever the tree says. */
	assert_true(psignal_protected(t->proc, 1, why, sizeof(why)));
	assert_true(psignal_protected(t->proc, (unsigned)getpid(), why, sizeof(why)));
	/* A reason that does not fit is cut, never overrun. */
	char small[8];
	assert_true(psignal_protected(t->proc, 4243, small, sizeof(small)));
	assert_string_equal(small, "pid 424");
	free_tree(t);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(psignal_name(SIGTERM), "SIGTERM");
	assert_string_equal(psignal_name(SIGSTOP), "SIGSTOP");
	assert_string_equal(psignal_name(SIGCONT), "SIGCONT");
	assert_null(psignal_name(0));
	assert_string_equal(psignal_result(-EACCES), "EACCES");
	assert_string_equal(psignal_result(-EXDEV), "error");
	assert_string_equal(psignal_result(PSIGNAL_PROTECTED), "refused");
	assert_true(PSIGNAL_PROTECTED != PSIGNAL_REFUSED && PSIGNAL_PROTECTED < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sends_through_pidfd),
		cmocka_unit_test(test_sends_through_kill),
		cmocka_unit_test(test_changed_identity_refused),
		cmocka_unit_test(test_reaped_pid_is_esrch),
		cmocka_unit_test(test_other_users_process_is_eperm),
		cmocka_unit_test(test_hidden_process_is_eperm),
		cmocka_unit_test(test_start_matches_procinfo),
		cmocka_unit_test(test_start_ms_arithmetic),
		cmocka_unit_test(test_start_from_fixture),
		cmocka_unit_test(test_btime_past_16k),
		cmocka_unit_test(test_fixture_with_changed_start),
		cmocka_unit_test(test_procfs_is_ours),
		cmocka_unit_test(test_init_refused),
		cmocka_unit_test(test_own_pid_refused),
		cmocka_unit_test(test_no_executable_refused),
		cmocka_unit_test(test_protected_reads_procfs),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
