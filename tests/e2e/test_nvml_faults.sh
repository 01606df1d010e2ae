# test_nvml_faults: the faults README describes against the fake NVML: a GPU lost and
# back in its position after re-initialisation; the library failing and
# re-detected; a hung call that stalls only the NVML worker; init errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

gpu() { # gpu NAME UUID PCI [extra JSON]
	printf '{"name":"%s","uuid":"%s","pci":"%s","util":[11,22,33],"mem_total":1000,"mem_used":10,"temp":40%s}' \
		"$1" "$2" "$3" "${4:-}"
}

# GPU 1 falls off the bus at poll 3 and answers again after one re-init.
scenario "$T/lost.json" <<JSON
{"fast_pcie":1,"gpus":[$(gpu A GPU-a 0000:01:00.0),$(gpu B GPU-b 0000:02:00.0 ',"lost_at_poll":3,"lost_for_inits":1'),$(gpu C GPU-c 0000:03:00.0)]}
JSON
nvml modern "$T/lost.json" --json --interval 0.05 --count 60
expect_rc 0 "a GPU lost and back"
O=$T/out
lost=$(grep -n '"kind":"gpu_lost"' "$O" | cut -d: -f1)
back=$(grep -n '"kind":"gpu_back"' "$O" | cut -d: -f1)
check "exactly one gpu_lost event (got lines: $lost)" test "$(echo "$lost" | wc -w)" -eq 1
check "exactly one gpu_back event (got lines: $back)" test "$(echo "$back" | wc -w)" -eq 1
if [ -n "$lost" ] && [ -n "$back" ]; then
	expect_get "$O" "$lost" events.0.gpu_index 1 "gpu_lost names position 1"
	expect_get "$O" "$lost" events.0.device_id GPU-b "gpu_lost names the device"
	expect_get "$O" "$lost" gpus.1.state lost "GPU 1 is lost"
	expect_get "$O" "$lost" gpus.1.util_pct absent "a lost GPU has no readings"
	expect_get "$O" "$lost" gpus.1.name B "a lost GPU keeps its identity"
	expect_get "$O" "$lost" gpus.0.util_pct 33 "GPU 0 goes on"
	expect_get "$O" "$lost" gpus.2.state ok "GPU 2 goes on"
	expect_get "$O" "$back" events.0.gpu_index 1 "gpu_back in the same position"
	expect_get "$O" "$back" gpus.1.device_id GPU-b "same device in the same position"
	expect_get "$O" "$back" gpus.1.state ok "GPU 1 answers again"
	# Re-initialisation waits for the 1 s backoff: about 20 polls at 0.05 s.
	check "re-init after the backoff, not at once ($lost -> $back)" test $((back - lost)) -ge 10
fi
expect_get "$O" last gpus.length 3 "positions stay"

# The library fails as a whole at poll 3 (driver not loaded) until one re-init.
scenario "$T/lib.json" <<JSON
{"fast_pcie":1,"library_fail":{"poll":3,"code":9,"inits":1},"gpus":[$(gpu A GPU-a 0000:01:00.0),$(gpu B GPU-b 0000:02:00.0)]}
JSON
nvml modern "$T/lib.json" --json --interval 0.05 --count 60
expect_rc 0 "library failure and re-detection"
O=$T/out
bl=$(grep -n '"kind":"backend_lost"' "$O" | cut -d: -f1)
bb=$(grep -n '"kind":"backend_back"' "$O" | cut -d: -f1)
check "one backend_lost (lines: $bl)" test "$(echo "$bl" | wc -w)" -eq 1
check "one backend_back (lines: $bb)" test "$(echo "$bb" | wc -w)" -eq 1
if [ -n "$bl" ] && [ -n "$bb" ]; then
	check "backend_lost says why" grep -q 'Driver Not Loaded' <(sed -n "${bl}p" "$O")
	expect_get "$O" "$bl" gpus.0.state lost "its GPUs turn lost"
	expect_get "$O" "$bl" gpus.0.device_id GPU-a "and keep their identity"
	expect_get "$O" "$((bl + 1))" gpus.length 2 "records go on while it is lost"
	expect_get "$O" "$bb" gpus.1.state ok "GPUs back after re-detection"
	expect_get "$O" "$bb" gpus.1.device_id GPU-b "in their positions"
	check "re-detection after the backoff ($bl -> $bb)" test $((bb - bl)) -ge 10
