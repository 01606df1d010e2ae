# test_tui_layout: the dashboard's layout at 80x24, 120x40 and 200x60 with 1,
# 8 and 64 GPUs (recordings), live on the fake NVML, after tmux resizes the
# window, on a terminal too small to draw in, and in plain ASCII when
# LANG=C.
. "$(dirname "$0")/tui_lib.sh" || exit 1

for n in 1 8 64; do
	gen_recording "$T/g$n.jsonl" "$n" 30 1
done

# text_lacks ERE TEXT: TEXT has no line matching ERE.
text_lacks() { ! grep -qE -- "$1" <<< "$2"; }
# Lines of the screen that are a GPU's compact line, e.g. " 7 GPU-NAME-7 ...".
gpu_lines() { screen | grep -oE '(^| )[ 0-9][0-9] GPU-NAME-[0-9]+' | wc -l; }

for size in 80x24 120x40 200x60; do
	cols=${size%x*} rows=${size#*x}
	for n in 1 8 64; do
		what="$size, $n GPUs"
		tui_start "$cols" "$rows" -- --replay "$T/g$n.jsonl"
		if ! wait_screen 'q quit' 10; then
			fail "$what: the dashboard did not start"
			dump_screen "$what"
			continue
		fi
		expect_screen 'GPU-NAME-0' "$what: GPU 0 is drawn"
		s=$(screen)
		check "$what: the header is the first line" \
			grep -qE '^gpur genhost +REPLAY g[0-9]+\.jsonl' <(sed -n 1p <<< "$s")
		check "$what: the footer is the last line ($rows)" grep -q '^q quit' <(sed -n "${rows}p" <<< "$s")
		check "$what: the process table has its header" grep -qE '^ +PID USER +DEV ' <<< "$s"
		check "$what: the process table has rows" grep -qE '^ +[0-9]+ (alice|bob) +[0-9]+ ' <<< "$s"
		check "$what: the screen is $rows lines" test "$(wc -l <<< "$s")" -eq "$rows"
		case $n in
		1)
			check "$what: one GPU line" test "$(gpu_lines)" -eq 1
			check "$what: no 'GPUs ... shown'" text_lacks '^GPUs [0-9]+-[0-9]+ of' "$s"
			;;
		8)
			check "$what: GPU 7 is drawn" grep -qE '(^| ) 7 GPU-NAME-7 ' <<< "$s"
			check "$what: eight GPU lines" test "$(gpu_lines)" -eq 8
			if [ "$cols" -ge 100 ]; then
				# Full panels: a second line per GPU (clocks ...).
				check "$what: full panels with a details line" test "$(grep -c '^    GFX' <<< "$s")" -eq 8
				check "$what: history chart" grep -q '^history: util' <<< "$s"
			else
				check "$what: compact lines, no details" text_lacks '^    GFX' "$s"
			fi
			;;
		64)
			case $cols in
			80) fit=13 ;;
			120) fit=23 ;;
			200) fit=64 ;;
			esac
			if [ "$fit" -lt 64 ]; then
				check "$what: 'GPUs 1-$fit of 64 shown'" grep -q "^GPUs 1-$fit of 64 shown" <<< "$s"
				check "$what: $fit GPU lines" test "$(gpu_lines)" -eq "$fit"
			else
				check "$what: all 64 GPUs, two per line" test "$(grep -cE '^ *[0-9]+ GPU-NAME-[0-9]+ .* [0-9]+ GPU-NAME-' <<< "$s")" -eq 32
				check "$what: GPU 63 is drawn" grep -qE ' 63 GPU-NAME-63 ' <<< "$s"
				check "$what: no 'GPUs ... shown'" text_lacks '^GPUs [0-9]+-[0-9]+ of' "$s"
			fi
			;;
		esac
	done
done

