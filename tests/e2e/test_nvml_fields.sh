# test_nvml_fields: every field NVML gives, in its units, through the real
# binary and the fake libnvidia-ml.so.1; versioned-symbol fallbacks; unknown
# for missing or NOT_SUPPORTED getters; process lists and utilisation.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

spawn_sleeper
P1=$SLEEPER
spawn_sleeper
P2=$SLEEPER

scenario "$T/full.json" <<JSON
{"driver":"550.54.15","cuda":12040,"fast_pcie":1,
 "gpus":[{"name":"NVIDIA A100-SXM4-80GB","uuid":"GPU-11111111-2222-3333-4444-555555555555","pci":"00000000:3B:00.0",
  "util":37,"mem_util":12,"mem_total":85899345920,"mem_used":1073741824,"mem_reserved":536870912,
  "temp":45,"temp_mem":51,"temp_slowdown":88,"temp_shutdown":93,"power_mw":245123,"power_limit_mw":400000,
  "energy_mj":123456789,"fan_pct":40,"fan_rpm":2100,"clock_gfx":1410,"clock_gfx_max":1980,"clock_mem":1593,
  "clock_mem_max":1600,"enc":3,"dec":4,"pcie_gen":3,"pcie_width":8,"pcie_gen_max":4,"pcie_width_max":16,
  "pcie_rx_kbs":1000,"pcie_tx_kbs":2000,"ecc_uncorrected":2,"pstate":2,"throttle":5,
  "processes":[{"pid":$P1,"type":"both","mem":1048576,"sm":55,"mem_util":20,"enc":1,"dec":2},
               {"pid":$P2,"type":"graphics","mem":null}]},
  {"name":"Tesla T4","uuid":"GPU-aaaaaaaa-2222-3333-4444-555555555555","pci":"00000000:AF:00.0",
   "util":0,"mem_total":16106127360,"mem_used":0,"temp":30,"power_mw":9000,"fan_pct":0,
   "not_supported":["power","fan","temp_mem","ecc"],
   "processes":[{"pid":$P1,"type":"compute","mem":4096}]}]}
JSON

nvml modern "$T/full.json" --once --json
expect_rc 0 "modern --once --json"
O=$T/out
cp "$O" "$T/modern.jsonl"
O=$T/modern.jsonl
expect_get "$O" 1 backend nvml "backend"
expect_get "$O" 1 driver 550.54.15 "driver (nvmlSystemGetDriverVersion)"
expect_get "$O" 1 gpus.length 2 "two GPUs"
for kv in name="NVIDIA A100-SXM4-80GB" device_id=GPU-11111111-2222-3333-4444-555555555555 vendor=nvidia \
	pci_bus_id=0000:3b:00.0 state=ok pstate=2 mig_mode=false util_pct=37 mem_util_pct=12 \
	mem_used_bytes=1073741824 mem_total_bytes=85899345920 temp_c=45 temp_mem_c=51 temp_slowdown_c=88 \
	temp_shutdown_c=93 power_w=245.123 power_limit_w=400 energy_j=123456.789 fan_pct=40 fan_rpm=2100 \
	clock_gfx_mhz=1410 clock_gfx_max_mhz=1980 clock_mem_mhz=1593 clock_mem_max_mhz=1600 enc_pct=3 dec_pct=4 \
	pcie_gen=3 pcie_width=8 pcie_gen_max=4 pcie_width_max=16 pcie_rx_bytes_per_s=1024000 \
	pcie_tx_bytes_per_s=2048000 ecc_errors_uncorrected=2 'throttle=["gpu_idle","sw_power_cap"]'; do
	expect_get "$O" 1 "gpus.0.${kv%%=*}" "${kv#*=}" "GPU 0 field"
done
# NOT_SUPPORTED is unknown for that field only; a 0 stays a measurement.
for k in power_w fan_pct temp_mem_c ecc_errors_uncorrected; do
	expect_get "$O" 1 "gpus.1.$k" absent "NOT_SUPPORTED $k is unknown"
done
expect_get "$O" 1 gpus.1.util_pct 0 "a measured 0 stays 0"
expect_get "$O" 1 gpus.1.temp_c 30 "the other fields of that GPU stay"

# Processes: one row per (pid, GPU); both lists -> kind both; /proc details.
expect_get "$O" 1 processes.length 3 "three process rows"
expect_get "$O" 1 processes.0.pid "$P1" "row 0 pid"
expect_get "$O" 1 processes.0.kind both "compute + graphics is both"
expect_get "$O" 1 processes.0.gpu_mem_bytes 1048576 "process memory"
expect_get "$O" 1 processes.0.gpu_util_pct 55 "per-process SM %"
expect_get "$O" 1 processes.0.mem_bw_pct 20 "per-process memory bandwidth %"
expect_get "$O" 1 processes.0.enc_pct 1 "per-process encoder %"
expect_get "$O" 1 processes.0.name sleep "comm from /proc"
expect_get "$O" 1 processes.0.cmdline "sleep 600" "cmdline from /proc"
expect_get "$O" 1 processes.0.user "$(id -un)" "user name"
check "start_ms is set" test "$(get "$O" 1 processes.0.start_ms)" != absent
check "host_mem_bytes is set" test "$(get "$O" 1 processes.0.host_mem_bytes)" != absent
check "cpu_pct is measured (two samples)" test "$(get "$O" 1 processes.0.cpu_pct)" != absent
expect_get "$O" 1 processes.1.kind graphics "graphics only"
expect_get "$O" 1 processes.1.gpu_mem_bytes absent "NVML_VALUE_NOT_AVAILABLE memory is unknown"
expect_get "$O" 1 processes.1.gpu_util_pct 0 "no sample after a successful call is a measured 0"
expect_get "$O" 1 processes.2.gpu_index 1 "second GPU's row"

