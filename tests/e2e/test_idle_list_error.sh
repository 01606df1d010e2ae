# test_idle_list_error: a process list that fails for a moment is not an
# exit. NVML answers a process-list call with an error now and then (UNKNOWN
# here, as a real driver under load can); the GPU's rows are then missing,
# not gone. Live on the virtual clock with the fake NVML and real processes:
# two sleepers hold memory at 0 % on two GPUs; GPU 0's list fails for two
# polls in the middle of the run, GPU 1's from the tenth poll to the end.
# Each sleeper becomes idle once and never gets an `active` event, and the
# first one's quiet stretch goes on through the failed polls; the failed
# polls' records say "processes_unknown"; a replay of the recording says the
# same; and the exporter behind the replay, whose last frame has GPU 1's list
# failed, serves GPU 0's idle memory and none for GPU 1 (unknown, not 0).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
. "$(dirname "$0")/serve_lib.sh"

export GPUR_VIRTUAL_CLOCK_MS=1700000000000
spawn_sleeper
A=$SLEEPER
spawn_sleeper
B=$SLEEPER
gpu() { # INDEX PID MEM ERRORS_AT
	printf '{"name":"Fake H100 %d","uuid":"GPU-%d","util":50,"mem_total":85899345920,"mem_used":8589934592,' "$1" "$1"
	printf '"processes":[{"pid":%d,"type":"compute","mem":%d,"sm":0}],"errors_at":{"processes":%s}}' "$2" "$3" "$4"
}
scenario "$T/s.json" << JSON
{"driver":"550.54.15","gpus":[$(gpu 0 "$A" 4294967296 "[7,9,999]"),$(gpu 1 "$B" 2147483648 "[10,1000,999]")]}
JSON
nvml modern "$T/s.json" --interval 60 --count 14 --idle-after 3m --log "$T/rec.jsonl" --json
expect_rc 0 "14 polls"
check "14 records" test "$(lines "$T/rec.jsonl")" = 14

# summary FILE: one line per record: the record's number, whether each GPU's
# list was unknown (u) or not (-), the pids listed, and its idle and active
# events as KIND:PID.
summary() {
	python3 - "$1" << 'PY'
import json, sys
for n, line in enumerate(open(sys.argv[1]), 1):
    r = json.loads(line)
    unk = "".join("u" if g.get("processes_unknown") is True else "-" for g in r["gpus"])
    pids = ",".join(str(p["pid"]) for p in r.get("processes", []))
    ev = " ".join("%s:%s" % (e["kind"], e.get("pid")) for e in r.get("events", []) if e["kind"] in ("idle", "active"))
    print(n, unk, pids or "none", ev)
PY
}
summary "$T/rec.jsonl" > "$T/live.txt"
sed 's/^/  live: /' "$T/live.txt" >&2
check "GPU 0's list failed in some polls in the middle, and only there" \
	awk '$2 ~ /^u/ { u++; if (NR < 3 || NR > 12) bad = 1 } END { exit !(u >= 1 && !bad) }' "$T/live.txt"
check "its sleeper is missing exactly where the list failed" \
	awk -v a="$A" '{ listed = index("," $3 ",", "," a ",") > 0; if (listed == ($2 ~ /^u/)) bad = 1 } END { exit bad }' "$T/live.txt"
check "GPU 1's list fails from some poll to the end" \
	awk '{ u = $2 ~ /^.u/; if (seen && !u) bad = 1; if (u) seen = 1 } END { exit !(seen && !bad) }' "$T/live.txt"
check "a record whose lists answered has no processes_unknown key at all" \
	sh -c "! sed -n 1p '$T/rec.jsonl' | grep -q processes_unknown"
check "one idle event for each sleeper" \
	test "$(grep -o "idle:$A" "$T/live.txt" | wc -l)$(grep -o "idle:$B" "$T/live.txt" | wc -l)" = 11
notes=$(grep -o '"detail":"nvml: GPU [01].s process list failed ([^"]*); its processes are unknown in such polls"' "$T/rec.jsonl" | sort | uniq -c | awk '{ print $1 }' | tr '\n' ' ')
check "one note per GPU says its list failed, and why, not one per failed poll ($notes)" test "$notes" = "1 1 "
check "no active event: a failed list is not an exit" sh -c "! grep -q active: '$T/live.txt'"

# The replay computes the same from the recording.
env -u GPUR_VIRTUAL_CLOCK_MS "$GPUR" --replay "$T/rec.jsonl" --json --idle-after 3m > "$T/replayed.jsonl" 2> "$T/replay.err"
expect_rc 0 "the replay"
summary "$T/replayed.jsonl" > "$T/replay.txt"
check "the replay gives the same lists and events" cmp -s "$T/live.txt" "$T/replay.txt"

# The exporter behind the replay serves the last frame: GPU 1's list failed.
unset GPUR_VIRTUAL_CLOCK_MS
start_exporter rep -- --replay "$T/rec.jsonl" --headless --idle-after 3m
check "the replay's last frame is served" \
	wait_until 20 sh -c "curl -s http://$ADDR/metrics | grep -q '^gpur_idle_memory_bytes'"
http_get "http://$ADDR/metrics" > "$T/m.prom"
check "GPU 0: 4 GiB held idle" grep -Eq '^gpur_idle_memory_bytes\{gpu="0",UUID="GPU-0"[^}]*\} 4294967296$' "$T/m.prom"
check "the first sleeper's stretch went on through its GPU's failed polls: idle 13 min at the last record" \
	grep -Eq "^gpur_process_idle_seconds\\{[^}]*pid=\"$A\"[^}]*\\} 780$" "$T/m.prom"
check "GPU 1, whose list failed: no idle memory series, unknown rather than 0" \
	sh -c "! grep -q '^gpur_idle_memory_bytes{gpu=\"1\"' '$T/m.prom'"
check "no series for a processes_unknown field" sh -c "! grep -qi 'processes_unknown' '$T/m.prom'"
stop_all
finish
