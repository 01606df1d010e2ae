# test_drm_sysfs: the amdgpu, intel and drm backends on sysfs/procfs fixture
# trees written from the kernel documentation of each driver: amdgpu dGPUs in the 5.15, 6.4–6.11 and
# 6.13+ formats, an APU, an i915 iGPU, an xe dGPU, msm and v3d platform GPUs,
# a runtime-suspended dGPU whose wake-up files are FIFOs (an open would
# block: the run ending proves none was opened), energy → power through a
# FIFO fed one value per read, hostile trees, and the per-backend reason when
# no card is bound.
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/nvml_lib.sh" || exit 1
. "$(dirname "$0")/drm_lib.sh" || exit 1

# Names come from this pci.ids, never the host's.
put "$T/pci.ids" "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n\t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX]\n\t1636  Renoir\n8086  Intel Corporation\n\t4680  AlderLake-S GT1\n\te20b  Battlemage G21 [Arc B580]\n"
export GPUR_PCI_IDS="$T/pci.ids"

# drm ROOT BACKENDS ARGS...: gpur live on the fixture, NVML absent.
drm() {
	local root=$1 be=$2
	shift 2
	GPUR_NVML_LIBRARY=$NO_NVML timeout 20 "$GPUR" --sysfs "$root/sys" --procfs "$root/proc" --backend "$be" "$@" \
		< /dev/null > "$T/out" 2> "$T/err"
	RC=$?
}
# g PATH: a value of the first record.
g() { get "$T/out" 1 "$1"; }
expect_g() { expect_get "$T/out" 1 "$1" "$2" "$3"; }

# --- amdgpu dGPU, three kernel formats ---------------------------------
for k in 5.15 6.8 6.13; do
	R="$T/amd-$k"
	fx_root "$R" "$k.0-45-generic"
	dev=$(fx_pci_card "$R" 1 0000:03:00.0 amdgpu 1002 744c)
	fx_amdgpu "$dev" "$k"
	drm "$R" amdgpu --once --json
	expect_rc 0 "amdgpu $k: --once --json"
	expect_g backend amdgpu "amdgpu $k: backend"
	expect_g driver "$k.0" "amdgpu $k: driver = the kernel release's version"
	expect_g gpus.length 1 "amdgpu $k: one GPU (connectors are no cards)"
	expect_g gpus.0.device_id pci:0000:03:00.0 "amdgpu $k: device_id"
	expect_g gpus.0.pci_bus_id 0000:03:00.0 "amdgpu $k: pci_bus_id"
	expect_g gpus.0.vendor amd "amdgpu $k: vendor"
	if grep -q GPUR_HAVE_LIBPCI:INTERNAL "${GPUR%/*}/CMakeCache.txt" 2> /dev/null ||
		[ "$(g gpus.0.name)" != "amdgpu 1002:744c" ]; then
		expect_g gpus.0.name "Navi 31 [Radeon RX 7900 XT/7900 XTX]" "amdgpu $k: name from pci.ids"
	else
		skip "amdgpu $k: built without libpci, named by ids"
	fi
	expect_g gpus.0.state ok "amdgpu $k: state"
	expect_g gpus.0.util_pct 37 "amdgpu $k: gpu_busy_percent"
	expect_g gpus.0.mem_util_pct 12 "amdgpu $k: mem_busy_percent"
	expect_g gpus.0.mem_used_bytes 1846542336 "amdgpu $k: VRAM used"
	expect_g gpus.0.mem_total_bytes 25753026560 "amdgpu $k: VRAM total"
	expect_g gpus.0.gtt_used_bytes 52793344 "amdgpu $k: GTT used"
	expect_g gpus.0.gtt_total_bytes 33507364864 "amdgpu $k: GTT total"
	expect_g gpus.0.temp_junction_c 61 "amdgpu $k: junction"
	expect_g gpus.0.temp_mem_c 64 "amdgpu $k: memory temperature"
	expect_g gpus.0.temp_slowdown_c 100 "amdgpu $k: edge crit = slowdown"
	expect_g gpus.0.temp_shutdown_c 105 "amdgpu $k: edge emergency = shutdown"
	expect_g gpus.0.power_limit_w 327 "amdgpu $k: power1_cap"
	expect_g gpus.0.fan_rpm 1211 "amdgpu $k: fan rpm"
	expect_g gpus.0.fan_pct 29.80392156862745 "amdgpu $k: pwm1/pwm1_max"
	expect_g gpus.0.clock_gfx_mhz 1834 "amdgpu $k: sclk (the * level)"
	expect_g gpus.0.clock_gfx_max_mhz 2526 "amdgpu $k: sclk max"
	expect_g gpus.0.clock_mem_mhz 1249 "amdgpu $k: mclk"
	expect_g gpus.0.pcie_gen 4 "amdgpu $k: 16.0 GT/s = gen 4"
	expect_g gpus.0.pcie_width 16 "amdgpu $k: width"
	expect_g gpus.0.pcie_gen_max 4 "amdgpu $k: max gen"
	expect_g gpus.0.voltage_mv 893 "amdgpu $k: in0 (vddgfx) is the core voltage"
	expect_g gpus.0.perf_level absent "amdgpu $k: performance level auto is none"
	expect_g gpus.0.integrated false "amdgpu $k: gpu_metrics format 1 is a dGPU"
	case $k in
	6.13)
		expect_g gpus.0.power_w 87.25 "amdgpu $k: power1_input (no power1_average)"
		expect_g gpus.0.temp_c 52.5 "amdgpu $k: millidegrees keep their fraction"
		;;
	*)
		expect_g gpus.0.power_w 87 "amdgpu $k: power1_average"
		expect_g gpus.0.temp_c 52 "amdgpu $k: edge temperature"
		;;
	esac
