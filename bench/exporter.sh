#!/usr/bin/env bash
# bench/exporter.sh: requests/s and latency (p50, p99) of gpur's /metrics
# under wrk on loopback, 8 GPUs x 64 processes each (512 process rows, from
# a generated recording whose last frame is served), beside bench/mhd_fixed:
# a minimal libmicrohttpd server answering the same bytes with the same
# threads and limits. Plain and gzip. gpur's p99 should stay within 1.5x of
# the baseline's (docs/benchmarks.md).
#
# Usage: bench/exporter.sh [BUILD_DIR] [SECONDS]   (default: build, 10)
set -euo pipefail

build=${1:-build}
secs=${2:-10}
for f in "$build/gpur" "$build/bench/mhd_fixed" "$build/bench/gen_recording"; do
	[[ -x $f ]] || { echo "exporter.sh: $f not found; build first" >&2; exit 1; }
done
command -v wrk > /dev/null || { echo "exporter.sh: wrk not found (apt-get install wrk)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpur-exporter.XXXXXX")
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do curl -sf -o /dev/null "http://127.0.0.1:$1/metrics" && return 0; sleep 0.05; done; return 1; }

"$build/bench/gen_recording" --gpus 8 --procs 512 --seconds 2 --interval 1 -o "$tmp/rec.jsonl"
gp=$(port)
"$build/gpur" --replay "$tmp/rec.jsonl" --headless --serve "127.0.0.1:$gp" 2> "$tmp/gpur.err" &
pids+=($!)
wait_port "$gp"
curl -s "http://127.0.0.1:$gp/metrics" > "$tmp/body"
curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$gp/metrics" > "$tmp/body.gz"
bp=$(port)
bz=$(port)
"$build/bench/mhd_fixed" "$bp" "$tmp/body" &
pids+=($!)
"$build/bench/mhd_fixed" "$bz" "$tmp/body.gz" gzip &
pids+=($!)
wait_port "$bp"
wait_port "$bz"
echo "body: $(wc -c < "$tmp/body") bytes plain, $(wc -c < "$tmp/body.gz") gzip;" \
	"$(grep -c '^gpur_process_gpu_memory_bytes{' "$tmp/body") process series"

# wrk: 2 threads, 8 connections (keep-alive, as Prometheus scrapes).
run() {
	local name=$1 p=$2 enc=$3
	local out=$tmp/$name.wrk
	wrk -t2 -c8 -d"${secs}s" --latency ${enc:+-H "Accept-Encoding: $enc"} "http://127.0.0.1:$p/metrics" > "$out"
	local rps p50 p99
	rps=$(awk '/^Requests\/sec/ {print $2}' "$out")
	p50=$(awk '$1 == "50%" {print $2}' "$out")
	p99=$(awk '$1 == "99%" {print $2}' "$out")
	printf '%-14s %10s req/s   p50 %8s   p99 %8s\n' "$name" "$rps" "$p50" "$p99"
	echo "$p99" > "$tmp/$name.p99"
}
ms() { awk '{v = $1; if (v ~ /us$/) {sub(/us$/, "", v); v /= 1000} else if (v ~ /ms$/) {sub(/ms$/, "", v)} else if (v ~ /s$/) {sub(/s$/, "", v); v *= 1000}; print v}' "$1"; }
run baseline "$bp" ""
run gpur "$gp" ""
run baseline-gzip "$bz" gzip
run gpur-gzip "$gp" gzip
for k in "" -gzip; do
	b=$(ms "$tmp/baseline$k.p99")
	g=$(ms "$tmp/gpur$k.p99")
	awk -v b="$b" -v g="$g" -v k="${k:-plain}" 'BEGIN {printf "p99 ratio gpur/baseline (%s): %.2f %s\n", k, g / b, g / b <= 1.5 ? "(within 1.5x)" : "(OVER 1.5x)"}'
done
