#!/usr/bin/env bash
# bench/replay.sh: replay throughput (docs/benchmarks.md). Generates a 1-hour recording
# of 8 GPUs x 64 processes at 1 s (and a half-length one), then measures
# `gpur --replay FILE --json > /dev/null` and `gpur --replay FILE --headless`:
# wall time, user+sys CPU, peak RSS, records/s and MB/s. Builds nothing.
#
# Usage: bench/replay.sh [BUILD_DIR]     (default: build; RelWithDebInfo expected)
# Environment: RUNS (default 5; the fastest run is reported: on a shared machine the
#              other runs measure the neighbours as much as gpur),
#              KEEP_DIR (keep the generated recordings there instead of a temp dir),
#              NO_GNU_TIME=1 (use the bash + /proc fallback even if /usr/bin/time exists).
set -euo pipefail

build=${1:-build}
runs=${RUNS:-5}
gpur=$build/gpur
gen=$build/bench/gen_recording

. "$(dirname "$0")/lib.sh"
need_bins replay.sh "build first: cmake --build $build" "$gpur" "$gen"
bench_tmp replay

have_time=0
[[ -x /usr/bin/time && -z ${NO_GNU_TIME:-} ]] && have_time=1

# measure OUT_FILE CMD...: runs CMD once with stdout to /dev/null and writes
# "wall user sys maxrss_kib" to OUT_FILE.
measure() {
	local out=$1
	shift
	if ((have_time)); then
		/usr/bin/time -f '%e %U %S %M' -o "$out" "$@" >/dev/null
		return
	fi
	# Fallback: bash's `time` for wall/user/sys and /proc/PID/status VmHWM
	# for the peak, sampled every 10 ms with builtins only (no fork, so the
	# sampling adds next to nothing to the CPU times).
	local TIMEFORMAT='%R %U %S' t pid hwm=0 k v
	[[ -p $tmp/tick ]] || mkfifo "$tmp/tick"
	exec {tick}<>"$tmp/tick"
	t=$({ time {
		"$@" >/dev/null 2>"$out.err" &
		pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			while read -r k v _; do
				[[ $k == VmHWM: ]] && hwm=$v
			done <"/proc/$pid/status" 2>/dev/null || true
			read -rt 0.01 -u "$tick" _ || true
		done
		wait "$pid" || { cat "$out.err" >&2; exit 1; }
		echo "$hwm" >"$out.hwm"
	}; } 2>&1)
	exec {tick}>&-
	echo "$t $(cat "$out.hwm")" >"$out"
}

# bench LABEL FILE MODE...: RUNS runs, prints the row of the fastest (by wall time).
bench() {
	local label=$1 file=$2
	shift 2
	local bytes records rows=()
	bytes=$(stat -c %s "$file")
	records=$(wc -l <"$file")
	for ((i = 0; i < runs; i++)); do
		measure "$tmp/m" "$gpur" --replay "$file" "$@"
		rows+=("$(cat "$tmp/m")")
	done
	local row
	row=$(printf '%s\n' "${rows[@]}" | sort -n -k1,1 | head -n 1)
	read -r wall user sys rss <<<"$row"
	awk -v label="$label" -v wall="$wall" -v user="$user" -v sys="$sys" -v rss="$rss" \
		-v bytes="$bytes" -v records="$records" 'BEGIN {
		cpu = sprintf("%.2f", user + sys);
		w = wall > 0 ? wall : 0.001;
		printf "| %-28s | %9d | %8.1f | %7.2f | %7s | %6.1f | %9.0f | %7.1f |\n",
			label, records, bytes / 1e6, wall, cpu, rss / 1024, records / w, bytes / 1e6 / w;
	}'
	echo "$wall $rss" >"$tmp/last"
}

echo "gpur replay benchmark"
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
echo "  build:   $build (${build_type:-RelWithDebInfo, the default})"
echo "  gpur:    $("$gpur" --version)"
echo "  machine: $(nproc) CPUs, $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "  kernel:  $(uname -sr)"
echo "  timing:  $([[ $have_time = 1 ]] && echo /usr/bin/time || echo 'bash + /proc VmHWM'), fastest of $runs runs"
echo

"$gen" --gpus 8 --procs 64 --seconds 3600 --interval 1 -o "$tmp/hour.jsonl"
"$gen" --gpus 8 --procs 64 --seconds 1800 --interval 1 -o "$tmp/half.jsonl"

# Sanity: every record comes back, once.
got=$("$gpur" --replay "$tmp/half.jsonl" --json | wc -l)
want=$(wc -l <"$tmp/half.jsonl")
if [[ $got != "$want" ]]; then
	echo "replay.sh: --json printed $got records of $want" >&2
	exit 1
fi

echo "| run                          |   records |       MB |  wall s | CPU s   | RSS MiB | records/s |    MB/s |"
echo "|------------------------------|-----------|----------|---------|---------|---------|-----------|---------|"
bench "--json, 1 h (3600 records)" "$tmp/hour.jsonl" --json
read -r hour_json_wall hour_json_rss <"$tmp/last"
bench "--json, 30 min (1800)" "$tmp/half.jsonl" --json
read -r half_json_wall half_json_rss <"$tmp/last"
bench "--headless, 1 h (3600)" "$tmp/hour.jsonl" --headless
read -r hour_hl_wall hour_hl_rss <"$tmp/last"
bench "--headless, 30 min (1800)" "$tmp/half.jsonl" --headless
read -r half_hl_wall half_hl_rss <"$tmp/last"
echo

awk -v a="$hour_json_wall" -v b="$half_json_wall" -v c="$hour_hl_wall" -v d="$half_hl_wall" \
	-v ra="$hour_json_rss" -v rb="$half_json_rss" -v rc="$hour_hl_rss" -v rd="$half_hl_rss" 'BEGIN {
	printf "linearity: wall 1 h / 30 min = %.2f (--json), %.2f (--headless); 2.00 is linear\n",
		a / (b > 0 ? b : 0.001), c / (d > 0 ? d : 0.001);
	printf "memory:    peak RSS 1 h / 30 min = %.2f (--json), %.2f (--headless); 1.00 is flat\n",
		ra / rb, rc / rd;
}'
