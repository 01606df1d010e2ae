# test_nvml_gpm: SM, tensor and DRAM activity from NVML's GPM, per GPU and
# per MIG instance, against the fake's formula (each metric is the
# scenario's value over a window of more than 100 ms between two samples);
# none of these keys, and one note, on a GPU without GPM and with a library
# without the calls; windows of more than 100 ms at a 50 ms interval; no
# GPM call at all with --no-gpm; GPM's PCIe rates in place of the 20 ms
# sampling thread.
. "$(dirname "$0")/tui_lib.sh" || exit 1

calls() { awk -v f="$2" -v d="$3" '$1 == f && $2 == d { n = $3 } END { print n + 0 }' "$1"; }
gpm_calls() { awk '$1 ~ /^nvmlGpm/ { n += $3 } END { print n + 0 }' "$1"; }

GPM='"gpm":{"gr":71.5,"sm":45.25,"occupancy":30,"tensor":12.75,"dram":60,"fp64":1,"fp32":2,"fp16":3,
 "nvlink_rx_mibs":10,"nvlink_tx_mibs":20,"pcie_rx_mibs":3,"pcie_tx_mibs":4}'
MIG_GPM='"gpm":{"gr":20,"sm":15,"occupancy":5,"tensor":7.5,"dram":8}'
scenario "$T/h100.json" <<JSON
{"driver":"550.54.15","gpus":[
 {"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-h","util":90,"mem_total":85520809984,"mem_used":1048576,
  "pcie_rx_kbs":999,"pcie_tx_kbs":999,$GPM},
 {"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-m","mem_total":85520809984,"mem_used":0,$GPM,
  "mig":[{"uuid":"MIG-a","profile":"3g.40gb","gi":1,"ci":0,"mem_total":42949672960,"mem_used":0,$MIG_GPM},
         {"uuid":"MIG-b","profile":"3g.40gb","gi":2,"ci":0,"mem_total":42949672960,"mem_used":0}]},
 {"name":"NVIDIA A100-SXM4-80GB","uuid":"GPU-a","util":50,"mem_total":85899345920,"mem_used":0}]}
JSON

# 1. Every key against the fake's value, from the second record on (a
# window needs two samples), per GPU and per MIG instance.
FAKE_NVML_CALLS=$T/calls FAKE_NVML_GPM_LOG=$T/gpmlog nvml modern "$T/h100.json" --json --count 4 --interval 0.2
expect_rc 0 "GPM: runs"
O=$T/out
expect_get "$O" 1 gpus.0.sm_active_pct absent "no window yet in the first record"
for k in "gr_active_pct 71.5" "sm_active_pct 45.25" "sm_occupancy_pct 30" "tensor_active_pct 12.75" \
	"dram_active_pct 60" "fp64_active_pct 1" "fp32_active_pct 2" "fp16_active_pct 3" \
	"nvlink_rx_bytes_per_s 10485760" "nvlink_tx_bytes_per_s 20971520" \
	"pcie_rx_bytes_per_s 3145728" "pcie_tx_bytes_per_s 4194304"; do
	set -- $k
	expect_get "$O" last "gpus.0.$1" "$2" "GPU 0 $1"
done
expect_get "$O" last gpus.1.sm_active_pct 45.25 "a GPU in MIG mode has its own"
expect_get "$O" last gpus.2.device_id MIG-a "the first instance"
expect_get "$O" last gpus.2.sm_active_pct 15 "instance SM activity, its own value"
expect_get "$O" last gpus.2.tensor_active_pct 7.5 "instance tensor activity"
expect_get "$O" last gpus.2.fp64_active_pct absent "a metric the instance lacks is unknown"
expect_get "$O" last gpus.3.sm_active_pct absent "an instance without GPM: unknown"
expect_get "$O" last gpus.4.sm_active_pct absent "an A100 (no GPM): unknown, never 0"
check "one note says why" test "$(grep -c 'no SM and tensor activity' "$O")" -eq 1
check "no window of 100 ms or less" test "$(grep -c '^short' "$T/gpmlog")" -eq 0
check "windows were computed" test "$(grep -c '^window' "$T/gpmlog")" -ge 3
# GPM gives GPU 0's PCIe rates, so the 20 ms sampling stops after the first
# round at detection (one call each way).
check "GPU 0's PCIe thread round only at detection" test "$(calls "$T/calls" nvmlDeviceGetPcieThroughput 0)" -le 2
check "samples freed at exit" grep -q '^gpm_samples_live - 0$' "$T/calls"

# 1b. The --once table says them on the GPU's second line.
nvml modern "$T/h100.json" --once
check "the --once table: SM, TENSOR, OCC, DRAM" grep -q '^    .*SM 45 %  TENSOR 13 %  OCC 30 %  DRAM 60 %' "$T/out"