# Live on the fake NVML: 1 GPU at 80x24, 8 at 120x40, 64 at 200x60.
spawn_sleeper
for spec in 80x24:1 120x40:8 200x60:64; do
	size=${spec%:*} n=${spec#*:}
	cols=${size%x*} rows=${size#*x}
	what="live $size, $n GPUs"
	GPUS=""
	for ((i = 0; i < n; i++)); do
		extra=""
		[ "$i" = $((n - 1)) ] && extra=",\"processes\":[{\"pid\":$SLEEPER,\"type\":\"compute\",\"mem\":1048576,\"sm\":7}]"
		GPUS="$GPUS${GPUS:+,}$(gpu_json "$i" "Fake A100 $i" "$extra")"
	done
	scenario "$T/live$n.json" <<JSON
{"fast_pcie":1,"driver":"550.54.15","cuda":12040,"gpus":[$GPUS]}
JSON
	tui_start "$cols" "$rows" GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/live$n.json" -- --backend nvml
	last=$((n - 1))
	expect_screen "(^| )[ 0-9]$last Fake A100 $last " "$what: GPU $last of the fake NVML"
	expect_screen "^ +$SLEEPER [^ ]+ +$last .* sleep 600" "$what: the sleeper on GPU $last in the table"
	expect_screen 'nvml · 550\.54\.15 · CUDA 12\.4' "$what: backend, driver and CUDA in the header"
	check "$what: the footer on line $rows" grep -q '^q quit' <(screen | sed -n "${rows}p")
	check "$what: no 'GPUs ... shown'" screen_lacks '^GPUs [0-9]+-[0-9]+ of'
	case $n in
	8) expect_screen '^    GFX 1410MHz' "$what: full panels" ;;
	64) check "$what: two GPUs per line" test "$(screen | grep -cE '^ *[0-9]+ Fake A100 [0-9]+ .* [0-9]+ Fake A100 ')" -eq 32 ;;
	esac
done

# Resize: the layout follows the window at once, without a key pressed
# (a recording paced at 1 s would redraw within a second anyway, so this one
# is paused first: only the resize can redraw it).
tui_start 80 24 -- --replay "$T/g64.jsonl"
expect_screen '^GPUs 1-13 of 64 shown' "80x24 before resizing"
keys Space
expect_screen ' (❚❚|\|\|) ' "paused before resizing"
tui_resize 200 60
expect_screen ' 63 GPU-NAME-63 ' "resized to 200x60 (no key pressed): all 64 GPUs" 3
check "resized to 200x60: no 'GPUs ... shown'" screen_lacks '^GPUs [0-9]+-[0-9]+ of'
check "resized to 200x60: the footer moved to line 60" grep -q '^q quit' <(screen | sed -n 60p)
tui_resize 40 10
expect_screen 'too small: 40x10' "resized to 40x10 (no key pressed): a message" 3
tui_resize 120 40
expect_screen '^GPUs 1-23 of 64 shown' "resized back to 120x40 (no key pressed): redrawn" 3
check "resized to 120x40: the footer on line 40" grep -q '^q quit' <(screen | sed -n 40p)
# Keys after a resize: the dashboard still answers (no key is lost or
# spun on), and q ends it with exit status 0.
keys x '?'
expect_screen 'gpur keys' "after a resize, keys answer (x, then ? opens the help)" 3
check "after a resize and keys: the layout is 120x40's" screen_matches '^GPUs 1-23 of 64 shown'
keys Escape q
if tui_wait_exit 5; then
	expect_rc 0 "q after a resize"
else
	fail "q after a resize: gpur still runs 5 s later ($(awk '{print "state " $3}' "/proc/$(tui_pid)/stat" 2> /dev/null))"
