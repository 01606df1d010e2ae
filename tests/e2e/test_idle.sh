# test_idle: idle GPU-memory holders, live, on the virtual clock, with the
# fake NVML and real processes. Two sleepers hold 4 GiB and 2 GiB on a busy
# GPU; the first reports 0 % of its own for six polls and then works, the
# second stays at 0 % until its listing ends. With --idle-after 3m at
# --interval 60, each gets one idle event when its quiet stretch reaches
# 3 minutes, the dashboard marks it (IDLE column, IDLE-MEM per user when
# grouped), and one active event follows when the first works again and the
# second exits; never an event per poll.
. "$(dirname "$0")/tui_lib.sh" || exit 1

spawn_sleeper
A=$SLEEPER
spawn_sleeper
B=$SLEEPER
zeros() { printf '0'; for _ in $(seq 2 "$1"); do printf ',0'; done; }
# Polls 0..6 at 0 %, then 50 % (the array cycles: long enough not to).
A_SM="[$(zeros 7)$(for _ in $(seq 40); do printf ',50'; done)]"
scenario "$T/idle.json" <<JSON
{"driver":"550.54.15","gpus":[$(gpu_json 0 "Fake H100 0" ",\"processes\":[{\"pid\":$A,\"type\":\"compute\",\"mem\":4294967296,\"sm\":$A_SM},{\"pid\":$B,\"type\":\"compute\",\"mem\":2147483648,\"sm\":0,\"polls\":[0,11]}]")]}
JSON
L=$T/log.jsonl
nrec() { if [ -f "$L" ]; then lines "$L"; else echo 0; fi; }
nrec_at_least() { [ "$(nrec)" -ge "$1" ]; }

tui_start 160 30 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/idle.json" \
	GPUR_VIRTUAL_CLOCK_MS=1700000000000 -- --backend nvml --interval 60 --count 16 --idle-after 3m --log "$L"
expect_screen 'PAUSED' "the dashboard starts paused on the virtual clock"
keys . .
check "two polls" wait_until 10 nrec_at_least 2
expect_not_now ' IDLE ' "no IDLE column while nobody is idle"
keys . . .
check "five polls" wait_until 10 nrec_at_least 5
expect_screen ' IDLE' "the IDLE column shows once someone is idle"
expect_screen "^ +$A .* 4m " "the first sleeper is marked idle 4m (quiet since the first poll)"
expect_screen "^ +$B .* 4m " "the second too"
keys g
expect_screen 'IDLE-MEM' "grouping shows idle memory"
keys g g g g
wait_screen_gone 'IDLE-MEM' 5 || true
keys Space
tui_wait_exit 30
check "gpur ended at --count" test "$RC" = 0

python3 - "$L" "$A" "$B" > "$T/events.txt" 2>&1 << 'PY'
import json, sys
a, b = int(sys.argv[2]), int(sys.argv[3])
recs = [json.loads(l) for l in open(sys.argv[1])]
first = recs[0]["ts_ms"]
for r in recs:
    for e in r.get("events", []):
        if e["kind"] in ("idle", "active"):
            print(e["kind"], e["pid"], (r["ts_ms"] - first) // 60000, e.get("detail", ""))
PY
cat "$T/events.txt" >&2
count() { grep -c "^$1 $2 " "$T/events.txt"; }
check "one idle event for the first sleeper" test "$(count idle "$A")" = 1
check "one idle event for the second" test "$(count idle "$B")" = 1
check "one active event for the first, when it works again" test "$(count active "$A")" = 1
check "one active event for the second, when it exits" test "$(count active "$B")" = 1
check "idle when the quiet stretch reaches 3 minutes (the fourth record)" grep -q "^idle $A 3 sleep (root) holds 4.0 GiB at 0% GPU for 3m" "$T/events.txt"
check "the first works again at its seventh poll" grep -Eq "^active $A [0-9]+ .*works again after idle" "$T/events.txt"
check "the second exited" grep -Eq "^active $B [0-9]+ .*exited after idle" "$T/events.txt"
check "the events name the GPU" test "$(get "$L" 4 events.0.device_id)" = "GPU-00000000-0000-0000-0000-000000000000"

# The exporter, behind a replay, which computes the same from the
# recording: a process idle at the end has gpur_process_idle_seconds, the
# others none, and gpur_idle_memory_bytes sums each GPU's idle ones.
. "$(dirname "$0")/serve_lib.sh"
python3 - "$T/rec.jsonl" << 'PY'
import json, sys
out = open(sys.argv[1], "w")
for i in range(40):
    procs = [{"pid": 10, "gpu_index": 0, "name": "nb", "user": "bob", "start_ms": 1, "gpu_mem_bytes": 6 << 30,
              "gpu_util_pct": 0 if i >= 5 else 20},
             {"pid": 11, "gpu_index": 0, "name": "train", "user": "amy", "start_ms": 2, "gpu_mem_bytes": 8 << 30,
              "gpu_util_pct": 90},
             {"pid": 12, "gpu_index": 1, "name": "other", "user": "cy", "start_ms": 3, "gpu_mem_bytes": 3 << 30,
              "gpu_util_pct": 0 if i >= 30 else 5}]
    out.write(json.dumps({"schema": 1, "ts_ms": 1764583200000 + i * 60000, "host": "h", "backend": "nvml",
                          "gpus": [{"name": "G", "device_id": "GPU-a", "state": "ok", "util_pct": 50},
                                   {"name": "G", "device_id": "GPU-b", "state": "ok", "util_pct": 0}],
                          "processes": procs}) + "\n")
PY
start_exporter rep -- --replay "$T/rec.jsonl" --headless --idle-after 10m
check "the replay's last frame is served" wait_until 20 sh -c "curl -s http://$ADDR/metrics | grep -q gpur_idle_memory_bytes"
http_get "http://$ADDR/metrics" > "$T/m.prom"
check "the idle process has gpur_process_idle_seconds: 34 min (quiet since the sixth record)" \
	grep -Eq '^gpur_process_idle_seconds\{[^}]*pid="10"[^}]*\} 2040$' "$T/m.prom"
check "the busy one and the one quiet for 9 min have none" \
	test "$(grep -c '^gpur_process_idle_seconds{' "$T/m.prom")" = 1
check "GPU 0: 6 GiB held idle" grep -Eq '^gpur_idle_memory_bytes\{gpu="0",UUID="GPU-a"[^}]*\} 6442450944$' "$T/m.prom"
check "GPU 1: none held idle, a known 0" grep -Eq '^gpur_idle_memory_bytes\{gpu="1",UUID="GPU-b"[^}]*\} 0$' "$T/m.prom"
stop_all
finish
