# test_hooks: --on-event on a replay. A hook gets the event object with the
# record's host and ts_ms as one JSON line on stdin, compared field by field
# with an independent parse of the recording, GPUR_EVENT, GPUR_GPU and
# GPUR_PID (absent when the event names none, whatever gpur's environment
# held) and no descriptor but 0, 1 and 2; --on-event-kinds chooses; a replay
# waits for its hooks at the end; a failing hook is a note naming its
# status; a flood runs at most 4 hooks at once, drops the rest with one note,
# stays small and ends cleanly on SIGTERM, hooks and all; usage errors.
. "$(dirname "$0")/lib.sh" || exit 1

# 1. The line and the variables.
cat > "$T/rec.jsonl" <<'EOF'
{"schema":1,"ts_ms":1000,"host":"node-1","gpus":[{"name":"A","device_id":"GPU-a","state":"ok"},{"name":"B","device_id":"GPU-b","state":"ok"}],"processes":[]}
{"schema":1,"ts_ms":2000,"host":"node-1","gpus":[{"name":"A","device_id":"GPU-a","state":"ok"},{"name":"B","device_id":"GPU-b","state":"lost"}],"processes":[],"events":[{"kind":"gpu_lost","gpu_index":1,"device_id":"GPU-b","backend":"nvml"}]}
{"schema":1,"ts_ms":3000,"host":"node-\"1\"","gpus":[{"name":"A","device_id":"GPU-a","state":"ok"}],"processes":[],"events":[{"kind":"xid","gpu_index":0,"device_id":"GPU-a","backend":"nvml","xid":79,"detail":"XID 79: fell off\nthe bus \u0007 \u00e9 $(id) `id`"},{"kind":"signal","pid":4242,"signal":"SIGTERM","result":"sent","detail":"SIGTERM sent to pid 4242"},{"kind":"note","detail":"not for hooks by default"}]}
{"schema":1,"ts_ms":4000,"gpus":[],"processes":[],"events":[{"kind":"mys\u0007tery\u001b[31m","detail":"a kind gpur does not know"}]}
EOF
# The hook: python, exec'd by the shell, notes the descriptors it was
# given, then writes what it got to a file of its own pid.
cat > "$T/hook.py" <<'EOF'
import json, os, sys
fds = []
for fd in range(1024):
    try:
        os.fstat(fd)
        fds.append(str(fd))
    except OSError:
        pass
raw = sys.stdin.buffer.read()
env = {k: os.environ[k] for k in ("GPUR_EVENT", "GPUR_GPU", "GPUR_PID", "HOOK_TEST_KEPT") if k in os.environ}
with open(os.path.join(sys.argv[1], "got.%d" % os.getpid()), "w") as f:
    json.dump({"stdin": raw.decode("utf-8", "surrogateescape"), "env": env, "fds": fds}, f)
EOF
mkdir -p "$T/got"
HOOK="exec python3 '$T/hook.py' '$T/got'"

# check_got KINDS WHAT: the hooks' captures equal, one for one, the events
# of the recording whose kind is in KINDS (a Python set expression).
check_got() {
	python3 - "$T/rec.jsonl" "$T/got" "$1" > "$T/check" 2>&1 <<'PY'
import json, os, sys
rec, got, kinds = sys.argv[1], sys.argv[2], eval(sys.argv[3])
want = []
for line in open(rec):
    r = json.loads(line)
    for e in r.get("events", []):
        if e["kind"] in kinds:
            w = dict(e)
            if "host" in r: w["host"] = r["host"]
            w["ts_ms"] = r["ts_ms"]
            want.append(w)
caps = []
for name in os.listdir(got):
    if name.startswith("got."):
        caps.append(json.load(open(os.path.join(got, name))))
bad = []
if len(caps) != len(want):
    bad.append("%d hooks ran for %d events" % (len(caps), len(want)))
for w in want:
    match = [c for c in caps if json.loads(c["stdin"]) == w]
    if len(match) != 1:
        bad.append("no hook got %r" % w); continue
    c = match[0]
    if not c["stdin"].endswith("\n") or c["stdin"].count("\n") != 1:
        bad.append("not one line: %r" % c["stdin"])
    env = c["env"]
    kind = "".join(ch for ch in w["kind"] if not (ord(ch) < 32 or 127 <= ord(ch) < 160))
    if env.get("GPUR_EVENT") != kind:
        bad.append("GPUR_EVENT %r for %r" % (env.get("GPUR_EVENT"), w["kind"]))
    for var, key in (("GPUR_GPU", "gpu_index"), ("GPUR_PID", "pid")):
        if env.get(var) != (str(w[key]) if key in w else None):
            bad.append("%s %r for %r" % (var, env.get(var), w))
    if env.get("HOOK_TEST_KEPT") != "yes":
        bad.append("the environment was not passed on")
    if sorted(c["fds"]) != ["0", "1", "2"]:
        bad.append("descriptors %s" % c["fds"])
print("\n".join(bad) or "ok")
PY
	if [ "$(cat "$T/check")" = ok ]; then ok; else
		fail "$2: $(head -c 1500 "$T/check")"
	fi
	rm -f "$T/got/"*
}

