# test_tui_signals: K / F9 on the dashboard, with real child processes on
# the fake NVML: SIGTERM (the default) and SIGKILL sent through the dialog,
# each child seen dying of that signal and each attempt a `signal` event in
# the --log; Esc cancels; a pid whose start time changed while the dialog
# was open is refused (a --procfs tree whose stat is rewritten, the real
# child left alive); --read-only, a replay and a --procfs tree that is not
# this machine's /proc refuse with the reason on screen and send nothing;
# so do pid 1, gpur's own pid, a kernel thread (kthreadd) and a zombie.
. "$(dirname "$0")/tui_lib.sh" || exit 1

ME=$(id -un)
LOG="$T/log.jsonl"

# finished PID: our child has exited (a zombie not yet waited for, or gone).
finished() {
	local state
	state=$(awk '{print $3}' "/proc/$1/stat" 2> /dev/null) || return 0
	[ -z "$state" ] || [ "$state" = Z ]
}
alive() { ! finished "$1"; }

# log_signal PID: "SIGNAL RESULT DETAIL" of each signal event for PID in
# the --log, one a line.
log_signal() {
	local n i kind
	grep -n '"kind":"signal"' "$LOG" 2> /dev/null | cut -d: -f1 | while read -r n; do
		for i in 0 1 2 3; do
			kind=$(get "$LOG" "$n" "events.$i.kind" 2> /dev/null) || break
			[ "$kind" = signal ] || continue
			[ "$(get "$LOG" "$n" "events.$i.pid")" = "$1" ] || continue
			echo "$(get "$LOG" "$n" "events.$i.signal") $(get "$LOG" "$n" "events.$i.result") $(get "$LOG" "$n" "events.$i.detail")"
		done
	done
}
has_log_signal() { log_signal "$1" | grep -qF -- "$2"; }
expect_log_signal() {
	if wait_until 5 has_log_signal "$1" "$2"; then ok; else
		fail "$3: the --log has no signal event for pid $1 with '$2' (got: $(log_signal "$1"))"
	fi
}
# Records the log has now, and a wait for N more: time passes in frames.
# (The count is taken afresh at each try of wait_until, not once.)
records() { lines "$LOG" 2> /dev/null || echo 0; }
has_records() { [ "$(records)" -ge "$1" ]; }
wait_records() {
	local want=$(($(records) + $1))
	wait_until 10 has_records "$want"
}

