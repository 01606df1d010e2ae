/* test_cgroup: cgroup_parse over every /proc/PID/cgroup form of the facts
 * file (§6.1) and the runtimes' other documented forms — Docker, Podman,
 * Kubernetes (containerd, CRI-O, cri-dockerd; both drivers; every QoS
 * class; kind and k3s roots), LXC, systemd-nspawn, Slurm, plain systemd —
 * on cgroup v1, v2 and hybrid; and hostile text: a 1 MiB line, control
 * characters, no newline, an empty file, garbage. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proc/cgroup.h"

#define ID_A "05cff94700562cbc97ddbb100132f2bf7aed07558531385fa5fd4dde19c81f05"
#define ID_P "5b833c7a6ce02ac293b4c096850c9ac4ec95190d68b9c892c4bf417920f07494"
#define ID_K "184c8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63ba"
#define ID_O "1459328502562d67b68f6b6abf0954cbc83bcccedb470cc106c241863eca7748"
#define ID_D "d8c32f2c636cc5960035ca361b24678448b0aac53a2b775f096874602a07aa47"
#define UID_B "ccd0a30e-12e9-4cab-a4ff-9124262dfbee"
#define UID_G "22f2322b-9816-4ec9-8272-e006ecd6e3f3"
#define UID_E "76b72d1d-93f2-45c4-9474-afeb99de5752"
#define UIDU_B "ccd0a30e_12e9_4cab_a4ff_9124262dfbee"
#define UIDU_G "22f2322b_9816_4ec9_8272_e006ecd6e3f3"
#define UIDU_E "76b72d1d_93f2_45c4_9474_afeb99de5752"

struct want {
	const char *text;
	enum cgroup_runtime rt;
	const char *id, *container, *pod, *unit, *step, *path;
};

#define NONE CGROUP_RT_NONE

static const struct want CASES[] = {
	/* Docker: v2 + systemd driver, v2 cgroupfs, v1 cgroupfs, v1 + systemd. */
	{"0::/system.slice/docker-" ID_A ".scope\n", CGROUP_RT_DOCKER, ID_A, "docker:05cff9470056", "",
	 "docker-" ID_A ".scope", "", "/system.slice/docker-" ID_A ".scope"},
	{"0::/docker/" ID_A "\n", CGROUP_RT_DOCKER, ID_A, "docker:05cff9470056", "", "", "", "/docker/" ID_A},
	{"12:pids:/docker/" ID_A "\n9:memory:/docker/" ID_A "\n1:name=systemd:/docker/" ID_A "\n",
	 CGROUP_RT_DOCKER, ID_A, "docker:05cff9470056", "", "", "", "/docker/" ID_A},
	{"11:cpu,cpuacct:/system.slice/docker-" ID_A ".scope\n1:name=systemd:/system.slice/docker-" ID_A ".scope\n",
	 CGROUP_RT_DOCKER, ID_A, "docker:05cff9470056", "", "docker-" ID_A ".scope", "", NULL},
	/* Hybrid: v1 lines plus 0::; cgroupfs driver, the unified line elsewhere. */
	{"9:memory:/docker/" ID_A "\n1:name=systemd:/system.slice/containerd.service\n0::/system.slice/containerd.service\n",
	 CGROUP_RT_DOCKER, ID_A, "docker:05cff9470056", "", "containerd.service", "", "/docker/" ID_A},
	{"13:misc:/\n12:memory:/system.slice/docker-" ID_A ".scope\n1:name=systemd:/system.slice/docker-" ID_A
	 ".scope\n0::/system.slice/docker-" ID_A ".scope\n",
	 CGROUP_RT_DOCKER, ID_A, "docker:05cff9470056", "", "docker-" ID_A ".scope", "", NULL},
	/* Docker in Docker: the innermost. */
	{"0::/docker/" ID_D "/docker/" ID_A "\n", CGROUP_RT_DOCKER, ID_A, "docker:05cff9470056", "", "", "", NULL},
	/* Podman: rootful, rootless, in a pod (and its /container), conmon, cgroupfs. */
	{"0::/machine.slice/libpod-" ID_P ".scope\n", CGROUP_RT_PODMAN, ID_P, "podman:5b833c7a6ce0", "",
	 "libpod-" ID_P ".scope", "", NULL},
	{"0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID_P ".scope\n", CGROUP_RT_PODMAN, ID_P,
	 "podman:5b833c7a6ce0", "", "libpod-" ID_P ".scope", "", NULL},
	{"0::/user.slice/user-1000.slice/user@1000.service/user.slice/user-libpod_pod_55eedee4ab29d353.slice/libpod-" ID_P
	 ".scope/container\n",
	 CGROUP_RT_PODMAN, ID_P, "podman:5b833c7a6ce0", "", "libpod-" ID_P ".scope", "", NULL},
	{"0::/machine.slice/libpod-conmon-" ID_P ".scope\n", NONE, "", "", "", "libpod-conmon-" ID_P ".scope", "", NULL},
	{"10:memory:/libpod_parent/libpod-" ID_P "\n", CGROUP_RT_PODMAN, ID_P, "podman:5b833c7a6ce0", "", "", "", NULL},
	/* Kubernetes, systemd driver: each QoS class and runtime. */
	{"0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDU_B ".slice/cri-containerd-" ID_K ".scope\n",
	 CGROUP_RT_CONTAINERD, ID_K, "containerd:184c8653db58", UID_B, "cri-containerd-" ID_K ".scope", "", NULL},
	{"0::/kubepods.slice/kubepods-pod" UIDU_G ".slice/crio-" ID_O ".scope\n", CGROUP_RT_CRIO, ID_O,
	 "crio:145932850256", UID_G, "crio-" ID_O ".scope", "", NULL},
	{"0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UIDU_E ".slice/docker-" ID_D ".scope\n",
	 CGROUP_RT_DOCKER, ID_D, "docker:d8c32f2c636c", UID_E, "docker-" ID_D ".scope", "", NULL},
	{"0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UIDU_E ".slice/cri-containerd-" ID_K ".scope\n",
	 CGROUP_RT_CONTAINERD, ID_K, "containerd:184c8653db58", UID_E, "cri-containerd-" ID_K ".scope", "", NULL},
	/* CRI-O's conmon in the pod: the pod, no container. */
	{"0::/kubepods.slice/kubepods-pod" UIDU_G ".slice/crio-conmon-" ID_O ".scope\n", NONE, "", "", UID_G,
	 "crio-conmon-" ID_O ".scope", "", NULL},
	/* A static pod: its UID is a 32-hex config hash. */
	{"0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0123456789abcdef0123456789abcdef.slice/"
	 "cri-containerd-" ID_K ".scope\n",
	 CGROUP_RT_CONTAINERD, ID_K, "containerd:184c8653db58", "0123456789abcdef0123456789abcdef",
	 "cri-containerd-" ID_K ".scope", "", NULL},
	/* Kubernetes, cgroupfs driver, every QoS class (Guaranteed pods sit
	 * directly under kubepods) on v1, v2 and hybrid lines: the path names no
	 * runtime, so the container is "k8s:" with the id's first 12 hex. */
	{"9:memory:/kubepods/burstable/pod" UID_B "/" ID_K "\n", CGROUP_RT_CRI, ID_K, "k8s:184c8653db58", UID_B, "", "",
	 "/kubepods/burstable/pod" UID_B "/" ID_K},
	{"0::/kubepods/burstable/pod" UID_B "/" ID_K "\n", CGROUP_RT_CRI, ID_K, "k8s:184c8653db58", UID_B, "", "", NULL},
	{"9:memory:/kubepods/pod" UID_G "/" ID_O "\n", CGROUP_RT_CRI, ID_O, "k8s:145932850256", UID_G, "", "", NULL},
	{"0::/kubepods/pod" UID_G "/" ID_O "\n", CGROUP_RT_CRI, ID_O, "k8s:145932850256", UID_G, "", "", NULL},
	{"9:memory:/kubepods/besteffort/pod" UID_E "/" ID_D "\n", CGROUP_RT_CRI, ID_D, "k8s:d8c32f2c636c", UID_E, "", "",
	 NULL},
	{"0::/kubepods/besteffort/pod" UID_E "/" ID_D "\n", CGROUP_RT_CRI, ID_D, "k8s:d8c32f2c636c", UID_E, "", "", NULL},
	{"12:pids:/kubepods/besteffort/pod" UID_E "/" ID_D "\n11:cpu,cpuacct:/kubepods/besteffort/pod" UID_E "/" ID_D
	 "\n1:name=systemd:/kubepods/besteffort/pod" UID_E "/" ID_D "\n0::/\n",
	 CGROUP_RT_CRI, ID_D, "k8s:d8c32f2c636c", UID_E, "", "", "/kubepods/besteffort/pod" UID_E "/" ID_D},
	/* CRI-O's cgroupfs manager names its runtime. */
	{"0::/kubepods/burstable/pod" UID_B "/crio-" ID_O "\n", CGROUP_RT_CRIO, ID_O, "crio:145932850256", UID_B, "", "",
	 NULL},
	/* The pod's own cgroup (a process of the pod, no container found). */
	{"0::/kubepods/burstable/pod" UID_B "\n", NONE, "", "", UID_B, "", "", NULL},
	/* kind: the node is a Docker container, the pod's container is inside. */
	{"0::/system.slice/docker-" ID_A ".scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
	 "kubelet-kubepods-besteffort-pod" UIDU_E ".slice/cri-containerd-" ID_K ".scope\n",
	 CGROUP_RT_CONTAINERD, ID_K, "containerd:184c8653db58", UID_E, "cri-containerd-" ID_K ".scope", "", NULL},
	/* kind: a node service, and a pod whose container is not recognised. */
	{"0::/system.slice/docker-" ID_A ".scope/system.slice/containerd.service\n", CGROUP_RT_DOCKER, ID_A,
	 "docker:05cff9470056", "", "containerd.service", "", NULL},
	{"0::/system.slice/docker-" ID_A ".scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UIDU_G ".slice\n",
	 NONE, "", "", UID_G, "docker-" ID_A ".scope", "", NULL},
	/* k3s (cgroupfs, its own kubepods root) and a custom kubelet root. */
	{"0::/k3s/kubepods/besteffort/pod" UID_E "/" ID_K "\n", CGROUP_RT_CRI, ID_K, "k8s:184c8653db58", UID_E, "", "",
	 NULL},
	{"0::/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/kubelet-kubepods-burstable-pod" UIDU_B
	 ".slice/cri-containerd-" ID_K ".scope\n",
	 CGROUP_RT_CONTAINERD, ID_K, "containerd:184c8653db58", UID_B, "cri-containerd-" ID_K ".scope", "", NULL},
	/* LXC 4.x, 3.1-3.x, before 3.1; the monitor is not in the container. */
	{"0::/lxc.payload.build01/init.scope\n", CGROUP_RT_LXC, "build01", "lxc:build01", "", "init.scope", "", NULL},
	{"11:cpuset:/lxc.payload/build01\n", CGROUP_RT_LXC, "build01", "lxc:build01", "", "", "", NULL},
	{"4:memory:/lxc/build01\n1:name=systemd:/lxc/build01/system.slice/cron.service\n", CGROUP_RT_LXC, "build01",
	 "lxc:build01", "", "cron.service", "", "/lxc/build01/system.slice/cron.service"},
	{"0::/lxc.monitor.build01\n", NONE, "", "", "", "", "", NULL},
	{"4:memory:/lxc.monitor/build01\n", NONE, "", "", "", "", "", NULL},
	/* systemd-nspawn: escapes decoded; payload, supervisor; libvirt's VM is not one. */
	{"0::/machine.slice/machine-gpu12\\x2dbox.scope/payload\n", CGROUP_RT_NSPAWN, "gpu12-box", "nspawn:gpu12-box", "",
	 "machine-gpu12-box.scope", "", NULL},
	{"0::/machine.slice/machine-gpu12\\x2dbox.scope/payload/system.slice/trainer.service\n", CGROUP_RT_NSPAWN,
	 "gpu12-box", "nspawn:gpu12-box", "", "trainer.service", "", NULL},
	{"0::/machine.slice/machine-gpu12\\x2dbox.scope/supervisor\n", NONE, "", "", "", "machine-gpu12-box.scope", "",
	 NULL},
	{"0::/machine.slice/machine-qemu\\x2d1\\x2dwin11.scope/libvirt/emulator\n", NONE, "", "", "",
	 "machine-qemu-1-win11.scope", "", NULL},
	/* Slurm: cgroup/v1 per controller, cgroup/v2 task/stepd/batch/extern/interactive, multiple-slurmd. */
	{"4:memory:/slurm/uid_1000/job_4242/step_0/task_0\n", CGROUP_RT_SLURM, "4242", "slurm:4242", "", "", "0", NULL},
	{"4:memory:/slurm/uid_1000/job_4242/step_batch/task_0\n6:freezer:/slurm/uid_1000/job_4242/step_batch\n"
	 "1:name=systemd:/system.slice/slurmd.service\n",
	 CGROUP_RT_SLURM, "4242", "slurm:4242", "", "slurmd.service", "batch", "/slurm/uid_1000/job_4242/step_batch/task_0"},
	{"0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n", CGROUP_RT_SLURM, "4242", "slurm:4242", "",
	 "slurmstepd.scope", "0", NULL},
	{"0::/system.slice/slurmstepd.scope/job_4242/step_0/slurm\n", CGROUP_RT_SLURM, "4242", "slurm:4242", "",
	 "slurmstepd.scope", "0", NULL},
	{"0::/system.slice/slurmstepd.scope/job_4242/step_batch/user/task_0\n", CGROUP_RT_SLURM, "4242", "slurm:4242", "",
	 "slurmstepd.scope", "batch", NULL},
	{"0::/system.slice/slurmstepd.scope/job_77/step_extern/user/task_special\n", CGROUP_RT_SLURM, "77", "slurm:77", "",
	 "slurmstepd.scope", "extern", NULL},
	{"0::/system.slice/slurmstepd.scope/job_77/step_interactive/user/task_0\n", CGROUP_RT_SLURM, "77", "slurm:77", "",
	 "slurmstepd.scope", "interactive", NULL},
	{"0::/system.slice/node07_slurmstepd.scope/job_123456/step_3/user/task_1\n", CGROUP_RT_SLURM, "123456",
	 "slurm:123456", "", "node07_slurmstepd.scope", "3", NULL},
	{"0::/system.slice/slurmstepd.scope/system\n", NONE, "", "", "", "slurmstepd.scope", "", NULL},
	/* job_ outside Slurm is nothing. */
	{"0::/system.slice/job_4242\n", NONE, "", "", "", "", "", NULL},
	/* Plain systemd: no container. */
	{"0::/user.slice/user-1000.slice/session-3.scope\n", NONE, "", "", "", "session-3.scope", "", NULL},
	{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/"
	 "vte-spawn-8f1e2c3a-5b6d-4e7f-8a9b-0c1d2e3f4a5b.scope\n",
	 NONE, "", "", "", "vte-spawn-8f1e2c3a-5b6d-4e7f-8a9b-0c1d2e3f4a5b.scope", "", NULL},
	{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-48211.scope\n", NONE, "", "", "",
	 "app-gnome-firefox-48211.scope", "", NULL},
	{"0::/user.slice/user-1000.slice/user@1000.service/session.slice/org.gnome.Shell@wayland.service\n", NONE, "", "",
	 "", "org.gnome.Shell@wayland.service", "", NULL},
	{"0::/system.slice/ollama.service\n", NONE, "", "", "", "ollama.service", "", NULL},
	{"0::/system.slice/system-getty.slice/getty@tty1.service\n", NONE, "", "", "", "getty@tty1.service", "", NULL},
	{"0::/system.slice/systemd-fsck@dev-disk-by\\x2duuid-1234.service\n", NONE, "", "", "",
	 "systemd-fsck@dev-disk-by-uuid-1234.service", "", NULL},
	{"0::/init.scope\n", NONE, "", "", "", "init.scope", "", "/init.scope"},
	/* A removed cgroup (v2) and an exiting v1 task. */
	{"0::/system.slice/docker-" ID_A ".scope (deleted)\n", CGROUP_RT_DOCKER, ID_A, "docker:05cff9470056", "",
	 "docker-" ID_A ".scope", "", "/system.slice/docker-" ID_A ".scope"},
	{"0::/system.slice/ollama.service (deleted)", NONE, "", "", "", "ollama.service", "", "/system.slice/ollama.service"},
	{"9:memory:/\n1:name=systemd:/\n", NONE, "", "", "", "", "", "/"},
	/* A private cgroup namespace, the root. */
	{"0::/\n", NONE, "", "", "", "", "", "/"},
	/* No newline, CRLF. */
	{"0::/docker/" ID_A, CGROUP_RT_DOCKER, ID_A, "docker:05cff9470056", "", "", "", NULL},
	{"0::/system.slice/ollama.service\r\n", NONE, "", "", "", "ollama.service", "", "/system.slice/ollama.service"},
	/* Near misses: never a guess. */
	{"0::/system.slice/docker-" ID_A "0.scope\n", NONE, "", "", "", "docker-" ID_A "0.scope", "", NULL},
	{"0::/system.slice/docker-05CFF94700562CBC97DDBB100132F2BF7AED07558531385FA5FD4DDE19C81F05.scope\n", NONE, "", "",
	 "", "docker-05CFF94700562CBC97DDBB100132F2BF7AED07558531385FA5FD4DDE19C81F05.scope", "", NULL},
	{"0::/default/" ID_A "\n", NONE, "", "", "", "", "", NULL},
	{"0::/kubepods/burstable/podccd0a30e-12e9-4cab-a4ff-9124262dfbe/" ID_K "\n", NONE, "", "", "", "", "", NULL},
	{"0::/kubepods/burstable/podccd0a30e-12e9-4cab-a4ff-9124262dfbeg/" ID_K "\n", NONE, "", "", "", "", "", NULL},
	{"0::/lxc.payload.bad name/init.scope\n", NONE, "", "", "", "init.scope", "", NULL},
	{"0::/machine.slice/machine-.scope\n", NONE, "", "", "", "machine-.scope", "", NULL},
	{"0::/machine.slice/machine-a\\x2fb.scope\n", NONE, "", "", "", "machine-a\\x2fb.scope", "", NULL},
	/* A user's delegated subtree (user@UID.service): cgroups named like
	 * another tenant's pod, Kubernetes container or Slurm job are the
	 * user's invention, never believed; what a user may run (rootless
	 * Podman, Docker) is. */
	{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/kubepods-pod" UIDU_B
	 ".slice/cri-containerd-" ID_K ".scope\n",
	 NONE, "", "", "", "cri-containerd-" ID_K ".scope", "", NULL},
	{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/kubepods/burstable/pod" UID_B "/" ID_K "\n", NONE, "",
	 "", "", "user@1000.service", "", NULL},
	{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/slurm/job_999/step_0\n", NONE, "", "", "",
	 "user@1000.service", "", NULL},
	{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/machine-box.scope\n", NONE, "", "", "",
	 "machine-box.scope", "", NULL},
	{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/docker-" ID_A ".scope\n", CGROUP_RT_DOCKER, ID_A,
	 "docker:05cff9470056", "", "docker-" ID_A ".scope", "", NULL},
};

