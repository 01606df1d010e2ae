# test_nvml_hooks: --on-event live, on the fake NVML at 0.2 s. A hook that
# hangs on an XID is killed with its process group after 10 s while the
# records keep their interval, and a note about it is recorded; a hook that
# exits 3 on the GPU's loss is a note naming the status and its stderr; the
# hooks' thread makes no wake-ups while nothing runs; SIGTERM ends gpur at
# once and its running hooks with it; in the dashboard a hook's output never
# reaches the screen, and its failure shows on the events line.
. "$(dirname "$0")/tui_lib.sh" || exit 1

scenario "$T/xid.json" <<JSON
{"gpus":[{"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-h0","util":10,"mem_total":1,"mem_used":0,
  "xid":[{"poll":3,"xid":31}],"lost_at_poll":12}]}
JSON

# alive PID: the process exists and is not a zombie.
alive() { [ -r "/proc/$1/stat" ] && ! awk '{ sub(/.*\) /, ""); exit !($1 == "Z") }' "/proc/$1/stat" 2> /dev/null; }

# 1. A hang, a failure, the interval kept, no idle wake-ups.
HOOK="case \$GPUR_EVENT in xid) echo \$\$ > '$T/hang.pid'; sleep 1000 & echo \$! > '$T/kid.pid'; wait;;
 *) echo \"oops \$GPUR_EVENT\" >&2; exit 3;; esac"
GPUR_NVML_LIBRARY=$(fake modern) FAKE_NVML_SCENARIO=$T/xid.json "$GPUR" --backend nvml --headless --interval 0.2 \
	--log "$T/log.jsonl" --on-event "$HOOK" --on-event-kinds xid,gpu_lost < /dev/null > "$T/out" 2> "$T/err" &
G=$!
check "the XID's hook starts" wait_until 20 test -s "$T/kid.pid"
HPID=$(cat "$T/hang.pid")
KPID=$(cat "$T/kid.pid")
check "the hook hangs" alive "$HPID"
check "the hook is killed after 10 s, with a note in the log" \
	wait_until 30 grep -q 'the hook for xid was killed after 10 s (timeout)' "$T/log.jsonl"
check "the hook's process is gone" sh -c "! kill -0 $HPID 2> /dev/null"
check "the process it started is gone too" wait_until 5 sh -c "! { [ -r /proc/$KPID/stat ] && ! grep -q ') Z ' /proc/$KPID/stat; }"
check "the failing hook's note in the log" \
	wait_until 10 grep -q 'the hook for gpu_lost exited with status 3: oops gpu_lost' "$T/log.jsonl"
python3 - "$T/log.jsonl" > "$T/timing" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ts = [r["ts_ms"] for r in recs]
def first(pred):
    return next(r["ts_ms"] for r in recs for e in r.get("events", []) if pred(e))
xid = first(lambda e: e.get("kind") == "xid")
kill = first(lambda e: "killed after 10 s" in e.get("detail", ""))
print("gap", max(b - a for a, b in zip(ts, ts[1:])))
print("kill", kill - xid)
PY
gap=$(awk '$1 == "gap" { print $2 }' "$T/timing")
after=$(awk '$1 == "kill" { print $2 }' "$T/timing")
check "records every 0.2 s while the hook hangs (largest gap ${gap} ms)" test "$gap" -le 600
check "the kill's note comes 10 s after the XID (${after} ms)" test "$after" -ge 10000 -a "$after" -le 12500
check "headless, the notes are on stderr too" grep -q '^gpur: --on-event: the hook for xid was killed after 10 s' "$T/err"
check "headless, the hook's stderr is on gpur's" grep -q '^oops gpu_lost$' "$T/err"
# Idle, the hooks' thread sleeps without a timer: no context switch in a
# second of polls.
tid=""
for t in /proc/"$G"/task/*; do
	[ "$(cat "$t/comm" 2> /dev/null)" = gpur-hooks ] && tid=${t##*/}
done
switches() { awk '/ctxt_switches/ { n += $2 } END { print n }' "/proc/$G/task/$tid/status"; }
if [ -n "$tid" ]; then
	before=$(switches)
	sleep 1 # a measurement of the idle thread, not a wait for a condition
	check "the idle hooks' thread does not wake ($before, then $(switches) switches)" test "$(switches)" -eq "$before"
else
	fail "no thread named gpur-hooks"
fi
kill -TERM "$G"
check "gpur ends at once on SIGTERM" wait_until 3 sh -c "! kill -0 $G 2> /dev/null"
wait "$G"
RC=$?
expect_rc 0 "live hooks: SIGTERM is a clean stop"

# 2. SIGTERM while a hook runs: the hook's group gets SIGTERM with gpur.
rm -f "$T/hang.pid" "$T/kid.pid"
GPUR_NVML_LIBRARY=$(fake modern) FAKE_NVML_SCENARIO=$T/xid.json "$GPUR" --backend nvml --headless --interval 0.2 \
	--on-event "$HOOK" --on-event-kinds xid < /dev/null > "$T/out" 2> "$T/err" &
G=$!
check "a running hook" wait_until 20 test -s "$T/kid.pid"
HPID=$(cat "$T/hang.pid")
KPID=$(cat "$T/kid.pid")
kill -TERM "$G"
check "gpur ends within 3 s of SIGTERM, with a hook running" wait_until 3 sh -c "! kill -0 $G 2> /dev/null"
wait "$G"
RC=$?
expect_rc 0 "SIGTERM with a running hook"
check "the running hook ended with gpur" sh -c "! kill -0 $HPID 2> /dev/null"
check "and the process it started" wait_until 5 sh -c "! { [ -r /proc/$KPID/stat ] && ! grep -q ') Z ' /proc/$KPID/stat; }"
check "no note for hooks ended by the stop" sh -c "! grep -q 'the hook for' '$T/err'"

# 3. The dashboard: the hook's output goes nowhere, its failure shows.
tui_start 200 50 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/xid.json" -- --backend nvml --interval 0.2 \
	--on-event 'echo HOOK-STDOUT; echo HOOK-STDERR >&2; exit 3' --on-event-kinds xid
expect_screen "the hook for xid exited with status 3: HOOK-STDERR" "the events line shows the failed hook"
expect_not_now "HOOK-STDOUT" "the hook's stdout is not on the screen"
expect_not_now "^HOOK-STDERR" "the hook's stderr is not on the screen"
tui_stop
finish