done
# A DKMS driver's own version wins over the kernel's.
put "$T/amd-6.8/sys/module/amdgpu/version" "6.8.5\n"
drm "$T/amd-6.8" amdgpu --once --json
expect_g driver 6.8.5 "amdgpu: module/amdgpu/version is the driver string"
# product_name (server boards) wins over pci.ids.
put "$T/amd-6.8/sys/devices/pci0000:00/0000:03:00.0/product_name" "AMD Instinct MI210\n"
drm "$T/amd-6.8" amdgpu --once --json
expect_g gpus.0.name "AMD Instinct MI210" "amdgpu: product_name is the name"
drm "$T/amd-6.8" amdgpu --once
expect_rc 0 "amdgpu: --once table"
expect_stdout_contains "AMD Instinct MI210" "amdgpu table: the name"
expect_stdout_contains "GTT 50 / 31955 MiB" "amdgpu table: GTT"

# --- APU -----------------------------------------------------------------
R="$T/apu"
fx_root "$R" 6.1.0-18-amd64
dev=$(fx_pci_card "$R" 0 0000:05:00.0 amdgpu 1002 1636)
fx_amdgpu_apu "$dev"
drm "$R" amdgpu --once --json
expect_rc 0 "apu: runs"
expect_g gpus.0.clock_gfx_mhz 800 "apu: the unnumbered '*' line is the current sclk"
expect_g gpus.0.clock_gfx_max_mhz 1800 "apu: max is the highest level"
expect_g gpus.0.clock_mem_mhz 400 "apu: mclk"
expect_g gpus.0.temp_c 45.125 "apu: edge"
expect_g gpus.0.temp_junction_c absent "apu: no junction sensor"
expect_g gpus.0.pcie_gen absent "apu: link Unknown is unknown"
expect_g gpus.0.pcie_width absent "apu: width 0 is unknown"
expect_g gpus.0.power_w 9 "apu: power1_average"
expect_g gpus.0.fan_rpm absent "apu: no fan"
expect_g gpus.0.mem_total_bytes 536870912 "apu: carve-out VRAM"
expect_g gpus.0.integrated true "apu: gpu_metrics format 2 is an APU"
expect_g gpus.0.voltage_mv 1100 "apu: in0 without a label is the core voltage"
expect_g gpus.0.perf_level profile_standard "apu: a forced performance level"
# A level being forced while gpur runs is read at the next poll; an in0
# labelled otherwise is no core voltage; no gpu_metrics is no answer.
put "$dev/power_dpm_force_performance_level" "manual\n"
put "$dev/hwmon/hwmon2/in0_label" "vddnb\n"
rm "$dev/gpu_metrics"
drm "$R" amdgpu --once --json
expect_g gpus.0.perf_level manual "apu: the level now"
expect_g gpus.0.voltage_mv absent "apu: in0 labelled vddnb is not the core's"
expect_g gpus.0.integrated absent "apu: without gpu_metrics, integrated is unknown"
put "$dev/power_dpm_force_performance_level" "m\033[2Jx\n"
drm "$R" amdgpu --once --json
expect_g gpus.0.perf_level absent "apu: a level with other characters is not taken"

