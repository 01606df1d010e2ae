# test_replay_original: recordings written exactly as the original gpur (the
# Rust program gpur began as, 0.13.1) writes them — compact --log lines and
# pretty-printed --json objects, from tests/tools/gen_original.py — play in
# every replay mode: each field under our key in our unit (--json and a
# --log written from them), the --once table, --gpus by the ids without the
# original's prefixes, a rotated and compressed set, --report and --serve.
# The dashboard is tests/e2e/test_tui_original.sh.
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/serve_lib.sh" || exit 1
trap 'stop_all; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT

GEN="$SOURCE_DIR/tests/tools/gen_original.py"
command -v python3 > /dev/null || { skip "python3 is not installed"; finish; }
for form in compact pretty mixed expected; do
	python3 "$GEN" "$form" > "$T/$form.jsonl" || { fail "gen_original.py $form"; finish; }
done
EXP="$T/expected.jsonl"

# The generator writes what the original writes: keys in alphabetical order,
# every field, null for unknown, 92.0 for a whole float, f32 noise.
check "the original's records have sorted keys, nulls and 92.0" \
	grep -q '^{"backend":"multi","driver":"nvml driver 550.54.15 · amdgpu · kernel 6.8.0","gpus":\[{"clock_mhz":1980,"dec_util_pct":0.0,' "$T/compact.jsonl"
check "the original's cpu_pct is an f32 widened" grep -qF '"cpu_pct":12.300000190734863' "$T/compact.jsonl"
check "the pretty form spans lines" test "$(lines "$T/pretty.jsonl")" -gt 100

# --json: every field under our key, in our unit (KiB/s into bytes/s, a
# P-state out of perf_level, the throttle string into our names); "-" and
# "?" are unknown; ids lose the "nvml:"/"amdgpu:" prefix; ts_ms 0 is no
# time; a Windows pid of 4294967294 survives.
for form in compact pretty mixed; do
	run --replay "$T/$form.jsonl" --json
	expect_rc 0 "--replay $form --json"
	if "$JSONCMP" "$EXP" "$T/out" 2> "$T/jsoncmp.err"; then ok; else
		fail "$form: --json differs from the original's records read as ours"
		sed 's/^/    /' "$T/jsoncmp.err" >&2
	fi
done
run --replay "$T/compact.jsonl" --json
check "no key of the original's is written back" sh -c "! grep -qE '\"(utilization_pct|vram_used_bytes|temperature_c|clock_mhz|pcie_rx_kbs|volt_mv|command)\"' '$T/out'"
check "pid 4294967294 survives" grep -qF '"pid":4294967294,' "$T/out"
# The mixed file holds a torn pretty record and a torn line: their lines are
# counted as skipped, and nothing else is lost.
run --replay "$T/mixed.jsonl" --json
expect_stderr_contains "skipped" "mixed: the torn records are said"
check "mixed: four records" test "$(lines "$T/out")" -eq 4

# A --log written from them (headless) holds the same records, and plays.
run --replay "$T/pretty.jsonl" --headless --log "$T/copy.jsonl"
expect_rc 0 "--replay pretty --headless --log"
check "--log copy equals the expected records" "$JSONCMP" "$EXP" "$T/copy.jsonl"
run --replay "$T/copy.jsonl" --json
check "the copy plays back the same" "$JSONCMP" "$EXP" "$T/out"

# As a rotated set: the first two records in a zstd segment, the third
# pretty-printed in a plain segment, the last in FILE; and compressed.
mkdir -p "$T/set"
head -n 2 "$T/compact.jsonl" | zstd -q -c > "$T/set/gpur.jsonl.20251203T070000Z.zst"
python3 -c 'import json, sys; rec = [json.loads(l) for l in open(sys.argv[1])][2]; print(json.dumps(rec, sort_keys=True, indent=2, ensure_ascii=False))' \
	"$T/compact.jsonl" > "$T/set/gpur.jsonl.20251203T070002Z"