# 2. A 50 ms interval: values still come from windows of more than 100 ms.
FAKE_NVML_GPM_LOG=$T/gpmlog2 nvml modern "$T/h100.json" --json --count 12 --interval 0.05
expect_rc 0 "GPM at 50 ms: runs"
expect_get "$T/out" last gpus.0.sm_active_pct 45.25 "GPM at 50 ms: a value"
check "GPM at 50 ms: no short window" test "$(grep -c '^short' "$T/gpmlog2")" -eq 0
check "GPM at 50 ms: windows" test "$(grep -c '^window' "$T/gpmlog2")" -ge 2

# 3. --no-gpm: no GPM call, no key, nothing said.
FAKE_NVML_CALLS=$T/calls3 nvml modern "$T/h100.json" --json --count 3 --interval 0.2 --no-gpm
expect_rc 0 "--no-gpm: runs"
expect_get "$T/out" last gpus.0.sm_active_pct absent "--no-gpm: no SM activity"
expect_get "$T/out" last gpus.0.pcie_rx_bytes_per_s 1022976 "--no-gpm: PCIe from the sampling thread"
check "--no-gpm: no GPM call" test "$(gpm_calls "$T/calls3")" -eq 0
check "--no-gpm: nothing said" test "$(grep -c 'no SM and tensor activity' "$T/out")" -eq 0

# 4. A library without the calls (an older driver): no key, one note.
nvml legacy "$T/h100.json" --json --count 3 --interval 0.2
expect_rc 0 "legacy: runs"
expect_get "$T/out" last gpus.0.sm_active_pct absent "legacy: no SM activity"
check "legacy: one note names the library" test "$(grep -c 'no SM and tensor activity on this NVML library' "$T/out")" -eq 1

# 5. NaN is unknown; a metric the driver refuses is unknown; the others stay.
scenario "$T/nan.json" <<JSON
{"gpus":[{"name":"NVIDIA H100","uuid":"GPU-n","mem_total":1,"mem_used":0,
  "gpm":{"sm":"nan","tensor":33}}]}
JSON
nvml modern "$T/nan.json" --json --count 3 --interval 0.2
expect_get "$T/out" last gpus.0.sm_active_pct absent "NaN: unknown"
expect_get "$T/out" last gpus.0.tensor_active_pct 33 "the other metric stays"
expect_get "$T/out" last gpus.0.dram_active_pct absent "a refused metric: unknown"

# 6. The metrics call failing for a while gives unknown, never the old value.
scenario "$T/err.json" <<JSON
{"gpus":[{"name":"NVIDIA H100","uuid":"GPU-e","mem_total":1,"mem_used":0,
  "gpm":{"sm":50},"errors_at":{"gpm_metrics":[5,7,999]}}]}
JSON
nvml modern "$T/err.json" --json --count 8 --interval 0.2
# The values of the records in order: known, then unknown while the call
# fails, then known again.
seq=$(python3 -c 'import json,sys
print("".join("k" if "sm_active_pct" in r["gpus"][0] else "u" for r in map(json.loads, open(sys.argv[1])))[1:])' "$T/out")
check "a failing metrics call: known, unknown, known again ($seq)" sh -c "echo '$seq' | grep -Eq '^u?k+u+k+$'"
check "a failing metrics call: never another value" sh -c "! grep -q '\"sm_active_pct\":[0-9]' '$T/out' || ! grep -o '\"sm_active_pct\":[0-9.]*' '$T/out' | grep -vq ':50$'"

# 6b. Another GPU lost for good: the re-initialisations that try to get it
# back must not blank this GPU's activity (its last window stands until the
# first new one).
scenario "$T/lost.json" <<JSON
{"gpus":[{"name":"NVIDIA H100","uuid":"GPU-ok","mem_total":1,"mem_used":0,"gpm":{"sm":50}},
 {"name":"NVIDIA H100","uuid":"GPU-gone","mem_total":1,"mem_used":0,"gpm":{"sm":20},"lost_at_poll":3}]}
JSON
nvml modern "$T/lost.json" --json --count 20 --interval 0.2
seq=$(python3 -c 'import json,sys
print("".join("k" if "sm_active_pct" in r["gpus"][0] else "u" for r in map(json.loads, open(sys.argv[1])))[1:])' "$T/out")
check "a lost neighbour's re-initialisations leave SM activity known ($seq)" sh -c "echo '$seq' | grep -Eq '^k+$'"
check "the lost GPU was re-initialised for (more than one detection)" test "$(grep -c 'gpu_lost' "$T/out")" -ge 1

# 7. The dashboard shows SM and TENSOR beside UTIL, at 80 columns too, and
# the chart cycles to SM activity.
tui_start 200 60 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/h100.json" -- --backend nvml --interval 0.2
expect_screen 'SM 45% TENSOR 13%' "200 columns: SM and TENSOR beside UTIL"
expect_screen 'OCC 30%  DRAM 60%  NVL RX 10M/s TX 20M/s' "200 columns: occupancy, DRAM and NVLink on the details line"
keys c c c c
expect_screen 'history: sm' "the chart cycles to SM activity"
tui_start 80 24 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/h100.json" -- --backend nvml --interval 0.2
expect_screen 'SM45% T13%' "80 columns: the shortest form"
tui_stop
finish
