# test_tui_live: the dashboard on the fake NVML: real local processes in the
# table, a GPU that falls off the bus drawn LOST in its place, "only mine"
# (u), the interval keys, and a 5-second hang of an NVML call during which
# keys still answer at once and the header says which backend is silent.
. "$(dirname "$0")/tui_lib.sh" || exit 1

spawn_sleeper
P0=$SLEEPER
spawn_sleeper
P1=$SLEEPER
# One process of another user (root can start one as nobody).
OTHER=""
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 &
	OTHER=$!
	SLEEPERS="$SLEEPERS $OTHER"
	wait_until 5 grep -q '^sleep' "/proc/$OTHER/comm"
fi
other=""
[ -n "$OTHER" ] && other=",{\"pid\":$OTHER,\"type\":\"compute\",\"mem\":2147483648,\"sm\":10}"
procs0="\"processes\":[{\"pid\":$P0,\"type\":\"compute\",\"mem\":1073741824,\"sm\":40}$other]"

GPUS=""
for i in 0 1 2 3 4 5 6 7; do
	extra=""
	[ "$i" = 0 ] && extra=",$procs0"
	[ "$i" = 1 ] && extra=",\"processes\":[{\"pid\":$P1,\"type\":\"graphics\",\"mem\":536870912,\"sm\":5}]"
	[ "$i" = 5 ] && extra=',"lost_at_poll":4'
	GPUS="$GPUS${GPUS:+,}$(gpu_json "$i" "Fake H100 $i" "$extra")"
done
scenario "$T/live.json" <<JSON
{"fast_pcie":1,"driver":"550.54.15","cuda":12040,"gpus":[$GPUS]}
JSON
NV=(GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/live.json")

tui_start 120 40 "${NV[@]}" -- --backend nvml --interval 0.25
expect_screen "^ +$P0 $(id -un) +0 C " "live: the sleeper on GPU 0 is in the table"
expect_screen "^ +$P1 $(id -un) +1 G " "live: the graphics sleeper on GPU 1"
expect_screen ' sleep 600' "live: the command line from /proc"
expect_screen '^ 5 Fake H100 5 +LOST' "live: GPU 5 fell off the bus: LOST in its place"
expect_screen 'gpu_lost GPU 5' "live: the gpu_lost event on the events line"
check "live: GPU 4 and 6 go on" screen_matches '^ [46] Fake H100 [46] +\[.*%'
check "live: the header names nvml, the driver and CUDA" screen_matches 'nvml · 550\.54\.15 · CUDA 12\.4'
check "live: the header says the poll's cost" screen_matches ' poll [0-9.]+ms'
expect_screen 'every 0\.25s' "live: the header says the interval"

# u: only my processes.
if [ -n "$OTHER" ]; then
	expect_screen "^ +$OTHER nobody +0 C " "live: nobody's sleeper is shown"
	keys u
	expect_screen 'only my processes' "live u: status"
	expect_screen_gone "^ +$OTHER nobody " "live u: nobody's sleeper is hidden"
	check "live u: mine stay" screen_matches "^ +$P0 $(id -un) "
	keys u
	expect_screen "^ +$OTHER nobody " "live u again: nobody's sleeper is back"
else
	skip "u with another user's process: needs root and setpriv"
fi

# d / D change the live interval.
keys D
expect_screen 'every 0\.5s' "live D: 0.5 s"
keys d d
expect_screen 'every 0\.1s' "live d d: 0.1 s"
keys q
tui_wait_exit 5
expect_rc 0 "live: q"

# A hang: the utilisation call of poll 3 sleeps 5 s. Frames, the screen and
# keys go on; the header says nvml has not answered.
scenario "$T/hang.json" <<JSON
{"fast_pcie":1,"hang":{"poll":3,"ms":5000,"call":"util"},"gpus":[$(gpu_json 0 "Fake A100 0" ",\"processes\":[{\"pid\":$P0,\"type\":\"compute\",\"mem\":1048576,\"sm\":3}]")]}
JSON
tui_start 120 40 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/hang.json" -- --backend nvml --interval 0.25
expect_screen 'no answer from nvml for [2-9] s' "hang: the header says nvml does not answer" 8
keys '?'
expect_screen 'gpur keys' "hang: ? opens the help within 1 s" 1
check "hang: still no answer while the help is open" screen_matches 'no answer from nvml'
keys Escape
expect_screen_gone 'gpur keys' "hang: Esc closes the help within 1 s" 1
keys /
type_text sleep
expect_screen '^filter: sleep_' "hang: typing answers within 1 s" 1
keys Escape
check "hang: still no answer" screen_matches 'no answer from nvml'
# When the call returns, readings come back and the warning goes.
expect_screen_gone 'no answer from nvml' "hang: the warning goes when nvml answers" 8
expect_screen '^ 0 Fake A100 0 +\[.*\] +[0-9]+%' "hang: GPU 0's utilisation is read again"
keys q
tui_wait_exit 5
expect_rc 0 "hang: q after the hang"

# q during the hang: the terminal is given back at once, the exit is clean.
tui_start 120 40 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/hang.json" -- --backend nvml --interval 0.25
expect_screen 'no answer from nvml for [2-9] s' "hang 2: nvml does not answer" 8
keys q
expect_screen 'gpur-exited rc=' "hang 2: q during the hang ends gpur within 3 s" 3
tui_wait_exit 8
expect_rc 0 "hang 2: q during the hang"

finish
