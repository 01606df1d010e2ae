#!/usr/bin/env bash
# bench/nvml_calls.sh: how many NVML calls gpur and nvtop make per GPU per
# poll. Each program runs live on the test build's fake NVML, against the
# scenario of bench/tui.sh (8 GPUs x 64 real processes: `sleep`s spawned here,
# 8 per GPU), in a 200x60 tmux pane of a private server, at a 1 s interval for
# DURATION seconds after its first frame is drawn. It is then quit with `q`,
# as a user would, so that it shuts NVML down and the fake writes its call
# counts (FAKE_NVML_CALLS: one `ENTRY_POINT DEVICE COUNT` line per entry point
# and device) for the whole run, start-up included.
#
# Polls are counted from the same file, the same way for both programs: the
# calls of nvmlDeviceGetUtilizationRates on GPU 0. gpur reads each GPU's
# utilisation once a poll and at no other time (the fake's README relies on
# it). nvtop 3.3.2 makes that call only in gpuinfo_nvidia_refresh_dynamic_info,
# once per GPU at every refresh. nvmlDeviceGetCount would not do: nvtop calls
# it once, at start-up, and gpur once a poll plus once when it enumerates the
# GPUs. Calls per GPU per poll are all calls (those without a device included)
# divided by the GPU count and the polls; the table gives the same ratio for
# each entry point, so calls made once at start-up show as a small fraction.
#
# nvtop finds the fake by name through LD_LIBRARY_PATH, as it dlopens
# libnvidia-ml.so and then libnvidia-ml.so.1; a run whose counts never appear
# (another libnvidia-ml.so found first, or a program that did not quit) is
# reported as an error.
#
# Usage: bench/nvml_calls.sh [BUILD_DIR]    (default: build; needs the test
#        build's fake NVML, gpur and tmux)
# Environment: DURATION (seconds per program, default 30), INTERVAL (seconds
# between polls, default 1), NVTOP (nvtop binary; default: nvtop on PATH;
# "none" skips it), KEEP_DIR (keep the scenario, counts and last screens
# there instead of a temporary directory).
set -euo pipefail

here=$(dirname "$(realpath "$0")")
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

build=${1:-build}
duration=${DURATION:-30}
interval=${INTERVAL:-1}
ngpus=8
need_bins nvml_calls.sh "build first, with tests" "$build/gpur" "$build/tests/fake-nvml/modern/libnvidia-ml.so.1"
gpur=$(realpath -e "$build/gpur")
fake=$(realpath -e "$build/tests/fake-nvml/modern/libnvidia-ml.so.1")
command -v tmux > /dev/null || { echo "nvml_calls.sh: tmux is not installed" >&2; exit 1; }
nvtop=${NVTOP:-$(command -v nvtop || true)}
[[ $nvtop == none ]] && nvtop=""
if [[ -n $nvtop ]]; then
	need_bins nvml_calls.sh "NVTOP=none skips nvtop" "$nvtop"
	nvtop=$(realpath -e "$nvtop")
fi

