#!/bin/sh
# make-demo.sh: regenerate share/demo/demo.jsonl, byte for byte, with gpur
# itself, its dashboard driven under tmux as a user would drive it.
#
# The fake NVML plays share/demo/scenario.json (an 8-GPU training node: a
# DDP job in a Kubernetes pod on all 8, a notebook in Docker, an inference
# server in Podman, an evaluation as a Slurm job; GPU 3 falls off the bus
# halfway). Processes come from a procfs fixture (a copy: the fake moves the
# busy processes' CPU time, and the host's in /proc/stat, on at every poll,
# so their CPU % are real rates); container and pod names from the same tree
# as --rootfs. The clock is virtual and the host name fixed, so nothing of
# this machine leaks in.
#
# One signal is sent for real. The run is in a PID namespace of its own, where
# a stand-in process (sleep) holds each of the fixture's pids, the fixture's
# `self` names gpur, and the fake lists a GPU process only while its pid is
# alive (FAKE_NVML_LIVE_PROCFS). On the dashboard, at record SIGNAL_AT, the
# notebook is picked with the / filter and sent SIGTERM through K: gpur checks
# its identity and signals the stand-in, which exits, so the next poll's
# record has the `signal` event and no notebook, and GPU 0 has its memory
# back. The dashboard on the virtual clock polls only when stepped ('.') or
# resumed (space), so every record is the same on every run.
#
#   scripts/make-demo.sh BUILD_DIR [OUT]
# Needs root (a PID namespace, pids chosen through ns_last_pid), unshare and
# tmux; exits 77 when this machine cannot (the test suite then skips), 1 when
# something failed.
set -eu
build=${1:-build}
out=${2:-share/demo/demo.jsonl}
here=$(cd "$(dirname "$0")/.." && pwd)
SIGNAL_AT=60  # the record after which the notebook is signalled
COUNT=300
cd "$here"
case $build in /*) ;; *) build=$here/$build ;; esac
case $out in /*) ;; *) out=$here/$out ;; esac

if [ "${GPUR_DEMO_INNER:-}" != 1 ]; then
	for tool in unshare tmux; do
		command -v "$tool" >/dev/null 2>&1 || { echo "make-demo.sh: needs $tool" >&2; exit 77; }
	done
	[ "$(id -u)" = 0 ] || { echo "make-demo.sh: needs root (a PID namespace whose pids it chooses)" >&2; exit 77; }
	unshare --pid --fork --mount-proc true 2>/dev/null ||
		{ echo "make-demo.sh: cannot make a PID namespace here (unshare --pid --fork --mount-proc)" >&2; exit 77; }
	GPUR_DEMO_INNER=1 exec unshare --pid --fork --mount-proc --kill-child sh "$0" "$build" "$out"
fi

# From here on: pid 1 of a fresh PID namespace, with its own /proc. As pid 1
# it gets no signal it has no handler for: Ctrl-C ends it through these.
trap 'exit 130' INT TERM HUP
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpur-demo.XXXXXX")
sock="$tmp/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() {
	echo "make-demo.sh: $*" >&2
	tmux -S "$sock" capture-pane -p -t demo 2>/dev/null | sed 's/^/  | /' >&2 || true
	exit 1
}
# $1 seconds at most for the shell condition $2 (checked every 50 ms).
wait_for() {
	n=$(($1 * 20))
	while ! eval "$2"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "timed out waiting for: $2"
		sleep 0.05
	done
}
records() { if [ -f "$tmp/log.jsonl" ]; then wc -l <"$tmp/log.jsonl"; else echo 0; fi; }
screen() { tmux -S "$sock" capture-pane -p -t demo 2>/dev/null; }
keys() { tmux -S "$sock" send-keys -t demo "$@"; }
# True once pid $1 has exited (gone, or a zombie not yet reaped).
gone() {
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	case ${st##*) } in Z* | X*) return 0 ;; esac
	return 1
}

cp -R tests/fixtures/demo-root "$tmp/root"
max=$(cat /proc/sys/kernel/pid_max)
for dir in "$tmp"/root/proc/[0-9]*; do
	[ "${dir##*/}" -lt "$max" ] || { echo "make-demo.sh: needs a pid_max above ${dir##*/} (it is $max)" >&2; exit 77; }
done
# A stand-in for each of the fixture's processes, at its pid.
for dir in "$tmp"/root/proc/[0-9]*; do
	pid=${dir##*/}
	echo $((pid - 1)) >/proc/sys/kernel/ns_last_pid || fail "cannot choose pid $pid (ns_last_pid)"
	sleep 100000 &
	[ "$!" = "$pid" ] || fail "the stand-in for pid $pid got pid $!"
	# Its executable, as /proc has it: gpur never signals a process
	# without one (a kernel thread).
	ln -s "$(readlink "/proc/$pid/exe")" "$dir/exe"
done

# gpur in a clean environment: none of the caller's settings (a sort,
# grouping or columns saved in ~/.config/gpur would change what keys do).
mkdir -p "$tmp/home" "$tmp/xdg"
{
	echo '#!/bin/sh'
	echo "ln -s \$\$ '$tmp/root/proc/self'"
	printf 'exec env -i PATH="%s" TERM="$TERM" HOME="%s" XDG_CONFIG_HOME="%s" LANG=C.UTF-8 TZ=UTC' \
		"$PATH" "$tmp/home" "$tmp/xdg"
	for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS; do
		eval "set=\${$v+x}"
		[ -z "$set" ] || eval "printf ' %s=\"%s\"' $v \"\$$v\""
	done
	printf ' GPUR_NVML_LIBRARY="%s" FAKE_NVML_SCENARIO="%s"' \
		"$build/tests/fake-nvml/modern/libnvidia-ml.so.1" "$here/share/demo/scenario.json"
	printf ' FAKE_NVML_PROCFS="%s" FAKE_NVML_LIVE_PROCFS=/proc GPUR_VIRTUAL_CLOCK_MS=1764583200000' "$tmp/root/proc"
	# GPM's windows are measured in real time, which a virtual clock does
	# not give, so the demo is made without it (and says nothing of it).
	printf ' "%s" --backend nvml --no-gpm --hostname demo --procfs "%s" --rootfs "%s"' "$build/gpur" "$tmp/root/proc" "$tmp/root"
	printf ' --interval 1 --count %s --log "%s" 2>"%s"\n' "$COUNT" "$tmp/log.jsonl" "$tmp/stderr"
} >"$tmp/gpur.sh"
# The pane runs gpur, then leaves its exit status for this script.
printf '#!/bin/sh\nsh "%s"\necho $? >"%s"\nexec sleep 100000\n' "$tmp/gpur.sh" "$tmp/rc" >"$tmp/pane.sh"
tmux -S "$sock" -f /dev/null new-session -d -s demo -x 200 -y 60 "exec sh '$tmp/pane.sh'"
wait_for 20 'screen | grep -q PAUSED'
# Up to the signal, one poll a key.
i=0
while [ "$i" -lt "$SIGNAL_AT" ]; do
	keys .
	i=$((i + 1))
done
wait_for 60 '[ "$(records)" -ge "$SIGNAL_AT" ]'
wait_for 20 'screen | grep -q ipykernel'
[ "$(records)" = "$SIGNAL_AT" ] || fail "$(records) records where $SIGNAL_AT were asked for"
keys / i p y k e r n e l Enter
wait_for 20 'screen | grep -q 48311 && ! screen | grep -q 51200'
keys K
wait_for 20 'screen | grep -q "terminate (the default"'
keys Enter
# Sent: the stand-in has exited (or is a zombie) before the next poll is
# asked for.
wait_for 20 'gone 48311'
keys Escape
wait_for 20 'screen | grep -q 51200'
keys Space
wait_for 120 '[ -s "$tmp/rc" ]'
[ "$(cat "$tmp/rc")" = 0 ] || fail "gpur exited with status $(cat "$tmp/rc"): $(cat "$tmp/stderr")"
[ ! -s "$tmp/stderr" ] || fail "gpur said: $(cat "$tmp/stderr")"
[ "$(records)" = "$COUNT" ] || fail "$(records) records where $COUNT were asked for"
cp "$tmp/log.jsonl" "$out.tmp"
mv "$out.tmp" "$out"