# --- Intel: i915 iGPU + xe dGPU -----------------------------------------
R="$T/intel"
fx_root "$R" 6.12.1-arch1-1
igpu=$(fx_pci_card "$R" 0 0000:00:02.0 i915 8086 4680)
fx_i915 "$R/sys/class/drm/card0"
fx_link "$igpu" Unknown 0 Unknown 0
dev=$(fx_pci_card "$R" 1 0000:04:00.0 xe 8086 e20b)
fx_xe "$dev"
drm "$R" intel --once --json
expect_rc 0 "intel: runs"
expect_g driver 6.12.1 "intel: the kernel's version (Arch's -arch1-1 dropped)"
expect_g gpus.length 2 "intel: i915 and xe"
expect_g gpus.0.name "AlderLake-S GT1" "i915: name"
expect_g gpus.0.vendor intel "i915: vendor"
expect_g gpus.0.clock_gfx_mhz 1300 "i915: gt_act_freq_mhz"
expect_g gpus.0.clock_gfx_max_mhz 1450 "i915: gt_max_freq_mhz"
expect_g gpus.0.power_w absent "i915 iGPU: no hwmon, no power"
expect_g gpus.0.mem_total_bytes absent "i915 iGPU: no VRAM"
expect_g gpus.0.pcie_gen absent "i915 iGPU: link speed Unknown"
expect_g gpus.1.clock_gfx_mhz 2400 "xe: tile0/gt0/freq0/act_freq"
expect_g gpus.1.clock_gfx_max_mhz 2850 "xe: max_freq"
expect_g gpus.1.mem_total_bytes 12884901888 "xe: physical_vram_size_bytes"
expect_g gpus.1.temp_c 58 "xe: pkg temperature"
expect_g gpus.1.temp_mem_c 62 "xe: vram temperature"
expect_g gpus.1.fan_rpm 1450 "xe: fan"
expect_g gpus.1.power_limit_w 190 "xe: power1_max"
expect_g gpus.1.energy_j 1500 "xe: energy1_input in J"
expect_g gpus.1.pcie_width 8 "xe: x8"
if [ "$(id -u)" = 0 ]; then
	expect_g gpus.0.util_pct 0 "i915: no client as root is a measured 0"
fi
# Power from energy deltas: energy1_input is a FIFO fed one value per open;
# the virtual clock makes the polls exactly 1 s apart: 2.5 J/s then 4 J/s.
# (Detection polls once at the same virtual instant as the first record:
# no rate over no time.)
fx_fifos "$dev/hwmon/hwmon7" energy1_input
# No process has FIFO open (its reader has closed it).
fifo_free() { [ -z "$(find /proc/[0-9]*/fd -maxdepth 1 -lname "$1" -print -quit 2> /dev/null)" ]; }
fifo=$(realpath "$dev/hwmon/hwmon7/energy1_input")
(for v in 1500000000 1500000000 1502500000 1506500000 1506500000 1506500000; do
	# The reader closes before the next open, or two values share one read.
	wait_until 20 fifo_free "$fifo" || exit 1
	printf '%s\n' "$v" > "$fifo"
done) &
FEEDER=$!
GPUR_VIRTUAL_CLOCK_MS=1700000000000 drm "$R" intel --json -n 3 -d 1
kill "$FEEDER" 2> /dev/null
expect_rc 0 "xe energy FIFO: runs"
expect_get "$T/out" 1 gpus.1.power_w absent "xe: the first sample has no power"
expect_get "$T/out" 2 gpus.1.power_w 2.5 "xe: 2.5 J over 1 s = 2.5 W"
expect_get "$T/out" 3 gpus.1.power_w 4 "xe: 4 J over 1 s = 4 W"
expect_get "$T/out" 3 gpus.1.energy_j 1506.5 "xe: the counter in J"

