# test_tui_hostile: escape sequences and control bytes inside a process's
# name and command line (a live process on the fake NVML, and a recording),
# a GPU's name and the host arrive inert: drawn as visible replacement
# characters, never interpreted by the terminal (no colour change, no
# cleared screen, no title, no bell, no leaving the alternate screen).
. "$(dirname "$0")/tui_lib.sh" || exit 1

ESC=$'\033'
# Signs that the terminal interpreted something: a foreground colour (gpur
# runs with --no-color, so it draws none of its own) ...
coloured() { screen_e | grep -qE "$ESC\\[([0-9]*;)*3[0-7](;[0-9]+)*m"; }
# ... a title, a bell, or the alternate screen left.
title_untouched() { ! tui_flag pane_title | grep -qiE 'owned|pwn'; }
has_header_footer() { screen_matches '^gpur ' && screen_matches '^q quit'; }
inert_checks() {
	local what=$1
	if coloured; then
		fail "$what: a colour reached the terminal"
		screen_e | grep -nE "$ESC\\[([0-9]*;)*3[0-7](;[0-9]+)*m" | cat -v | head -n 5 >&2
	else ok; fi
	check "$what: the pane's title is untouched ($(tui_flag pane_title))" title_untouched
	check "$what: no bell" test "$(tui_flag window_bell_flag)" = 0
	check "$what: still on the alternate screen" test "$(tui_flag alternate_on)" = 1
	check "$what: the screen was not cleared (header and footer)" has_header_footer
}

# A live process whose executable's name (its comm) and argv[0] are hostile.
mkdir -p "$T/bin"
EVIL_FILE=$'\033[31mRED\a\033]2;pwn'       # comm: the first 15 bytes
EVIL_ARGV0=$'\033[2J\033[31mARGV\033]0;owned\a\302\233''32mC1\177DEL'
cp "$(command -v sleep)" "$T/bin/$EVIL_FILE"
(exec -a "$EVIL_ARGV0" "$T/bin/$EVIL_FILE" 600) &
EVIL=$!
SLEEPERS="$SLEEPERS $EVIL"
wait_until 5 grep -q 'RED' "/proc/$EVIL/comm"
scenario "$T/evil.json" <<JSON
{"fast_pcie":1,"gpus":[$(gpu_json 0 "Fake GPU" ",\"processes\":[{\"pid\":$EVIL,\"type\":\"compute\",\"mem\":1048576,\"sm\":1}]")]}
JSON
tui_start 120 40 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/evil.json" -- --backend nvml --no-color
expect_screen "^ +$EVIL " "live: the hostile process is in the table"
expect_screen '�\[2J�\[31mARGV' "live: its command line is drawn with visible replacements"
inert_checks "live table"
# Its full command line (Enter) too.
keys Enter
expect_screen " pid $EVIL " "live: Enter shows the full command line"
expect_screen '�\]0;owned�' "live: OSC and BEL in the full command line are visible, inert"
expect_screen 'C1(�|\\177)DEL' "live: DEL is visible, inert"
inert_checks "live full command line"
keys Escape
# The name alone (no command line): filter on it and look at the table.
keys q
tui_wait_exit 5
expect_rc 0 "live: q"

# A recording: ESC [31m and other controls (JSON escapes and raw bytes) in
# the host, a GPU's name, a process's name (no command line) and another's
# command line, an event's detail.
CSI='\u001b[31m'
CLR='\u001b[2J\u001b[H'
OSC='\u001b]2;owned\u0007'
ALT='\u001b[?1049l'
BEL='\u0007'
RAW_C1=$'\302\23331m'
{
	for r in 0 1 2; do
		printf '{"ts_ms":%d000,"host":"h%s%s","backend":"nvml","driver":"d%s","gpus":[{"name":"G%sRED%s","device_id":"GPU-h0"}],' \
			$((1764583200 + r)) "$OSC" "$CSI" "$ALT" "$CSI" "$CLR"
		printf '"processes":[{"pid":4242,"gpu_index":0,"name":"n%sNAME%s%s","user":"u%s"},' "$CSI" "$BEL" "$RAW_C1" "$CSI"
		printf '{"pid":4343,"gpu_index":0,"name":"x","cmdline":"cmd %sCMD%s%s%s tail","user":"bob"},' "$CSI" "$CLR" "$ALT" "$OSC"
		# A combining mark (a cell holds one character: it is left out)
		# and wide characters (two cells each).
		printf '{"pid":4444,"gpu_index":0,"name":"y","cmdline":"mark e\\u0301| wide \\u4e2d\\u6587| end","user":"carol"}]'
		[ "$r" = 1 ] && printf ',"events":[{"kind":"note","detail":"ev%sNOTE%s"}]' "$CSI" "$BEL"
		printf '}\n'
	done
} > "$T/hostile.jsonl"
"$JSONCMP" --valid "$T/hostile.jsonl" || fail "the hostile recording is not valid JSON"

tui_start 120 40 -- --replay "$T/hostile.jsonl" --no-color
expect_screen '^ +4242 ' "recording: the process with a hostile name is in the table"
expect_screen 'n�\[31mNAME�' "recording: its name, with visible replacements"
expect_screen 'cmd �\[31mCMD�\[2J�\[H�\[\?1049l' "recording: a hostile command line, inert"
expect_screen 'G�\[31mRED�\[2J�\[H' "recording: a hostile GPU name, inert"
expect_screen 'mark e\| wide 中文\| end' "recording: a combining mark left out, wide characters whole"
expect_screen '^gpur h�\]2;owned��\[31m' "recording: a hostile host, inert"
expect_screen 'ev�\[31mNOTE�' "recording: a hostile event detail, inert"
inert_checks "recording"
keys Down Enter
expect_screen ' pid 4343 ' "recording: Enter on the hostile command line"
expect_screen 'cmd �\[31mCMD�\[2J�\[H�\[\?1049l�\]2;owned� tail' "recording: the full command line, inert"
inert_checks "recording, full command line"
keys Escape
# In ASCII (LANG=C) the replacement is '?'.
tui_start 120 40 LANG=C -- --replay "$T/hostile.jsonl" --no-color
expect_screen 'cmd \?\[31mCMD\?\[2J\?\[H\?\[\?1049l' "recording, LANG=C: '?' replaces controls"
inert_checks "recording, LANG=C"
ascii_only() { ! screen | LC_ALL=C grep -q '[^ -~]'; }
check "recording, LANG=C: ASCII only" ascii_only

finish
