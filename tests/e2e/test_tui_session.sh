# test_tui_session: what outlives the dashboard and how it ends: settings
# (sort, columns, chart) persisted in $XDG_CONFIG_HOME/gpur/config and read
# back, a broken config reported and ignored, and SIGTERM / SIGHUP ending it
# cleanly (exit 0, the terminal given back: the shell's screen, the cursor,
# no keypad or mouse mode left on).
. "$(dirname "$0")/tui_lib.sh" || exit 1

gen_recording "$T/rec.jsonl" 8 120 2
CONF=$TUI_XDG/gpur/config

# The terminal is back as it was: the shell's screen (the wrapper's lines
# before and after gpur), main screen, cursor shown, no keypad or mouse mode.
restored() {
	local what=$1
	expect_screen "gpur-exited rc=0" "$what: the shell's screen is back" 3
	check "$what: the line printed before gpur is back" screen_matches "^$TUI_BEFORE\$"
	check "$what: off the alternate screen" test "$(tui_flag alternate_on)" = 0
	check "$what: the cursor is shown" test "$(tui_flag cursor_flag)" = 1
	check "$what: keypad mode off" test "$(tui_flag keypad_flag)" = 0
	check "$what: mouse reporting off" test "$(tui_flag mouse_any_flag)" = 0
}

# Settings: change sort, direction, columns and chart; they are saved on q.
tui_start 120 40 -- --replay "$T/rec.jsonl"
expect_screen 'GPU-MEM▼' "defaults: sort by GPU memory"
expect_screen '^history: util' "defaults: chart util"
keys '<' '<' '<' '<' '<' '<'
expect_screen ' PID▼ ' "sorted by PID"
keys r
expect_screen ' PID▲ ' "reversed"
keys C j Space Escape
expect_screen '^ +PID▲ +DEV ' "USER hidden"
keys c
expect_screen '^history: mem' "chart: mem"
keys q
tui_wait_exit 5
expect_rc 0 "q after changing settings"
restored "q"
if [ -f "$CONF" ]; then
	ok
	check "config: sort = pid" grep -qx 'sort = pid' "$CONF"
	check "config: reverse = true" grep -qx 'reverse = true' "$CONF"
	check "config: columns without user" \
		grep -qx 'columns = pid,dev,type,gpu,membw,gpumem,cpu,hostmem,time,idle,container,command' "$CONF"
	check "config: chart = mem" grep -qx 'chart = mem' "$CONF"
	check "config: mode 0600" test "$(stat -c %a "$CONF")" = 600
else
	fail "q did not write $CONF"
fi
# ... and read back.
tui_start 120 40 -- --replay "$T/rec.jsonl"
expect_screen '^ +PID▲ +DEV ' "read back: sort by PID reversed, no USER column"
expect_screen '^history: mem' "read back: chart mem"
# SIGTERM: a clean end, settings changed meanwhile saved too.
keys c
expect_screen '^history: temp' "chart: temp"
kill -TERM "$(tui_pid)"
tui_wait_exit 5
expect_rc 0 "SIGTERM: exit status 0"
restored "SIGTERM"
check "SIGTERM: the settings are saved (chart = temp)" grep -qx 'chart = temp' "$CONF"

# SIGHUP (live on the fake NVML this time): the same.
spawn_sleeper
scenario "$T/live.json" <<JSON
{"fast_pcie":1,"gpus":[$(gpu_json 0 "Fake GPU" ",\"processes\":[{\"pid\":$SLEEPER,\"type\":\"compute\",\"mem\":1048576,\"sm\":1}]")]}
JSON
tui_start 80 24 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/live.json" -- --backend nvml
expect_screen "^ +$SLEEPER " "live: started"
kill -HUP "$(tui_pid)"
tui_wait_exit 5
expect_rc 0 "SIGHUP: exit status 0"
restored "SIGHUP"
# SIGTERM while the help is open.
tui_start 80 24 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/live.json" -- --backend nvml
expect_screen 'q quit' "live: started (2)"
keys '?'
expect_screen 'gpur keys' "help open"
kill -TERM "$(tui_pid)"
tui_wait_exit 5
expect_rc 0 "SIGTERM with the help open: exit status 0"
restored "SIGTERM with the help open"

# A broken config: reported (file and line), ignored (the defaults apply),
# gpur runs, and the file is left as it was. A short XDG path, so the
# message fits on the line at 120 columns wherever the build directory is.
XDG_SHORT=$(mktemp -d /tmp/gpur-xdg.XXXXXX)
trap 'tui_stop; kill $SLEEPERS 2> /dev/null; rm -rf "$XDG_SHORT"; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT
mkdir -p "$XDG_SHORT/gpur"
printf 'sort = bogus\ncolour = blue\n' > "$XDG_SHORT/gpur/config"
cp "$XDG_SHORT/gpur/config" "$T/broken.orig"
tui_start 120 40 XDG_CONFIG_HOME="$XDG_SHORT" -- --replay "$T/rec.jsonl"
expect_screen 'q quit' "broken config: the dashboard starts"
expect_screen "$XDG_SHORT/gpur/config:1: sort: unknown column \"bogus\"" "broken config: reported with file and line"
expect_screen 'GPU-MEM▼' "broken config: the default sort applies"
expect_screen '^ +PID USER ' "broken config: every column"
keys q
tui_wait_exit 5
expect_rc 0 "broken config: q"
check "broken config: the file is left as it was" cmp -s "$T/broken.orig" "$XDG_SHORT/gpur/config"
# A config that is not a file at all (a directory in its place).
rm -f "$XDG_SHORT/gpur/config"
mkdir "$XDG_SHORT/gpur/config"
tui_start 120 40 XDG_CONFIG_HOME="$XDG_SHORT" -- --replay "$T/rec.jsonl"
expect_screen "$XDG_SHORT/gpur/config: not a regular file" "a directory as config: reported"
expect_screen 'GPU-MEM▼' "a directory as config: defaults"
keys q
tui_wait_exit 5
expect_rc 0 "a directory as config: q"

finish