static void check_case(const struct want *w)
{
	struct cgroup_info ci;
	assert_int_equal(cgroup_parse(w->text, strlen(w->text), &ci), 0);
	if (ci.runtime != w->rt || strcmp(ci.id, w->id) || strcmp(ci.container, w->container) || strcmp(ci.pod, w->pod) ||
	    strcmp(ci.unit, w->unit) || strcmp(ci.slurm_step, w->step) || (w->path && strcmp(ci.path, w->path)))
		fail_msg("for %s got runtime %d id '%s' container '%s' pod '%s' unit '%s' step '%s' path '%s'", w->text,
			 ci.runtime, ci.id, ci.container, ci.pod, ci.unit, ci.slurm_step, ci.path);
}

static void test_forms(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++)
		check_case(&CASES[i]);
}

/* A container in a user's delegated subtree names its owner (whose home
 * keeps a rootless Podman's names); elsewhere there is none. */
static void test_owner_uid(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		long uid;
	} cases[] = {
		{"0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID_P ".scope/container\n", 1000},
		{"0::/user.slice/user-4294967295.slice/user@4294967295.service/app.slice/docker-" ID_A ".scope\n", 4294967295L},
		{"0::/user.slice/user-1000.slice/user@4294967296.service/user.slice/libpod-" ID_P ".scope\n", -1},
		{"0::/user.slice/user-1000.slice/user@x1.service/user.slice/libpod-" ID_P ".scope\n", -1},
		{"0::/user.slice/user-1000.slice/user@.service/user.slice/libpod-" ID_P ".scope\n", -1},
		{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service\n", -1}, /* no container */
		{"0::/machine.slice/libpod-" ID_P ".scope\n", -1},                                 /* rootful */
		{"0::/system.slice/docker-" ID_A ".scope\n", -1},
	};
	struct cgroup_info ci;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(cgroup_parse(cases[i].text, strlen(cases[i].text), &ci), 0);
		if (ci.owner_uid != cases[i].uid)
			fail_msg("for %s got owner %ld, expected %ld", cases[i].text, ci.owner_uid, cases[i].uid);
	}
}

