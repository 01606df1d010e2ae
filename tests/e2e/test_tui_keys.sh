# test_tui_keys: the dashboard's keys on a recording: sort (< > r), select
# (Up/Down, j/k, PgUp/PgDn), the full command line (Enter), filter (/ Esc),
# only mine (u), hide idle (i), chart metric (c), pause (p), columns (C),
# interval (d/D), help (?/F1), quit (q/F10).
. "$(dirname "$0")/tui_lib.sh" || exit 1

ME=$(id -un)
# 8 GPUs, the first 6 busy with 2 processes each (pids 1000, 1001, 1010 ...
# 1051), users $ME, alice, bob in turn; GPUs 6 and 7 idle.
GEN_USERS="$ME,alice,bob" GEN_BUSY_GPUS=6 gen_recording "$T/rec.jsonl" 8 120 2

# The process rows on screen: "PID USER ..." lines of the table.
ROW='^ +[0-9]+ [a-z0-9_-]+ +[0-9]+ C '
rows() { screen | grep -E "$ROW"; }
first_pid() { rows | head -n 1 | awk '{print $1}'; }
first_is() { [ "$(first_pid)" = "$1" ]; }
# The header's record number (#N).
position() { screen | head -n 1 | grep -oE '#[0-9]+' | tr -d '#'; }

tui_start 120 40 -- --replay "$T/rec.jsonl"
expect_screen 'q quit' "the dashboard starts"
expect_screen 'GPU-MEM▼' "the default sort: GPU memory, descending"
check "GPU-MEM▼: the largest process first (pid 1051)" wait_until 10 first_is 1051

# Sort: > next column, < previous, r reverse. Every column in turn carries
# the sort arrow next to its title (all 12 are shown at 120 columns).
missing=""
for title in 'CPU%' HOST-MEM TIME CONTAINER COMMAND PID USER DEV TYPE 'GPU%' 'MEMBW%' GPU-MEM; do
	keys '>'
	if ! wait_screen "(^| )($title▼|▼$title)( |\$)" 2; then
		[ -z "$missing" ] && dump_screen "sorted by $title: no arrow"
		missing="$missing $title"
	fi
done
check "> through every column: the title of the sort column has ▼ (missing:${missing:- none})" test -z "$missing"
expect_screen 'GPU-MEM▼' "> twelve times: back to GPU-MEM"
keys '>'
expect_screen 'CPU%▼' "> sorts by the next column (CPU%)"
keys '<'
expect_screen 'GPU-MEM▼' "< sorts by the previous column (GPU-MEM)"
keys '<' '<' '<' '<' '<' '<'
expect_screen ' PID▼ ' "< to the first column (PID)"
check "PID▼: the highest pid first" wait_until 10 first_is 1051
keys r
expect_screen ' PID▲ ' "r reverses (PID▲)"
wait_until 10 first_is 1000
check "PID▲: the lowest pid first (got $(first_pid))" first_is 1000

# Selection and Enter: rows 1000, 1001, 1010, 1011, 1020 ...
keys j j Down Enter
expect_screen '[─-] pid 1011 ' "j j Down Enter: the fourth row's command line (pid 1011)"
expect_screen 'job-g1-p1' "Enter shows the full command line"
keys Enter
expect_screen_gone '[─-] pid [0-9]+ ' "Enter again closes the command line" 2
keys Escape
expect_screen_gone '[─-] pid [0-9]+ ' "Esc closes the command line"
keys k Up Enter
expect_screen '[─-] pid 1001 ' "k Up: back two rows (pid 1001)"
keys Escape PageUp PageUp
expect_screen_gone '[─-] pid [0-9]+ ' "Esc closes the command line (2)"
visible=$(rows | wc -l)
last_visible=$(rows | tail -n 1 | awk '{print $1}')
keys PageDown Enter
expect_screen "[─-] pid $last_visible " "PgDn from the top: the last visible row ($visible rows, pid $last_visible)"
keys Escape PageUp Enter
expect_screen '[─-] pid 1000 ' "PgUp: back to the top"
keys Escape

# Filter: / text Enter keeps it, Esc clears it.
keys /
expect_screen '^filter: _' "/ starts the filter"
type_text 'g3-'
expect_screen '^filter: g3-_' "the filter shows what is typed"
keys Enter
expect_screen '^q quit' "Enter keeps the filter and closes the prompt"
# (The count is taken anew at each try: a function, not "$(...)" expanded once.)
row_count_is() { [ "$(rows | wc -l)" -eq "$1" ]; }
wait_until 3 row_count_is 2
check "filter g3-: two rows (got $(rows | wc -l))" test "$(rows | wc -l)" -eq 2
only_g3() { ! rows | grep -qv 'job-g3-p'; }
check "filter g3-: only job-g3-*" only_g3
keys /
type_text zzz
keys Enter
expect_screen 'no process matches' "a filter matching nothing says so"
keys Escape
wait_until 3 row_count_is 11
check "Esc clears the filter: 11 rows again (got $(rows | wc -l))" test "$(rows | wc -l)" -eq 11

