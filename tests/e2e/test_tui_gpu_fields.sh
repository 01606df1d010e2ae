# test_tui_gpu_fields: what a GPU's second line says, on the dashboard and in
# the --once table: a PCIe link below its maximum generation or width with
# the maxima (only those known, highlighted on the dashboard as a warning),
# a link at its maximum as before; an integrated GPU, a unified video
# engine's busy %, the core voltage, AMD's forced performance level and the
# generic throttle reasons; nothing for what is not known.
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

# The fields of the original gpur's records: GPU 0 has them all; GPU 1 is a
# discrete GPU that knows none of them; GPU 2 has ENC and DEC beside its
# video engine and a performance level with an escape sequence in it.
N="$T/new.jsonl"
esc_json='\u001b[31m'
{
	printf '{"ts_ms":1764583200000,"host":"fieldhost","gpus":['
	gpu Apu ',"integrated":true,"video_pct":12,"voltage_mv":893.4,"perf_level":"manual","throttle":["thermal","power_cap"]'
	printf ,
	gpu Discrete ',"integrated":false,"throttle":[]'
	printf ,
	gpu Codecs ',"enc_pct":3,"dec_pct":4,"video_pct":7.5,"perf_level":"high'"$esc_json"'red"'
	printf '],"processes":[]}\n'
} > "$N"

run --replay "$N" --once
expect_rc 0 "--once of the new fields"
check "table: the APU's line: iGPU, clock, voltage, video engine, DPM level" \
	grep -qx '    iGPU  GFX 1000 MHz  893 mV  VID 12 %  DPM manual' <(line_of 0)
check "table: a GPU that knows none of them says none (no iGPU, VID, mV, DPM)" \
	grep -qx '    GFX 1000 MHz' <(line_of 1)
check "table: a fractional video % is rounded (7.5 -> 8)" grep -q 'VID 8 %' <(line_of 2)
check "table: the escape in a performance level never reaches the terminal" \
	sh -c "! grep -q \"\$(printf '\\033')\" '$T/out'"
check "table: the performance level's text around it stays" grep -qE 'DPM high.+red$' <(line_of 2)

tui_start 160 40 -- --replay "$N"
expect_screen '^    iGPU  GFX 1000MHz  893mV  VID 12%  DPM manual  throttle: thermal,power_cap$' \
	"dashboard: the APU's line, with the generic throttle reasons"
expect_screen '^    GFX 1000MHz$' "dashboard: a GPU that knows none of them says none"
expect_screen '^    GFX 1000MHz  ENC 3% DEC 4% VID 8%  DPM high.+red$' "dashboard: VID beside ENC and DEC"
check "dashboard: the escape in a performance level is not passed on" lacks_e "${esc}[31mred"
check "dashboard: the generic throttle reasons are yellow" has_e "${esc}[33mthrottle: thermal,power_cap"
tui_stop

finish