# scenario_for FILE PID...: one fake GPU with these processes, the first
# with the most GPU memory (the table's first row), and so on down.
scenario_for() {
	local file=$1 procs="" mem=8 p
	shift
	for p in "$@"; do
		procs="$procs${procs:+,}{\"pid\":$p,\"type\":\"compute\",\"mem\":$((mem * 1073741824)),\"sm\":10}"
		mem=$((mem - 1))
	done
	scenario "$file" <<JSON
{"fast_pcie":1,"driver":"550.54.15","cuda":12040,"gpus":[$(gpu_json 0 "Fake H100 0" ",\"processes\":[$procs]")]}
JSON
}
# nv FILE: the environment that runs gpur on the fake NVML with scenario FILE.
nv() { NV=(GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$1"); }

# The dialog's process line.
dialog_for() { wait_screen "pid $1 +user $ME" 5; }
expect_dialog_for() {
	if dialog_for "$1"; then ok; else
		fail "$2: the dialog for pid $1 did not open"
		dump_screen "$2"
	fi
}

spawn_sleeper
A=$SLEEPER
spawn_sleeper
B=$SLEEPER
spawn_sleeper
C=$SLEEPER
scenario_for "$T/abc.json" "$A" "$B" "$C"
nv "$T/abc.json"
tui_start 200 50 "${NV[@]}" -- --backend nvml --interval 0.25 --log "$LOG"
expect_screen "^ +$A $ME +0 C " "the first sleeper is in the table"
expect_screen "^ +$C $ME +0 C " "the third sleeper is in the table"

# K on the first row: the dialog says who, TERM is preselected; Enter.
keys K
expect_screen ' send a signal ' "K opens the signal dialog"
expect_dialog_for "$A" "K on the first row"
expect_screen "container -- +pod --" "the dialog shows the container and pod (unknown here)"
expect_screen "command sleep 600" "the dialog shows the command"
expect_screen '> 1 SIGTERM ' "SIGTERM is preselected"
for s in SIGINT SIGHUP SIGKILL SIGSTOP SIGCONT; do
	check "the dialog offers $s" screen_matches "  [0-9] $s "
done
check "the child is alive before Enter" alive "$A"
keys Enter
if wait_until 5 finished "$A"; then ok; else fail "Enter: pid $A still runs 5 s after SIGTERM was sent"; fi
wait "$A"
check "pid $A died of SIGTERM (status $?, expected 143)" test $? -eq 143
expect_screen "SIGTERM sent to pid $A" "the status line says SIGTERM was sent"
expect_screen_gone ' send a signal ' "the dialog closes after Enter" 2
expect_log_signal "$A" "SIGTERM sent SIGTERM sent to pid $A" "SIGTERM"
expect_screen "signal pid $A SIGTERM = sent" "the event is on the events line"

# The second row, SIGKILL chosen with Down.
keys j K
expect_dialog_for "$B" "j K: the second row"
keys Down Down Down
expect_screen '> 4 SIGKILL ' "Down three times: SIGKILL"
keys Up Down
expect_screen '> 4 SIGKILL ' "Up Down: SIGKILL again"
keys Enter
if wait_until 5 finished "$B"; then ok; else fail "pid $B still runs 5 s after SIGKILL was sent"; fi
wait "$B"
check "pid $B died of SIGKILL (status $?, expected 137)" test $? -eq 137
expect_screen "SIGKILL sent to pid $B" "the status line says SIGKILL was sent"
expect_log_signal "$B" "SIGKILL sent" "SIGKILL"

# The third row: Esc cancels, nothing is sent, no event.
keys j F9
expect_dialog_for "$C" "j F9: the third row"
keys 4 Escape
expect_screen "cancelled: no signal sent to pid $C" "Esc cancels, and says so"
expect_screen_gone ' send a signal ' "Esc closes the dialog" 2
wait_records 4
check "Esc: pid $C still runs" alive "$C"
check "Esc: no signal event for pid $C" test -z "$(log_signal "$C")"

# The first row's process has gone: no start time to check against.
keys k k K
expect_screen "pid $A: its start time is unknown, so its identity cannot be checked" \
	"K on a process that has gone: refused, with the reason"
check "no dialog for a process that has gone" screen_lacks ' send a signal '
keys q
tui_wait_exit 5
expect_rc 0 "q after signals"

# A changed identity: the dashboard reads a --procfs tree (a copy of the
# child's real /proc files). It is not this machine's /proc until its
# self link names gpur; then, while the dialog is open, the child's stat
# says it started 1 s later — as if the pid now were another process.
spawn_sleeper
D=$SLEEPER
P="$T/proc"
mkdir -p "$P/$D"
cp /proc/stat "$P/stat"
for f in stat status cmdline; do cat "/proc/$D/$f" > "$P/$D/$f"; done
# Its executable: a process without one is refused as a kernel thread.
ln -s "$(readlink "/proc/$D/exe")" "$P/$D/exe"
# User names of a --procfs tree come from its ../etc/passwd.
mkdir -p "$T/etc"
getent passwd "$(id -u)" > "$T/etc/passwd"
scenario_for "$T/d.json" "$D"
rm -f "$LOG"
nv "$T/d.json"
tui_start 200 50 "${NV[@]}" -- --backend nvml --interval 0.25 --log "$LOG" --procfs "$P"
expect_screen "^ +$D $ME +0 C " "--procfs tree: the sleeper is in the table"
keys K
expect_screen "--procfs: signals are disabled \(the tree's self link does not name gpur: not this machine's /proc\)" \
	"--procfs tree without a self link: refused, with the reason"
check "--procfs tree without a self link: no dialog" screen_lacks ' send a signal '
ln -s "$(tui_pid)" "$P/self"
keys K
expect_dialog_for "$D" "--procfs tree whose self link names gpur"
# Field 22 (starttime) plus one second of clock ticks.
hz=$(getconf CLK_TCK)
awk -v hz="$hz" '{
	i = index($0, ") "); head = substr($0, 1, i + 1); n = split(substr($0, i + 2), f, " ")
	f[20] += hz; out = f[1]; for (k = 2; k <= n; k++) out = out " " f[k]; print head out
}' "/proc/$D/stat" > "$P/$D/stat.new" && mv "$P/$D/stat.new" "$P/$D/stat"
keys Enter
expect_screen "pid $D now belongs to another process: SIGTERM not sent" "a changed start time is refused, in words"
wait_records 4
check "refused: pid $D still runs" alive "$D"
expect_log_signal "$D" "SIGTERM refused pid $D now belongs to another process" "refused"
keys q
tui_wait_exit 5

# --read-only: K says why; nothing is sent, no event.
spawn_sleeper
D=$SLEEPER
scenario_for "$T/e.json" "$D"
rm -f "$LOG"
nv "$T/e.json"
tui_start 200 50 "${NV[@]}" -- --backend nvml --interval 0.25 --log "$LOG" --read-only
expect_screen "^ +$D $ME +0 C " "--read-only: the sleeper is in the table"
keys K
expect_screen '--read-only: signals are disabled' "--read-only: K says why"
check "--read-only: no dialog" screen_lacks ' send a signal '
keys Enter F9
expect_screen '--read-only: signals are disabled' "--read-only: F9 says the same"
wait_records 4
check "--read-only: pid $D still runs" alive "$D"
check "--read-only: no signal event" test -z "$(log_signal "$D")"
keys q
tui_wait_exit 5

# Processes never signalled, each refused on K with its reason on the
# status line, no dialog and no event: pid 1 (init), gpur itself, kthreadd
# (pid 2, a kernel thread, where its exe link gives ENOENT as on a plain
# host) and a zombie. gpur's pid is known only once it starts: a wrapper
# writes the scenario with its own pid, then execs gpur, which keeps it.
# The zombie: a child that exits, on a word from the test, under a parent
# that has exec'd sleep and so never reaps it.
mkfifo "$T/zgo"
(
	(read -r _ < "$T/zgo") &
	echo $! > "$T/zpid"
	exec sleep 600
) &
ZPARENT=$!
SLEEPERS="$SLEEPERS $ZPARENT"
wait_until 5 grep -q '^sleep' "/proc/$ZPARENT/comm"
Z=$(cat "$T/zpid")
echo > "$T/zgo"
zombie() { [ "$(awk '{print $3}' "/proc/$1/stat" 2> /dev/null)" = Z ]; }
check "pid $Z is a zombie" wait_until 5 zombie "$Z"
KT=""
if [ "$(cat /proc/2/comm 2> /dev/null)" = kthreadd ] &&
	LC_ALL=C readlink -v /proc/2/exe 2>&1 | grep -q 'No such file or directory'; then
	KT=2
else
	skip "pid 2 is not a kernel thread without an executable here: the zombie stands for one"
fi
# shellcheck disable=SC2086 # $KT is empty or one pid
scenario_for "$T/self.tmpl" 1 4242424242 $KT "$Z"
{
	echo '#!/bin/bash'
	printf 'sed "s/4242424242/$$/" %q > %q\n' "$T/self.tmpl" "$T/self.json"
	printf 'exec %q "$@"\n' "$GPUR"
} > "$T/self.sh"
chmod +x "$T/self.sh"
rm -f "$LOG"
nv "$T/self.json"
GPUR=$T/self.sh tui_start 200 50 "${NV[@]}" -- --backend nvml --interval 0.25 --log "$LOG"
G=$(tui_pid)
expect_screen "^ +1 " "pid 1 is in the table"
expect_screen "^ +$G " "gpur's own pid is in the table"
[ -z "$KT" ] || expect_screen "^ +2 .* kthreadd" "kthreadd is in the table"
expect_screen "^ +$Z " "the zombie is in the table"
# refused_on_k KEYS PID REASON: after KEYS (which select PID's row), K
# says REASON, which names PID, and opens no dialog.
refused_on_k() {
	# shellcheck disable=SC2086 # KEYS are words
	keys $1 K
	expect_screen "$3" "K on pid $2: refused with the reason"
	check "K on pid $2: no dialog" screen_lacks ' send a signal '
}
refused_on_k "" 1 "pid 1 is init: not signalled"
refused_on_k j "$G" "pid $G is gpur itself: not signalled"
if [ -n "$KT" ]; then
	refused_on_k j 2 "pid 2 has no executable \(a kernel thread or a zombie\): not signalled"
fi
refused_on_k j "$Z" "pid $Z has no executable \(a kernel thread or a zombie\): not signalled"
check "four more records after the refusals" wait_records 4
check "refused: no signal event in the --log" sh -c "! grep -q '\"kind\":\"signal\"' '$LOG'"
check "refused: gpur still runs" gpur_alive
check "refused: the zombie is still a zombie of the test's" zombie "$Z"
keys q
tui_wait_exit 5
expect_rc 0 "q after the refusals"
kill "$ZPARENT" 2> /dev/null
wait "$ZPARENT" 2> /dev/null

# A replay: its pids belong to the recorded machine and time.
gen_recording "$T/rec.jsonl" 1 600 1
tui_start 200 50 -- --replay "$T/rec.jsonl"
expect_screen '^ +1000 ' "replay: the recorded process is in the table"
keys K
expect_screen 'replay: signals are disabled \(these pids belong to the recorded machine and time\)' \
	"replay: K says why"
check "replay: no dialog" screen_lacks ' send a signal '
keys q
tui_wait_exit 5

# At 80x24 the header's second line has no room for the reason after the
# host's figures: it goes over the events line, wrapped onto the footer,
# whole.
tui_start 80 24 -- --replay "$T/rec.jsonl"
expect_screen '^ +1000 ' "80x24 replay: the recorded process is in the table"
keys K
expect_screen '^replay: signals are disabled \(these pids belong to the recorded machine and$' \
	"80x24: the reason's first words over the events line"
expect_screen '^time\)' "80x24: its last word on the footer"
keys q
tui_wait_exit 5

finish
