# test_serve_prometheus: two gpur exporters (fake NVML scenarios, distinct
# --hostname) on ephemeral loopback ports, scraped by a real Prometheus
# server run here (never its service); the values read back through its
# HTTP API equal the scenarios; promtool accepts the exposition (only the
# lint dcgm-exporter's names force); every query of gpur's Grafana
# dashboard and of dcgm-exporter's dashboard 12239 returns data, its
# tensor-core panel from GPM; XID errors as dcgm-exporter and gpur serve them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; kill $SLEEPERS 2>/dev/null; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT

need_prometheus || exit 0

spawn_sleeper
P1=$SLEEPER
# node-a: exact values; its GPU 1 falls off the bus at poll 3.
scenario "$T/a.json" <<JSON
{"driver":"550.54.15","fast_pcie":1,"gpus":[
 {"name":"NVIDIA A100-SXM4-80GB","uuid":"GPU-aaaa","pci":"00000000:3B:00.0","util":37,"mem_util":12,
  "mem_total":85899345920,"mem_used":1073741824,"temp":45,"temp_mem":50,"power_mw":245500,
  "power_limit_mw":400000,"energy_mj":5000000,"clock_gfx":1410,"clock_mem":1593,"fan_pct":40,
  "enc":3,"dec":4,"pcie_rx_kbs":1000,"pcie_tx_kbs":2000,"throttle":4,"pstate":0,
  "gpm":{"gr":80,"sm":45.25,"occupancy":30,"tensor":12.5,"dram":60,"fp64":1,"fp32":2,"fp16":3,
         "nvlink_rx_mibs":10,"nvlink_tx_mibs":20},
  "xid":[{"poll":3,"xid":31},{"poll":4,"xid":31},{"poll":5,"xid":13}],
  "processes":[{"pid":$P1,"mem":1048576,"sm":55}]},
 {"name":"NVIDIA A100-SXM4-80GB","uuid":"GPU-bbbb","pci":"00000000:5E:00.0","util":1,"mem_total":85899345920,
  "mem_used":0,"temp":30,"power_mw":60000,"xid":[{"poll":2,"xid":79}],"lost_at_poll":3}]}
JSON
start_exporter a GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/a.json" -- \
	--backend nvml --headless --interval 0.2 --hostname node-a
check "node-a serves" test -n "$ADDR"
A=$ADDR
# node-b: the demo's 8-GPU training node, with containers and pods from its
# procfs and rootfs fixture.
cp -R "$FIXTURES/demo-root" "$T/root"
start_exporter b GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$SOURCE_DIR/share/demo/scenario.json" \
	FAKE_NVML_PROCFS="$T/root/proc" -- \
	--backend nvml --headless --interval 0.2 --hostname node-b --procfs "$T/root/proc" --rootfs "$T/root"
check "node-b serves" test -n "$ADDR"
B=$ADDR

# promtool: only the lint dcgm-exporter's names force may show: the
# camelCase label modelName, and counters without _total
# (DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, DCGM_FI_DEV_ECC_DBE_VOL_TOTAL).
for addr in "$A" "$B"; do
	http_get "http://$addr/metrics" > "$T/metrics.txt"
	"$PROMTOOL" check metrics < "$T/metrics.txt" > "$T/lint.txt" 2>&1
	grep -v -E "^[A-Za-z0-9_:]+ label names should be written in 'snake_case' not 'camelCase'$" "$T/lint.txt" |
		grep -v -E '^DCGM_FI_[A-Z0-9_]+ counter metrics should have "_total" suffix$' > "$T/lint.left"
	if [ -s "$T/lint.left" ]; then
		fail "promtool check metrics on $addr: $(head -c 600 "$T/lint.left")"
	else
		ok
	fi
done

scrape_config 1s "$A" "$B"

# Instant query; prints "labels value" per result (sorted); false on an
# error answer.
query() {
	curl -s --max-time 10 --get --data-urlencode "query=$1" "$P/api/v1/query" | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("status") != "success":
    sys.exit(1)
r = d["data"]["result"]
if d["data"]["resultType"] in ("scalar", "string"):
    print(r[1]); sys.exit(0)
for s in sorted(r, key=lambda s: sorted(s["metric"].items())):
    print(",".join("%s=%s" % kv for kv in sorted(s["metric"].items())), s["value"][1])
'
}
# The one value of QUERY.
value() { query "$1" | awk 'NR == 1 {print $NF}'; }
has_data() { [ -n "$(query "$1")" ]; }
expect_value() {
	local got
	got=$(value "$1")
	if [ "$got" = "$2" ]; then ok; else fail "$3: $1 = '$got', expected '$2'"; fi
}

