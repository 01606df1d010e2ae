# test_attribution: container, pod, unit and container_pid of GPU processes
# through the real binary and the fake NVML (--once --json). From a procfs
# fixture (tests/fixtures/attrib-root) covering the cgroup forms of every
# runtime, with missing, unreadable and hostile cgroup files and a pid with
# no /proc entry; then, as root, real processes moved into real cgroups that
# mirror the runtimes' paths (v2, and v1 name=systemd where mounted), and a
# real process in nested pid namespaces.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

A=05cff94700562cbc97ddbb100132f2bf7aed07558531385fa5fd4dde19c81f05
P=5b833c7a6ce02ac293b4c096850c9ac4ec95190d68b9c892c4bf417920f07494
K=184c8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63ba
O=1459328502562d67b68f6b6abf0954cbc83bcccedb470cc106c241863eca7748
D=d8c32f2c636cc5960035ca361b24678448b0aac53a2b775f096874602a07aa47
UB=ccd0a30e-12e9-4cab-a4ff-9124262dfbee
UG=22f2322b-9816-4ec9-8272-e006ecd6e3f3
UE=76b72d1d-93f2-45c4-9474-afeb99de5752

# scenario_for FILE PID...: one GPU listing those pids.
scenario_for() {
	local f=$1 sep="" p
	shift
	{
		printf '{"driver":"550.54.15","fast_pcie":1,"gpus":[{"name":"NVIDIA A100","uuid":"GPU-1","pci":"00000000:3B:00.0","util":1,"mem_total":1000,"mem_used":10,"processes":['
		for p in "$@"; do
			printf '%s{"pid":%s,"type":"compute","mem":1048576}' "$sep" "$p"
			sep=,
		done
		printf ']}]}\n'
	} > "$f"
}

# row_get FILE PID KEY: KEY of PID's row in the record (absent: no such key or row).
# The row's index comes from one read of the rows' pids, in order ("pid"
# with its quotes is no other key), not from one jsonget per row.
row_get() {
	local i
	i=$(get "$1" 1 processes | grep -o '"pid":[0-9]*' | awk -F: -v p="$2" '$2 == p { print NR - 1; exit }')
	if [ -n "$i" ]; then
		get "$1" 1 "processes.$i.$3"
	else
		echo absent
	fi
}

# expect_row FILE WHAT PID CONTAINER POD UNIT CONTAINER_PID ("absent": unknown)
expect_row() {
	local f=$1 what=$2 pid=$3 got k want
	shift 3
	for k in container pod unit container_pid; do
		want=$1
		shift
		got=$(row_get "$f" "$pid" "$k")
		if [ "$got" = "$want" ]; then ok; else fail "$what (pid $pid): $k is '$got', expected '$want'"; fi
	done
}

# --- The fixture ----------------------------------------------------------
cp -r "$FIXTURES/attrib-root" "$T/root"
chmod -R u+w "$T/root"
# Unreadable: a directory where the file should be (root reads any mode).
mkdir "$T/root/proc/2024/cgroup.d" && rm "$T/root/proc/2024/cgroup" && mv "$T/root/proc/2024/cgroup.d" "$T/root/proc/2024/cgroup"
# Hostile: a 1 MiB line, then a good one.
cp -r "$T/root/proc/2001" "$T/root/proc/2026"
sed -i 's/^2001 (job2001)/2026 (job2026)/' "$T/root/proc/2026/stat"
{
	printf '0::/'
	head -c 1048576 /dev/zero | tr '\0' a
	printf '\n0::/system.slice/docker-%s.scope\n' "$D"
} > "$T/root/proc/2026/cgroup"
PIDS=$(seq 2001 2026)
# shellcheck disable=SC2086 # word splitting wanted
scenario_for "$T/fix.json" $PIDS 9999
nvml modern "$T/fix.json" --procfs "$T/root/proc" --once --json
expect_rc 0 "fixture --once --json"
F=$T/fixture.jsonl
cp "$T/out" "$F"
check "fixture: one record" test "$(lines "$F")" -eq 1
check "fixture: a row per pid" test "$(get "$F" 1 processes.length)" -eq 27
check "fixture: no control character in the record" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$F'"
check "fixture: no escaped control character either" sh -c "! grep -qi '\\\\u00[01]' '$F'"
check "fixture: stderr is empty" test ! -s "$T/err"

