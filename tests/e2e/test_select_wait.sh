# test_select_wait: gpur --wait on the fake NVML. The command starts only
# once enough GPUs have been free for --stable (a GPU busy for the first
# 1.5 s of the fake's clock), with CUDA_VISIBLE_DEVICES and GPUR_SELECTED;
# the status line says why GPUs do not qualify, rewritten in place on a
# terminal; the exit status is the command's (128 + N for a signal), 124 on
# --timeout, 127 and 126 when it cannot start; signals sent to gpur reach
# the command, and one while waiting ends gpur before it runs anything; the
# command starts with SIGPIPE at its default and no lock descriptor.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

export XDG_RUNTIME_DIR="$T/xdg"
mkdir -p "$XDG_RUNTIME_DIR"
TOTAL=85899345920
# GPU 0 at 90 % for 15 steps of 100 ms of the fake's clock, then 0 %;
# GPU 1 at 50 % throughout; GPU 2 free.
busy=$(python3 -c 'print(",".join(["90"] * 15 + ["0"] * 3000))')
scenario "$T/w.json" <<JSON
{"fast_pcie":1,"cycle_ms":100,"gpus":[
 {"name":"F","uuid":"GPU-w-0","pci":"0000:01:00.0","util":[$busy],"mem_total":$TOTAL,"mem_used":0},
 {"name":"F","uuid":"GPU-w-1","pci":"0000:02:00.0","util":50,"mem_total":$TOTAL,"mem_used":0},
 {"name":"F","uuid":"GPU-w-2","pci":"0000:03:00.0","util":0,"mem_total":$TOTAL,"mem_used":1073741824}]}
