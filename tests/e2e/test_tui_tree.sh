# test_tui_tree: `t` shows the selected process in its process tree. Real
# processes: a launcher script (a GPU process on the fake NVML) with two
# GPU workers below it, started by this test. On the launcher: this test's
# shell above it, its two workers below, each GPU process marked with its
# GPU and memory; on a worker: the launcher above it; the chain reaches
# PID 1. `t` again closes it. A replayed row has no tree, and says why.
. "$(dirname "$0")/tui_lib.sh" || exit 1

LOG="$T/log.jsonl"
cp "$(command -v sleep)" "$T/gpurleaf"
cat > "$T/gpurmid" << EOF2
#!/bin/sh
"$T/gpurleaf" 600 &
echo \$! > "$T/leaf1"
"$T/gpurleaf" 600 &
echo \$! > "$T/leaf2"
wait
EOF2
chmod +x "$T/gpurmid"
"$T/gpurmid" &
MID=$!
SLEEPERS="$SLEEPERS $MID"
wait_until 5 test -s "$T/leaf2" || fail "the launcher did not start its workers"
L1=$(cat "$T/leaf1")
L2=$(cat "$T/leaf2")
SLEEPERS="$SLEEPERS $L1 $L2"
wait_until 5 grep -q '^gpurleaf' "/proc/$L2/comm"
INIT=$(cat /proc/1/comm)

scenario "$T/s.json" << JSON
{"fast_pcie":1,"driver":"550.54.15","cuda":12040,"gpus":[$(gpu_json 0 "Fake H100 0" ",\"processes\":[{\"pid\":$MID,\"type\":\"compute\",\"mem\":8589934592,\"sm\":10},{\"pid\":$L1,\"type\":\"compute\",\"mem\":7516192768,\"sm\":10},{\"pid\":$L2,\"type\":\"compute\",\"mem\":6442450944,\"sm\":10}]")]}
JSON
tui_start 120 40 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/s.json" -- --backend nvml --interval 0.25 --log "$LOG"
expect_screen "^ +$MID " "the launcher is in the table"
expect_screen "^ +$L2 " "the second worker is in the table"

# The first row (most memory) is the launcher.
keys t
expect_screen " process tree of pid $MID " "t opens the tree of the selected process"
expect_screen "$$ bash" "the test's shell is above the launcher"
expect_screen "$MID gpurmid +GPU 0 +8\\.0G" "the launcher is marked with its GPU and memory"
expect_screen "$L1 gpurleaf +GPU 0 +7\\.0G" "the first worker is below it, marked"
expect_screen "$L2 gpurleaf +GPU 0 +6\\.0G" "the second worker is below it, marked"
expect_screen "[│|] +1 $INIT" "the chain reaches PID 1"
ORDER=$(screen | grep -nE "$$ bash|$MID gpurmid|$L1 gpurleaf|$L2 gpurleaf" | cut -d: -f1 | tr '\n' ' ')
check "four tree lines (lines $ORDER)" test "$(echo $ORDER | wc -w)" -eq 4
check "top down: shell, launcher, workers (lines $ORDER)" sh -c "printf '%s\n' $ORDER | sort -nc"
keys t
expect_screen_gone " process tree of pid" "t again closes the tree" 3

# A worker: the launcher above it; nothing below.
keys j t
expect_screen " process tree of pid $L1 " "j t: the tree of the first worker"
expect_screen "$MID gpurmid +GPU 0" "the launcher is above the worker"
check "the other worker is not under this one" screen_lacks "$L2 gpurleaf"
keys Escape
expect_screen_gone " process tree of pid" "Esc closes the tree" 3
keys q
tui_wait_exit 5
expect_rc 0 "q after the tree"

# Replayed: no tree, and the reason.
tui_start 120 40 -- --replay "$LOG"
expect_screen "^ +$MID " "the replay shows the launcher"
keys p t
expect_screen "No process tree for this row" "a replayed row has no tree"
expect_screen "recordings do not carry it" "and says why"
keys q
tui_wait_exit 5
finish