hook_run() {
	HOOK_TEST_KEPT=yes GPUR_GPU=77 GPUR_PID=88 "$GPUR" "$@" < /dev/null > "$T/out" 2> "$T/err"
	RC=$?
}
hook_run --replay "$T/rec.jsonl" --headless --on-event "$HOOK"
expect_rc 0 "default kinds: runs"
check_got '{"gpu_lost", "xid", "signal"}' "default kinds: gpu_lost, xid and signal, each once, line and variables"
check "default kinds: nothing on stderr" test ! -s "$T/err"
hook_run --replay "$T/rec.jsonl" --json --on-event "$HOOK" --on-event-kinds all
expect_rc 0 "all: runs"
check_got '{"gpu_lost", "xid", "signal", "note", "mys\x07tery\x1b[31m"}' "all: every event, the unknown kind's GPUR_EVENT without controls"
check "--json: the records are the recording's" cmp -s "$T/out" <("$GPUR" --replay "$T/rec.jsonl" --json)
hook_run --replay "$T/rec.jsonl" --headless --on-event "$HOOK" --on-event-kinds lost
check_got '{"gpu_lost"}' "lost: gpu_lost only"
hook_run --replay "$T/rec.jsonl" --headless --on-event "$HOOK" --on-event-kinds note,xid
check_got '{"note", "xid"}' "note,xid"

# 2. At the end of a replay gpur waits for its hooks: six events, four at a
# time, each 0.3 s, all done when gpur exits.
{
	for i in 1 2 3 4 5 6; do
		printf '{"ts_ms":%d,"gpus":[],"processes":[],"events":[{"kind":"xid","xid":%d}]}\n' "$i" "$i"
	done
} > "$T/six.jsonl"
run --replay "$T/six.jsonl" --headless --on-event "sleep 0.3; echo \$GPUR_EVENT >> '$T/six.done'"
expect_rc 0 "six hooks: runs"
check "the replay waited for its six hooks" test "$(lines "$T/six.done")" -eq 6

# 3. Failing hooks become notes naming the status, with their stderr;
# headless their output is on gpur's stderr, never on stdout.
run --replay "$T/rec.jsonl" --json --on-event-kinds xid \
	--on-event 'echo "stdout of the hook"; echo "no route to $GPUR_EVENT" >&2; exit 3'
expect_rc 0 "a failing hook: gpur's status stays 0"
expect_stderr_contains "gpur: --on-event: the hook for xid exited with status 3: no route to xid" "exit 3: a note"
expect_stderr_contains "stdout of the hook" "the hook's stdout on gpur's stderr"
# The hook's note may land in a record if the hook fails before the replay
# writes its last one (that is a note's place); anything else the records
# hold is the recording's, and the hook's own output is never among it.
check "the hook's output is not in the records" sh -c "! grep -q 'stdout of the hook' '$T/out'"
without_hook_notes() {
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "events" in r:
        r["events"] = [e for e in r["events"] if not (e["kind"] == "note" and e.get("detail", "").startswith("--on-event:"))]
    print(json.dumps(r, sort_keys=True))' "$1"
}
"$GPUR" --replay "$T/rec.jsonl" --json > "$T/plain"
check "the records are the recording's but for the hook's note" \
	cmp -s <(without_hook_notes "$T/out") <(without_hook_notes "$T/plain")
# A SIGCHLD ignored by gpur's parent would let the kernel reap the hooks
# unread; gpur takes the default back.
python3 -c 'import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])' \
	"$GPUR" --replay "$T/rec.jsonl" --headless --on-event-kinds xid --on-event 'exit 3' < /dev/null > "$T/out" 2> "$T/err"
expect_stderr_contains "gpur: --on-event: the hook for xid exited with status 3" "SIGCHLD ignored: the status is still read"
run --replay "$T/rec.jsonl" --headless --on-event-kinds lost --on-event 'kill -KILL $$'
expect_stderr_contains "gpur: --on-event: the hook for gpu_lost was killed by SIGKILL" "a signal: a note"
run --replay "$T/rec.jsonl" --headless --on-event-kinds lost --on-event "'$T/no such hook'"
expect_stderr_contains "gpur: --on-event: the hook for gpu_lost exited with status 127: " "not found: a note"

