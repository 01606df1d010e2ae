# test_nvml_cadence: how often gpur asks the driver (docs/nvml.md, "What a
# poll calls"). On the virtual clock a run at a 1 s interval takes no wall
# time, and the fake counts every call per entry point and GPU. The slow
# fields are still in every record, and never older than their cadence.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

export GPUR_VIRTUAL_CLOCK_MS=1700000000000

# 1. 8 GPUs with 8 real processes each (64), at steady state: at most 14
# calls per GPU per poll. Two runs of 11 and 71 polls; their difference is
# 60 polls without detection's one-time reads.
PIDS=()
for ((i = 0; i < 64; i++)); do
	spawn_sleeper
	PIDS+=("$SLEEPER")
done
{
	printf '{"fast_pcie":1,"gpus":['
	for ((g = 0; g < 8; g++)); do
		((g)) && printf ','
		printf '{"name":"NVIDIA A100","uuid":"GPU-%d","util":50,"mem_util":10,"mem_total":85899345920,' "$g"
		printf '"mem_used":8589934592,"temp":45,"temp_mem":50,"temp_slowdown":88,"temp_shutdown":93,'
		printf '"power_mw":245000,"power_limit_mw":400000,"energy_mj":{"start":1,"step":250000},'
		printf '"fan_pct":40,"fan_rpm":2100,"clock_gfx":1410,"clock_gfx_max":1410,"clock_mem":1593,'
		printf '"clock_mem_max":1593,"enc":3,"dec":4,"pcie_gen":4,"pcie_width":16,"pcie_gen_max":4,'
		printf '"pcie_width_max":16,"pcie_rx_kbs":1000,"pcie_tx_kbs":2000,"ecc_uncorrected":0,"pstate":0,'
		printf '"throttle":4,"processes":['
		for ((k = 0; k < 8; k++)); do
			((k)) && printf ','
			printf '{"pid":%d,"type":"%s","mem":1073741824,"sm":%d,"mem_util":5}' \
				"${PIDS[$((g + 8 * k))]}" "$( ((k % 4)) && echo compute || echo graphics)" $((10 + k))
		done
		printf ']}'
	done
	printf ']}\n'
} > "$T/eight.json"

# poll_calls FILE: calls on the poll's path (every per-GPU entry point but
# the PCIe throughput thread's, plus the device count), in all.
poll_calls() {
	awk '$2 != "-" && $1 != "nvmlDeviceGetPcieThroughput" { n += $3 } $1 == "nvmlDeviceGetCount" { n += $3 }
	     END { print n + 0 }' "$1"
}
FAKE_NVML_CALLS=$T/short.calls nvml modern "$T/eight.json" --json --count 11 --interval 1
expect_rc 0 "11 polls"
FAKE_NVML_CALLS=$T/long.calls nvml modern "$T/eight.json" --json --count 71 --interval 1
expect_rc 0 "71 polls"
check "71 records" test "$(lines "$T/out")" -eq 71
expect_get "$T/out" last processes.length 64 "every process listed"
per=$(awk -v a="$(poll_calls "$T/short.calls")" -v b="$(poll_calls "$T/long.calls")" \
	'BEGIN { printf "%.2f", (b - a) / 8 / 60 }')
# The PCIe throughput thread makes 2 calls a GPU every 5 s of real time:
# 0.4 a poll at 1 s, counted here by its documented period.
total=$(awk -v p="$per" 'BEGIN { printf "%.2f", p + 0.4 }')
echo "# calls per GPU per poll: $per on the poll's path, $total with the PCIe thread"
check "at most 14 NVML calls per GPU per poll at 1 s (got $total)" awk -v t="$total" 'BEGIN { exit !(t <= 14) }'
# Every field is still in the last record, the slow ones held between reads.
for f in power_w power_limit_w energy_j ecc_errors_uncorrected fan_pct fan_rpm clock_mem_mhz pcie_gen pcie_width \
	temp_mem_c; do
	check "the last record has $f" test "$(get "$T/out" last "gpus.7.$f")" != absent