# --- msm and v3d platform GPUs ------------------------------------------
R="$T/soc"
fx_root "$R" 6.6.31+rpt-rpi-v8
fx_platform_card "$R" 0 fec00000.v3d v3d > /dev/null
fx_platform_card "$R" 1 3d00000.gpu msm > /dev/null
drm "$R" drm --once --json
expect_rc 0 "soc: runs"
expect_g driver 6.6.31 "soc: Raspberry Pi's +rpt suffix dropped (it would split the driver line)"
expect_g gpus.length 2 "soc: v3d and msm"
expect_g gpus.0.device_id drm:v3d:fec00000.v3d "v3d: device_id drm:<driver>:<name>"
expect_g gpus.0.vendor v3d "v3d: vendor is the driver"
expect_g gpus.0.pci_bus_id absent "v3d: no PCI address"
expect_g gpus.1.device_id drm:msm:3d00000.gpu "msm: device_id"
expect_g gpus.1.name "msm 3d00000.gpu" "msm: named by driver and device"
# amdgpu and intel find nothing here, each saying why.
drm "$R" amdgpu,intel --once
expect_rc 1 "soc: no amdgpu/intel card"
expect_stderr_contains "gpur: amdgpu: no DRM card bound to amdgpu under $R/sys/class/drm" "soc: amdgpu's reason"
expect_stderr_contains "gpur: intel: no DRM card bound to i915 or xe under $R/sys/class/drm" "soc: intel's reason"
run_nogpu --once
expect_stderr_contains "gpur: amdgpu: no DRM card bound to amdgpu under $T/empty-sys/class/drm" "empty sysfs: amdgpu's reason"
expect_stderr_contains "gpur: drm: no DRM card bound to" "empty sysfs: drm's reason"

# --- a suspended dGPU is never woken -------------------------------------
R="$T/sleep"
fx_root "$R" 6.8.0-45-generic
dev=$(fx_pci_card "$R" 1 0000:03:00.0 amdgpu 1002 744c)
fx_amdgpu "$dev" 6.8
put "$dev/power/runtime_status" "suspended\n"
# Every file whose read would resume the device becomes a FIFO.
wake=$(cd "$dev" && find . -maxdepth 1 -type f \( -name 'gpu_busy_percent' -o -name 'mem_*' -o -name 'pp_dpm_*' \
	-o -name '*_link_*' -o -name 'power_dpm_*' -o -name unique_id -o -name vbios_version \) | sed 's|^\./||')
hw=$(cd "$dev" && find hwmon -type f)
# shellcheck disable=SC2086
fx_fifos "$dev" $wake $hw
drm "$R" amdgpu --once --json
check "suspended: gpur did not block on a wake-up file (none was opened)" test "$RC" -ne 124
expect_rc 0 "suspended: runs"
expect_g gpus.0.state suspended "suspended: state"
expect_g gpus.0.device_id pci:0000:03:00.0 "suspended: identity kept"
expect_g gpus.0.name "Navi 31 [Radeon RX 7900 XT/7900 XTX]" "suspended: name from ids (no wake-up)"
for k in util_pct mem_used_bytes temp_c power_w clock_gfx_mhz pcie_gen fan_rpm; do
	expect_g "gpus.0.$k" absent "suspended: no $k"
done
drm "$R" amdgpu --once
expect_stdout_contains "suspended" "suspended: the table says so"

