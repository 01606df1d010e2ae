# test_pidns: gpur started in a PID namespace of its own (unshare --pid
# --fork --mount-proc, as in a container without --pid=host) is given host
# pids by the driver (the fake NVML lists real processes of the test, outside
# that namespace). It says why it cannot see them — a note event, the --once
# table, the dashboard's header — and shows their rows with the host pid and
# unknown details, never another process's name. Outside a namespace, a pid
# that simply exited is not that.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v unshare > /dev/null; then
	skip "pid namespace: needs root and unshare"
	finish
fi
if ! unshare --pid --fork --mount-proc true 2> /dev/null; then
	skip "pid namespace: unshare --pid --fork --mount-proc is refused here"
	finish
fi

spawn_sleeper
P1=$SLEEPER
spawn_sleeper
P2=$SLEEPER
scenario "$T/s.json" <<JSON
{"driver":"550.54.15","fast_pcie":1,"gpus":[{"name":"NVIDIA A100","uuid":"GPU-1","pci":"00000000:3B:00.0","util":1,"mem_total":1000,"mem_used":10,
  "processes":[{"pid":$P1,"type":"compute","mem":1048576},{"pid":$P2,"type":"compute","mem":2097152},{"pid":1,"type":"compute","mem":4096}]}]}
JSON

# in_ns ARGS...: gpur in a new PID namespace with its own /proc.
in_ns() {
	GPUR_NVML_LIBRARY=$(fake modern) FAKE_NVML_SCENARIO=$T/s.json \
		unshare --pid --fork --mount-proc "$GPUR" --backend nvml "$@" < /dev/null > "$T/out" 2> "$T/err"
	RC=$?
}

in_ns --once --json
expect_rc 0 "in a PID namespace: --once --json"
check "every row is there, with the host pids" test "$(get "$T/out" 1 processes.length)" -eq 3
expect_get "$T/out" 1 processes.0.pid "$P1" "the first row keeps the host pid"
expect_get "$T/out" 1 processes.0.name absent "the first row has no name (never another process's)"
expect_get "$T/out" 1 processes.1.name absent "the second row has no name"
# Host pid 1 exists in the namespace too (its own init): another process,
# whose name must not be shown.
expect_get "$T/out" 1 processes.2.pid 1 "host pid 1 stays pid 1"
expect_get "$T/out" 1 processes.2.name absent "host pid 1 does not get the namespace's pid 1's name"
expect_get "$T/out" 1 processes.2.user absent "nor its user"
expect_get "$T/out" 1 processes.0.cmdline absent "no command line"
expect_get "$T/out" 1 processes.0.gpu_mem_bytes 1048576 "the GPU side of the row stays"
# The backend may give notes of its own (GPM's, say), so the note is found
# by what it says, not by its position.
check "a note says why" grep -q '"kind":"note"' "$T/out"
check "the note names the fix" grep -q 'docker run --pid=host, hostPID: true, or --procfs' "$T/out"
check "the note counts the processes" grep -q '"detail":"3 of 3 GPU processes' "$T/out"

in_ns --once
expect_rc 0 "in a PID namespace: the --once table"
check "the table says why, once, with the fix" test "$(grep -c "3 GPU processes are not in this PID namespace's /proc: .*--pid=host" "$T/out")" -eq 1
check "the table shows the host pids" grep -q "/$P1 -- " "$T/out"

# Not root, with root's shell as the namespace's pid 1: its ns link may not
# be read (EACCES); gpur's own may.
if command -v setpriv > /dev/null; then
	chmod 755 "$T" && chmod 644 "$T/s.json" # readable by the unprivileged user
	GPUR_NVML_LIBRARY=$(fake modern) FAKE_NVML_SCENARIO=$T/s.json \
		unshare --pid --fork --mount-proc sh -c 'setpriv --reuid 65534 --regid 65534 --clear-groups "$0" --backend nvml --once --json; exit $?' \
		"$GPUR" < /dev/null > "$T/out" 2> "$T/err"
	expect_rc 0 "in a PID namespace, not root"
	expect_get "$T/out" 1 processes.2.name absent "not root: host pid 1 still has no name"
	check "not root: the note says why" grep -q '"detail":"[^"]*PID namespace' "$T/out"
fi

# Several polls: the note once, not every poll.
in_ns --json --count 4 --interval 0.05
check "the note is said once in 4 records" test "$(grep -c 'not in this PID namespace' "$T/out")" -eq 1

# Outside a namespace: rows filled, no note; a pid that exited is just gone.
nvml modern "$T/s.json" --once --json
expect_get "$T/out" 1 processes.0.name sleep "outside a namespace: the row has its name"
check "outside a namespace: no note" sh -c "! grep -q 'PID namespace' '$T/out'"
kill "$P2"
wait "$P2" 2> /dev/null
nvml modern "$T/s.json" --once --json
check "an exited pid outside a namespace: no note" sh -c "! grep -q 'PID namespace' '$T/out'"
expect_get "$T/out" 1 processes.1.name absent "an exited pid: unknown details"
expect_get "$T/out" 1 processes.2.name "$(cat /proc/1/comm)" "outside a namespace: pid 1 is the host's init"

finish
