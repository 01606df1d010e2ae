# test_nvml_real_driver: what real drivers do that hurts (issue 8): 32-byte
# process entries behind 24-byte symbols, GPUs this process may not open,
# the old PCI layout, fans over 100 %, getters that answer "never" (counted
# by the fake per call), unified-memory GPUs without a memory total.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

# calls FILE ENTRY DEVICE: how often the fake saw ENTRY for DEVICE (0: never).
calls() { awk -v f="$2" -v d="$3" '$1 == f && $2 == d { n = $3 } END { print n + 0 }' "$1"; }

spawn_sleeper
P1=$SLEEPER
spawn_sleeper
P2=$SLEEPER
spawn_sleeper
P3=$SLEEPER

# 1. A library that writes 32-byte _v3 entries while its symbols make gpur
# guess 24: 33 entries (more than the old buffer's slack), read right after
# the stride is corrected, said once.
{
	printf '{"fast_pcie":1,"gpus":[{"name":"A","uuid":"GPU-a","processes":['
	printf '{"pid":%d,"type":"compute","mem":1048576},' "$P1"
	printf '{"pid":%d,"type":"compute","mem":2097152},' "$P2"
	printf '{"pid":%d,"type":"compute","mem":3145728}' "$P3"
	for ((i = 0; i < 30; i++)); do printf ',{"pid":%d,"type":"compute","mem":%d}' $((3000000 + i)) $((4096 * (i + 1))); done
	printf ']}]}\n'
} > "$T/wrong32.json"
nvml wrong32 "$T/wrong32.json" --json --count 3 --interval 0.05
expect_rc 0 "32-byte entries behind 24-byte symbols"
for rec in 1 2 3; do
	expect_get "$T/out" "$rec" processes.length 33 "record $rec: every process, once"
	expect_get "$T/out" "$rec" processes.1.pid "$P2" "record $rec: the second pid"
	expect_get "$T/out" "$rec" processes.2.gpu_mem_bytes 3145728 "record $rec: the third memory figure"
	expect_get "$T/out" "$rec" processes.32.pid 3000029 "record $rec: the last pid"
done
check "the corrected stride is said once" test "$(grep -c 'entries are 32 bytes, not the 24 expected' "$T/out")" -eq 1
# The same scenario on a library whose entries are what gpur guesses: no note.
nvml modern "$T/wrong32.json" --json --count 2 --interval 0.05
expect_get "$T/out" 1 processes.length 33 "24-byte entries: every process"
check "no stride note when the guess is right" test "$(grep -c 'entries are' "$T/out")" -eq 0

# 2. GPU 1 is counted but refused (NO_PERMISSION): left out, said once,
# never lost, never re-initialised for.
scenario "$T/perm.json" <<JSON
{"fast_pcie":1,"gpus":[{"name":"A","uuid":"GPU-a","util":10},{"name":"B","uuid":"GPU-b","handle_error":4},
 {"name":"C","uuid":"GPU-c","util":30}]}
JSON
FAKE_NVML_CALLS=$T/perm.calls nvml modern "$T/perm.json" --json --count 40 --interval 0.05
expect_rc 0 "a refused GPU"
O=$T/out
check "40 records" test "$(lines "$O")" -eq 40
check "never a gpu_lost event" test "$(grep -c '"gpu_lost"' "$O")" -eq 0
check "never a backend_lost event" test "$(grep -c '"backend_lost"' "$O")" -eq 0
for rec in 1 20 40; do
	expect_get "$O" "$rec" gpus.length 2 "record $rec: the refused GPU is left out"
	expect_get "$O" "$rec" gpus.1.device_id GPU-c "record $rec: the next GPU takes its place"
	expect_get "$O" "$rec" gpus.1.util_pct 30 "record $rec: and is read"
done
check "the refusal is said once" test "$(grep -c 'GPU 1 is not accessible to this process (Insufficient Permissions (NVML error 4))' "$O")" -eq 1
check "NVML initialised once (no re-initialisation)" test "$(calls "$T/perm.calls" nvmlInit_v2 -)" -eq 1
check "the refused handle asked once" test "$(calls "$T/perm.calls" nvmlDeviceGetHandleByIndex_v2 1)" -eq 1
scenario "$T/allperm.json" <<JSON
{"gpus":[{"name":"A","uuid":"GPU-a","handle_error":4}]}
JSON
nvml modern "$T/allperm.json" --once
expect_rc 1 "every GPU refused"
expect_stderr_contains "none of the 1 NVIDIA GPUs is accessible to this process" "says why there is no GPU"

