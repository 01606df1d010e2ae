# test_rate_windows: no rate from a window shorter than the smaller of 100 ms
# and the poll interval, through the real binary on the real clock. At
# detection gpur reads every counter once, and the first record's poll comes
# milliseconds later, so the first record of `--json -d 1` has no power from
# energy (xe hwmon), no engine busy from fdinfo (amdgpu's ns counters, xe's
# cycles), no CPU % of a process and none of the host: unknown, never a
# number made up from that window. The next records, a second later, have
# them all, measured over the second: a process spinning a core shows about
# one core, not 0. --once, whose two samples are 0.1 s apart, still prints
# every rate measured.
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/nvml_lib.sh" || exit 1
. "$(dirname "$0")/drm_lib.sh" || exit 1

# num FILE LINE PATH: true when that value of the record is a number.
num() {
	local v
	v=$(get "$1" "$2" "$3")
	[ "$v" != absent ] && [ "$v" != null ] && awk -v v="$v" 'BEGIN { exit !(v == v + 0) }'
}
# above FILE LINE PATH MIN: true when that value is a number above MIN.
above() { num "$1" "$2" "$3" && awk -v v="$(get "$1" "$2" "$3")" -v m="$4" 'BEGIN { exit !(v > m) }'; }

# --- DRM: power from energy, engine busy from ns counters and cycles -----
R="$T/drm"
fx_root "$R" 6.8.0-45-generic
xe=$(fx_pci_card "$R" 1 0000:03:00.0 xe 8086 e20b)
fx_xe "$xe"
amd=$(fx_pci_card "$R" 2 0000:04:00.0 amdgpu 1002 744c)
fx_amdgpu "$amd" 6.8
amd_info() {
	printf 'drm-driver:\tamdgpu\ndrm-pdev:\t0000:04:00.0\ndrm-client-id:\t4187\ndrm-memory-vram:\t2154500 KiB\ndrm-engine-gfx:\t%s ns\n' "$1"
}
xe_info() {
	printf 'drm-driver:\txe\ndrm-client-id:\t57\ndrm-pdev:\t0000:03:00.0\ndrm-resident-vram0:\t1043300 KiB\ndrm-cycles-rcs:\t%s\ndrm-total-cycles-rcs:\t%s\n' "$1" "$2"
}
fx_client "$R" 4100 5 renderD130 "$(amd_info 38124561233)"
fx_client "$R" 4300 6 renderD129 "$(xe_info 914522871 88213900117)"
hw="$xe/hwmon/hwmon7"

# Each counter moves once the record before has been read: gpur's next poll
# measures that move over a window of about a second.
bump() {
	put "$hw/energy1_input" "$1\n"
	put "$R/proc/4100/fdinfo/5" "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t1042\n$(amd_info "$2")"
	put "$R/proc/4300/fdinfo/6" "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t1042\n$(xe_info "$3" "$4")"
}
GPUR_NVML_LIBRARY=$NO_NVML timeout 60 "$GPUR" --sysfs "$R/sys" --procfs "$R/proc" --backend amdgpu,intel \
	--json -n 3 -d 1 < /dev/null 2> "$T/err" | {
	IFS= read -r r && printf '%s\n' "$r"
	bump 1595000000 38624561233 914523371 88213901117
	IFS= read -r r && printf '%s\n' "$r"
	bump 1690000000 39124561233 914523871 88213902117
	cat
} > "$T/drm.jsonl"
RC=${PIPESTATUS[0]}
D=$T/drm.jsonl
expect_rc 0 "drm: runs"
check "drm: three records" test "$(lines "$D")" -eq 3
expect_get "$D" 1 gpus.1.vendor intel "drm: the amdgpu card first, then the xe"
expect_get "$D" 1 gpus.1.energy_j 1500 "drm: the energy counter is a reading, in the first record too"
expect_get "$D" 1 gpus.1.power_w absent "drm: no xe power from the window after detection"
expect_get "$D" 1 processes.length 2 "drm: both clients are rows in the first record"
for i in 0 1; do
	expect_get "$D" 1 "processes.$i.gpu_util_pct" absent "drm: no engine busy of row $i from the window after detection"
	expect_get "$D" 1 "processes.$i.gpu_mem_bytes" "$(get "$D" 2 "processes.$i.gpu_mem_bytes")" \
		"drm: row $i's memory, no rate, is there at once"
done
for n in 2 3; do
	check "drm: record $n has the xe power, measured" above "$D" $n gpus.1.power_w 0
	check "drm: record $n has the amdgpu client's busy (ns counters), measured" above "$D" $n processes.0.gpu_util_pct 0
	check "drm: record $n has the xe client's busy (cycles), measured" above "$D" $n processes.1.gpu_util_pct 0
