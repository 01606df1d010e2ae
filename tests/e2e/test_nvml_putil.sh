# test_nvml_putil: per-process utilisation from the newer
# nvmlDeviceGetProcessesUtilizationInfo where the driver has it, from the old
# nvmlDeviceGetProcessUtilization where it does not, and never a made-up 0
# when the old call answers nothing (NOT_FOUND) or zeros for a busy GPU, as
# Blackwell's drivers do under load.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

export GPUR_VIRTUAL_CLOCK_MS=1700000000000
calls() { awk -v f="$2" '$1 == f && $2 == "0" { n = $3 } END { print n + 0 }' "$1"; }

spawn_sleeper
P=$SLEEPER
# scen FILE UTIL EXTRA: one GPU at UTIL %, its process at 55 % SM, 20 %
# memory, 7 % encoder; EXTRA goes into the GPU's object.
scen() {
	scenario "$1" <<JSON
{"fast_pcie":1,"gpus":[{"name":"A","uuid":"GPU-a","util":$2,$3
 "processes":[{"pid":$P,"type":"compute","mem":1048576,"sm":55,"mem_util":20,"enc":7,"dec":0}]}]}
JSON
}

# expect_util VARIANT SCEN VALUE WHAT: the last of 6 records gives the
# process VALUE (absent: unknown).
expect_util() {
	FAKE_NVML_CALLS=$T/calls nvml "$1" "$2" --json --count 6 --interval 1
	expect_rc 0 "$4: runs"
	expect_get "$T/out" last processes.0.gpu_util_pct "$3" "$4"
}

# 1. The newer call answers: the old one is never asked.
scen "$T/a.json" 80 ""
expect_util modern "$T/a.json" 55 "the newer call"
expect_get "$T/out" last processes.0.mem_bw_pct 20 "its memory share"
expect_get "$T/out" last processes.0.enc_pct 7 "its encoder share"
check "the newer call asked every poll" test "$(calls "$T/calls" nvmlDeviceGetProcessesUtilizationInfo)" -ge 6
check "the old call not asked" test "$(calls "$T/calls" nvmlDeviceGetProcessUtilization)" -eq 0

# 2. The old call answering NOT_FOUND under load does not matter when the
# newer one answers: its truth.
scen "$T/b.json" 80 '"process_util_old":"not_found",'
expect_util modern "$T/b.json" 55 "old call NOT_FOUND, newer call answers"

# 3. The old call missing from the library.
expect_util noold "$T/a.json" 55 "no old call at all"

# 4. A driver without the newer call (legacy), or a device where it is not
# supported: the old call.
expect_util legacy "$T/a.json" 55 "legacy driver: the old call"
scen "$T/d.json" 80 '"not_supported":["process_util_info"],'
expect_util modern "$T/d.json" 55 "newer call NOT_SUPPORTED: the old call"
check "the newer call asked once" test "$(calls "$T/calls" nvmlDeviceGetProcessesUtilizationInfo)" -eq 1
check "the old call asked every poll" test "$(calls "$T/calls" nvmlDeviceGetProcessUtilization)" -ge 6

# 5. Only the old call, answering NOT_FOUND or zeros while the GPU is busy:
# unknown, not 0, and said once.
for quirk in not_found zeros; do
	scen "$T/e.json" 80 '"not_supported":["process_util_info"],"process_util_old":"'$quirk'",'
	expect_util modern "$T/e.json" absent "old call $quirk on a busy GPU: unknown"
	expect_get "$T/out" last processes.0.mem_bw_pct absent "old call $quirk: memory share unknown"
	check "old call $quirk: said once" test "$(grep -c 'gives no process a share' "$T/out")" -eq 1
	expect_util legacy "$T/e.json" absent "legacy, old call $quirk on a busy GPU: unknown"
done

# 6. On an idle GPU the same answer is a measured 0.
scen "$T/f.json" 0 '"not_supported":["process_util_info"],"process_util_old":"not_found",'
expect_util modern "$T/f.json" 0 "old call NOT_FOUND on an idle GPU: 0"
check "nothing said for an idle GPU" test "$(grep -c 'gives no process a share' "$T/out")" -eq 0

# 7. Neither call supported: unknown, each asked once.
scen "$T/g.json" 80 '"not_supported":["process_util"],'
expect_util modern "$T/g.json" absent "no per-process utilisation"
check "the newer call asked once" test "$(calls "$T/calls" nvmlDeviceGetProcessesUtilizationInfo)" -eq 1
check "the old call asked once" test "$(calls "$T/calls" nvmlDeviceGetProcessUtilization)" -eq 1
finish
