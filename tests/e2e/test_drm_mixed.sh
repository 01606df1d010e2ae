# test_drm_mixed: one machine with an NVIDIA GPU (fake NVML), an AMD dGPU
# and an Intel xe dGPU plus an i915 iGPU: one frame, stable indices in
# registry order, one driver string, and the dashboard at 80x24 and 200x60
# drawing each vendor's fields (GTT for AMD, clocks for Intel) with the
# header "nvml 550.54.15 + amdgpu 6.8.5 + i915/xe 6.12.1".
. "$(dirname "$0")/tui_lib.sh" || exit 1
. "$(dirname "$0")/drm_lib.sh" || exit 1

put "$T/pci.ids" "1002  AMD\n\t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX]\n8086  Intel Corporation\n\t4680  AlderLake-S GT1\n\te20b  Battlemage G21 [Arc B580]\n"
R="$T/mixed"
fx_root "$R" 6.12.1-arch1-1
put "$R/sys/module/amdgpu/version" "6.8.5\n"
fx_pci_card "$R" 0 0000:00:02.0 i915 8086 4680 > /dev/null
fx_i915 "$R/sys/class/drm/card0"
dev=$(fx_pci_card "$R" 1 0000:03:00.0 amdgpu 1002 744c)
fx_amdgpu "$dev" 6.8
dev=$(fx_pci_card "$R" 2 0000:04:00.0 xe 8086 e20b)
fx_xe "$dev"
# NVIDIA's own card in sysfs too: left to NVML.
fx_pci_card "$R" 3 0000:41:00.0 nvidia 10de 2330 > /dev/null
scenario "$T/nv.json" <<JSON
{"driver":"550.54.15","cuda":12040,"gpus":[$(gpu_json 0 "NVIDIA H100 80GB HBM3")]}
JSON
ENVS=(GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/nv.json" GPUR_PCI_IDS="$T/pci.ids")
ARGS=(--sysfs "$R/sys" --procfs "$R/proc")

env "${ENVS[@]}" "$GPUR" "${ARGS[@]}" --once --json < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "mixed: --once --json"
expect_get "$T/out" 1 backend nvml+amdgpu+intel "mixed: the backends that found GPUs, in order"
expect_get "$T/out" 1 driver 550.54.15+6.8.5+6.12.1 "mixed: one driver string"
expect_get "$T/out" 1 gpus.length 4 "mixed: four GPUs (nvidia's card not twice)"
expect_get "$T/out" 1 gpus.0.vendor nvidia "mixed: NVIDIA first"
expect_get "$T/out" 1 gpus.1.device_id pci:0000:03:00.0 "mixed: then AMD"
expect_get "$T/out" 1 gpus.2.device_id pci:0000:00:02.0 "mixed: then Intel by card number"
expect_get "$T/out" 1 gpus.3.device_id pci:0000:04:00.0 "mixed: then the xe card"
expect_get "$T/out" 1 gpus.1.gtt_used_bytes 52793344 "mixed: AMD's GTT"
expect_get "$T/out" 1 gpus.3.clock_gfx_mhz 2400 "mixed: xe's clock"
# Indices stay across polls.
env "${ENVS[@]}" "$GPUR" "${ARGS[@]}" --json -n 3 -d 0.2 < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "mixed: three polls"
for l in 1 2 3; do
	expect_get "$T/out" "$l" gpus.1.device_id pci:0000:03:00.0 "mixed: poll $l: AMD at 1"
	expect_get "$T/out" "$l" gpus.3.device_id pci:0000:04:00.0 "mixed: poll $l: xe at 3"
done
env "${ENVS[@]}" "$GPUR" "${ARGS[@]}" --once < /dev/null > "$T/out" 2> "$T/err"
expect_stdout_contains "nvml 550.54.15 + amdgpu 6.8.5 + i915/xe 6.12.1" "mixed table: the driver line"

for size in 80x24 200x60; do
	cols=${size%x*} rows=${size#*x}
	tui_start "$cols" "$rows" "${ENVS[@]}" -- "${ARGS[@]}" --interval 0.25
	if ! wait_screen 'q quit' 10; then
		fail "$size: the dashboard did not start"
		dump_screen "$size"
		continue
	fi
	expect_screen 'nvml 550\.54\.15 \+ amdgpu 6\.8\.5 \+ i915/xe 6\.12\.1' "$size: the header's driver line"
	expect_screen '^ 0 NVIDIA H100' "$size: NVIDIA at 0"
	expect_screen '^ 1 Navi 31' "$size: AMD at 1"
	expect_screen '^ 2 AlderLake' "$size: the iGPU at 2"
	expect_screen '^ 3 Battlemage' "$size: xe at 3"
	s=$(screen)
	check "$size: the iGPU shows its clock, not an empty memory column" grep -qE '^ 2 AlderLake.* 1300MHz' <<< "$s"
	check "$size: the screen is $rows lines" test "$(wc -l <<< "$s")" -eq "$rows"
	if [ "$cols" -ge 100 ]; then
		check "$size: AMD's details line has GTT" grep -qE '^    GFX 1834MHz .*GTT [0-9.]+[MG]i?B?/[0-9.]+G' <<< "$s"
		check "$size: AMD's junction" grep -q 'JCT 61C' <<< "$s"
		check "$size: xe's details line has its clock" grep -qE '^    GFX 2400MHz' <<< "$s"
		check "$size: no GTT on the NVIDIA line" test "$(grep -c 'GTT' <<< "$s")" -eq 1
	fi
	tui_stop
done

# A suspended card on the dashboard: SUSPENDED in its place, not read.
put "$R/sys/devices/pci0000:00/0000:03:00.0/power/runtime_status" "suspended\n"
tui_start 120 40 "${ENVS[@]}" -- "${ARGS[@]}" --interval 0.25
expect_screen '^ 1 Navi 31.* SUSPENDED' "suspended: the dashboard says SUSPENDED"
tui_stop
finish
