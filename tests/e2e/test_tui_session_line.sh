# test_tui_session_line: S shows under each GPU its peak and mean
# utilisation, temperature and power since the dashboard started (here: since
# the replay began), over known values only (never known: --), kept for a GPU
# that is lost; S again hides it; the choice is kept in the settings. Home,
# a seek and a jump start a new session; pausing and stepping do not. It
# fits 80x24 with one GPU (the process table stays) and 200x60 with eight.
. "$(dirname "$0")/tui_lib.sh" || exit 1

CONF=$TUI_XDG/gpur/config

# Three records 1 s apart, without "state" (as the original gpur's): GPU A
# util 10, 50, 30, temperature 60, 70 and then unknown, power 200, 300,
# 100; GPU B util 5 throughout, temperature and power never known; GPU C
# util 20, 40, then lost (its readings gone, its state said).
V="$T/values.jsonl"
{
	echo '{"ts_ms":1764583200000,"host":"sesshost","gpus":[{"name":"Alpha","device_id":"GPU-a","util_pct":10,"temp_c":60,"power_w":200},{"name":"Beta","device_id":"GPU-b","util_pct":5},{"name":"Gamma","device_id":"GPU-c","util_pct":20,"temp_c":50,"power_w":100}],"processes":[]}'
	echo '{"ts_ms":1764583201000,"host":"sesshost","gpus":[{"name":"Alpha","device_id":"GPU-a","util_pct":50,"temp_c":70,"power_w":300},{"name":"Beta","device_id":"GPU-b","util_pct":5},{"name":"Gamma","device_id":"GPU-c","util_pct":40,"temp_c":54,"power_w":120}],"processes":[]}'
	echo '{"ts_ms":1764583202000,"host":"sesshost","gpus":[{"name":"Alpha","device_id":"GPU-a","util_pct":30,"power_w":100},{"name":"Beta","device_id":"GPU-b","util_pct":5},{"name":"Gamma","device_id":"GPU-c","state":"lost"}],"processes":[]}'
} > "$V"

# The session line of the GPU whose first line matches ERE: the next line
# (compact), or the one after its details line (full panels).
sess_of() { screen | grep -A2 -E -- "$1" | sed -n '2,3p' | grep -m1 '^    session '; }
sess_is() { [ "$(sess_of "$1")" = "$2" ]; }
expect_sess() {
	if wait_until "${4:-10}" sess_is "$1" "$2"; then ok; else
		fail "$3: the session line is '$(sess_of "$1")', not '$2'"
		dump_screen "$3"
	fi
}
SESS='^    session '

tui_start 80 24 -- --replay "$V"
expect_screen 'q quit' "the dashboard starts"
expect_not_now "$SESS" "no session line before S"
keys S
expect_sess '^ 0 Alpha ' '    session 2s  util 50/30%  temp 70/65°C  power 300/200W  (peak/mean)' \
	"GPU A: peak and mean over the three records (temperature over the two it knew)"
expect_screen ' #3 ×1 end' "the replay is at its end"
check "GPU B: a temperature and power never known are --, never 0" \
	sess_is '^ 1 Beta ' '    session 2s  util 5/5%  temp --  power --  (peak/mean)'
check "GPU C, lost, keeps the figures of the records it was read in" \
	sess_is '^ 2 Gamma ' '    session 2s  util 40/30%  temp 54/52°C  power 120/110W  (peak/mean)'
check "GPU C is shown LOST" screen_matches '^ 2 Gamma +LOST'
check "a record without state shows no state" screen_lacks 'state|--  --  --$'
# p and p again: the frame held is taken again to be shown, not counted
# again (the power's mean would fall from 200 W to 175 W).
keys p
expect_screen ' PAUSED' "p: screen updates paused"
keys p
expect_screen_gone ' PAUSED' "p again: updates resumed"
check "a frame shown again after p is not counted twice" \
	sess_is '^ 0 Alpha ' '    session 2s  util 50/30%  temp 70/65°C  power 300/200W  (peak/mean)'
# S again: hidden; the process table as before.
keys S
expect_screen_gone "$SESS" "S again hides the session lines"
check "hidden: the GPU lines stay" screen_matches '^ 2 Gamma +LOST'
keys S q
tui_wait_exit 5
expect_rc 0 "q with the session line on"
check "the session line is kept in the settings" grep -qx 'session = true' "$CONF"

# Read back: on from the start; at 200x60 the figures are spelt out.
tui_start 200 60 -- --replay "$V"
expect_sess '^ 0 Alpha ' '    session 2s  util peak 50% mean 30%  temp peak 70°C mean 65°C  power peak 300W mean 200W' \
	"200 columns: peak and mean spelt out; on from the settings"
check "200 columns: the footer hints S" screen_matches '^q quit .* c chart  S session '
keys '?'
expect_screen '│ S +peak/mean util, temp, power since start or seek +│' "the help lists S"
keys Escape S q
tui_wait_exit 5
check "S off is kept too" grep -qx 'session = false' "$CONF"