check "Prometheus is ready" start_prometheus "$T/tsdb"
check "Prometheus scrapes both exporters" wait_until 60 sh -c "[ \"\$(curl -s --get --data-urlencode 'query=count(up{job=\"gpur\"} == 1)' '$P/api/v1/query' | grep -o '\"2\"')\" ]"
check "two samples of each target (rates answer)" wait_until 30 has_data 'count(rate(gpur_exporter_scrapes_total[5s])) == 2'
check "node-a's GPU 1 is lost" wait_until 30 has_data 'gpur_gpu_lost{Hostname="node-a",gpu="1"} == 1'

S='Hostname="node-a",gpu="0"'
expect_value "DCGM_FI_DEV_GPU_UTIL{$S}" 37 "util"
expect_value "DCGM_FI_DEV_MEM_COPY_UTIL{$S}" 12 "memory util"
expect_value "DCGM_FI_DEV_FB_USED{$S}" 1024 "memory used, MiB"
expect_value "DCGM_FI_DEV_FB_TOTAL{$S}" 81920 "memory total, MiB"
expect_value "DCGM_FI_DEV_FB_FREE{$S}" 80896 "memory free, MiB"
expect_value "DCGM_FI_DEV_GPU_TEMP{$S}" 45 "temperature"
expect_value "DCGM_FI_DEV_MEMORY_TEMP{$S}" 50 "memory temperature"
expect_value "DCGM_FI_DEV_POWER_USAGE{$S}" 245.5 "power, W"
expect_value "DCGM_FI_DEV_POWER_MGMT_LIMIT{$S}" 400 "power limit, W"
expect_value "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{$S}" 5000000 "energy, mJ"
expect_value "DCGM_FI_DEV_SM_CLOCK{$S}" 1410 "SM clock"
expect_value "DCGM_FI_DEV_MEM_CLOCK{$S}" 1593 "memory clock"
expect_value "DCGM_FI_DEV_ENC_UTIL{$S}" 3 "encoder"
expect_value "DCGM_FI_DEV_DEC_UTIL{$S}" 4 "decoder"
expect_value "DCGM_FI_DEV_FAN_SPEED{$S}" 40 "fan"
expect_value "DCGM_FI_PROF_PCIE_RX_BYTES{$S}" 1024000 "PCIe rx, bytes/s"
expect_value "DCGM_FI_PROF_PCIE_TX_BYTES{$S}" 2048000 "PCIe tx, bytes/s"
expect_value "gpur_throttle{$S,reason=\"sw_power_cap\"}" 1 "throttle reason (NVML bit 4)"
expect_value "gpur_throttle{$S,reason=\"gpu_idle\"}" 0 "throttle reason not active"
expect_value "count(DCGM_FI_DEV_GPU_UTIL{$S,UUID=\"GPU-aaaa\",modelName=\"NVIDIA A100-SXM4-80GB\",device=\"nvidia0\",DCGM_FI_DRIVER_VERSION=\"550.54.15\",vendor=\"nvidia\"})" 1 "dcgm labels"
expect_value "gpur_process_gpu_memory_bytes{$S,pid=\"$P1\",comm=\"sleep\"}" 1048576 "process memory"
expect_value "gpur_process_gpu_util_percent{$S,pid=\"$P1\"}" 55 "process util"
expect_value "gpur_gpu_up{$S}" 1 "GPU 0 up"
# GPM's profiling families, as ratios and bytes/s.
expect_value "DCGM_FI_PROF_GR_ENGINE_ACTIVE{$S}" 0.8 "GPM: graphics engine active, a ratio"
expect_value "DCGM_FI_PROF_SM_ACTIVE{$S}" 0.4525 "GPM: SM active"
expect_value "DCGM_FI_PROF_SM_OCCUPANCY{$S}" 0.3 "GPM: SM occupancy"
expect_value "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{$S}" 0.125 "GPM: tensor active"
expect_value "DCGM_FI_PROF_DRAM_ACTIVE{$S}" 0.6 "GPM: DRAM active"
expect_value "DCGM_FI_PROF_PIPE_FP64_ACTIVE{$S}" 0.01 "GPM: FP64"
expect_value "DCGM_FI_PROF_PIPE_FP32_ACTIVE{$S}" 0.02 "GPM: FP32"
expect_value "DCGM_FI_PROF_PIPE_FP16_ACTIVE{$S}" 0.03 "GPM: FP16"
expect_value "DCGM_FI_PROF_NVLINK_RX_BYTES{$S}" 10485760 "GPM: NVLink rx, bytes/s"
expect_value "DCGM_FI_PROF_NVLINK_TX_BYTES{$S}" 20971520 "GPM: NVLink tx, bytes/s"
# XID errors: the last per GPU, and a counter per XID.
check "node-a's XIDs all counted" wait_until 30 has_data "gpur_xid_errors_total{$S,xid=\"13\"} == 1"
expect_value "DCGM_FI_DEV_XID_ERRORS{$S}" 13 "the last XID of GPU 0"
expect_value "gpur_xid_errors_total{$S,xid=\"31\"}" 2 "XID 31 twice"
expect_value "DCGM_FI_DEV_XID_ERRORS{Hostname=\"node-a\",gpu=\"1\"}" 79 "XID 79 of the GPU then lost"
expect_value "count(DCGM_FI_DEV_GPU_UTIL{Hostname=\"node-a\",gpu=\"1\"})" "" "a lost GPU has no readings"
expect_value "gpur_gpus{Hostname=\"node-a\"}" 2 "node-a's GPUs"
expect_value "gpur_backend_up{Hostname=\"node-a\",backend=\"nvml\"}" 1 "backend up"
expect_value "gpur_gpus{Hostname=\"node-b\"}" 8 "node-b's GPUs"
# GPU 3 falls off the bus after a while (the demo's scenario), so on a busy
# machine it may have gone by now: the most GPUs node-b reported at once.
expect_value "max_over_time(count(DCGM_FI_DEV_GPU_UTIL{Hostname=\"node-b\"})[10m:1s])" 8 "node-b's GPUs before GPU 3 is lost"
check "node-b: per-container GPU memory with pod and namespace" has_data \
	'gpur_container_gpu_memory_bytes{Hostname="node-b",pod!="",namespace!=""} > 0'
