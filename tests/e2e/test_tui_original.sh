# test_tui_original: the dashboard plays the original gpur's recordings (the
# Rust program gpur began as), pretty-printed as its --json writes them and
# compact as its --log does: each GPU's utilisation, memory, temperature,
# power, clocks and PCIe link, and each process's command line, user, pid
# (a 32-bit Windows pid whole) and container, at 200x60 and at 80x24.
. "$(dirname "$0")/tui_lib.sh" || exit 1

command -v python3 > /dev/null || { skip "python3 is not installed"; finish; }
GEN="$SOURCE_DIR/tests/tools/gen_original.py"
python3 "$GEN" pretty > "$T/pretty.json" && python3 "$GEN" compact > "$T/compact.jsonl" ||
	{ fail "gen_original.py"; finish; }

# Paused on the first record (space), so every value below is that record's.
tui_start 200 60 -- --replay "$T/pretty.json"
expect_screen 'REPLAY pretty\.json · multi · nvml driver 550\.54\.15 · amdgpu · kernel 6\.8\.0' "the header names the recording's source"
keys Home Space
expect_screen '#1 ×1 ❚❚' "paused on the first record"
expect_screen '0 NVIDIA H100 80GB HBM3 .* 92% .* 62G/80G +71°C +612/700W' "GPU 0: util, memory, temperature, power"
expect_screen 'GFX 1980MHz +MCLK 2619MHz +PCIe 5x16 RX 121M/s TX 639M/s +ENC 3% DEC 0% +P0' "GPU 0: clocks, PCIe, codecs, P-state"
expect_screen '1 AMD Radeon 780M .* 37% .* 512M/2\.0G +52°C +18/--W' "GPU 1: util, memory, temperature, power"
expect_screen 'iGPU +GFX 2700MHz +893mV +MCLK 2800MHz +GTT 3\.0G/16G +JCT 61C +FAN 33% +PCIe 3x8 \(max 4x16\) +VID 1[23]% +DPM manual' \
	"GPU 1: integrated, clocks, voltage, GTT, junction, fan, the link below its maximum, video, the forced level"
expect_screen '2 NVIDIA GPU 2 \(unavailabl' "the original's placeholder for a GPU it lost"
expect_screen '4242 alice +0 C +88 .*docker:0123456789ab +python train\.py --epochs 10 --lr 3e-4' "a process: pid, user, kind, util, container, command line"
expect_screen '777 bob +0 C +0 .*k8s:fedcba987654 +/usr/bin/tritonserver --model-repository=/models' "the k8s: container of the original"
expect_screen '4294967294 -- +1 G ' "a Windows pid, whole; '-' is no user"
# Stepping to the second record: its throttle reasons in our words.
keys .
expect_screen '#2 ' "one record on"
expect_screen '95(\.5)?%|96%' "GPU 0's second util"
expect_screen 'throttle: thermal,power_cap' "the original's throttle string"
tui_stop

# The compact form at 80x24 (the header has no room for the position): the
# first GPU, and the command line shown.
tui_start 80 24 -- --replay "$T/compact.jsonl"
keys Home Space
expect_screen 'H100.* (92|96)% .*7[12]°C' "80x24: GPU 0's util and temperature"
expect_screen '4294967294 -- ' "80x24: the Windows pid, whole"
expect_screen 'python train\.py' "80x24: the command line"
tui_stop

finish
