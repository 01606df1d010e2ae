#!/usr/bin/env bash
# bench/poll.sh: CPU time per poll (user+sys) of the NVML backend, headless
# at --interval 0, against the fake NVML with real local processes
# (docs/benchmarks.md): 8 GPUs x 64 processes and 64 GPUs x 1,024 processes in all.
# Per-poll cost = (cost of N2 polls - cost of N1 polls) / (N2 - N1), so
# start-up is not counted. The numbers include the fake library's own work
# (a JSON lookup per getter), so they are an upper bound for gpur.
#
# Usage: bench/poll.sh [BUILD_DIR]    (default: build; needs the test build's fake NVML)
set -euo pipefail

build=${1:-build}
gpur=$build/gpur
fake=$build/tests/fake-nvml/modern/libnvidia-ml.so.1
for f in "$gpur" "$fake"; do
	[[ -e $f ]] || { echo "poll.sh: $f not found; build first (with tests)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpur-poll.XXXXXX")
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

# spawn N: N real processes to stand behind the fake's process lists.
spawn() {
	while (( ${#pids[@]} < $1 )); do
		sleep 3600 &
		pids+=($!)
	done
}

# scenario GPUS PROCS FILE: PROCS processes spread over GPUS GPUs.
scenario() {
	local gpus=$1 procs=$2 out=$3 g p
	{
		printf '{"driver":"550.54.15","cuda":12040,"fast_pcie":1,"gpus":['
		for ((g = 0; g < gpus; g++)); do
			((g)) && printf ','
			printf '{"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-%08x-0000-0000-0000-000000000000","pci":"0000:%02x:00.0",' "$g" "$((g % 256))"
			printf '"util":[50,60,70],"mem_util":20,"mem_total":85520809984,"mem_used":1000000000,"temp":60,"temp_mem":70,'
			printf '"temp_slowdown":87,"temp_shutdown":92,"power_mw":400000,"power_limit_mw":700000,"energy_mj":{"start":1,"step":400000},'
			printf '"fan_pct":30,"clock_gfx":1800,"clock_gfx_max":1980,"clock_mem":2619,"clock_mem_max":2619,"enc":0,"dec":0,'
			printf '"pcie_gen":5,"pcie_width":16,"pcie_gen_max":5,"pcie_width_max":16,"pcie_rx_kbs":1000,"pcie_tx_kbs":1000,'
			printf '"ecc_uncorrected":0,"pstate":0,"throttle":0,"processes":['
			local first=1
			for ((p = g; p < procs; p += gpus)); do
				((first)) || printf ','
				first=0
				printf '{"pid":%d,"type":"compute","mem":1073741824,"sm":[10,20],"mem_util":5}' "${pids[p]}"
			done
			printf ']}'
		done
		printf ']}\n'
	} > "$out"
}

# cpu POLLS SCENARIO: user+sys seconds of one headless run.
cpu() {
	local TIMEFORMAT='%U %S' t
	t=$( { time GPUR_NVML_LIBRARY=$fake FAKE_NVML_SCENARIO=$2 "$gpur" --backend nvml --json --interval 0 \
		--count "$1" > /dev/null 2>&1; } 2>&1 )
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f", a[1] + a[2] }'
}

echo "gpur poll cost, $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf '%-28s %10s %12s %14s\n' "case" "polls" "CPU s" "CPU ms/poll"
for spec in "8 64 200 1200" "64 1024 20 120"; do
	read -r gpus procs n1 n2 <<< "$spec"
	spawn "$procs"
	scenario "$gpus" "$procs" "$tmp/s-$gpus.json"
	c1=$(cpu "$n1" "$tmp/s-$gpus.json")
	c2=$(cpu "$n2" "$tmp/s-$gpus.json")
	per=$(awk -v a="$c1" -v b="$c2" -v n1="$n1" -v n2="$n2" 'BEGIN { printf "%.3f", (b - a) * 1000 / (n2 - n1) }')
	printf '%-28s %10s %12s %14s\n' "$gpus GPUs x $procs processes" "$n1/$n2" "$c1/$c2" "$per"
done