/* Every printable string of the result is printable ASCII. */
static void assert_clean(const struct cgroup_info *ci)
{
	const char *strs[] = {ci->id, ci->container, ci->pod, ci->unit, ci->slurm_step, ci->path};
	for (size_t k = 0; k < 6; k++)
		for (const char *p = strs[k]; *p; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
}

static void test_not_cgroup_text(void **state)
{
	(void)state;
	struct cgroup_info ci;
	static const char *const bad[] = {"", "\n\n", "garbage", "0:/x\n", "x::/docker/" ID_A "\n",
					  "0::docker\n", "::/docker\n", "-1::/docker/" ID_A "\n", "0::\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&ci, 'x', sizeof(ci));
		assert_int_equal(cgroup_parse(bad[i], strlen(bad[i]), &ci), -EINVAL);
		assert_int_equal(ci.runtime, CGROUP_RT_NONE);
		assert_string_equal(ci.container, "");
		assert_string_equal(ci.unit, "");
		assert_string_equal(ci.path, "");
	}
	/* Garbage lines around a good one are skipped. */
	const char *mixed = "garbage\n\x01\x02:::\n0::/system.slice/docker-" ID_A ".scope\n";
	assert_int_equal(cgroup_parse(mixed, strlen(mixed), &ci), 0);
	assert_string_equal(ci.container, "docker:05cff9470056");
	/* len is the bound, not a NUL. */
	const char *cut = "0::/docker/" ID_A "\n";
	assert_int_equal(cgroup_parse(cut, 11 + 63, &ci), 0);
	assert_string_equal(ci.container, "");
}

/* A 1 MiB line is skipped (a bounded scan), the line after it still read. */
static void test_huge_line(void **state)
{
	(void)state;
	struct cgroup_info ci;
	size_t big = 1u << 20;
	const char *tail = "\n0::/system.slice/docker-" ID_A ".scope\n";
	char *buf = malloc(big + strlen(tail));
	memcpy(buf, "0::/", 4);
	for (size_t i = 4; i < big; i++)
		buf[i] = i % 65 == 0 ? '/' : 'a';
	memcpy(buf + big, tail, strlen(tail));
	assert_int_equal(cgroup_parse(buf, big + strlen(tail), &ci), 0);
	assert_string_equal(ci.container, "docker:05cff9470056");
	/* Alone, with no newline: nothing. */
	assert_int_equal(cgroup_parse(buf, big, &ci), -EINVAL);
	/* A line just under the line bound: read, its path cut for display. */
	size_t n = 4000;
	memcpy(buf + n - 12, "/cron.service", 13);
	assert_int_equal(cgroup_parse(buf, n + 1, &ci), 0);
	assert_string_equal(ci.unit, "cron.service");
	assert_int_equal(strlen(ci.path), CGROUP_PATH_MAX - 1);
	assert_clean(&ci);
	free(buf);
}

/* Control characters and non-ASCII bytes never reach an output string. */
static void test_controls(void **state)
{
	(void)state;
	struct cgroup_info ci;
	const char text[] = "0::/sys\x1b[2Jtem.slice/\xc2\x9bx/ev\til\x7f/docker-" ID_A ".scope\n";
	assert_int_equal(cgroup_parse(text, sizeof(text) - 1, &ci), 0);
	assert_string_equal(ci.container, "docker:05cff9470056");
	assert_clean(&ci);
	assert_non_null(strstr(ci.path, "/sys?[2Jtem.slice/??x/ev?il?/docker-"));
	/* In a unit name: not a unit. */
	const char t2[] = "0::/system.slice/ev\x1bil.service\n";
	assert_int_equal(cgroup_parse(t2, sizeof(t2) - 1, &ci), 0);
	assert_string_equal(ci.unit, "");
	assert_clean(&ci);
	/* Escapes that would decode to controls stay escaped. */
	const char t3[] = "0::/system.slice/a\\x1bb\\x2dc\\x0a.service\n";
	assert_int_equal(cgroup_parse(t3, sizeof(t3) - 1, &ci), 0);
	assert_string_equal(ci.unit, "a\\x1bb-c\\x0a.service");
	/* A NUL inside the text. */
	const char t4[] = "0::/system.slice/docker-" ID_A ".scope\0\n0::/x\n";
	assert_int_equal(cgroup_parse(t4, sizeof(t4) - 1, &ci), 0);
	assert_string_equal(ci.container, "");
	assert_clean(&ci);
}

static void test_unescape(void **state)
{
	(void)state;
	char out[16];
	assert_int_equal(cgroup_unescape("a\\x2db", 6, out, sizeof(out)), 3);
	assert_string_equal(out, "a-b");
	/* Cut to fit, never half an escape. */
	assert_int_equal(cgroup_unescape("abcdefghijkl\\x0a", 16, out, sizeof(out)), 12);
	assert_string_equal(out, "abcdefghijkl");
	assert_int_equal(cgroup_unescape("\\x2", 3, out, sizeof(out)), 3);
	assert_string_equal(out, "\\x2");
	assert_int_equal(cgroup_unescape("\\xZZ\x01\xff", 6, out, sizeof(out)), 6);
	assert_string_equal(out, "\\xZZ??");
	assert_int_equal(cgroup_unescape("abc", 3, out, 1), 0);
	assert_string_equal(out, "");
}

static void test_runtime_names(void **state)
{
	(void)state;
	assert_string_equal(cgroup_runtime_name(CGROUP_RT_DOCKER), "docker");
	assert_string_equal(cgroup_runtime_name(CGROUP_RT_CRI), "k8s");
	assert_string_equal(cgroup_runtime_name(CGROUP_RT_CRIO), "crio");
	assert_string_equal(cgroup_runtime_name(CGROUP_RT_SLURM), "slurm");
	assert_string_equal(cgroup_runtime_name(CGROUP_RT_NONE), "");
	assert_string_equal(cgroup_runtime_name(CGROUP_RT__COUNT), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),        cmocka_unit_test(test_not_cgroup_text),
		cmocka_unit_test(test_owner_uid),
		cmocka_unit_test(test_huge_line),    cmocka_unit_test(test_controls),
		cmocka_unit_test(test_unescape),     cmocka_unit_test(test_runtime_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