check "node-b: processes with containers" has_data 'gpur_process_gpu_memory_bytes{Hostname="node-b",container!=""}'
expect_value "count(count by (instance) (DCGM_FI_DEV_GPU_TEMP))" 2 "both instances"

# Every query of the shipped dashboard answers, its variables too.
python3 - "$SOURCE_DIR/deploy/grafana/gpur-dashboard.json" > "$T/dash.queries" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def walk(panels):
    for p in panels:
        yield from walk(p.get("panels", []))
        for t in p.get("targets", []):
            print(t["expr"])
walk_list = list(walk(d["panels"]))
for v in d["templating"]["list"]:
    q = v.get("query")
    if isinstance(q, dict) and q.get("query", "").startswith("label_values("):
        print("LABEL " + q["query"])
PY
n=0
while IFS= read -r q; do
	n=$((n + 1))
	if [ "${q#LABEL }" != "$q" ]; then
		inner=${q#LABEL label_values(}
		metric=${inner%%,*}
		label=$(echo "${inner#*,}" | tr -d ' )')
		check "dashboard variable $q" sh -c "curl -s --get --data-urlencode 'match[]=$metric' '$P/api/v1/label/$label/values' | grep -q '\"data\":\[\"'"
		continue
	fi
	q=$(printf '%s' "$q" | sed -e 's/\$instance/.+/g' -e 's/\$vendor/.*/g' -e 's/\$__rate_interval/5s/g')
	check "dashboard query returns data: $q" has_data "$q"
done < "$T/dash.queries"
check "the dashboard has queries ($n)" test "$n" -ge 20

# Dashboard 12239 (docs/exporter.md): its series over instance and gpu, and its
# variables. Its tensor-core panel (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE) answers
# for GPUs with GPM (Hopper and newer), here node-a's GPU 0.
for q in 'DCGM_FI_DEV_GPU_TEMP{instance=~".+", gpu=~".+"}' 'avg(DCGM_FI_DEV_GPU_TEMP{instance=~".+", gpu=~".+"})' \
	'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{instance=~".+", gpu=~".+"}' \
	'DCGM_FI_DEV_POWER_USAGE{instance=~".+", gpu=~".+"}' 'sum(DCGM_FI_DEV_POWER_USAGE{instance=~".+", gpu=~".+"})' \
	'DCGM_FI_DEV_SM_CLOCK{instance=~".+", gpu=~".+"} * 1000000' 'DCGM_FI_DEV_GPU_UTIL{instance=~".+", gpu=~".+"}' \
	'DCGM_FI_DEV_FB_USED{instance=~".+", gpu=~".+"}'; do
	check "dashboard 12239 query returns data: $q" has_data "$q"
done
for label in instance gpu; do
	check "dashboard 12239 variable label_values(DCGM_FI_DEV_GPU_TEMP, $label)" sh -c \
		"curl -s --get --data-urlencode 'match[]=DCGM_FI_DEV_GPU_TEMP' '$P/api/v1/label/$label/values' | grep -q '\"data\":\[\"'"
done
check "the tensor-core panel: only GPUs with GPM answer" test "$(query 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE' | wc -l)" -eq 1

stop_all
finish