bench_tmp nvml-calls
sock="gpur-nvml-calls-$$"
pids=()
tmx() { tmux -L "$sock" -f /dev/null "$@"; }
# The socket's file, which tmux leaves behind.
sock_path=""
cleanup() {
	tmx kill-server > /dev/null 2>&1 || true
	[[ -n $sock_path && $sock_path == */"$sock" ]] && rm -f "$sock_path"
	if ((${#pids[@]})); then
		kill "${pids[@]}" 2> /dev/null || true
	fi
	[[ -n ${KEEP_DIR:-} ]] || rm -rf "$tmp"
}
trap cleanup EXIT

bench_sleepers

# The scenario of bench/tui.sh: 8 GPUs, processes p, p+8, ... on GPU p.
bench_scenario "$tmp/scenario.json"

# running PID: PID is a process that has not exited.
running() {
	local state
	state=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null) || return 1
	[[ ${state%% *} != [ZX] ]]
}

# count NAME READY_ERE CMD...: runs CMD in the pane until DURATION seconds
# after READY_ERE is on the screen, quits it with `q` and leaves the fake's
# counts in $tmp/calls-NAME.
count() {
	local name=$1 ready=$2
	shift 2
	local calls="$tmp/calls-$name" i
	rm -f "$calls"
	bench_pane "$ready" "FAKE_NVML_CALLS=$calls" "$@"
	sleep "$duration"
	tmx capture-pane -p -t bench > "$tmp/screen-$name.txt" 2> /dev/null || true
	if ! grep -qE "$ready" "$tmp/screen-$name.txt"; then
		echo "nvml_calls.sh: $name: the screen never showed /$ready/:" >&2
		sed 's/^/  |/' "$tmp/screen-$name.txt" | head -n 20 >&2
	fi
	# Quit as a user would, so that NVML is shut down and the counts written.
	# (tmux may leave the exited program a zombie for a while: that is gone.)
	tmx send-keys -t bench q
	for ((i = 0; i < 200; i++)); do
		running "$pid" || break
		sleep 0.05
	done
	if running "$pid"; then
		echo "nvml_calls.sh: $name did not quit on q within 10 s; its counts are missing" >&2
		kill -TERM "$pid" 2> /dev/null || true
	fi
	tmx kill-server > /dev/null 2>&1 || true
}

# report NAME: the table of $tmp/calls-NAME.
report() {
	local name=$1
	local calls="$tmp/calls-$name"
	if [[ ! -s $calls ]]; then
		echo "nvml_calls.sh: $name: no call counts were written (was the fake NVML loaded?)" >&2
		return 1
	fi
	echo
	awk -v name="$name" -v ngpus="$ngpus" '
		$1 !~ /^nvml/ { next } # the live-object lines (gpm_samples_live ...) are no calls
		{ n[$1] += $3; total += $3 }
		$1 ~ /^nvmlDeviceGetCount(_v2)?$/ { counts += $3 }
		$1 == "nvmlDeviceGetUtilizationRates" && $2 == "0" { polls = $3 }
		END {
			if (polls == 0) { print name ": no polls counted" > "/dev/stderr"; exit 1 }
			printf "%s: %d polls (GPU 0 utilisation reads; nvmlDeviceGetCount calls: %d)\n", name, polls, counts
			printf "%s: %d NVML calls in all, %.2f per GPU per poll (%d GPUs)\n", name, total, total / ngpus / polls, ngpus
			printf "  %-44s %10s %14s\n", "entry point", "calls", "per GPU/poll"
			sort = "sort -k3,3nr -k1,1"
			for (f in n) printf "  %-44s %10d %14.3f\n", f, n[f], n[f] / ngpus / polls | sort
			close(sort)
			printf "  %-44s %10d %14.3f\n", "all", total, total / ngpus / polls
		}' "$calls"
}

echo "NVML calls per GPU per poll, 200x60 tmux pane, fake NVML $ngpus GPUs x 64 processes,"
echo "${interval} s interval, ${duration} s after the first frame; $("$gpur" --version)"
count gpur '^ +[0-9]+ .* sleep 3600' \
	GPUR_NVML_LIBRARY="$fake" FAKE_NVML_SCENARIO="$tmp/scenario.json" XDG_CONFIG_HOME="$tmp/xdg" \
	"$gpur" --backend nvml --interval "$interval"
status=0
report gpur || status=1
if [[ -n $nvtop ]]; then
	# nvtop's -d is in tenths of a second.
	d=$(awk -v s="$interval" 'BEGIN { printf "%d", s * 10 + 0.5 }')
	count nvtop ' sleep 3600' \
		LD_LIBRARY_PATH="$(dirname "$fake")" FAKE_NVML_SCENARIO="$tmp/scenario.json" HOME="$tmp" \
		"$nvtop" -d "$d"
	echo
	"$nvtop" --version
	report nvtop || status=1
else
	echo "(nvtop not found: not measured)"
fi
# The exit status: 1 when a program left no counts.
((status == 0))
