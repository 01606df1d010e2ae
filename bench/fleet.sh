#!/usr/bin/env bash
# bench/fleet.sh: the cost of one fleet poll (--prometheus) at 50 and 500
# hosts x 8 GPUs, against a real Prometheus on loopback whose TSDB is
# backfilled with promtool from tests/tools/gen_fleet.py. For each size:
# wall time per poll (gpur's 10 queries and Prometheus answering them), gpur's
# CPU time per poll, and gpur's peak RSS, from a headless run of POLLS + 1
# records 0.2 s apart minus a run of one (start-up and detection), divided
# by the polls gpur really made (Prometheus's own count of the queries it
# answered, ten a poll: a poll slower than 0.2 s makes the frames between
# repeat it, and those cost no query).
#
# Usage: bench/fleet.sh [BUILD_DIR] [POLLS]   (default: build, 20)
set -euo pipefail

build=${1:-build}
polls=${2:-20}
src=$(cd "$(dirname "$0")/.." && pwd)
for f in "$build/gpur"; do
	[[ -x $f ]] || { echo "fleet.sh: $f not found; build first" >&2; exit 1; }
done
for c in prometheus promtool python3 curl; do
	command -v $c > /dev/null || { echo "fleet.sh: $c not found (scripts/deps.sh test)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpur-fleet.XXXXXX")
prom=""
cleanup() { [[ -n $prom ]] && kill "$prom" 2> /dev/null; wait 2> /dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# One run of N polls: "wall_s cpu_s maxrss_kib" (wait4's rusage of gpur).
measure() {
	python3 - "$build/gpur" "$1" "$2" <<'PY'
import os, subprocess, sys, time
gpur, url, n = sys.argv[1:4]
t0 = time.monotonic()
p = subprocess.Popen([gpur, "--prometheus", url, "--json", "--count", n, "--interval", "0.2"],
                     stdout=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
wall = time.monotonic() - t0
if status != 0:
    sys.exit("fleet.sh: gpur failed (status %d)" % status)
print(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss)
PY
}
# Prometheus's own count of the instant queries it answered: how many polls
# gpur really made (ten queries each).
answered() {
	curl -sf "$1/metrics" | awk '/^prometheus_http_requests_total\{code="200",handler="\/api\/v1\/query"\}/ {print $2}'
}
calc() { python3 -c "print('%.1f' % ($1))"; }

printf '%-6s %-6s %18s %12s %12s %10s\n' hosts gpus "poll ms (med/max)" "cpu/poll ms" "maxrss MiB" "records"
for hosts in 50 500; do
	rm -rf "$tmp/tsdb"
	python3 "$src/tests/tools/gen_fleet.py" "$hosts" 8 "$(date +%s)" > "$tmp/fleet.om"
	promtool tsdb create-blocks-from openmetrics "$tmp/fleet.om" "$tmp/tsdb" > /dev/null
	printf 'global:\n  scrape_interval: 1m\n' > "$tmp/prometheus.yml"
	p=$(port)
	prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
		--web.listen-address="127.0.0.1:$p" --log.level=warn > "$tmp/prometheus.log" 2>&1 &
	prom=$!
	for _ in $(seq 600); do curl -sf -o /dev/null "http://127.0.0.1:$p/-/ready" && break; sleep 0.1; done
	url="http://127.0.0.1:$p"
	"$build/gpur" --prometheus "$url" --once --json > "$tmp/one.jsonl"
	for _ in $(seq "$polls"); do
		"$build/gpur" --prometheus "$url" --once | sed -n 's/.*, read in \([0-9]*\) ms.*/\1/p;q'
	done | sort -n > "$tmp/read_ms"
	med=$(awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}' "$tmp/read_ms")
	max=$(tail -n 1 "$tmp/read_ms")
	a=$(answered "$url")
	read -r _ c1 _ <<< "$(measure "$url" 1)"
	b=$(answered "$url")
	read -r _ cn rss <<< "$(measure "$url" $((polls + 1)))"
	c=$(answered "$url")
	q1=$(calc "$b - $a")
	qn=$(calc "$c - $b")
	printf '%-6s %-6s %18s %12s %12s %10s\n' "$hosts" $((hosts * 8)) "$med / $max" \
		"$(calc "($cn - $c1) * 1000 / max(1, ($qn - $q1) / 10)")" \
		"$(calc "$rss / 1024")" "$(wc -l < "$tmp/one.jsonl")/poll"
	kill "$prom"
	wait "$prom" 2> /dev/null || true
	prom=""
done
