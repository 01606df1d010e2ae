#!/usr/bin/env bash
# bench/tui.sh: the dashboard's own cost (docs/benchmarks.md: TUI CPU% and RSS at 1 s
# and 0.1 s over 60 s). gpur runs live on the fake NVML (8 GPUs x 64 real
# processes: `sleep`s spawned here, 8 per GPU) in a 200x60 tmux pane of a
# private server, for DURATION seconds at each interval. CPU time is the sum
# over gpur's threads of the first field of /proc/PID/task/*/schedstat (ns
# on a CPU), read once the first frame is drawn and again at the end; peak
# RSS is VmHWM from /proc/PID/status at the end. The fake library runs inside
# gpur's process, so its own work (a JSON lookup per getter) is counted too:
# an upper bound for gpur. The scenario's values advance with wall time
# ("cycle_ms": 100), not per poll, so both programs see the same readings
# change at the same moments: the same work.
#
# With nvtop installed (Debian: apt-get install nvtop), nvtop is measured the
# same way against the same fake NVML (found by name through LD_LIBRARY_PATH,
# as nvtop dlopens libnvidia-ml.so.1), with -d at the same interval.
#
# Usage: bench/tui.sh [BUILD_DIR]    (default: build; needs the test build's
#        fake NVML and tmux)
# Environment: DURATION (seconds per case, default 60), INTERVALS (default
# "1 0.1"), NVTOP (nvtop binary; default: nvtop on PATH; "none" skips it),
# RUNS (default 1): each case that many times, gpur and nvtop taking turns
# so that both meet the same moments of a shared machine, and a last table
# of the medians.
set -euo pipefail

build=${1:-build}
duration=${DURATION:-60}
intervals=${INTERVALS:-"1 0.1"}
gpur=$(realpath -e "$build/gpur" 2> /dev/null || true)
fake=$(realpath -e "$build/tests/fake-nvml/modern/libnvidia-ml.so.1" 2> /dev/null || true)
[[ -n $gpur && -n $fake ]] || {
	echo "tui.sh: $build/gpur or its fake NVML not found; build first (with tests)" >&2
	exit 1
}
command -v tmux > /dev/null || { echo "tui.sh: tmux is not installed" >&2; exit 1; }
nvtop=${NVTOP:-$(command -v nvtop || true)}
[[ $nvtop == none ]] && nvtop=""

# shellcheck source=bench/lib.sh
. "$(dirname "$(realpath "$0")")/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpur-tui.XXXXXX")
sock="gpur-bench-$$"
pids=()
tmx() { tmux -L "$sock" -f /dev/null "$@"; }
# The socket's file, which tmux leaves behind.
sock_path=""
cleanup() {
	tmx kill-server > /dev/null 2>&1 || true
	[[ -n $sock_path && $sock_path == */"$sock" ]] && rm -f "$sock_path"
	kill "${pids[@]}" 2> /dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

bench_sleepers

# The scenario: 8 GPUs, processes p, p+8, ... on GPU p.
bench_scenario "$tmp/scenario.json"

# CPU ns of all threads of PID.
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2> /dev/null | awk '{ s += $1 } END { printf "%.0f", s }'
}
hwm_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
now_ns() { date +%s%N; }

# measure NAME INTERVAL READY_ERE CMD...: one case; prints a table row.
measure() {
	local name=$1 interval=$2 ready=$3
	shift 3
	bench_pane "$ready" "" "$@"
	local c0 t0 c1 t1 hwm
	c0=$(cpu_ns "$pid")
	t0=$(now_ns)
	sleep "$duration"
	c1=$(cpu_ns "$pid")
	t1=$(now_ns)
	hwm=$(hwm_kib "$pid")
	tmx capture-pane -p -t bench > "$tmp/screen-$name-$interval.txt" 2> /dev/null || true
	if ! grep -qE "$ready" "$tmp/screen-$name-$interval.txt"; then
		echo "tui.sh: $name at $interval s: the screen never showed /$ready/:" >&2
		sed 's/^/  |/' "$tmp/screen-$name-$interval.txt" | head -n 20 >&2
	fi
	kill -TERM "$pid" 2> /dev/null || true
	tmx kill-server > /dev/null 2>&1 || true
	awk -v n="$name" -v iv="$interval" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hwm="$hwm" 'BEGIN {
		wall = (t1 - t0) / 1e9; cpu = (c1 - c0) / 1e6
		printf "%-8s %9s %7.1f %12.1f %9.3f %14.1f %14.1f\n", n, iv "s", wall, cpu, cpu / 10 / wall, c1 / 1e6, hwm / 1024
	}' | tee -a "$tmp/rows"
}

echo "dashboard cost, 200x60 tmux pane, fake NVML 8 GPUs x 64 processes, ${duration} s per case"
echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $("$gpur" --version)"
printf '%-8s %9s %7s %12s %9s %14s %14s\n' program interval "wall s" "CPU ms" "CPU %" "CPU ms total" "peak RSS MiB"
runs=${RUNS:-1}
: > "$tmp/rows"
for iv in $intervals; do
	for ((run = 0; run < runs; run++)); do
		measure gpur "$iv" '^ +[0-9]+ .* sleep 3600' \
			GPUR_NVML_LIBRARY="$fake" FAKE_NVML_SCENARIO="$tmp/scenario.json" XDG_CONFIG_HOME="$tmp/xdg" \
			"$gpur" --backend nvml --interval "$iv"
		[[ -n $nvtop ]] || continue
		# nvtop's -d is in tenths of a second.
		d=$(awk -v s="$iv" 'BEGIN { printf "%d", s * 10 + 0.5 }')
		measure nvtop "$iv" ' sleep 3600' \
			LD_LIBRARY_PATH="$(dirname "$fake")" FAKE_NVML_SCENARIO="$tmp/scenario.json" HOME="$tmp" \
			"$nvtop" -d "$d"
	done
done
[[ -n $nvtop ]] || echo "(nvtop not installed: not measured)"
if ((runs > 1)); then
	echo "medians of $runs runs:"
	printf '%-8s %9s %9s %14s\n' program interval "CPU %" "RSS MiB (that run)"
	for iv in $intervals; do
		for name in gpur nvtop; do
			awk -v n="$name" -v iv="${iv}s" '$1 == n && $2 == iv { print $5, $7 }' "$tmp/rows" | sort -n |
				awk -v n="$name" -v iv="${iv}s" '{ c[NR] = $1; r[NR] = $2 } END {
					if (NR) printf "%-8s %9s %9.3f %14.1f\n", n, iv, c[int((NR + 1) / 2)], r[int((NR + 1) / 2)]
				}'
		done
	done
fi
echo "CPU ms: on a CPU (all threads) from the first frame to the end; CPU %: of one core;"
echo "CPU ms total: since exec; peak RSS: VmHWM."