done
expect_get "$D" 2 processes.0.pid 4100 "drm: row 0 is the amdgpu client"
expect_get "$D" 2 processes.1.pid 4300 "drm: row 1 is the xe client"
# 500 of 1000 cycles whatever the window: the rate is the counters', once the
# window carries one.
expect_get "$D" 2 processes.1.gpu_util_pct 50 "drm: xe cycles 500 of 1000"

# --once: its second sample comes 0.1 s after detection's, which carries
# rates: the counters stand still now, and 0 W and 0 % are measured.
GPUR_NVML_LIBRARY=$NO_NVML run --sysfs "$R/sys" --procfs "$R/proc" --backend amdgpu,intel --once --json
expect_rc 0 "drm --once: runs"
check "drm --once: xe power measured" num "$T/out" 1 gpus.1.power_w
check "drm --once: amdgpu client's busy measured" num "$T/out" 1 processes.0.gpu_util_pct
# (The xe client's cycles stand still here, and a share of no cycles is
# unknown however long the window.)

# --- the CPU % of a process and of the host ------------------------------
# A real process spinning a core, listed by the fake NVML, read from the real
# /proc.
sh -c 'while :; do :; done' &
SPIN=$!
SLEEPERS="$SLEEPERS $SPIN"
wait_until 5 grep -q '^sh' "/proc/$SPIN/comm"
scenario "$T/spin.json" <<JSON
{"driver":"550.54.15","cuda":12040,
 "gpus":[{"name":"NVIDIA A100-SXM4-80GB","uuid":"GPU-11111111-2222-3333-4444-555555555555","pci":"00000000:3B:00.0",
  "util":37,"mem_total":85899345920,"mem_used":1073741824,"temp":45,
  "processes":[{"pid":$SPIN,"type":"compute","mem":1048576}]}]}
JSON
nvml modern "$T/spin.json" --json -n 3 -d 1
expect_rc 0 "cpu: runs"
O=$T/out
expect_get "$O" 1 processes.0.pid "$SPIN" "cpu: the spinner is the row"
expect_get "$O" 1 processes.0.cpu_pct absent "cpu: no CPU % of the process from the window after detection"
expect_get "$O" 1 system.cpu_pct absent "cpu: no host CPU % from the window after detection"
check "cpu: the host's memory, no rate, is in the first record" num "$O" 1 system.mem_total_bytes
for n in 2 3; do
	# About one core, less whatever the machine's other work took from it,
	# and never the 0 that the first record used to make up.
	check "cpu: record $n has the spinner's CPU %, about one core" above "$O" $n processes.0.cpu_pct 20
	check "cpu: record $n has the host CPU %" num "$O" $n system.cpu_pct
done

nvml modern "$T/spin.json" --once --json
expect_rc 0 "cpu --once: runs"
check "cpu --once: the spinner's CPU % is measured, about one core" above "$T/out" 1 processes.0.cpu_pct 20
check "cpu --once: the host CPU % is measured" num "$T/out" 1 system.cpu_pct
# --- NVML: power from the energy counter where no power reading answers --
# The fake's counter moves 250 J a poll. On the real clock the first record
# has no power (its window is detection's), the later ones a measured power.
scenario "$T/energy.json" <<JSON
{"fast_pcie":1,"gpus":[{"name":"A","uuid":"GPU-a","not_supported":["power"],
 "energy_mj":{"start":1000000,"step":250000}}]}
JSON
nvml modern "$T/energy.json" --json --count 3 --interval 1
expect_rc 0 "nvml energy: 3 records"
expect_get "$T/out" 1 gpus.0.power_w absent "nvml energy: no power in the first record"
check "nvml energy: the first record has the counter" num "$T/out" 1 gpus.0.energy_j
check "nvml energy: the third record has a power" above "$T/out" 3 gpus.0.power_w 0
# On the virtual clock every window is the interval: 250 J over 1 s.
GPUR_VIRTUAL_CLOCK_MS=1700000000000 nvml modern "$T/energy.json" --json --count 4 --interval 1
expect_get "$T/out" 1 gpus.0.power_w absent "nvml energy, virtual clock: no power over an empty window"
expect_get "$T/out" 3 gpus.0.power_w 250 "nvml energy, virtual clock: 250 J a second is 250 W"
# A power reading, where there is one, is the driver's own.
scenario "$T/power.json" <<JSON
{"fast_pcie":1,"gpus":[{"name":"A","uuid":"GPU-a","power_mw":245000,"energy_mj":{"start":1,"step":250000}}]}
JSON
nvml modern "$T/power.json" --json --count 1
expect_get "$T/out" 1 gpus.0.power_w 245 "nvml: the driver's power reading, even in the first record"

finish
