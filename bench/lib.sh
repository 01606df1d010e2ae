# bench/lib.sh: what the benchmark scripts share (sourced).
# shellcheck shell=bash

# need_bins NAME HINT BIN...: each BIN is an executable, or NAME says which
# is not (with HINT) and the script ends.
need_bins() {
	local name=$1 hint=$2 bin
	shift 2
	for bin in "$@"; do
		if [[ ! -x $bin ]]; then
			echo "$name: $bin not found ($hint)" >&2
			exit 1
		fi
	done
}

# bench_tmp TAG: sets tmp to $KEEP_DIR (kept), else to a new temporary
# directory removed at exit.
bench_tmp() {
	if [[ -n ${KEEP_DIR:-} ]]; then
		tmp=$KEEP_DIR
		mkdir -p "$tmp"
	else
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpur-bench-$1.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
	fi
}

# bench_sleepers: 64 real processes behind the fake's process lists, their
# pids appended to the caller's array `pids`.
bench_sleepers() {
	while ((${#pids[@]} < 64)); do
		sleep 3600 &
		pids+=($!)
	done
}

# bench_scenario FILE: the dashboard benchmarks' fake NVML scenario, 8 GPUs
# with processes p, p+8, ... of `pids` on GPU p. Its values advance with wall
# time ("cycle_ms"), so programs that poll differently see the same readings.
bench_scenario() {
	local g p
	{
		printf '{"driver":"550.54.15","cuda":12040,"fast_pcie":1,"cycle_ms":100,"gpus":['
		for ((g = 0; g < 8; g++)); do
			((g)) && printf ','
			printf '{"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-%08x-0000-0000-0000-000000000000","pci":"0000:%02x:00.0",' "$g" "$((g + 0x18))"
			printf '"util":[50,60,70],"mem_util":20,"mem_total":85520809984,"mem_used":[1000000000,2000000000],"temp":60,"temp_mem":70,'
			printf '"temp_slowdown":87,"temp_shutdown":92,"power_mw":400000,"power_limit_mw":700000,"energy_mj":{"start":1,"step":400000},'
			printf '"fan_pct":30,"clock_gfx":1800,"clock_gfx_max":1980,"clock_mem":2619,"clock_mem_max":2619,"enc":0,"dec":0,'
			printf '"pcie_gen":5,"pcie_width":16,"pcie_gen_max":5,"pcie_width_max":16,"pcie_rx_kbs":1000,"pcie_tx_kbs":1000,'
			printf '"ecc_uncorrected":0,"pstate":0,"throttle":0,"processes":['
			for ((p = g; p < 64; p += 8)); do
				((p != g)) && printf ','
				printf '{"pid":%d,"type":"compute","mem":1073741824,"sm":[10,20],"mem_util":5}' "${pids[p]}"
			done
			printf ']}'
		done
		printf ']}\n'
	} > "$1"
}

# bench_pane READY_ERE ENV CMD...: runs CMD in a clean environment (plus ENV,
# NAME=VALUE or "") in a 200x60 pane of the caller's tmux server (its `tmx`
# function), sets `sock_path` and `pid`, and returns once READY_ERE is on the
# screen (20 s at most).
bench_pane() {
	local ready=$1 extra=$2 run="$tmp/run.sh" pidf="$tmp/pid" i
	shift 2
	rm -f "$pidf"
	{
		echo '#!/bin/bash'
		# shellcheck disable=SC2016 # expanded by the wrapper
		printf 'echo $$ > %q\nexec env -i TERM="$TERM" PATH=%q HOME=%q LANG=C.UTF-8' "$pidf" "$PATH" "$tmp"
		[[ -n $extra ]] && printf ' %q' "$extra"
		printf ' %q' "$@"
		echo
	} > "$run"
	chmod +x "$run"
	tmx -u start-server \; set -g status off \; set -g exit-empty off \; \
		new-session -d -s bench -x 200 -y 60 "$run"
	# shellcheck disable=SC2034 # the caller's, for its cleanup
	sock_path=$(tmx display -p '#{socket_path}')
	for ((i = 0; i < 100; i++)); do
		[[ -s $pidf ]] && break
		sleep 0.05
	done
	# shellcheck disable=SC2034 # the caller's
	pid=$(cat "$pidf")
	for ((i = 0; i < 400; i++)); do
		tmx capture-pane -p -t bench 2> /dev/null | grep -qE "$ready" && break
		sleep 0.05
	done
}
