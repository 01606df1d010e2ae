# test_nvml_mig: a GPU in MIG mode stays in the frame, followed by its
# instances as GPUs of their own; processes belong to their instance.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

spawn_sleeper
P1=$SLEEPER
spawn_sleeper
P2=$SLEEPER
scenario "$T/mig.json" <<JSON
{"fast_pcie":1,"gpus":[
 {"name":"NVIDIA A100-SXM4-40GB","uuid":"GPU-parent","pci":"0000:07:00.0","util":50,"mem_total":42949672960,"mem_used":0,"temp":40,
  "mig":[{"uuid":"MIG-one","profile":"3g.20gb","gi":1,"ci":0,"mem_total":21474836480,"mem_used":1048576,
          "processes":[{"pid":$P1,"mem":1048576,"sm":40}]},
         {"uuid":"MIG-two","profile":"1g.5gb","gi":2,"ci":0,"mem_total":5368709120,"mem_used":2097152,
          "processes":[{"pid":$P2,"mem":2097152}]}]},
 {"name":"NVIDIA A100-SXM4-40GB","uuid":"GPU-plain","pci":"0000:0f:00.0","util":7,"mem_total":42949672960,"mem_used":0,
  "processes":[{"pid":$P1,"mem":4096,"sm":3}]}]}
JSON
nvml modern "$T/mig.json" --once --json
expect_rc 0 "MIG"
O=$T/out
expect_get "$O" 1 gpus.length 4 "parent, two instances, the plain GPU"
expect_get "$O" 1 gpus.0.mig_mode true "the parent is in MIG mode"
expect_get "$O" 1 gpus.0.util_pct absent "no utilisation in MIG mode"
expect_get "$O" 1 gpus.0.temp_c 40 "the parent's other readings stay"
expect_get "$O" 1 gpus.1.device_id MIG-one "instance identity: the MIG UUID"
expect_get "$O" 1 gpus.1.parent_device_id GPU-parent "instance parent"
expect_get "$O" 1 gpus.1.name "NVIDIA A100-SXM4-40GB MIG 3g.20gb" "instance name with its profile"
expect_get "$O" 1 gpus.1.mem_total_bytes 21474836480 "instance memory"
expect_get "$O" 1 gpus.1.util_pct absent "instance utilisation unknown"
expect_get "$O" 1 gpus.2.device_id MIG-two "second instance (sparse MIG slots skipped)"
expect_get "$O" 1 gpus.3.device_id GPU-plain "the next GPU follows the instances"
expect_get "$O" 1 processes.0.gpu_index 1 "a process belongs to its instance"
expect_get "$O" 1 processes.0.gpu_util_pct absent "no per-process utilisation in MIG mode"
expect_get "$O" 1 processes.1.gpu_index 2 "the other instance's process"
expect_get "$O" 1 processes.2.gpu_index 3 "the plain GPU's process"
expect_get "$O" 1 processes.2.gpu_util_pct 3 "per-process utilisation outside MIG"

# --gpus selects an instance by its UUID; rows follow it.
nvml modern "$T/mig.json" --once --json --gpus MIG-two
expect_get "$T/out" 1 gpus.length 1 "--gpus MIG-two"
expect_get "$T/out" 1 processes.0.pid "$P2" "its process, re-indexed"
expect_get "$T/out" 1 processes.0.gpu_index 0 "re-indexed to 0"
# An instance's getter that answers "never" (here its process lists,
# NOT_SUPPORTED) is asked once, not on every poll: instances are read
# afresh each poll, but what they answered is kept for the next.
scenario "$T/mig-never.json" <<JSON
{"fast_pcie":1,"gpus":[
 {"name":"NVIDIA A100-SXM4-40GB","uuid":"GPU-parent","pci":"0000:07:00.0","util":50,"mem_total":42949672960,"mem_used":0,
  "errors":{"processes":3},
  "mig":[{"uuid":"MIG-one","profile":"3g.20gb","gi":1,"ci":0,"mem_total":21474836480,"mem_used":1048576,"processes":[]}]}]}
JSON
FAKE_NVML_CALLS=$T/mig.calls nvml modern "$T/mig-never.json" --json --count 10 --interval 0.05
expect_rc 0 "MIG, lists not supported"
n=$(awk '$1 == "nvmlDeviceGetComputeRunningProcesses_v3" && $2 == "0/mig0" {print $3}' "$T/mig.calls")
check "an instance's unsupported process list is asked once in 10 polls (asked ${n:-0} times)" test "${n:-0}" -eq 1
n=$(awk '$1 == "nvmlDeviceGetMemoryInfo_v2" && $2 == "0/mig0" {print $3}' "$T/mig.calls")
check "an instance's memory, which answers, is read every poll (${n:-0} times)" test "${n:-0}" -ge 10

finish