fi
# The help at 80x24: every line whole inside its box (the box's right edge
# after each, none cut).
tui_start 80 24 -- --replay "$T/g64.jsonl"
keys '?'
expect_screen 'gpur keys' "80x24: ? opens the help"
check "80x24 help: its last line whole" screen_matches '│ \?, F1 +this help \(any key closes it\) +│'
check "80x24 help: the grouping line whole" screen_matches '│ g +group by container, pod, job, user, none; Enter +│'
check "80x24 help: the tree line whole" screen_matches "│ t +the process's tree \\(up to its container's init\\) +│"
check "80x24 help: every line inside the box" test "$(screen | grep -c '│ .* │')" -eq 21
keys Escape q
tui_wait_exit 5
# Unpaused, one resize, one key.
tui_start 80 24 -- --replay "$T/g64.jsonl"
expect_screen '^GPUs 1-13 of 64 shown' "80x24 before resizing (2)"
tui_resize 120 40
expect_screen '^GPUs 1-23 of 64 shown' "resized to 120x40 (2)" 3
keys '?'
expect_screen 'gpur keys' "resized, then ? opens the help" 3
keys Escape q
if tui_wait_exit 5; then
	expect_rc 0 "q after a resize (2)"
else
	fail "q after a resize (2): gpur still runs 5 s later ($(awk '{print "state " $3}' "/proc/$(tui_pid)/stat" 2> /dev/null))"
fi

# [ and ] scroll the GPUs that do not fit.
tui_start 120 40 -- --replay "$T/g64.jsonl"
expect_screen '^GPUs 1-23 of 64 shown' "120x40, 64 GPUs: 23 shown"
keys ']'
expect_screen '^GPUs 5-27 of 64 shown' "] scrolls the GPUs by 4"
expect_screen '^ 4 GPU-NAME-4 ' "] : GPU 4 first"
check "] : GPU 3 scrolled away" screen_lacks '^ 3 GPU-NAME-3 '
keys ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']'
expect_screen '^GPUs 42-64 of 64 shown' "] to the end: the last GPUs"
expect_screen '^63 GPU-NAME-63 ' "] to the end: GPU 63 shown"
keys '['
expect_screen '^GPUs 38-60 of 64 shown' "[ scrolls back by 4"
keys '[' '[' '[' '[' '[' '[' '[' '[' '[' '[' '['
expect_screen '^GPUs 1-23 of 64 shown' "[ to the start"

# A terminal too small: a clear message naming what it has and what is
# needed, whole.
tui_start 40 10 -- --replay "$T/g8.jsonl"
expect_screen 'too small: 40x10' "40x10: says the terminal is too small, and its size"
expect_screen 'needs 60x12' "40x10: says the size it needs (the whole message fits)" 2
tui_start 20 6 -- --replay "$T/g8.jsonl"
expect_screen 'too small: 20x6' "20x6: says the terminal is too small, and its size"
expect_screen 'needs 60x12' "20x6: says the size it needs" 2
keys q
tui_wait_exit 5
expect_rc 0 "40x10: q still quits"

# LANG=C: ASCII only, also with the LOST GPU, the help and the column picker.
non_ascii() { screen | LC_ALL=C grep -c '[^ -~]'; }
tui_start 120 40 LANG=C -- --replay "$SOURCE_DIR/share/demo/demo.jsonl"
expect_screen 'q quit' "LANG=C: the dashboard starts"
keys End
expect_screen ' 3 NVIDIA H100 80GB HBM3 +LOST' "LANG=C: GPU 3 is LOST at the end"
check "LANG=C: ASCII only ($(non_ascii) lines with other bytes)" test "$(non_ascii)" -eq 0
check "LANG=C: the sort arrow is ASCII" grep -q 'GPU-MEM[v^]' <(screen)
keys '?'
expect_screen 'gpur keys' "LANG=C: help"
check "LANG=C: ASCII only in the help ($(non_ascii))" test "$(non_ascii)" -eq 0
keys Escape C
expect_screen 'columns: space toggles' "LANG=C: column picker"
check "LANG=C: ASCII only in the picker ($(non_ascii))" test "$(non_ascii)" -eq 0
keys Escape
# Same screen in UTF-8 does use UTF-8 (the check above is not vacuous).
tui_start 120 40 -- --replay "$SOURCE_DIR/share/demo/demo.jsonl"
expect_screen 'GPU-MEM▼' "UTF-8: the sort arrow is ▼"

finish
