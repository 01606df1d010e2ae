# test_tui_stepped: the dashboard on the virtual clock (GPUR_VIRTUAL_CLOCK_MS),
# as the demo is made: it starts PAUSED and polls nothing until asked, '.'
# takes exactly one poll, space runs on to --count, and every record is one
# --interval after the last on the virtual clock. A signal sent on the way
# (a real process, through K) is in the next record. The virtual clock does
# not go with --replay.
. "$(dirname "$0")/tui_lib.sh" || exit 1

spawn_sleeper
P=$SLEEPER
scenario "$T/one.json" <<JSON
{"driver":"550.54.15","gpus":[$(gpu_json 0 "Fake H100 0" ",\"processes\":[{\"pid\":$P,\"type\":\"compute\",\"mem\":1073741824}]")]}
JSON
L=$T/log.jsonl
nrec() { if [ -f "$L" ]; then lines "$L"; else echo 0; fi; }
nrec_is() { [ "$(nrec)" = "$1" ]; }
ts() { get "$L" "$1" ts_ms; }

tui_start 120 30 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/one.json" \
	GPUR_VIRTUAL_CLOCK_MS=1700000000000 -- --backend nvml --interval 2 --count 6 --log "$L"
expect_screen 'PAUSED' "virtual clock: the dashboard starts paused"
expect_screen '\. one poll' "the footer says how to step"
expect_screen "no poll yet: on the virtual clock, '\.' takes one" "the empty screen says why it is empty"
check "paused: not one poll recorded" test "$(nrec)" = 0
keys . .
check "'.' twice: two records" wait_until 10 nrec_is 2
expect_screen ' 22:13:22 ' "the header's time is the second frame's, on the virtual clock"
expect_screen "^ +$P " "the stepped poll's process is on the screen"
# A key after the steps is answered with the feed still paused: no poll.
keys '>'
expect_screen_gone 'GPU-MEM▼' "a key after the steps is answered (the sort moved)"
check "still two records while paused" nrec_is 2
check "the first record is at the virtual clock's start" test "$(ts 1)" = 1700000000000
check "the second one interval (2 s) later" test "$(ts 2)" = 1700000002000
# A real signal on the way goes into the next record.
keys K
expect_screen 'terminate \(the default' "K opens the signal dialog"
keys Enter
expect_screen "SIGTERM sent to pid $P" "the signal was sent"
check "the sleeper ended" wait_until 5 sh -c "! kill -0 $P 2>/dev/null || grep -q '^[0-9]* ([^)]*) Z' /proc/$P/stat"
keys Space
tui_wait_exit 20
check "space runs on: gpur ended at --count" test "$RC" = 0
check "six records" nrec_is 6
check "every record one interval after the last" \
	test "$(($(ts 6) - $(ts 3)))" = 6000 -a "$(($(ts 3) - $(ts 2)))" = 2000
check "the signal event is in the record after the steps" \
	test "$(get "$L" 3 events.0.kind)" = signal -a "$(get "$L" 3 events.0.pid)" = "$P"
check "the event says it was sent" test "$(get "$L" 3 events.0.result)" = sent

# The virtual clock is for a live source only.
printf '%s\n' "$(head -n 1 "$L")" > "$T/r.jsonl"
GPUR_VIRTUAL_CLOCK_MS=1700000000000 run --replay "$T/r.jsonl" --json
expect_rc 2 "GPUR_VIRTUAL_CLOCK_MS with --replay"
check "the refusal names the variable and --replay" grep -q 'GPUR_VIRTUAL_CLOCK_MS=1700000000000: .*not --replay' "$T/err"
finish