# cuda13: TemperatureV and ClocksEventReasons, the deprecated getters gone.
nvml cuda13 "$T/full.json" --once --json
expect_rc 0 "cuda13"
expect_get "$T/out" 1 gpus.0.temp_c 45 "TemperatureV where GetTemperature is gone"
expect_get "$T/out" 1 gpus.0.throttle '["gpu_idle","sw_power_cap"]' "ClocksEventReasons"

# legacy: plain entry points; v1 memory counts reserved as used; 16-byte
# process entries; no energy, fan RPM, memory temperature.
nvml legacy "$T/full.json" --once --json
expect_rc 0 "legacy"
O=$T/out
expect_get "$O" 1 gpus.0.mem_used_bytes 1610612736 "v1 memory info"
expect_get "$O" 1 gpus.0.temp_c 45 "nvmlDeviceGetTemperature"
expect_get "$O" 1 gpus.0.throttle '["gpu_idle","sw_power_cap"]' "ThrottleReasons fallback"
for k in energy_j fan_rpm temp_mem_c; do expect_get "$O" 1 "gpus.0.$k" absent "missing symbol: $k unknown"; done
expect_get "$O" 1 processes.0.pid "$P1" "v1 process stride"
expect_get "$O" 1 processes.2.gpu_mem_bytes 4096 "v1 process memory"

# cc32: the drivers whose _v3 wrote 32-byte entries.
nvml cc32 "$T/full.json" --once --json
expect_rc 0 "cc32"
expect_get "$T/out" 1 processes.length 3 "32-byte stride: all rows"
expect_get "$T/out" 1 processes.1.pid "$P2" "32-byte stride: second pid"
expect_get "$T/out" 1 processes.2.gpu_mem_bytes 4096 "32-byte stride: memory"

# minimal: only the five required symbols; GPUs stay, everything unknown.
nvml minimal "$T/full.json" --once --json
expect_rc 0 "minimal"
expect_get "$T/out" 1 gpus.length 2 "minimal: both GPUs"
expect_get "$T/out" 1 gpus.0.device_id nvml:0 "minimal: index identity"
expect_get "$T/out" 1 gpus.0.util_pct absent "minimal: util unknown"
expect_get "$T/out" 1 driver '?' "minimal: no driver string"

# Per-process utilisation not supported: unknown, not 0.
sed 's/"not_supported":\["power"/"not_supported":["process_util","power"/' "$T/full.json" > "$T/noputil.json"
sed -i 's/"processes":\[{"pid":'"$P1"',"type":"both"/"not_supported":["process_util"],&/' "$T/noputil.json"
nvml modern "$T/noputil.json" --once --json
expect_get "$T/out" 1 processes.0.gpu_util_pct absent "NOT_SUPPORTED process utilisation is unknown"

# --log and --replay: the same records, byte for byte.
nvml modern "$T/full.json" --json --count 3 --interval 0.05 --log "$T/log.jsonl"
expect_rc 0 "--json --log"
check "three records" test "$(lines "$T/out")" -eq 3
check "--log equals --json" cmp -s "$T/out" "$T/log.jsonl"
"$GPUR" --replay "$T/log.jsonl" --json > "$T/replayed.jsonl"
check "replay --json gives the recorded bytes" cmp -s "$T/log.jsonl" "$T/replayed.jsonl"
check "log mode 0600" test "$(stat -c %a "$T/log.jsonl")" = 600

# The table.
# Process lists of very different lengths, over several polls: GPU 1's
# forty rows outgrow the buffer GPU 0's one row left (the sizing protocol
# again, then one call a list), and every row is there each time.
{
	printf '{"driver":"550.54.15","fast_pcie":1,"gpus":['
	printf '{"name":"A","uuid":"GPU-a","processes":[{"pid":%d,"type":"compute","mem":4096}]},' "$P1"
	printf '{"name":"B","uuid":"GPU-b","processes":['
	for ((i = 0; i < 40; i++)); do
		((i)) && printf ','
		printf '{"pid":%d,"type":"compute","mem":%d}' $((3000000 + i)) $((1048576 * (i + 1)))
	done
	printf ']}]}\n'
} > "$T/lists.json"
nvml modern "$T/lists.json" --json --count 3 --interval 0.05
expect_rc 0 "three polls of uneven lists"
for rec in 1 2 3; do
	expect_get "$T/out" "$rec" processes.length 41 "poll $rec: 1 + 40 process rows"
	expect_get "$T/out" "$rec" processes.40.gpu_mem_bytes 41943040 "poll $rec: the last row of the long list"
done

nvml modern "$T/full.json" --once
expect_rc 0 "--once table"
expect_stdout_contains "NVIDIA A100-SXM4-80GB" "table names the GPU"
expect_stdout_contains "nvml · 550.54.15" "table header shows the source"
finish
