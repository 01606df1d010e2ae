#!/usr/bin/env bash
# bench/report.sh: gpur --replay FILE --report OUT (issue 13): time, CPU and
# peak RSS for an hour and a day of an 8-GPU node with 64 GPU processes at
# 1 s (bench/gen_recording: processes come and go, events, a GPU lost), as
# HTML and as JSON, and the size of each report. Builds nothing.
#
# Usage: bench/report.sh [BUILD_DIR]   (default: build)
# Environment: RUNS (default 3; the fastest run is reported), KEEP_DIR (keep the
#              recordings there). The day's recording takes about 3.2 GB of disk.
set -euo pipefail

build=${1:-build}
runs=${RUNS:-3}
gpur=$build/gpur
gen=$build/bench/gen_recording
. "$(dirname "$0")/lib.sh"
need_bins report.sh "build first; /usr/bin/time: apt-get install time" "$gpur" "$gen" /usr/bin/time
bench_tmp report

printf '| recording | records | MB | report | wall s | CPU s | peak RSS MiB | report KB |\n'
printf '|---|---:|---:|---|---:|---:|---:|---:|\n'
for span in hour:3600 day:86400; do
	name=${span%%:*}
	secs=${span#*:}
	rec=$tmp/$name.jsonl
	[[ -s $rec ]] || "$gen" --gpus 8 --procs 64 --seconds "$secs" --interval 1 -o "$rec"
	mb=$(( $(stat -c %s "$rec") / 1000000 ))
	for ext in html json; do
		best=""
		for ((i = 0; i < runs; i++)); do
			/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$gpur" --replay "$rec" --report "$tmp/$name.$ext"
			read -r wall user sys rss < "$tmp/time"
			cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
			if [[ -z $best ]] || awk -v a="$wall" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
				best="$wall $cpu $rss"
			fi
		done
		read -r wall cpu rss <<< "$best"
		printf '| %s (8 GPUs, 64 processes, 1 s) | %d | %d | %s | %s | %s | %.1f | %d |\n' "$name" "$secs" "$mb" \
			"$ext" "$wall" "$cpu" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
			$(( $(stat -c %s "$tmp/$name.$ext") / 1000 ))
	done
done