JSON
NV=(env GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/w.json" "$GPUR" --backend nvml --interval 0.1)

# The command records when it started and what it was given.
t0=$(date +%s%N)
"${NV[@]}" --wait 2 --stable 0.5s -- sh -c 'date +%s%N > "$0/started"; echo "$CUDA_VISIBLE_DEVICES $GPUR_SELECTED" > "$0/cvd"; exit 7' "$T" \
	< /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 7 "--wait exits with the command's status"
check "the command got the two free GPUs, the one with more free memory first: $(cat "$T/cvd" 2> /dev/null)" \
	test "$(cat "$T/cvd" 2> /dev/null)" = "GPU-w-0,GPU-w-2 GPU-w-0,GPU-w-2"
started=$(cat "$T/started" 2> /dev/null || echo 0)
check "the command started only once GPU 0 had been free for --stable (after $(((started - t0) / 1000000)) ms, not before 2000)" \
	test $((started - t0)) -ge 2000000000
check "while waiting, the status line said why GPU 0 did not qualify" \
	grep -qF "gpur: waiting for 2 GPUs: 1 qualifies (GPU 0: 90% > 10%; GPU 1: 50% > 10%)" "$T/err"
check "then: running on the two" sh -c "tail -n 1 '$T/err' | grep -qx 'gpur: running on GPU-w-0,GPU-w-2'"
expect_gpur_lines "--wait's stderr"

# Indices: CUDA must then number GPUs as NVML does. Every GPU qualifies
# with --max-util 100, and of the two with the most free memory GPU 1 (50 %)
# is less busy than GPU 0 (90 %).
"${NV[@]}" --wait 1 --stable 0 --select-format index --max-util 100 -- sh -c 'echo "$CUDA_VISIBLE_DEVICES $CUDA_DEVICE_ORDER"' \
	< /dev/null > "$T/out" 2> "$T/err"
check "--select-format index: an index and CUDA_DEVICE_ORDER=PCI_BUS_ID ($(cat "$T/out"))" \
	test "$(cat "$T/out")" = "1 PCI_BUS_ID"

# --timeout, with values that do not move: GPU 1 is never free.
scenario "$T/steady.json" <<JSON
{"fast_pcie":1,"gpus":[
 {"name":"F","uuid":"GPU-s-0","pci":"0000:01:00.0","util":0,"mem_total":$TOTAL,"mem_used":0},
 {"name":"F","uuid":"GPU-s-1","pci":"0000:02:00.0","util":50,"mem_total":$TOTAL,"mem_used":0}]}
JSON
STEADY=(env GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/steady.json" "$GPUR" --backend nvml --interval 0.1)
"${STEADY[@]}" --wait 2 --stable 0.2s --timeout 1s -- touch "$T/ran" < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 124 "--timeout"
check "--timeout: the command never ran" test ! -e "$T/ran"
check "--timeout: the last line says why ($(tail -n 1 "$T/err"))" sh -c "tail -n 1 '$T/err' | grep -qx \
	'gpur: --wait 2: timed out after 1s: only 1 GPU qualifies: GPU 1 is at 50% (> 10%, --max-util)'"

# Commands that cannot start, and one that a signal ends.
"${NV[@]}" --wait 1 --stable 0 -- "$T/no-such-command" < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 127 "a command that is not found"
expect_stderr_contains "gpur: $T/no-such-command: command not found" "127's message"
printf 'echo hi\n' > "$T/not-executable"
"${NV[@]}" --wait 1 --stable 0 -- "$T/not-executable" < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 126 "a command that cannot be run"
expect_stderr_contains "gpur: $T/not-executable: cannot run it: Permission denied" "126's message"
"${NV[@]}" --wait 1 --stable 0 -- sh -c 'kill -KILL $$' < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 137 "a command ended by SIGKILL: 128 + 9"
"${NV[@]}" --wait 1 --stable 0 -- sh -c 'exit 0' < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "a command that succeeds"

# The command starts with SIGPIPE at its default (gpur ignores it) and
# without the lock descriptors, which gpur holds meanwhile.
"${NV[@]}" --wait 1 --stable 0 --lock -- sh -c \
	'grep SigIgn /proc/$$/status; ls -l /proc/$$/fd; flock -n "$0/gpur/GPU-w-2.lock" true && echo lock-free || echo lock-held' \
	"$XDG_RUNTIME_DIR" < /dev/null > "$T/out" 2> "$T/err"
mask=$(awk '/^SigIgn/ {print $2}' "$T/out")
check "SIGPIPE is not ignored in the command (SigIgn $mask)" test $((0x${mask:-1000} & 0x1000)) = 0
check "the command has no lock descriptor" sh -c "! grep -q '/gpur/' '$T/out'"
check "the lock is held while the command runs" grep -qx lock-held "$T/out"
check "the lock directory was made 0700" test "$(stat -c %a "$XDG_RUNTIME_DIR/gpur")" = 700
flock -n "$XDG_RUNTIME_DIR/gpur/GPU-w-2.lock" true
check "the lock is let go when gpur ends" test $? = 0

# SIGTERM sent to gpur reaches the command, whose status gpur takes.
"${NV[@]}" --wait 1 --stable 0 -- sh -c 'trap "echo term > \"\$0/got\"; exit 3" TERM; : > "$0/ready"; while :; do sleep 0.05; done' "$T" \
	< /dev/null > "$T/out" 2> "$T/err" &
PID=$!
check "the command is running" wait_until 20 test -e "$T/ready"
kill -TERM $PID
wait $PID
RC=$?
expect_rc 3 "SIGTERM forwarded: the command's trap ran and gpur took its status"
check "the command got SIGTERM" grep -qx term "$T/got"

# A signal while waiting: nothing runs, 128 + 15.
"${NV[@]}" --wait 3 --stable 0 -- touch "$T/ran2" < /dev/null > "$T/out" 2> "$T/err" &
PID=$!
check "waiting" wait_until 20 grep -q "waiting for 3 GPUs" "$T/err"
kill -TERM $PID
wait $PID
RC=$?
expect_rc 143 "SIGTERM while waiting"
check "the command never ran" test ! -e "$T/ran2"
check "it says so ($(tail -n 1 "$T/err"))" sh -c "tail -n 1 '$T/err' | grep -qx 'gpur: --wait 3: stopped while waiting (SIGTERM); the command did not run'"

# On a terminal the status line is rewritten in place (CR, erase to the end
# of the line), and cleared before the last message.
if command -v script > /dev/null; then
	TERM=xterm script -qec "stty cols 200; env GPUR_NVML_LIBRARY='$(fake modern)' FAKE_NVML_SCENARIO='$T/steady.json' '$GPUR' --backend nvml --interval 0.1 --wait 2 --stable 0.2s --timeout 1s -- true" \
		/dev/null < /dev/null > "$T/tty.out" 2>&1
	check "tty: the status line starts with CR and ends erasing the line" grep -qa $'\rgpur: waiting for 2 GPUs: 1 qualifies (GPU 1: 50% > 10%) 0:0[0-9]\e\[K' "$T/tty.out"
	check "tty: cleared for the timeout's message" grep -qa $'\r\e\[Kgpur: --wait 2: timed out after 1s' "$T/tty.out"
else
	skip "script(1) is missing: no terminal for the status line"
fi

finish