expect_row "$F" "docker v2 systemd" 2001 docker:05cff9470056 absent "docker-$A.scope" absent
expect_row "$F" "docker v2 cgroupfs" 2002 docker:05cff9470056 absent absent absent
expect_row "$F" "docker v1 cgroupfs" 2003 docker:05cff9470056 absent absent absent
expect_row "$F" "podman rootful" 2004 podman:5b833c7a6ce0 absent "libpod-$P.scope" absent
expect_row "$F" "podman rootless" 2005 podman:5b833c7a6ce0 absent "libpod-$P.scope" absent
expect_row "$F" "podman in a pod" 2006 podman:5b833c7a6ce0 absent "libpod-$P.scope" absent
expect_row "$F" "k8s burstable containerd" 2007 containerd:184c8653db58 "$UB" "cri-containerd-$K.scope" absent
expect_row "$F" "k8s guaranteed crio" 2008 crio:145932850256 "$UG" "crio-$O.scope" absent
expect_row "$F" "k8s besteffort cri-dockerd" 2009 docker:d8c32f2c636c "$UE" "docker-$D.scope" absent
expect_row "$F" "k8s cgroupfs (runtime not in the path)" 2010 k8s:184c8653db58 "$UB" absent absent
expect_row "$F" "kind" 2011 containerd:184c8653db58 "$UE" "cri-containerd-$K.scope" absent
expect_row "$F" "lxc 4" 2012 lxc:build01 absent init.scope absent
expect_row "$F" "lxc 3 (v1)" 2013 lxc:build01 absent cron.service absent
expect_row "$F" "nspawn, escapes decoded" 2014 nspawn:gpu12-box absent trainer.service absent
expect_row "$F" "slurm v1" 2015 slurm:4242 absent slurmd.service absent
expect_row "$F" "slurm v2 batch" 2016 slurm:4243 absent slurmstepd.scope absent
expect_row "$F" "slurm v2 extern, <node>_slurmstepd" 2017 slurm:4244 absent node07_slurmstepd.scope absent
expect_row "$F" "systemd service: no container" 2018 absent absent ollama.service absent
expect_row "$F" "login session: no container" 2019 absent absent session-3.scope absent
expect_row "$F" "(deleted)" 2020 docker:d8c32f2c636c absent "docker-$D.scope" absent
expect_row "$F" "hybrid" 2021 docker:05cff9470056 absent "docker-$A.scope" absent
expect_row "$F" "NSpid nested" 2022 docker:05cff9470056 absent "docker-$A.scope" 7
expect_row "$F" "no cgroup file" 2023 absent absent absent absent
expect_row "$F" "unreadable cgroup file (NSpid still read)" 2024 absent absent absent 1
expect_row "$F" "control characters" 2025 docker:05cff9470056 absent "docker-$A.scope" absent
# (procinfo reads 16 KiB of it: no complete line, so nothing at all.)
expect_row "$F" "a 1 MiB line" 2026 absent absent absent absent
expect_row "$F" "no /proc entry" 9999 absent absent absent absent
check "no /proc entry: no name either" test "$(row_get "$F" 9999 name)" = absent
check "the rest of the row is there (2024)" test "$(row_get "$F" 2024 name)" = job2024

# Replay: the keys round-trip.
run --replay "$F" --json
expect_rc 0 "replay of the fixture record"
check "replayed attribution equals the recorded" "$JSONCMP" "$F" "$T/out"

