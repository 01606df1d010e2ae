# test_fleet_names: the fleet view over a Prometheus that scrapes a mixed
# fleet: gpur under the legacy names (node-a), gpur under dcgm-4.10 (node-b),
# a dcgm-exporter 4.10 (node-c: its names, ratios, bytes, the hostname
# label) and an older dcgm-exporter (node-d: legacy names, MiB, Hostname),
# both as static expositions, and node-e, whose GPUs and process two gpur
# exporters serve, one under each of the names. gpur --prometheus shows every
# GPU once, with the values of the inputs in gpur's units, and node-e's
# process once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; kill $SLEEPERS 2> /dev/null; rm -rf "$T"' EXIT

need_prometheus || exit 0

# scen HOST UTIL0 [PROCESS PID]: two H100s, GPU 0 with GPM.
scen() {
	local procs=""
	[ $# -gt 2 ] && procs=",\"processes\":[{\"pid\":$3,\"mem\":2147483648,\"sm\":33}]"
	scenario "$T/$1.json" <<JSON
{"driver":"550.54.15","gpus":[
 {"name":"NVIDIA H100","uuid":"GPU-$1-0","pci":"00000000:3B:00.0","util":$2,"mem_total":85899345920,
  "mem_used":1073741824,"temp":45,"power_mw":245500,"gpm":{"sm":45.25,"tensor":12.5}$procs},
 {"name":"NVIDIA H100","uuid":"GPU-$1-1","pci":"00000000:5E:00.0","util":5,"mem_total":85899345920,
  "mem_used":0,"temp":30,"power_mw":60000}]}
JSON
}
gpur_target() {
	local name=$1 host=$2
	shift 2
	start_exporter "$name" GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/$host.json" -- \
		--backend nvml --headless --interval 0.2 --hostname "$host" "$@"
	TARGETS="$TARGETS $ADDR"
}
spawn_sleeper
scen node-a 31
scen node-b 32
scen node-e 61 "$SLEEPER"
TARGETS=""
gpur_target a node-a
gpur_target b node-b --serve-names dcgm-4.10
gpur_target e1 node-e
gpur_target e2 node-e --serve-names dcgm-4.10

# dcgm-exporter 4.10 as the facts describe it: 4.10's names and units, the
# hostname and DCGM_FI_SYSTEM_DRIVER_VERSION labels, doubles with six
# decimals.
L='pci_bus_id="00000000:3B:00.0",device="nvidia0",modelName="NVIDIA H200",hostname="node-c",DCGM_FI_SYSTEM_DRIVER_VERSION="580.159.04"'
L1='pci_bus_id="00000000:5E:00.0",device="nvidia1",modelName="NVIDIA H200",hostname="node-c",DCGM_FI_SYSTEM_DRIVER_VERSION="580.159.04"'
cat > "$T/node-c.prom" <<PROM
# HELP DCGM_FI_DEV_GPU_UTIL_RATIO GPU utilization as a ratio.
# TYPE DCGM_FI_DEV_GPU_UTIL_RATIO gauge
DCGM_FI_DEV_GPU_UTIL_RATIO{gpu="0",UUID="GPU-node-c-0",$L} 0.420000
DCGM_FI_DEV_GPU_UTIL_RATIO{gpu="1",UUID="GPU-node-c-1",$L1} 0.070000
# HELP DCGM_FI_DEV_FB_USED_BYTES Used framebuffer in bytes.
# TYPE DCGM_FI_DEV_FB_USED_BYTES gauge
DCGM_FI_DEV_FB_USED_BYTES{gpu="0",UUID="GPU-node-c-0",$L} 2147483648
DCGM_FI_DEV_FB_USED_BYTES{gpu="1",UUID="GPU-node-c-1",$L1} 0
# HELP DCGM_FI_DEV_FB_FREE_BYTES Free framebuffer in bytes.
# TYPE DCGM_FI_DEV_FB_FREE_BYTES gauge
DCGM_FI_DEV_FB_FREE_BYTES{gpu="0",UUID="GPU-node-c-0",$L} 6442450944
DCGM_FI_DEV_FB_FREE_BYTES{gpu="1",UUID="GPU-node-c-1",$L1} 8589934592
# HELP DCGM_FI_DEV_FB_CAPACITY_BYTES Total framebuffer in bytes.
# TYPE DCGM_FI_DEV_FB_CAPACITY_BYTES gauge
DCGM_FI_DEV_FB_CAPACITY_BYTES{gpu="0",UUID="GPU-node-c-0",$L} 8589934592
DCGM_FI_DEV_FB_CAPACITY_BYTES{gpu="1",UUID="GPU-node-c-1",$L1} 8589934592
# HELP DCGM_FI_DEV_GPU_TEMP_CELSIUS GPU temperature.
# TYPE DCGM_FI_DEV_GPU_TEMP_CELSIUS gauge
DCGM_FI_DEV_GPU_TEMP_CELSIUS{gpu="0",UUID="GPU-node-c-0",$L} 55
DCGM_FI_DEV_GPU_TEMP_CELSIUS{gpu="1",UUID="GPU-node-c-1",$L1} 41
# HELP DCGM_FI_DEV_BOARD_POWER_WATTS Board power.
# TYPE DCGM_FI_DEV_BOARD_POWER_WATTS gauge
DCGM_FI_DEV_BOARD_POWER_WATTS{gpu="0",UUID="GPU-node-c-0",$L} 300.250000
DCGM_FI_DEV_BOARD_POWER_WATTS{gpu="1",UUID="GPU-node-c-1",$L1} 90.000000
# HELP DCGM_FI_DEV_SM_CLOCK_HERTZ SM clock.
# TYPE DCGM_FI_DEV_SM_CLOCK_HERTZ gauge
DCGM_FI_DEV_SM_CLOCK_HERTZ{gpu="0",UUID="GPU-node-c-0",$L} 1980000000
# HELP DCGM_FI_PROF_SM_UTIL_RATIO SM activity.
# TYPE DCGM_FI_PROF_SM_UTIL_RATIO gauge
DCGM_FI_PROF_SM_UTIL_RATIO{gpu="0",UUID="GPU-node-c-0",$L} 0.500000
# HELP DCGM_FI_PROF_TENSOR_UTIL_RATIO Tensor activity.
# TYPE DCGM_FI_PROF_TENSOR_UTIL_RATIO gauge
DCGM_FI_PROF_TENSOR_UTIL_RATIO{gpu="0",UUID="GPU-node-c-0",$L} 0.250000
PROM
# An older dcgm-exporter: legacy names, %, MiB, Hostname.
L='pci_bus_id="00000000:3B:00.0",device="nvidia0",modelName="Tesla V100-SXM2-32GB",Hostname="node-d",DCGM_FI_DRIVER_VERSION="535.54.03"'
cat > "$T/node-d.prom" <<PROM
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization.
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-node-d-0",$L} 17
# HELP DCGM_FI_DEV_FB_USED Used framebuffer.
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-node-d-0",$L} 512
# HELP DCGM_FI_DEV_FB_FREE Free framebuffer.
# TYPE DCGM_FI_DEV_FB_FREE gauge
DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-node-d-0",$L} 1536
# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature.
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-node-d-0",$L} 40
# HELP DCGM_FI_DEV_POWER_USAGE Power draw.
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-node-d-0",$L} 100.500000
PROM
for h in node-c node-d; do
	python3 "$SOURCE_DIR/tests/tools/static_exporter.py" "$T/$h.port" "$T/$h.prom" &
	SERVE_PIDS="$SERVE_PIDS $!"
	check "$h's static exporter listens" wait_until 20 test -s "$T/$h.port"
	TARGETS="$TARGETS 127.0.0.1:$(cat "$T/$h.port")"
done

# shellcheck disable=SC2086 # one target a word
scrape_config 1s $TARGETS
check "Prometheus is ready" start_prometheus "$T/tsdb"
# 2 GPUs each of a, b and c, 1 of d, and node-e's 2 twice.
check "Prometheus has every target's GPUs, GPM and node-e's process twice" wait_until 60 sh -c "
	curl -s --get --data-urlencode 'query=count({__name__=~\"DCGM_FI_DEV_POWER_USAGE|DCGM_FI_DEV_BOARD_POWER_WATTS\"})' '$P/api/v1/query' | grep -q '\"11\"' &&
	curl -s --get --data-urlencode 'query=count({__name__=~\"DCGM_FI_PROF_SM_ACTIVE|DCGM_FI_PROF_SM_UTIL_RATIO\"})' '$P/api/v1/query' | grep -q '\"5\"' &&
	curl -s --get --data-urlencode 'query=count(gpur_process_gpu_util_percent)' '$P/api/v1/query' | grep -q '\"2\"'"

"$GPUR" --prometheus "$P" --once --json > "$T/fleet.json" 2> "$T/fleet.err"
check "--prometheus --once --json succeeds" test $? = 0
check "one record per host" test "$(wc -l < "$T/fleet.json")" = 5
python3 - "$T/fleet.json" > "$T/fleet.txt" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    for g in r["gpus"]:
        sm, tc = g.get("sm_active_pct"), g.get("tensor_active_pct")
        print(r["host"], g["device_id"], g.get("util_pct"), g.get("mem_used_bytes"), g.get("mem_total_bytes"),
              g.get("temp_c"), g.get("power_w"), None if sm is None else round(sm, 6),
              None if tc is None else round(tc, 6))
    for p in r.get("processes", []):
        print(r["host"], "process", p["pid"], r["gpus"][p["gpu_index"]]["device_id"], p.get("gpu_mem_bytes"),
              p.get("gpu_util_pct"))
PY
# The inputs in gpur's units: node-c's ratio 0.42 is 42 %, its bytes are
# bytes, its total is used + free; node-d's MiB are 2^20 bytes.
cat > "$T/want.txt" <<TXT
node-a GPU-node-a-0 31 1073741824 85899345920 45 245.5 45.25 12.5
node-a GPU-node-a-1 5 0 85899345920 30 60 None None
node-b GPU-node-b-0 32 1073741824 85899345920 45 245.5 45.25 12.5
node-b GPU-node-b-1 5 0 85899345920 30 60 None None
node-c GPU-node-c-0 42 2147483648 8589934592 55 300.25 50 25
node-c GPU-node-c-1 7 0 8589934592 41 90 None None
node-d GPU-node-d-0 17 $((512 * 1048576)) $((2048 * 1048576)) 40 100.5 None None
node-e GPU-node-e-0 61 1073741824 85899345920 45 245.5 45.25 12.5
node-e GPU-node-e-1 5 0 85899345920 30 60 None None
node-e process $SLEEPER GPU-node-e-0 2147483648 33
TXT
check "every GPU once, with its values in gpur's units, and node-e's process once" diff -u "$T/want.txt" "$T/fleet.txt"

# The summary: node-e has 2 GPUs, not 4.
"$GPUR" --prometheus "$P" --once > "$T/table.txt" 2>&1
check "--once succeeds" test $? = 0
check "the summary counts node-e's GPUs once" sh -c "grep -E '^node-e +2 ' '$T/table.txt' > /dev/null"
check "the summary's head counts 9 GPUs" grep -qE '(^|[^0-9])9 GPUs' "$T/table.txt"

stop_all
finish