# Seeks: fifteen records 1 s apart from 10:00:00, record i (from 0) with
# util 5i, temperature 40 + i, power 100 + 10i.
K="$T/seek.jsonl"
for ((i = 0; i < 15; i++)); do
	printf '{"ts_ms":%d,"host":"sesshost","gpus":[{"name":"Alpha","device_id":"GPU-a","state":"ok","util_pct":%d,"temp_c":%d,"power_w":%d}],"processes":[]}\n' \
		$((1764583200000 + i * 1000)) $((5 * i)) $((40 + i)) $((100 + 10 * i))
done > "$K"
tui_start 80 24 -- --replay "$K"
expect_screen 'q quit' "seeks: the dashboard starts"
keys S Space
expect_screen ' ×1 ❚❚' "seeks: paused"
keys Home
expect_screen ' 10:00:00 #1 ×1 ❚❚' "Home: the first record, paused"
expect_sess '^ 0 Alpha ' '    session 0s  util 0/0%  temp 40/40°C  power 100/100W  (peak/mean)' \
	"Home starts a new session: the first record alone"
keys Right
expect_screen ' 10:00:10 #11 ' "Right: 10 s on, record 11"
expect_sess '^ 0 Alpha ' '    session 0s  util 50/50%  temp 50/50°C  power 200/200W  (peak/mean)' \
	"a seek starts a new session: record 11 alone"
keys .
expect_screen ' 10:00:11 #12 ' ". : one record on"
expect_sess '^ 0 Alpha ' '    session 1s  util 55/53%  temp 51/51°C  power 210/205W  (peak/mean)' \
	"a step while paused adds to the session (mean 52.5 shows as 53)"
keys J
type_text '10:00:05'
keys Enter
expect_screen ' 10:00:05 #6 ' "J 10:00:05: record 6"
expect_sess '^ 0 Alpha ' '    session 0s  util 25/25%  temp 45/45°C  power 150/150W  (peak/mean)' \
	"a jump starts a new session: record 6 alone"
# Each step waited for: the dashboard counts the frames it takes, and two
# steps typed together are two records of which it may show the last only.
keys .
expect_screen ' 10:00:06 #7 ' "a step: record 7"
keys .
expect_screen ' 10:00:07 #8 ' "another step: record 8"
# Resumed: the session goes on from where it was (records 6 to 15).
keys Space
expect_screen ' #15 ×1 end' "resumed: played to the end" 15
expect_sess '^ 0 Alpha ' '    session 9s  util 70/48%  temp 54/50°C  power 240/195W  (peak/mean)' \
	"pausing, stepping and resuming never started a new session"
tui_stop

# 80x24 with one GPU: the process table keeps its place; 200x60 with eight:
# full panels with their session lines.
text_lacks() { ! grep -qE -- "$1" <<< "$2"; }
gen_recording "$T/g1.jsonl" 1 5 3
gen_recording "$T/g8.jsonl" 8 5 1
printf 'session = true\n' > "$CONF"
tui_start 80 24 -- --replay "$T/g1.jsonl"
expect_screen "$SESS" "80x24, 1 GPU: the session line"
s=$(screen)
check "80x24, 1 GPU: the process table has its header" grep -qE '^ +PID USER +DEV ' <<< "$s"
check "80x24, 1 GPU: all three processes shown" test "$(grep -cE '^ +10[0-9]{2} (alice|bob) ' <<< "$s")" -eq 3
check "80x24, 1 GPU: the footer is the last line" grep -q '^q quit' <(sed -n 24p <<< "$s")
tui_start 200 60 -- --replay "$T/g8.jsonl"
expect_screen '^ 7 GPU-NAME-7 ' "200x60, 8 GPUs: GPU 7 drawn"
expect_screen "$SESS" "200x60, 8 GPUs: session lines"
s=$(screen)
check "200x60, 8 GPUs: eight session lines" test "$(grep -cE "$SESS" <<< "$s")" -eq 8
check "200x60, 8 GPUs: full panels (eight details lines)" test "$(grep -c '^    GFX' <<< "$s")" -eq 8
check "200x60, 8 GPUs: no 'GPUs ... shown'" text_lacks '^GPUs [0-9]+-[0-9]+ of' "$s"
check "200x60, 8 GPUs: the process table has rows" grep -qE '^ +[0-9]+ (alice|bob) +[0-9]+ ' <<< "$s"
tui_start 80 24 -- --replay "$T/g8.jsonl"
expect_screen '^GPUs 1-6 of 8 shown' "80x24, 8 GPUs: six with their session lines, the rest scrolled to"
check "80x24, 8 GPUs: the process table has rows" screen_matches '^ +[0-9]+ (alice|bob) +[0-9]+ '

finish
