# test_fleet_prometheus: a real Prometheus scrapes two gpur exporters (fake
# NVML, --hostname node-a and node-b); gpur --prometheus reads both hosts'
# GPUs back with their values; Prometheus stopped: rc 1 naming the URL; a
# URL that is not http(s) is a usage error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; rm -rf "$T"' EXIT

PROMETHEUS=$(command -v prometheus || echo /usr/bin/prometheus)
if [ ! -x "$PROMETHEUS" ]; then
	skip "test_fleet_prometheus: Debian's prometheus package is not installed"
	exit 0
fi
"$GPUR" --prometheus ftp://x --once > /dev/null 2> "$T/usage.err"
check "a non-http URL is a usage error" test $? = 2
check "the usage error names it" grep -q "ftp://x" "$T/usage.err"

for h in a b; do
	u=31
	[ $h = b ] && u=32
	scenario "$T/$h.json" <<JSON
{"driver":"550.54.15","gpus":[
 {"name":"NVIDIA H100","uuid":"GPU-$h-0","pci":"00000000:3B:00.0","util":$u,"mem_total":85899345920,
  "mem_used":1073741824,"temp":45,"power_mw":245500},
 {"name":"NVIDIA H100","uuid":"GPU-$h-1","pci":"00000000:5E:00.0","util":5,"mem_total":85899345920,
  "mem_used":0,"temp":30,"power_mw":60000}]}
JSON
	start_exporter $h GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/$h.json" -- \
		--backend nvml --headless --interval 0.2 --hostname node-$h
	eval "ADDR_$h=\$ADDR"
done
PP=$(free_port)
cat > "$T/prometheus.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: gpur
    scrape_interval: 1s
    scrape_timeout: 900ms
    static_configs:
      - targets: ['$ADDR_a', '$ADDR_b']
YML
"$PROMETHEUS" --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address="127.0.0.1:$PP" --log.level=warn > "$T/prometheus.log" 2>&1 &
PROM_PID=$!
P="http://127.0.0.1:$PP"
check "Prometheus is ready" wait_until 60 curl -sf "$P/-/ready" -o /dev/null
check "Prometheus has both hosts' GPUs" wait_until 60 sh -c "curl -s --get --data-urlencode 'query=count(DCGM_FI_DEV_POWER_USAGE)' '$P/api/v1/query' | grep -q '\"4\"'"

"$GPUR" --prometheus "$P" --once --json > "$T/fleet.json" 2> "$T/fleet.err"
check "--prometheus --once --json succeeds" test $? = 0
python3 - "$T/fleet.json" > "$T/fleet.txt" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
for g in r["gpus"]:
    print(g["name"], g["device_id"], g.get("util_pct"), g.get("mem_used_bytes"), g.get("mem_total_bytes"), g.get("temp_c"), g.get("power_w"))
PY
cat > "$T/want.txt" <<TXT
node-a: NVIDIA H100 GPU-a-0 31 1073741824 85899345920 45 245.5
node-a: NVIDIA H100 GPU-a-1 5 0 85899345920 30 60
node-b: NVIDIA H100 GPU-b-0 32 1073741824 85899345920 45 245.5
node-b: NVIDIA H100 GPU-b-1 5 0 85899345920 30 60
TXT
check "both hosts' GPUs with their values, by host then gpu" diff -u "$T/want.txt" "$T/fleet.txt"
"$GPUR" --prometheus "$P" --prometheus-match '{Hostname="node-b"}' --once --json > "$T/b.json" 2>&1
check "--prometheus-match narrows to node-b" sh -c "grep -c 'node-b: ' '$T/b.json' | grep -q 1 && ! grep -q 'node-a' '$T/b.json'"
"$GPUR" --prometheus "$P" --once > "$T/table.txt" 2>&1
check "--once prints the table" grep -q "node-a: NVIDIA H100" "$T/table.txt"

kill -TERM $PROM_PID; wait $PROM_PID 2> /dev/null
"$GPUR" --prometheus "$P" --once --json > /dev/null 2> "$T/down.err"
check "Prometheus stopped: rc 1" test $? = 1
check "the message names the URL" grep -qF "$P" "$T/down.err"
stop_all
finish