# u: only my processes.
keys u
expect_screen 'only my processes' "u: a status line"
# Every row is $ME's (and there is at least one).
only_me() { [ "$(rows | wc -l)" -gt 0 ] && ! rows | grep -qvE "^ +[0-9]+ $ME "; }
wait_until 3 only_me
check "u: only $ME's rows ($(rows | wc -l) rows)" only_me
keys u
expect_screen "everyone's processes" "u again: everyone"
wait_until 3 row_count_is 11
check "u again: 11 rows" test "$(rows | wc -l)" -eq 11

# i: idle GPUs (6 and 7) hidden.
expect_screen '^ 7 GPU-NAME-7 ' "GPU 7 (idle) is shown"
keys i
expect_screen 'idle GPUs hidden' "i: a status line"
expect_screen_gone '^ [67] GPU-NAME-[67] ' "i hides the idle GPUs 6 and 7"
check "i keeps the busy GPU 5" screen_matches '^ 5 GPU-NAME-5 '
keys i
expect_screen '^ 7 GPU-NAME-7 ' "i again shows them"

# c: the chart's metric.
expect_screen '^history: util' "the chart shows util"
keys c
expect_screen '^history: mem' "c: mem"
keys c
expect_screen '^history: temp' "c: temp"
keys c
expect_screen '^history: power' "c: power"
keys c
expect_screen '^history: util' "c: back to util"

# p: the screen holds while the recording goes on (the header's record
# number still counts), p again resumes.
gpu0() { screen | grep -E '^ 0 GPU-NAME-0 '; }
keys p
expect_screen 'PAUSED' "p: PAUSED in the header"
held=$(gpu0)
at=$(position)
position_at_least() { [ "$(position)" -ge "$1" ]; }
wait_until 5 position_at_least $((at + 2))
check "p: the recording went on (#$at -> #$(position))" test "$(position)" -ge $((at + 2))
check "p: GPU 0's line holds" test "$(gpu0)" = "$held"
keys p
expect_screen_gone 'PAUSED' "p again: not paused"
changed() { [ "$(gpu0)" != "$held" ]; }
wait_until 3 changed
check "p again: GPU 0's line moves on" changed

# C: the column picker; hide USER.
keys C
expect_screen 'columns: space toggles' "C opens the column picker"
expect_screen '\[x\] USER' "USER is shown"
keys j Space
expect_screen '\[ \] USER' "j Space hides USER"
keys Enter
expect_screen_gone 'columns: space toggles' "Enter closes the picker (as its last line says)" 2
screen_matches 'columns: space toggles' && keys Escape
expect_screen_gone 'columns: space toggles' "Esc closes the picker"
check "the table has no USER column" screen_lacks '^ +PID▲ USER '
check "the table keeps PID and DEV" screen_matches '^ +PID▲ +DEV '
keys C Space Escape
expect_screen '^ +PID▲ USER ' "C Space Esc: USER back (the cursor stays on USER)"

# d / D: the interval (in a replay, the pace of records without a time);
# the header keeps saying the recording's own cadence.
keys d
expect_screen 'interval 0\.5s' "d: a shorter interval"
expect_screen 'every 1s' "d: the header says the recorded cadence, every 1s"
keys D D
expect_screen 'interval 2s' "D D: a longer interval"
check "D D: the header still says every 1s" screen_matches 'every 1s'

# ? and F1: the help; any key closes it.
keys '?'
expect_screen 'gpur keys' "? opens the help"
keys x
expect_screen_gone 'gpur keys' "any key closes the help"
keys F1
expect_screen 'gpur keys' "F1 opens the help"
keys Escape
expect_screen_gone 'gpur keys' "Esc closes the help"

# F10 quits, exit status 0.
keys F10
tui_wait_exit 5
expect_rc 0 "F10 quits"
expect_screen 'gpur-exited rc=0' "after F10 the shell's screen is back"

# q quits too (and Ctrl-C).
tui_start 120 40 -- --replay "$T/rec.jsonl"
expect_screen 'q quit' "second start"
keys q
tui_wait_exit 5
expect_rc 0 "q quits"
tui_start 120 40 -- --replay "$T/rec.jsonl"
expect_screen 'q quit' "third start"
keys C-c
tui_wait_exit 5
expect_rc 0 "Ctrl-C quits"

finish