sed -n 4p "$T/compact.jsonl" > "$T/set/gpur.jsonl"
run --replay "$T/set/gpur.jsonl" --json
expect_rc 0 "--replay a rotated set of the original's records"
check "the rotated set plays every record" "$JSONCMP" "$EXP" "$T/out"
# A directory orders its files by their first time: a file that starts
# with the original's ts_ms 0 (no clock) is placed by its first timed record.
mkdir -p "$T/dir"
sed -n 3,4p "$T/compact.jsonl" > "$T/dir/a.jsonl"
sed -n 1,2p "$T/compact.jsonl" > "$T/dir/b.jsonl"
run --replay "$T/dir" --json
check "a directory whose file starts without a time plays whole, in order" "$JSONCMP" "$EXP" "$T/out"
gzip -c "$T/pretty.jsonl" > "$T/pretty.jsonl.gz"
run --replay "$T/pretty.jsonl.gz" --json
check "gzip of pretty records" "$JSONCMP" "$EXP" "$T/out"

# --once: the first record as a table, with its readings and commands.
run --replay "$T/compact.jsonl" --once
expect_rc 0 "--once"
for want in "NVIDIA H100 80GB HBM3" "92 %" "71°C" "63488 /  81920 MiB" "612 /  700 W" "GFX 1980 MHz" \
	"MEM 2619 MHz" "AMD Radeon 780M" "docker:0123456789ab" "k8s:fedcba987654" "4294967294" \
	"alice/4242 python (61440 MiB)" "bob/777 tritonserver (0 MiB)" "PCIe 3x8 (max 4x16)" "893 mV" "DPM manual"; do
	expect_stdout_contains "$want" "--once shows '$want'"
done
check "--once: no state is printed for records without one" sh -c "! grep -q 'state' '$T/out'"

# --gpus takes the ids without the original's prefixes, and the AMD GPU's
# PCI slot.
for sel in GPU-11111111-2222-3333-4444-555555555555 1 pci:0000:c4:00.0 c4:00.0 replay:3; do
	run --replay "$T/compact.jsonl" --json --count 1 --gpus "$sel"
	expect_rc 0 "--gpus $sel"
	check "--gpus $sel keeps one GPU" test "$("$JSONGET" "$T/out" 1 gpus.length)" = 1
done
run --replay "$T/compact.jsonl" --json --count 1 --gpus nvml:GPU-11111111-2222-3333-4444-555555555555
expect_rc 1 "--gpus with the original's prefix matches nothing"

# --report: the summary reads util, memory, temperature and power.
run --replay "$T/pretty.jsonl" --report "$T/report.json"
expect_rc 0 "--report"
# The report is one pretty-printed object: python reads it.
report() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$T/report.json" "$1"; }
check "report: GPU 0's mean util over the four records" test "$(report "r['gpus'][0]['util_pct_mean']")" = 78.875
check "report: GPU 1's hottest reading" test "$(report "r['gpus'][1]['temp_c_max']")" = 52.25
check "report: the process of the Windows pid" test "$(report "[p['pid'] for p in r['processes']].count(4294967294)")" = 1

# --serve: the last record's values, under dcgm-exporter's names.
if start_exporter serve -- --replay "$T/pretty.jsonl"; then
	ok
	wait_until 10 sh -c "curl -s 'http://$ADDR/metrics' | grep -q '^DCGM_FI_DEV_GPU_UTIL{gpu=\"0\".*} 88$'"
	http_get "http://$ADDR/metrics" > "$T/metrics"
	check "serve: GPU 0's util" grep -qE '^DCGM_FI_DEV_GPU_UTIL\{gpu="0",UUID="GPU-11111111-2222-3333-4444-555555555555".*\} 88$' "$T/metrics"
	check "serve: the SM clock from clock_mhz" grep -qE '^DCGM_FI_DEV_SM_CLOCK\{gpu="0".*\} 1950$' "$T/metrics"
	check "serve: PCIe bytes/s from KiB/s" grep -qE '^DCGM_FI_PROF_PCIE_RX_BYTES\{gpu="0".*\} 126422016$' "$T/metrics"
	check "serve: the APU's voltage" grep -qE '^gpur_gpu_voltage_millivolts\{gpu="1".*\} 893$' "$T/metrics"
	check "serve: the generic throttle reason" grep -qE '^gpur_throttle\{gpu="1".*reason="hw_slowdown".*\} 1$' "$T/metrics"
	check "serve: no GPU state when none was recorded" sh -c "! grep -q '^gpur_gpu_up{' '$T/metrics'"
else
	fail "--serve of the original's records"
fi
stop_all

finish