fi

# A call that hangs 6.5 s at poll 3: records go on at the interval, a note
# after 5 s, the readings return when it answers.
scenario "$T/hang.json" <<JSON
{"fast_pcie":1,"hang":{"poll":3,"ms":6500,"call":"util"},"gpus":[$(gpu A GPU-a 0000:01:00.0)]}
JSON
rm -f "$T/hang.log"
FAKE_NVML_HANG_LOG=$T/hang.log nvml modern "$T/hang.json" --json --interval 0.25 --count 36
expect_rc 0 "a hung call"
O=$T/out
check "36 records" test "$(lines "$O")" -eq 36
# While the call hung (the fake's own begin and end times), frames went on.
hb=$(awk '$1 == "begin" { print $3 }' "$T/hang.log")
he=$(awk '$1 == "end" { print $3 }' "$T/hang.log")
during=$(grep -o '"ts_ms":[0-9]*' "$O" | cut -d: -f2 | awk -v b="${hb:-0}" -v e="${he:-0}" '$1 > b && $1 < e' | wc -l)
check "the call hung, and answered ($hb -> $he)" test -n "$hb" -a -n "$he"
check "records kept coming during the hang ($during in it)" test "$during" -ge 2
check "one note: no answer for 5 s" test "$(grep -c '"detail":"no answer from nvml for 5 s"' "$O")" -eq 1
check "one note: answered again" test "$(grep -c '"detail":"nvml answered again"' "$O")" -eq 1
note=$(grep -n 'no answer from nvml' "$O" | cut -d: -f1)
[ -n "$note" ] && expect_get "$O" "$note" gpus.0.util_pct absent "no readings while it hangs"
[ -n "$note" ] && expect_get "$O" "$note" gpus.0.device_id GPU-a "identity while it hangs"
expect_get "$O" last gpus.0.state ok "readings after it answers"
check "readings after it answers" test "$(get "$O" last gpus.0.util_pct)" != absent

# Detection that hangs (nvmlDeviceGetCount for 6 s) stalls only the NVML
# worker: SIGINT after 1 s still ends gpur at once, with status 0.
scenario "$T/hang0.json" <<JSON
{"fast_pcie":1,"hang":{"poll":0,"ms":6000,"call":"nvmlDeviceGetCount"},"gpus":[$(gpu A GPU-a 0000:01:00.0)]}
JSON
rm -f "$T/hang.log"
GPUR_NVML_LIBRARY=$(fake modern) FAKE_NVML_SCENARIO=$T/hang0.json FAKE_NVML_HANG_LOG=$T/hang.log \
	timeout --preserve-status -s INT 1 "$GPUR" --backend nvml --json < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "SIGINT during a hung detection"
check "the detection hung" grep -q '^begin nvmlDeviceGetCount' "$T/hang.log"
# The fake runs inside gpur: had gpur waited for the call, "end" would be there.
check "SIGINT during a hung detection ends gpur before the call returns" sh -c "! grep -q '^end' '$T/hang.log'"

# Init errors: no GPU, the error string, the demo command; exit 1.
scenario "$T/init.json" <<JSON
{"init_error":9,"gpus":[$(gpu A GPU-a 0000:01:00.0)]}
JSON
nvml modern "$T/init.json" --once
expect_rc 1 "nvmlInit fails"
expect_stderr_contains "nvmlInit failed: Driver Not Loaded (NVML error 9)" "the init error string"
expect_stderr_contains "gpur: nvml: $(readlink -f "$(fake modern)"): nvmlInit failed" "names the library GPUR_NVML_LIBRARY loaded"
expect_stderr_contains "gpur --replay " "the demo command"
expect_gpur_lines "init failure messages"

# Zero devices.
scenario "$T/zero.json" <<JSON
{"gpus":[]}
JSON
nvml modern "$T/zero.json" --once
expect_rc 1 "NVML with no GPU"
expect_stderr_contains "no NVIDIA GPU (NVML reports 0 devices)" "zero devices"
finish
