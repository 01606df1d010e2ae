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
