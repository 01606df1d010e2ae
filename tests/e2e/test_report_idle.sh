#!/bin/bash
# test_report_idle.sh: the report's idle figures (docs/report.md) against
# the independent oracle, from a recording made here: a notebook holding
# 6 GiB at 0 % that goes idle and works again, one idle until it exits,
# one quiet that works before the threshold (never idle), one whose own
# utilisation is unknown on a GPU at 0 % (idle by its GPU's) and one on a
# busy GPU (never), one below --idle-mem, and a gap of 20 minutes that
# starts a quiet stretch again; with the default options, other options,
# and --gpus. The HTML has the #idle tables, and the events the report
# lists are the computed ones, not a recording's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"

python3 - "$T/idle.jsonl" << 'PY'
import json, sys
t0 = 1764583200000
out = open(sys.argv[1], "w")
def rec(i, t):
    gpus = [{"name": "G", "device_id": "GPU-a", "state": "ok", "util_pct": 0 if i < 80 else 40},
            {"name": "G", "device_id": "GPU-b", "state": "ok", "util_pct": 0},
            {"name": "G", "device_id": "GPU-c", "state": "ok", "util_pct": 70}]
    procs = [{"pid": 10, "gpu_index": 0, "name": "jupyter", "user": "bob", "container": "docker:nb1", "start_ms": 5,
              "gpu_mem_bytes": 6 << 30, "gpu_util_pct": 0 if i < 60 else 30}]
    if i < 70:
        procs.append({"pid": 11, "gpu_index": 1, "name": "stale", "user": "amy", "start_ms": 6,
                      "gpu_mem_bytes": (2 << 30) + i * 1000})
    procs.append({"pid": 12, "gpu_index": 0, "name": "bursty", "user": "amy", "start_ms": 7,
                  "gpu_mem_bytes": 3 << 30, "gpu_util_pct": 0 if i % 20 < 15 else 5})
    procs.append({"pid": 13, "gpu_index": 2, "name": "busy-gpu", "user": "cy", "start_ms": 8, "gpu_mem_bytes": 4 << 30})
    procs.append({"pid": 14, "gpu_index": 1, "name": "small", "user": "cy", "start_ms": 9, "gpu_mem_bytes": 1 << 20,
                  "gpu_util_pct": 0})
    events = [{"kind": "idle", "detail": "a recorded one, which the report drops", "pid": 99}] if i == 3 else []
    return {"schema": 1, "ts_ms": t, "host": "h", "backend": "nvml", "gpus": gpus, "processes": procs,
            "events": events}
t = t0
for i in range(120):
    out.write(json.dumps(rec(i, t)) + "\n")
    t += 60000 if i != 90 else 20 * 60000
PY

run --replay "$T/idle.jsonl" --report "$T/d.json"
expect_rc 0 "--report with the default idle options"
check "defaults: the oracle agrees" python3 "$SOURCE_DIR/tests/e2e/report_oracle.py" "$T/idle.jsonl" "$T/d.json"
check "defaults: the notebook and the stale process were idle, with their GiB*h" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
idle = {p["pid"]: p for p in d["processes"] if "idle_gib_h" in p}
sys.exit(not (set(idle) == {10, 11} and idle[10]["idle_gib_h"] > 0 and idle[11]["idle_gib_h"] > 0))' "$T/d.json"
check "defaults: the recorded idle event is dropped, and the computed ones are listed" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["events"] if e["kind"] in ("idle", "active")]
kinds = sorted((e["kind"], e["pid"]) for e in ev)
sys.exit(not (kinds == [("active", 10), ("active", 11), ("idle", 10), ("idle", 11)]
              and all("recorded" not in e.get("detail", "") for e in ev)))' "$T/d.json"

run --replay "$T/idle.jsonl" --report "$T/o.json" --idle-after 10m --idle-mem 2G
expect_rc 0 "--report with --idle-after 10m --idle-mem 2G"
check "10m and 2G: the oracle agrees" python3 "$SOURCE_DIR/tests/e2e/report_oracle.py" "$T/idle.jsonl" "$T/o.json" \
	--idle-mem $((2 << 30)) --idle-after 600000
check "10m: the bursty process (15 min quiet) is idle too" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not any(p["pid"] == 12 and "idle_gib_h" in p for p in d["processes"]))' "$T/o.json"

run --replay "$T/idle.jsonl" --report "$T/g.json" --gpus 1,2 --idle-after 10m
expect_rc 0 "--report --gpus 1,2"
check "--gpus 1,2: the oracle agrees" python3 "$SOURCE_DIR/tests/e2e/report_oracle.py" "$T/idle.jsonl" "$T/g.json" \
	--gpus 1,2 --idle-after 600000

run --replay "$T/idle.jsonl" --report "$T/d.html"
expect_rc 0 "--report OUT.html"
python3 "$DOM_PY" dom "$T/d.html" > "$T/facts"
check "#idle lists the two idle processes" [ "$(fact "$T/facts" 'rows idle')" -eq 2 ]
check "#idle-groups lists their users and container" [ "$(fact "$T/facts" 'rows idle-groups')" -eq 3 ]
finish
