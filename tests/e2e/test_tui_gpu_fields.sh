# test_tui_gpu_fields: what a GPU's second line says, on the dashboard and in
# the --once table: a PCIe link below its maximum generation or width with
# the maxima (only those known, highlighted on the dashboard as a warning),
# a link at its maximum as before.
. "$(dirname "$0")/tui_lib.sh" || exit 1

# One record, so the frame holds (rule 6) while the screen is looked at.
# GPU 0 runs at 3x8 of 5x16; GPU 1 at its maximum; GPU 2 knows only its
# maximum generation, GPU 3 only its maximum width; GPU 4 no maximum.
L="$T/link.jsonl"
gpu() { printf '{"name":"%s","device_id":"GPU-%s","state":"ok","util_pct":5,"clock_gfx_mhz":1000%s}' "$1" "$1" "$2"; }
{
	printf '{"ts_ms":1764583200000,"host":"fieldhost","gpus":['
	gpu Slow ',"pcie_gen":3,"pcie_width":8,"pcie_gen_max":5,"pcie_width_max":16'
	printf ,
	gpu Full ',"pcie_gen":4,"pcie_width":16,"pcie_gen_max":4,"pcie_width_max":16'
	printf ,
	gpu GenOnly ',"pcie_gen":3,"pcie_width":16,"pcie_gen_max":4'
	printf ,
	gpu WidthOnly ',"pcie_gen":4,"pcie_width":8,"pcie_width_max":16'
	printf ,
	gpu NoMax ',"pcie_gen":2,"pcie_width":4'
	printf '],"processes":[]}\n'
} > "$L"

# line_of I: GPU I's details line in the --once table (the line after its
# first line).
line_of() { grep -A1 "^\[$1\] " "$T/out" | sed -n 2p; }
run --replay "$L" --once
expect_rc 0 "--once of the PCIe recording"
check "table: a link below both maxima says them" grep -qE '^    GFX .*PCIe 3x8 \(max 5x16\)$' <(line_of 0)
check "table: a link at its maximum says no maximum" grep -qE 'PCIe 4x16$' <(line_of 1)
check "table: only the maximum generation known" grep -qE 'PCIe 3x16 \(max gen 4\)$' <(line_of 2)
check "table: only the maximum width known" grep -qE 'PCIe 4x8 \(max x16\)$' <(line_of 3)
check "table: no maximum known, no maximum said" grep -qE 'PCIe 2x4$' <(line_of 4)
check "table: never a made-up maximum (--, 0)" sh -c "! grep -qE 'max [^)]*(--|x0|0x)' '$T/out'"

# The dashboard's full panels (100 columns and more).
tui_start 160 40 -- --replay "$L"
expect_screen '^    GFX 1000MHz  PCIe 3x8 \(max 5x16\)( |$)' "dashboard: a link below both maxima says them"
expect_screen '^    GFX 1000MHz  PCIe 4x16( |$)' "dashboard: a link at its maximum as before"
expect_screen '^    GFX 1000MHz  PCIe 3x16 \(max gen 4\)( |$)' "dashboard: only the maximum generation known"
expect_screen '^    GFX 1000MHz  PCIe 4x8 \(max x16\)( |$)' "dashboard: only the maximum width known"
expect_screen '^    GFX 1000MHz  PCIe 2x4( |$)' "dashboard: no maximum known"
# Highlighted as a warning (yellow, like throttle reasons); a link at its
# maximum is not.
esc=$(printf '\033')
has_e() { screen_e | grep -qF -- "$1"; }
lacks_e() { ! has_e "$1"; }
check "dashboard: a link below its maximum is yellow" has_e "${esc}[33mPCIe 3x8 (max 5x16)"
check "dashboard: one known maximum is yellow too" has_e "${esc}[33mPCIe 4x8 (max x16)"
check "dashboard: a link at its maximum is not yellow" lacks_e "${esc}[33mPCIe 4x16"
check "dashboard: nor a link without a known maximum" lacks_e "${esc}[33mPCIe 2x4"
tui_stop

finish