done
expect_get "$T/out" last gpus.3.power_limit_w 400 "the enforced limit (a field value, mW)"
expect_get "$T/out" last gpus.3.power_w 245 "power (a field value)"
check "one nvmlDeviceGetFieldValues call a poll for memory temperature, power, energy, limit and ECC" \
	test "$(awk '$1 == "nvmlDeviceGetFieldValues" && $2 == "0" { print $3 }' "$T/long.calls")" -le 73
check "no nvmlDeviceGetPowerUsage while the field value answers" \
	test "$(awk '$1 == "nvmlDeviceGetPowerUsage" { n += $3 } END { print n + 0 }' "$T/long.calls")" -eq 0

# 2. Freshness. Every value counts the fake's polls (one a second here), so
# a field's age is how far it lags the temperature, which is read every
# poll: fans at most 5 s, the limit, ECC, PCIe link and memory clock at most
# 10 s. The P-state drops from P8 to P0 at poll 17 (and back at 24): the
# memory clock and the link are read again in that very poll.
ramp() { printf '{"start":%d,"step":%d}' "$1" "${2:-1}"; }
pst='[8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,0,0,0,0,0,0,0,8,8,8,8,8,8]'
scenario "$T/fresh.json" <<JSON
{"fast_pcie":1,"gpus":[{"name":"A","uuid":"GPU-a","temp":$(ramp 0),"fan_pct":$(ramp 0),"fan_rpm":$(ramp 1000),
 "power_limit_mw":$(ramp 100000 1000),"ecc_uncorrected":$(ramp 0),"pcie_gen":$(ramp 0),"pcie_width":$(ramp 0),
 "clock_mem":$(ramp 5000),"pstate":$pst}]}
JSON
nvml modern "$T/fresh.json" --json --count 40 --interval 1
expect_rc 0 "40 polls"
for ((r = 1; r <= 40; r++)); do
	line=""
	for f in temp_c fan_pct power_limit_w ecc_errors_uncorrected pcie_gen clock_mem_mhz pstate fan_rpm pcie_width; do
		line="$line $(get "$T/out" "$r" "gpus.0.$f")"
	done
	echo "$line"
done > "$T/fresh.tsv"
bad=$(awk '{ t = $1; lim = $3 - 100; mclk = $6 - 5000
	if ($2 == "absent" || $3 == "absent" || $4 == "absent" || $5 == "absent" || $6 == "absent" || $8 == "absent" || $9 == "absent") { print NR ": a field is missing"; next }
	if (t - $2 > 5 || t - ($8 - 1000) > 5) print NR ": fan " t - $2 " polls old"
	if (t - lim > 10 || t - $4 > 10 || t - $5 > 10 || t - mclk > 10) print NR ": a rare field over 10 polls old"
	if (NR > 1 && $7 != prev && (mclk != t || $5 != t || $9 != t)) print NR ": the P-state moved and the clock or link was not read"
	prev = $7 }' "$T/fresh.tsv")
check "every slow field within its bound in every record${bad:+: $bad}" test -z "$bad"
check "the fan is not read every poll" awk '{ if ($1 != $2) n++ } END { exit !(n > 0) }' "$T/fresh.tsv"
check "the memory clock is not read every poll" awk '{ if ($1 != $6 - 5000) n++ } END { exit !(n > 0) }' "$T/fresh.tsv"

# 3. A driver whose field values do not know the power ids (the R535-era
# cc32 fake answers INVALID_ARGUMENT for them): the getters take over.
scenario "$T/old.json" <<JSON
{"fast_pcie":1,"gpus":[{"name":"A","uuid":"GPU-a","power_mw":245000,"power_limit_mw":400000,"temp_mem":50,
 "energy_mj":{"start":1,"step":1000},"ecc_uncorrected":3}]}