# --- Names, from the node's own files (--rootfs) -----------------------------
# The same fixture with the rootfs fixture of tests/fixtures/rootfs-node: the
# Docker container's name (config.v2.json), Podman's (containers.json), the
# Kubernetes pod, namespace and container (the kubelet's log links), and a
# Kubernetes container under the cgroupfs driver, whose runtime only the
# node's files tell. The default root (/) of this machine has none of them.
expect_names() {
	local f=$1 what=$2 pid=$3 got k want
	shift 3
	for k in container container_name pod_name pod_namespace; do
		want=$1
		shift
		got=$(row_get "$f" "$pid" "$k")
		if [ "$got" = "$want" ]; then ok; else fail "$what (pid $pid): $k is '$got', expected '$want'"; fi
	done
}
nvml modern "$T/fix.json" --procfs "$T/root/proc" --rootfs "$FIXTURES/rootfs-node" --once --json
expect_rc 0 "fixture with --rootfs"
N=$T/names.jsonl
cp "$T/out" "$N"
expect_names "$N" "docker: its name" 2001 docker:05cff9470056 "$(grep -o '"Name":"/[^"]*"' "$FIXTURES"/rootfs-node/var/lib/docker/containers/*/config.v2.json | head -n 1 | sed 's/.*"\/\(.*\)"/\1/')" absent absent
expect_names "$N" "k8s containerd: pod, namespace, container" 2007 containerd:184c8653db58 trainer train-llama-3-8b-0042-worker-0 research
expect_names "$N" "k8s cri-dockerd: from the log link" 2009 docker:d8c32f2c636c inference llm-serving-0 serving
expect_names "$N" "k8s cgroupfs: containerd's task directory says containerd" 2010 containerd:184c8653db58 trainer train-llama-3-8b-0042-worker-0 research
expect_names "$N" "a Slurm job has no names" 2015 slurm:4242 absent absent absent
check "podman: its name from containers.json" test "$(row_get "$N" 2004 container_name)" != absent
# Without containerd's task directory the runtime is not guessed: the
# container is k8s:, its names from the log link.
cp -r "$FIXTURES/rootfs-node" "$T/rootfs-nocd"
rm -rf "$T/rootfs-nocd/run"
nvml modern "$T/fix.json" --procfs "$T/root/proc" --rootfs "$T/rootfs-nocd" --once --json
expect_names "$T/out" "k8s cgroupfs, no task directory: no runtime guessed" 2010 k8s:184c8653db58 trainer train-llama-3-8b-0042-worker-0 research
# CRI-O's container directory (its graphroot's) names CRI-O.
mkdir -p "$T/rootfs-nocd/var/lib/containers/storage/overlay-containers/$K"
nvml modern "$T/fix.json" --procfs "$T/root/proc" --rootfs "$T/rootfs-nocd" --once --json
expect_names "$T/out" "k8s cgroupfs: CRI-O's directory says crio" 2010 crio:184c8653db58 trainer train-llama-3-8b-0042-worker-0 research
# Rootless Podman (pid 2005, below user@1000.service): its name is in its
# owner's store, ~/.local/share/containers (the home from the rootfs's
# etc/passwd), not in the rootful one the other Podman row's comes from.
check "rootless podman: not named from the rootful store" test "$(row_get "$N" 2005 container_name)" = absent
cp -r "$FIXTURES/rootfs-node" "$T/rootfs-rootless"
mkdir -p "$T/rootfs-rootless/etc" "$T/rootfs-rootless/home/carol/.local/share/containers/storage/overlay-containers"
printf 'root:x:0:0:root:/root:/bin/sh\ncarol:x:1000:1000::/home/carol:/bin/sh\n' > "$T/rootfs-rootless/etc/passwd"
printf '[{"id":"%s","names":["carol-notebook"]}]' "$P" \
	> "$T/rootfs-rootless/home/carol/.local/share/containers/storage/overlay-containers/containers.json"
nvml modern "$T/fix.json" --procfs "$T/root/proc" --rootfs "$T/rootfs-rootless" --once --json
expect_names "$T/out" "rootless podman: its name from its owner's home" 2005 podman:5b833c7a6ce0 carol-notebook absent absent
check "without --rootfs names: none on this machine's own root" test "$(row_get "$F" 2007 container_name)" = absent

# --- Real cgroups -----------------------------------------------------------
CG_ROOTS=""
cleanup_cgroups() {
	local top d
	if [ -n "$SLEEPERS" ]; then
		# shellcheck disable=SC2086 # a list of pids
		kill -KILL $SLEEPERS 2> /dev/null
		# shellcheck disable=SC2086
		wait $SLEEPERS 2> /dev/null
		SLEEPERS=""
	fi
	for top in $CG_ROOTS; do
		# Deepest first; a killed process leaves its cgroup once reaped.
		find "$top" -depth -type d 2> /dev/null | while read -r d; do
			wait_until 5 rmdir "$d" 2> /dev/null || echo "test_attribution: could not remove $d" >&2
		done
	done
	CG_ROOTS=""
}
trap 'cleanup_cgroups; kill $SLEEPERS 2>/dev/null; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT

# The mount point of the first cgroup2 (TYPE cgroup2) or v1 name=systemd
# (TYPE v1) hierarchy, from mountinfo.
cgroup_mount() {
	awk -v want="$1" '{
		for (i = 7; i <= NF && $i != "-"; i++);
		if (want == "cgroup2" && $(i + 1) == "cgroup2") { print $5; exit }
		if (want == "v1" && $(i + 1) == "cgroup" && $(i + 3) ~ /(^|,)name=systemd(,|$)/) { print $5; exit }
	}' /proc/self/mountinfo
}

