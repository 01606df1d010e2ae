# test_tui_output: the dashboard writes only what changed. Stepping a paused
# replay whose records differ only in their time sends a few cells (the
# header's position and clock, each chart's newest column), not the screen;
# Ctrl-L draws all of it again. The bytes are what tmux reads from the pane
# (pipe-pane), so this is what a terminal (or an ssh link) gets.
. "$(dirname "$0")/tui_lib.sh" || exit 1

# Thirty records, the same but for their time.
gen_recording "$T/one.jsonl" 8 1 2
line=$(head -n 1 "$T/one.jsonl")
for ((i = 0; i < 30; i++)); do
	printf '%s\n' "${line/1764583200000/$((1764583200000 + i * 1000))}"
done > "$T/rec.jsonl"

position() { screen | head -n 1 | grep -oE '#[0-9]+' | tr -d '#'; }
out_bytes() { stat -c %s "$T/out.bin" 2> /dev/null || echo 0; }
bytes_over() { [ "$(out_bytes)" -gt "$1" ]; }

tui_start 200 60 -- --replay "$T/rec.jsonl"
expect_screen 'REPLAY rec\.jsonl' "the recording plays"
keys Space
expect_screen ' ×1 ❚❚' "space: paused"
p=$(position)
# What gpur writes from now on (-o: output only).
tmx pipe-pane -o "cat >> '$T/out.bin'"
keys .
expect_screen "#$((p + 1)) ×1 ❚❚" "one step (#$p -> #$((p + 1)))"
wait_until 3 bytes_over 0
step=$(out_bytes)
# A full screen is at least 200 x 60 = 12000 bytes.
check "one step writes what changed: $step bytes, not a screen (12000+)" test "$step" -gt 0 -a "$step" -lt 2000
expect_screen 'GPU-NAME-7' "the GPUs are still on the screen"
expect_screen 'job-g7-p1' "and the processes"

echo "one step: $step bytes"

# Drawn bit by bit (steps, the help over everything and gone again, the
# filter line), the screen is the one a full redraw gives.
keys . .
expect_screen "#$((p + 3)) ×1 ❚❚" "two more steps"
keys '?'
expect_screen 'gpur keys' "the help"
keys x
expect_screen_gone 'gpur keys' "the help closes"
keys / j o b - g 3
expect_screen 'filter: job-g3_' "typing a filter"
keys Escape
expect_screen_gone 'filter:' "Esc clears it"
expect_screen 'job-g7-p1' "every process again"
# (The header's clock and gpur's own CPU % move on by themselves: digits
# on its two lines are not compared.)
masked() { screen | sed '1,2s/[0-9]/N/g'; }
masked > "$T/incremental.txt"
# Ctrl-L: the whole screen again.
before=$(out_bytes)
keys C-l
if wait_until 5 bytes_over $((before + 12000)); then ok; else fail "Ctrl-L redraws the whole screen ($(out_bytes) bytes)"; fi
masked > "$T/full.txt"
if diff "$T/incremental.txt" "$T/full.txt" > "$T/diff.txt"; then
	ok
else
	fail "the screen drawn in pieces differs from a full redraw:"
	cat "$T/diff.txt" >&2
fi
tmx pipe-pane

keys q
tui_wait_exit 5
check "q quits (rc=$RC)" test "$RC" = 0
finish