# 4. A flood: 2,000 events, hooks of 1 s. At most 4 run at once (each
# notes its start and end under a lock), the queue keeps 256 and one note
# counts the dropped, memory stays small, and SIGTERM ends gpur and its
# hooks at once.
python3 -c '
for r in range(20):
    ev = ",".join("{\"kind\":\"xid\",\"gpu_index\":0,\"xid\":%d}" % (r * 100 + i) for i in range(100))
    print("{\"ts_ms\":%d,\"gpus\":[{\"name\":\"A\"}],\"processes\":[],\"events\":[%s]}" % (r + 1, ev))
' > "$T/flood.jsonl"
cat > "$T/flood.sh" <<EOF
#!/bin/sh
exec 9>> '$T/flood.lock'
flock 9; echo "start \$\$" >> '$T/flood.log'; flock -u 9
sleep 1
flock 9; echo "end \$\$" >> '$T/flood.log'; flock -u 9
EOF
chmod +x "$T/flood.sh"
"$GPUR" --replay "$T/flood.jsonl" --headless --on-event "exec '$T/flood.sh'" < /dev/null > "$T/out" 2> "$T/err" &
G=$!
check "a flood: eight hooks end, in two rounds" wait_until 60 sh -c "test \$(cat '$T/flood.log' 2> /dev/null | grep -c '^end') -ge 8"
hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$G/status")
kill -TERM "$G"
check "a flood: gpur ends within 3 s of SIGTERM" wait_until 3 sh -c "! kill -0 $G 2> /dev/null"
wait "$G"
RC=$?
expect_rc 0 "a flood: SIGTERM is a clean stop"
python3 - "$T/flood.log" > "$T/flood.check" <<'PY'
import sys
run = most = 0
for l in open(sys.argv[1]):
    run += 1 if l.startswith("start") else -1
    most = max(most, run)
print(most)
PY
most=$(cat "$T/flood.check")
check "a flood: at most 4 hooks at once (the most was $most)" test "$most" -le 4 -a "$most" -ge 2
# Each hook exec'd its script, so its pid is its process group's. A
# process of the group that is a zombie has ended, reaped or not by init.
left=""
for p in $(awk '$1 == "start" { print $2 }' "$T/flood.log"); do
	ps -o stat= -g "$p" | grep -qv '^Z' && left="$left $p"
done
check "a flood: no hook left running ($left)" test -z "$left"
dropped=$(sed -n 's/^gpur: --on-event: \([0-9]*\) events dropped, with 256 waiting for a hook already$/\1/p' "$T/err")
notrun=$(sed -n 's/^gpur: --on-event: \([0-9]*\) waiting events not run: gpur is stopping$/\1/p' "$T/err")
starts=$(grep -c '^start' "$T/flood.log")
check "a flood: one note counts the dropped events ($(grep -c dropped "$T/err") notes)" \
	test "$(grep -c 'events dropped' "$T/err")" -eq 1 -a -n "$dropped"
check "a flood: dropped $dropped + not run $notrun + started $starts (+ up to 4 killed before their start line) = 2000" \
	test $((2000 - dropped - notrun - starts)) -ge 0 -a $((2000 - dropped - notrun - starts)) -le 4
check "a flood: no note per dropped event" test "$(wc -l < "$T/err")" -le 3
if grep -qaE '__(asan|tsan|msan)_init' "$GPUR"; then
	skip "a flood: peak RSS ($GPUR is built with a sanitizer)"
else
	check "a flood: peak RSS ${hwm} KiB under 64 MiB" test "${hwm:-999999}" -lt 65536
fi

# 5. Usage errors.
run --on-event-kinds xid
expect_rc 2 "--on-event-kinds alone"
expect_one_gpur_line "--on-event-kinds alone"
expect_stderr_contains "--on-event-kinds needs --on-event CMD" "--on-event-kinds alone: says what it needs"
run --on-event true --on-event-kinds xid,bogus
expect_rc 2 "an unknown kind"
expect_stderr_contains "gpur: --on-event-kinds: unknown kind 'bogus' (known: all, lost, back, gpu_lost, gpu_back, backend_lost, backend_back, xid, idle, active, signal, note)" "an unknown kind: named, the kinds listed"
run --on-event true --on-event-kinds 'xid,'
expect_rc 2 "an empty item"
expect_one_gpur_line "an empty item"
run --on-event ''
expect_rc 2 "an empty command"
expect_stderr_contains "gpur: --on-event: empty command" "an empty command: said"
run --on-event true --once
expect_rc 2 "--on-event with --once"
expect_stderr_contains "--on-event cannot be combined with --once" "--on-event with --once: said"
run --replay "$T/rec.jsonl" --report "$T/r.html" --on-event true
expect_rc 2 "--on-event with --report"
expect_stderr_contains "--on-event cannot be combined with --report" "--on-event with --report: said"
run --help
expect_stdout_contains "--on-event CMD" "--help lists --on-event"
expect_stdout_contains "--on-event-kinds LIST" "--help lists --on-event-kinds"
finish