# real_case MOUNT REL WHAT CONTAINER POD UNIT: a sleeper moved into
# MOUNT/TOP/REL, listed by the fake NVML; its row checked.
real_case() {
	local mnt=$1 rel=$2 what=$3 dir
	shift 3
	dir="$mnt/$TOP/$rel"
	if ! mkdir -p "$dir" 2> /dev/null; then
		fail "$what: cannot create $dir"
		return
	fi
	spawn_sleeper
	if ! echo "$SLEEPER" > "$dir/cgroup.procs"; then
		fail "$what: cannot move $SLEEPER into $dir"
		return
	fi
	check "$what: /proc/$SLEEPER/cgroup shows it" grep -qF "/$TOP/$rel" "/proc/$SLEEPER/cgroup"
	scenario_for "$T/real.json" "$SLEEPER"
	nvml modern "$T/real.json" --once --json
	expect_rc 0 "$what: --once --json"
	cp "$T/out" "$T/real.jsonl"
	expect_row "$T/real.jsonl" "$what" "$SLEEPER" "$@" absent
	check "$what: the row is this sleeper" test "$(row_get "$T/real.jsonl" "$SLEEPER" name)" = sleep
}

TOP=gpur-attrib-$$
V2=$(cgroup_mount cgroup2)
V1=$(cgroup_mount v1)
if [ "$(id -u)" -ne 0 ]; then
	skip "real cgroups: not root"
elif [ -z "$V2" ] || ! mkdir "$V2/$TOP" 2> /dev/null; then
	skip "real cgroups: no writable cgroup2 mount (${V2:-none found in /proc/self/mountinfo})"