JSON
FAKE_NVML_CALLS=$T/old.calls nvml cc32 "$T/old.json" --json --count 20 --interval 1
expect_rc 0 "cc32"
expect_get "$T/out" last gpus.0.power_w 245 "power from nvmlDeviceGetPowerUsage"
expect_get "$T/out" last gpus.0.power_limit_w 400 "the limit from nvmlDeviceGetEnforcedPowerLimit"
expect_get "$T/out" last gpus.0.temp_mem_c 50 "memory temperature still a field value"
expect_get "$T/out" last gpus.0.ecc_errors_uncorrected 3 "ECC still a field value"
check "nvmlDeviceGetPowerUsage asked every poll" \
	test "$(awk '$1 == "nvmlDeviceGetPowerUsage" && $2 == "0" { print $3 }' "$T/old.calls")" -ge 20

# 4. A slow field that fails for a moment is unknown until it answers again,
# never the value from before: the fan and the limit answer, then fail
# (UNKNOWN) from poll 10 to 24, which covers a read of each, then answer.
scenario "$T/flaky.json" <<JSON
{"fast_pcie":1,"gpus":[{"name":"A","uuid":"GPU-a","fan_pct":40,"power_limit_mw":300000,"power_mw":1000,
 "errors_at":{"fan":[10,25,999],"power_limit":[10,25,999],"field:190":[10,25,999]}}]}
JSON
nvml modern "$T/flaky.json" --json --count 40 --interval 1
for f in fan_pct power_limit_w; do
	seq=$(for ((r = 1; r <= 40; r++)); do get "$T/out" "$r" "gpus.0.$f"; done | uniq | tr '\n' ' ')
	check "$f: known, then unknown while it fails, then known again ($seq)" \
		test "$(echo "$seq" | awk '{ print $1 == $3 && $2 == "absent" && NF == 3 }')" = 1
done
# 5. The MPS list, while it lists nobody, is asked every 10 s and in any poll
# whose compute list changed; while it lists somebody, every poll. A client
# of an idle MPS server appears within 10 s; a new compute process (the MPS
# server starting) makes the same poll ask it.
spawn_sleeper
SRV=$SLEEPER
spawn_sleeper
CL1=$SLEEPER
spawn_sleeper
CL2=$SLEEPER
scenario "$T/mps.json" <<JSON
{"fast_pcie":1,"gpus":[{"name":"A","uuid":"GPU-a","util":50,"processes":[
 {"pid":$SRV,"type":"compute","mem":1048576},
 {"pid":$CL1,"type":"mps","mem":2097152,"polls":[15,25]},
 {"pid":$CL2,"type":"mps","mem":2097152,"polls":[40,1000]},
 {"pid":$PIDS,"type":"compute","mem":1048576,"polls":[40,1000]}]}]}
JSON
FAKE_NVML_CALLS=$T/mps.calls nvml modern "$T/mps.json" --json --count 50 --interval 1
expect_rc 0 "MPS: 50 polls"
# first RECORD PID: the first record listing PID (0: none).
first() {
	local r n i
	for ((r = 1; r <= 50; r++)); do
		n=$(get "$T/out" "$r" processes.length)
		for ((i = 0; i < n; i++)); do
			[ "$(get "$T/out" "$r" "processes.$i.pid")" = "$1" ] && { echo "$r"; return; }
		done
	done
	echo 0
}
c1=$(first "$CL1")
c2=$(first "$CL2")
cn=$(first "${PIDS[0]}")
check "an MPS client of an idle list appears within 10 s (record $c1, listed from poll 15)" \
	test "$c1" -ge 14 -a "$c1" -le 26
check "an MPS client that comes with a new compute process is listed with it, the list idle since poll 25 (records $c2, $cn)" \
	test "$c2" -gt 30 -a "$c2" -eq "$cn"
mps=$(awk '$1 ~ /^nvmlDeviceGetMPSComputeRunningProcesses/ && $2 == "0" { n += $3 } END { print n + 0 }' "$T/mps.calls")
check "the MPS list asked rarely while empty, every poll while used ($mps calls in 51 polls)" \
	test "$mps" -ge 15 -a "$mps" -le 30
finish
