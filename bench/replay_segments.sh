#!/usr/bin/env bash
# bench/replay_segments.sh: replay of compressed, rotated recordings (issue 12).
# An hour of 8 GPUs x 64 processes at 1 s, plain; the same hour as gpur's own
# zstd segments (gpur --replay HOUR --headless --log SET --log-max-size 16M);
# a day of 24 hourly segments (each hour compressed the way gpur does);
# beside each, `zstd -dc | wc -l` as the floor; and the time a seek into the
# middle of the day takes once indexed (bench/seek_time, when built).
# Usage: bench/replay_segments.sh [BUILD_DIR]   Environment: RUNS (default 3), DAY_HOURS (24).
set -euo pipefail
build=${1:-build}
runs=${RUNS:-3}
hours=${DAY_HOURS:-24}
gpur=$build/gpur
gen=$build/bench/gen_recording
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpur-bench-seg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# best 'COMMAND LINE': the fastest wall time of RUNS runs, in seconds.
best() {
	local b=999999 t
	for ((i = 0; i < runs; i++)); do
		t=$(TIMEFORMAT=%R; { time bash -c "$1" > /dev/null 2>&1; } 2>&1)
		b=$(awk -v a="$b" -v c="$t" 'BEGIN { print (c < a ? c : a) }')
	done
	echo "$b"
}
row() { # LABEL RECORDS JSON_BYTES ON_DISK_BYTES WALL
	awk -v l="$1" -v r="$2" -v b="$3" -v d="$4" -v w="$5" 'BEGIN {
		w = w > 0 ? w : 0.001
		printf "| %-36s | %8d | %9.1f | %9.1f | %7.2f | %9.0f | %7.1f |\n", l, r, b / 1e6, d / 1e6, w, r / w, b / 1e6 / w }'
}

"$gen" --gpus 8 --procs 64 --seconds 3600 --interval 1 -o "$tmp/hour.jsonl"
bytes=$(stat -c %s "$tmp/hour.jsonl")
recs=$(wc -l < "$tmp/hour.jsonl")
mkdir "$tmp/set"
"$gpur" --replay "$tmp/hour.jsonl" --headless --log "$tmp/set/rec.jsonl" --log-max-size 16M
setdisk=$(du -cb "$tmp/set"/* | tail -n 1 | cut -f1)
mkdir "$tmp/day"
# The day: 24 generated hours through one gpur, rotated by record age, so
# the segments are gpur's own (zstd, a frame per ~2 MiB); the last hour is
# the active, plain FILE, as in a running service.
for ((h = 0; h < hours; h++)); do
	"$gen" --gpus 8 --procs 64 --seconds 3600 --interval 1 --start-ms $(((1764547200 + h * 3600) * 1000))
done | "$gpur" --replay /dev/stdin --headless --log "$tmp/day/rec.jsonl" --log-max-age 1h
daydisk=$(du -cb "$tmp/day"/* | tail -n 1 | cut -f1)

echo "| run                                  |  records |  JSON MB |  disk MB |  wall s | records/s |    MB/s |"
echo "|--------------------------------------|----------|----------|----------|---------|-----------|---------|"
row "plain hour, --headless" "$recs" "$bytes" "$bytes" "$(best "$gpur --replay $tmp/hour.jsonl --headless")"
row "plain hour, wc -l (floor)" "$recs" "$bytes" "$bytes" "$(best "wc -l $tmp/hour.jsonl")"
row "zstd segments of the hour, --headless" "$recs" "$bytes" "$setdisk" "$(best "$gpur --replay $tmp/set/rec.jsonl --headless")"
row "  zstd -dc | wc -l (floor)" "$recs" "$bytes" "$setdisk" "$(best "zstd -dc $tmp/set/rec.jsonl.*.zst | wc -l")"
row "day ($hours segments), --headless" $((recs * hours)) $((bytes * hours)) "$daydisk" "$(best "$gpur --replay $tmp/day/rec.jsonl --headless")"
row "  zstd -dc + cat | wc -l (floor)" $((recs * hours)) $((bytes * hours)) "$daydisk" "$(best "{ zstd -dc $tmp/day/*.zst; cat $tmp/day/rec.jsonl; } | wc -l")"
mid=$((1764547200000 + hours * 1800000))
t=$(best "$gpur --replay $tmp/day/rec.jsonl --json --from $mid --count 1")
echo
echo "--from the middle of the day (file skipping by segment name, then reading forward): $t s"
if [[ -x $build/bench/seek_time ]]; then
	"$build/bench/seek_time" "$tmp/day/rec.jsonl" "$mid"
fi
