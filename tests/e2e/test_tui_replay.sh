# test_tui_replay: the dashboard's replay controls on a recording whose
# records are 1 s apart: the position in the header, recorded pace, space
# (pause/resume), . (one record), + - (speed), Home/End, K/F9 (signals are
# disabled, and why), and the demo recording's GPU 3 turning LOST.
. "$(dirname "$0")/tui_lib.sh" || exit 1

gen_recording "$T/rec.jsonl" 8 60 1

# The header's record number (#N), speed (xN) and wall clock (HH:MM:SS).
header() { screen | head -n 1; }
position() { header | grep -oE '#[0-9]+' | tr -d '#'; }
clock() { header | grep -oE '[0-9]{2}:[0-9]{2}:[0-9]{2} *(every|$)' | head -n 1; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# at_least N: the position is N or more.
at_least() { local p; p=$(position); [ -n "$p" ] && [ "$p" -ge "$1" ]; }
at_most() { local p; p=$(position); [ -n "$p" ] && [ "$p" -le "$1" ]; }
clock_is_not() { [ "$(clock)" != "$1" ]; }
# The wall clock in the header has ticked twice (a second or more gone by).
two_ticks() {
	local c
	c=$(clock)
	wait_until 3 clock_is_not "$c" || return 1
	c=$(clock)
	wait_until 3 clock_is_not "$c"
}

tui_start 120 40 -- --replay "$T/rec.jsonl"
expect_screen 'REPLAY rec\.jsonl · nvml · 550\.54\.15 · 10:00:0[0-9] #[0-9]+ ×1 ▶' \
	"the header: file, backend, driver, recorded time, position, speed, playing"
check "the first record is shown first (#$(position))" test "$(position)" -le 2

# Recorded pace: records 1 s apart take about 1 s each at x1.
wait_until 5 at_least 3
t0=$(now_ms)
wait_until 6 at_least 5
dt=$(($(now_ms) - t0))
check "x1: #3 to #5 in about 2 s (took $dt ms)" test "$dt" -ge 1200 -a "$dt" -le 3500

# Space pauses: the position holds while the clock goes on.
keys Space
expect_screen ' ×1 ❚❚' "space: paused"
p=$(position)
two_ticks
check "paused: the position holds (#$p -> #$(position)) while 2 s go by" test "$(position)" = "$p"
# . steps one record and stays paused.
keys .
expect_screen "#$((p + 1)) ×1 ❚❚" ". steps one record (#$((p + 1)))"
# Presses typed ahead (read at once) are as many steps, none lost.
keys . . . . . . . . . . . . . . . . . . . .
expect_screen "#$((p + 21)) ×1 ❚❚" "twenty . typed together: twenty more records (#$((p + 1)) -> #$((p + 21)))" 3
# (Where it stopped, whatever the check above found.)
wait_until 3 at_least $((p + 2))
p=$(position)
# Space resumes.
keys Space
expect_screen ' ×1 ▶' "space again: playing"
expect_screen "#$((p + 2)) " "playing again: the position moves on"

# Speed: + doubles, - halves, within 0.25 .. 64.
keys + +
expect_screen ' ×4 ▶' "+ +: x4"
keys -
expect_screen ' ×2 ▶' "-: x2"
keys - - - - -
expect_screen ' ×0\.25 ▶' "- to the minimum, x0.25"
keys + + + + + + + + + +
expect_screen ' ×64 ▶' "+ to the maximum, x64"
keys - - -
expect_screen ' ×8 ▶' "x8"
# At x8, 16 records 1 s apart take about 2 s (16 s at x1).
keys Home
wait_until 3 at_most 3
p=$(position)
t0=$(now_ms)
wait_until 8 at_least $((p + 16))
dt=$(($(now_ms) - t0))
check "x8: 16 records in about 2 s (took $dt ms)" test "$dt" -ge 1000 -a "$dt" -le 5000

# Home and End.
keys Space
expect_screen '❚❚' "paused before Home"
keys Home
expect_screen '#1 ×8 ❚❚' "Home: the first record (#1), still paused"
expect_screen ' 10:00:00 #1 ' "Home: the first record's time"
keys End
expect_screen '#60 ×8 end' "End: the last record (#60), at the end"
expect_screen ' 10:00:59 #60 ' "End: the last record's time"
keys Home
expect_screen '#1 ×8 ' "Home again after End"
keys End Space
expect_screen '#60 ×8 end' "End while playing: the last frame holds"

# K / F9: signals are disabled in a replay, and why.
keys K
expect_screen 'replay: signals are disabled \(these pids belong to the recorded machine' "K says why signals are disabled"
keys F9
expect_screen 'replay: signals are disabled' "F9 says the same"
keys q
tui_wait_exit 5
expect_rc 0 "q ends the replay"

# The demo recording at x64: GPU 3 falls off the bus at record 150, shown
# LOST in its place, with the event on the events line.
tui_start 120 40 -- --replay "$SOURCE_DIR/share/demo/demo.jsonl" --speed 64
expect_screen '^ 3 NVIDIA H100 80GB HBM3 +LOST' "demo: GPU 3 is LOST" 15
expect_screen 'gpu_lost GPU 3' "demo: the gpu_lost event is on the events line" 5
check "demo: GPU 2 and 4 go on" screen_matches '^ [24] NVIDIA H100 80GB HBM3 +\[.*%'
check "demo: the LOST GPU shows its last readings, with their time" \
	screen_matches '^ 3 NVIDIA H100 80GB HBM3 +LOST +last seen [0-9]{2}:[0-9]{2}:[0-9]{2}: '
check "demo: the LOST GPU shows no current bars" screen_lacks '^ 3 NVIDIA H100 80GB HBM3 +\['

# Compact at 80x24 too. End jumps past every record the screen never drew:
# the LOST GPU still says when the recording last saw it (record 148 at
# 10:02:27), not when the screen last did (record 1, 10:00:00).
tui_start 80 24 -- --replay "$SOURCE_DIR/share/demo/demo.jsonl"
expect_screen 'q quit' "demo at 80x24"
keys End
expect_screen '^ 3 NVIDIA H100 .*LOST' "demo at 80x24, End: GPU 3 is LOST"
check "demo, End: the LOST GPU was last seen at 10:02:27, as recorded" screen_matches '^ 3 NVIDIA .*LOST +last seen 10:02:27: '
keys Space Home # paused: the first record holds while the screen is read
expect_screen '#1 ' "demo: Home after End"
check "demo, Home: GPU 3 is ok again (the recording's start)" screen_lacks '^ 3 NVIDIA .*LOST'

# The header says the recording's own cadence, and the history spans as
# much time: a recording made every 0.1 s says "every 0.1s".
for i in $(seq 0 399); do
	printf '{"schema":1,"ts_ms":%d,"host":"fast","gpus":[{"name":"G","device_id":"GPU-f","state":"ok","util_pct":%d}],"processes":[]}\n' \
		$((1764583200000 + 100 * i)) $((i % 100))
done > "$T/fast.jsonl"
tui_start 200 60 -- --replay "$T/fast.jsonl"
expect_screen 'every 0\.1s' "a 0.1 s recording: the header says every 0.1s"
expect_screen 'last [0-9]+ s, newest right' "a 0.1 s recording: the history axis"
check "a 0.1 s recording: the history spans seconds, not 0.1 s per column as 1 s" \
	screen_matches 'last (1[0-9]|[2-9]) s, newest right'

# --gpus with a LOST GPU: its last readings are its own, not those of the
# GPU that had its position before the selection.
{
	printf '{"ts_ms":1764583200000,"gpus":[{"name":"AAA","device_id":"GPU-a","state":"ok","util_pct":11,"temp_c":41},{"name":"BBB","device_id":"GPU-b","state":"ok","util_pct":99,"temp_c":77}],"processes":[]}\n'
	printf '{"ts_ms":1764583201000,"gpus":[{"name":"AAA","device_id":"GPU-a","state":"lost"},{"name":"BBB","device_id":"GPU-b","state":"lost"}],"processes":[]}\n'
} > "$T/lost2.jsonl"
tui_start 120 30 -- --replay "$T/lost2.jsonl" --gpus 1
expect_screen '^ 0 BBB +LOST +last seen 10:00:01: 99% ' "--gpus 1: the LOST GPU shows its own last readings"
check "--gpus 1: no readings of the other GPU" screen_lacks '41C'

# A --gpus item that matches nothing: the dashboard ends and says why once
# the terminal is back (exit 1).
tui_start 80 24 -- --replay "$SOURCE_DIR/share/demo/demo.jsonl" --gpus 9
tui_wait_exit 10
expect_rc 1 "--gpus 9 in the dashboard"
expect_screen "^gpur: --gpus: no GPU matches '9' \\(8 GPUs here\\)" "--gpus 9: the message is on the terminal after the dashboard" 5

finish