# --- awake, then suspended: totals from when it was awake ---------------
# The first record is read awake; once it is out (the pipe says so), the
# device suspends and its wake-up files become FIFOs; the second poll, a
# second later, opens none of them and keeps the totals and limits.
R="$T/dozes"
fx_root "$R" 6.8.0-45-generic
dev=$(fx_pci_card "$R" 1 0000:03:00.0 amdgpu 1002 744c)
fx_amdgpu "$dev" 6.8
GPUR_NVML_LIBRARY=$NO_NVML timeout 20 "$GPUR" --sysfs "$R/sys" --procfs "$R/proc" --backend amdgpu --json -n 2 -d 1 \
	< /dev/null 2> "$T/err" | {
	IFS= read -r first && printf '%s\n' "$first"
	put "$dev/power/runtime_status" "suspended\n"
	# shellcheck disable=SC2086
	fx_fifos "$dev" $wake $hw
	cat
} > "$T/out"
RC=${PIPESTATUS[0]}
check "dozes: gpur did not block on a wake-up file" test "$RC" -ne 124
expect_rc 0 "dozes: runs"
expect_get "$T/out" 1 gpus.0.state ok "dozes: awake in the first record"
T1=$(get "$T/out" 1 gpus.0.mem_total_bytes)
check "dozes: the first record has the VRAM total ($T1)" test -n "$T1" -a "$T1" != absent
expect_get "$T/out" 2 gpus.0.state suspended "dozes: suspended in the second"
expect_get "$T/out" 2 gpus.0.mem_total_bytes "$T1" "dozes: the total kept from when it was awake"
expect_get "$T/out" 2 gpus.0.name "Navi 31 [Radeon RX 7900 XT/7900 XTX]" "dozes: the name kept"
for k in util_pct mem_used_bytes temp_c power_w; do
	expect_get "$T/out" 2 "gpus.0.$k" absent "dozes: no $k while suspended"
done

# --- hostile trees ---------------------------------------------------------
R="$T/hostile"
fx_root "$R" "garbage"
dev=$(fx_pci_card "$R" 1 0000:03:00.0 amdgpu 1002 744c)
fx_amdgpu "$dev" 6.8
put "$dev/gpu_busy_percent" ""                                 # truncated to nothing
put "$dev/mem_busy_percent" "250\n"                            # out of range
put "$dev/mem_info_vram_used" "99999999999999999999999\n"      # over 2^64
put "$dev/mem_info_vram_total" "0x10\n"                        # not decimal
put "$dev/pp_dpm_sclk" "0: 500Mhz \n1: 18"                     # cut mid-line
put "$dev/pp_dpm_mclk" "garbage\n\n*\n1: Mhz *\n"
put "$dev/current_link_speed" "12.5 GT/s PCIe\n"               # no generation's
put "$dev/hwmon/hwmon4/temp1_input" "52 degrees\n"
put "$dev/hwmon/hwmon4/power1_average" "-5\n"
rm -f "$dev/hwmon/hwmon4/fan1_input"
ln -s /nonexistent "$dev/hwmon/hwmon4/fan1_input"             # vanished
# A card directory without a device link, a connector, a card of nvidia's.
mkdir -p "$R/sys/class/drm/card7" "$R/sys/class/drm/card1-HDMI-A-1"
fx_pci_card "$R" 2 0000:41:00.0 nvidia 10de 2330 > /dev/null
drm "$R" amdgpu,intel,drm --once --json
expect_rc 0 "hostile: runs"
expect_g gpus.length 1 "hostile: only the amdgpu card (no link, connector, nvidia skipped)"
expect_g driver "?" "hostile: osrelease garbage: no driver string"
for k in util_pct mem_util_pct mem_used_bytes mem_total_bytes clock_gfx_mhz clock_mem_mhz pcie_gen temp_c power_w fan_rpm; do
	expect_g "gpus.0.$k" absent "hostile: $k unknown"
done
expect_g gpus.0.clock_gfx_max_mhz 500 "hostile: the levels before the cut"
expect_g gpus.0.gtt_used_bytes 52793344 "hostile: the good files still read"
expect_g gpus.0.temp_junction_c 61 "hostile: other sensors still read"
# The card vanishing between polls: lost, in its place.
: > "$T/out"
# Once the first record is out, the card goes.
(wait_until 20 test -s "$T/out" && rm -f "$R/sys/class/drm/card1") &
drm "$R" amdgpu --json -n 4 -d 0.4
expect_rc 0 "vanishing card: runs"
expect_get "$T/out" 1 gpus.0.state ok "vanishing card: ok at first"
expect_get "$T/out" last gpus.0.state lost "vanishing card: lost in its place"
expect_get "$T/out" last gpus.0.device_id pci:0000:03:00.0 "vanishing card: identity kept"

finish
