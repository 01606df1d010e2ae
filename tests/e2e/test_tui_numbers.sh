# test_tui_numbers: fractional readings are rounded for display, never
# truncated and never dropped: in the --once table and on the dashboard,
# 41.5 °C shows as 42, -0.5 °C as -1, a 1410.5 MHz clock as 1411.
. "$(dirname "$0")/tui_lib.sh" || exit 1

N="$REC/numbers.jsonl"

run --replay "$N" --once
expect_rc 0 "--once of numbers.jsonl"
gpu0=$(grep -m1 '^\[0\]' "$T/out")
gpu1=$(grep -m1 '^\[1\]' "$T/out")
check "table: 41.5 °C shows as 42" sh -c "printf '%s\n' '$gpu0' | grep -qE '\| +42°C, '"
check "table: -0.5 °C shows as -1" sh -c "printf '%s\n' '$gpu1' | grep -qE '\| +-1°C, '"
check "table: util 1.0 shows as 1 %" sh -c "printf '%s\n' '$gpu0' | grep -qE ', +1 % \|'"
check "table: 2^53 + 1 bytes shows as 8589934592 MiB" sh -c "printf '%s\n' '$gpu0' | grep -qE '\| 8589934592 / '"

# Halves round the same way everywhere, away from zero (printf alone would
# round 42.5 % to even, 42): util 42.5 % and 100.5 W show as 43 and 101,
# like 42.5 °C shows as 43.
printf '%s\n' '{"ts_ms":1764583200000,"gpus":[{"name":"Halves","device_id":"GPU-h","state":"ok","util_pct":42.5,"temp_c":42.5,"power_w":100.5,"power_limit_w":300}],"processes":[]}' > "$T/half.jsonl"
run --replay "$T/half.jsonl" --once
half=$(grep -m1 '^\[0\]' "$T/out")
check "table: util 42.5 % shows as 43" sh -c "printf '%s\n' '$half' | grep -qE ', +43 % \|'"
check "table: 42.5 °C shows as 43" sh -c "printf '%s\n' '$half' | grep -qE '\| +43°C, '"
check "table: 100.5 W shows as 101" sh -c "printf '%s\n' '$half' | grep -qE ' 101 / +300 W'"
tui_start 120 40 -- --replay "$T/half.jsonl"
expect_screen ' 43%' "dashboard: util 42.5 % shows as 43"
expect_screen '101/300W' "dashboard: 100.5 W shows as 101"
tui_stop

# The dashboard: one record, so the frame holds (rule 6) while we look.
head -n 1 "$N" > "$T/one.jsonl"
tui_start 120 40 -- --replay "$T/one.jsonl"
expect_screen 'Radeon Numbers' "dashboard shows the recorded GPU"
expect_screen ' 42°C' "dashboard: 41.5 °C shows as 42"
expect_screen ' -1°C' "dashboard: -0.5 °C shows as -1"
expect_screen 'GFX 1411MHz' "dashboard: a 1410.5 MHz clock shows as 1411"
expect_not_now ' 41°C' "dashboard: 41.5 °C is not truncated to 41"
tui_stop

finish