# 3. The PCI fallback (plain nvmlDeviceGetPciInfo, the old 52-byte layout).
scenario "$T/pci.json" <<JSON
{"gpus":[{"name":"A","uuid":"GPU-a","pci":"00000000:3B:00.0","fan_pct":120,"temp":40}]}
JSON
nvml legacy "$T/pci.json" --once --json
expect_rc 0 "legacy PCI"
expect_get "$T/out" 1 gpus.0.pci_bus_id 0000:3b:00.0 "old layout: the bus id at offset 0"
nvml modern "$T/pci.json" --once --json
expect_get "$T/out" 1 gpus.0.pci_bus_id 0000:3b:00.0 "_v3 layout"

# 4. A fan over 100 % is a reading, and survives a log and its replay.
expect_get "$T/out" 1 gpus.0.fan_pct 120 "fan at 120 %"
nvml modern "$T/pci.json" --json --count 1 --log "$T/fan.jsonl"
"$GPUR" --replay "$T/fan.jsonl" --json > "$T/fan.replayed" 2> "$T/fan.err"
expect_get "$T/fan.replayed" 1 gpus.0.fan_pct 120 "replayed fan at 120 %"

# 5. Getters that answer "never" (NOT_SUPPORTED, INVALID_ARGUMENT,
# FUNCTION_NOT_FOUND) are asked once per initialisation; the others every
# poll. GPU 1 is lost at poll 3 and back after one re-initialisation.
scenario "$T/never.json" <<JSON
{"fast_pcie":1,"gpus":[{"name":"A","uuid":"GPU-a","util":10,"power_mw":1000,"fan_pct":50,"ecc_uncorrected":0,
  "not_supported":["fan","processes"],"errors":{"power":2,"ecc":13}},
 {"name":"B","uuid":"GPU-b","util":20,"lost_at_poll":3,"lost_for_inits":1}]}
JSON
FAKE_NVML_CALLS=$T/never.calls nvml modern "$T/never.json" --json --count 40 --interval 0.05
expect_rc 0 "never getters"
O=$T/out
check "GPU 1 came back (one re-initialisation)" test "$(grep -c '"gpu_back"' "$O")" -eq 1
C=$T/never.calls
check "NVML initialised twice" test "$(calls "$C" nvmlInit_v2 -)" -eq 2
for f in nvmlDeviceGetFanSpeed nvmlDeviceGetPowerUsage nvmlDeviceGetTotalEccErrors nvmlDeviceGetComputeRunningProcesses_v3; do
	check "$f asked once per initialisation (got $(calls "$C" $f 0))" test "$(calls "$C" $f 0)" -eq 2
done
check "a getter that answers is asked every poll ($(calls "$C" nvmlDeviceGetUtilizationRates 0))" \
	test "$(calls "$C" nvmlDeviceGetUtilizationRates 0)" -ge 40
expect_get "$O" last gpus.0.fan_pct absent "NOT_SUPPORTED fan unknown"
expect_get "$O" last gpus.0.power_w absent "INVALID_ARGUMENT power unknown"
expect_get "$O" last gpus.0.util_pct 10 "the rest read"

# 6. Unified memory: a total of 0, or NOT_SUPPORTED, is unknown memory.
scenario "$T/unified.json" <<JSON
{"gpus":[{"name":"NVIDIA GB10","uuid":"GPU-a","util":5,"mem_total":0,"mem_used":0},
 {"name":"NVIDIA GH200","uuid":"GPU-b","util":6,"mem_total":1000,"not_supported":["memory"]}]}
JSON
for v in modern legacy; do
	nvml $v "$T/unified.json" --once --json
	expect_rc 0 "$v: unified memory"
	for g in 0 1; do
		expect_get "$T/out" 1 "gpus.$g.mem_total_bytes" absent "$v GPU $g: no memory total"
		expect_get "$T/out" 1 "gpus.$g.mem_used_bytes" absent "$v GPU $g: no memory used"
	done
	expect_get "$T/out" 1 gpus.0.util_pct 5 "$v: the rest read"
done
nvml modern "$T/unified.json" --once
expect_rc 0 "unified memory in the table"
check "the table shows no 0-byte card at 100 %" bash -c "! grep -q '100%' '$T/out'"
finish