else
	CG_ROOTS="$V2/$TOP"
	real_case "$V2" "system.slice/docker-$A.scope" "real v2 docker" docker:05cff9470056 absent "docker-$A.scope"
	real_case "$V2" "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UB//-/_}.slice/cri-containerd-$K.scope" \
		"real v2 k8s containerd" containerd:184c8653db58 "$UB" "cri-containerd-$K.scope"
	real_case "$V2" "kubepods.slice/kubepods-pod${UG//-/_}.slice/crio-$O.scope" \
		"real v2 k8s crio guaranteed" crio:145932850256 "$UG" "crio-$O.scope"
	real_case "$V2" "machine.slice/libpod-$P.scope" "real v2 podman" podman:5b833c7a6ce0 absent "libpod-$P.scope"
	real_case "$V2" "system.slice/slurmstepd.scope/job_4242/step_0/user/task_0" "real v2 slurm" slurm:4242 absent \
		slurmstepd.scope
	real_case "$V2" 'machine.slice/machine-gpu12\x2dbox.scope/payload' "real v2 nspawn" nspawn:gpu12-box absent \
		machine-gpu12-box.scope
	real_case "$V2" "lxc.payload.build01" "real v2 lxc" lxc:build01 absent absent
	real_case "$V2" "system.slice/ollama.service" "real v2 service" absent absent ollama.service
	cleanup_cgroups
	check "real cgroups removed" test ! -e "$V2/$TOP"
fi
if [ "$(id -u)" -ne 0 ]; then
	:
elif [ -z "$V1" ] || ! mkdir "$V1/$TOP" 2> /dev/null; then
	skip "real v1 cgroups: no writable name=systemd hierarchy (${V1:-none mounted})"
else
	CG_ROOTS="$V1/$TOP"
	real_case "$V1" "system.slice/docker-$D.scope" "real v1 name=systemd docker" docker:d8c32f2c636c absent \
		"docker-$D.scope"
	cleanup_cgroups
	check "real v1 cgroups removed" test ! -e "$V1/$TOP"
fi

# --- A real process in nested pid namespaces --------------------------------
if [ "$(id -u)" -ne 0 ] || ! command -v unshare > /dev/null; then
	skip "pid namespace: needs root and unshare"
elif ! unshare --pid --fork --mount-proc true 2> /dev/null; then
	skip "pid namespace: unshare --pid --fork --mount-proc is refused here"
else
	TAB=$(printf '\t')
	# Two namespaces deep: the inner unshare is pid 1 of the first, sh pid
	# 1 of the second (2 in the first), the sleep it starts 2 (3 in the first).
	unshare --pid --fork --mount-proc unshare --pid --fork --mount-proc sh -c 'sleep 600 & wait' \
		< /dev/null > /dev/null 2>&1 &
	U=$!
	SLEEPERS="$SLEEPERS $U"
	# ns_sleep: walks down first children from U to the sleep; NSINIT is
	# pid 1 of the outer namespace.
	ns_sleep() {
		local p=$U c depth=0
		NSINIT=""
		while [ $depth -lt 4 ]; do
			c=$(cat "/proc/$p/task/$p/children" 2> /dev/null) || return 1
			c=${c%% *}
			[ -n "$c" ] || return 1
			[ -n "$NSINIT" ] || NSINIT=$c
			p=$c
			depth=$((depth + 1))
			if grep -q '^sleep' "/proc/$p/comm" 2> /dev/null; then
				NSSLEEP=$p
				return 0
			fi
		done
		return 1
	}
	if ! wait_until 10 ns_sleep; then
		fail "pid namespace: the sleep inside did not start"
	else
		SLEEPERS="$SLEEPERS $NSINIT $NSSLEEP"
		check "pid namespace: NSpid has three entries" grep -q "^NSpid:$TAB$NSSLEEP${TAB}3${TAB}2\$" "/proc/$NSSLEEP/status"
		scenario_for "$T/ns.json" "$NSSLEEP" "$$"
		nvml modern "$T/ns.json" --once --json
		expect_rc 0 "pid namespace: --once --json"
		cp "$T/out" "$T/ns.jsonl"
		check "pid namespace: container_pid is the innermost NSpid" \
			test "$(row_get "$T/ns.jsonl" "$NSSLEEP" container_pid)" = 2
		check "pid namespace: the pid is the outer one" test "$(row_get "$T/ns.jsonl" "$NSSLEEP" name)" = sleep
		check "same namespace: no container_pid" test "$(row_get "$T/ns.jsonl" "$$" container_pid)" = absent
		kill -KILL "$NSINIT" 2> /dev/null
	fi
fi

finish
