#!/bin/bash
# test_report_hostile.sh: hostile recordings give a valid report: markup,
# quotes, script ends, control characters, bidi overrides and invalid UTF-8
# in every string (host, backend, driver, GPU names and ids, process names,
# users, containers, pods, event texts), huge numbers, a line over 8 MiB and
# a torn last line. The HTML parses, shows the strings as text (a process
# named <img src=x onerror=alert(1)> is those characters, never an element)
# and the JSON parses with python3's json module.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"

python3 - "$T/hostile.jsonl" << 'PY'
import json, sys
bad = "<img src=x onerror=alert(1)>"
evil = [bad, "</script><script>alert(2)</script>", "\"'><svg onload=alert(3)>", "]]><!--", "a\u202eb\u200bc",
        "\u0001\u001b[31m\u007f", "&amp;&lt;", "\\u0000"]
out = open(sys.argv[1], "wb")
for i in range(30):
    s = evil[i % len(evil)]
    rec = {"schema": 1, "ts_ms": 1764583200000 + i * 1000, "host": s, "backend": s, "driver": s,
           "gpus": [{"name": s, "device_id": evil[k] + str(k), "state": "lost" if i > 20 else "ok",
                     "util_pct": 50, "mem_used_bytes": 1e18, "energy_j": 1e300 if i % 2 else 0,
                     "power_w": 1e6, "temp_c": 1000, "throttle": ["hw_slowdown", s]} for k in (0, 2)],
           "processes": [{"pid": 4242, "gpu_index": 0, "name": bad, "user": s, "container": s, "pod": s,
                          "pod_name": s, "pod_namespace": s, "cmdline": s, "gpu_mem_bytes": 8e18,
                          "gpu_util_pct": 100, "start_ms": 1}],
           "events": [{"kind": s, "detail": s, "gpu_index": 0, "backend": s}]}
    line = json.dumps(rec, ensure_ascii=False).encode()
    if i % 3 == 0:  # raw invalid UTF-8 inside the strings
        line = line.replace(b"<img", b"\xff\xfe<img").replace(b"]]>", b"\xc3(]]>")
    out.write(line + b"\n")
    if i == 10:
        out.write(b'{"ts_ms":1764583210500,"host":"' + b"x" * (9 << 20) + b'"}\n')  # over 8 MiB
    if i == 11:
        out.write(b"\x00\x01garbage {\n")
out.write(b'{"schema":1,"ts_ms":1764583299000,"gpus":[{"name":"torn')  # torn last line
PY

run --replay "$T/hostile.jsonl" --report "$T/h.json"
expect_rc 0 "--report OUT.json of a hostile recording"
check "the JSON parses (strict: no NaN or Infinity), in valid UTF-8" python3 -c '
import json, sys
def no(c): raise ValueError(c)
json.loads(open(sys.argv[1], "rb").read().decode("utf-8"), parse_constant=no)' "$T/h.json"
check "the process name is kept as text in the JSON" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not any(p.get("name", "").endswith("<img src=x onerror=alert(1)>") for p in d["processes"]))' "$T/h.json"
expect_stderr_contains "skipped 3 lines" "the huge line, the garbage and the torn line are skipped"

run --replay "$T/hostile.jsonl" --report "$T/h.html"
expect_rc 0 "--report OUT.html of a hostile recording"
check "the HTML is valid UTF-8" python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$T/h.html"
check "no < from the recording reaches the page as markup" [ "$(grep -c '<img' "$T/h.html")" -eq 0 ]
check "one script element: the report's own" [ "$(grep -o '<script' "$T/h.html" | wc -l)" -eq 1 ]
check "control and bidi characters do not reach the page" [ "$(grep -cP '[\x01\x1b\x7f]|\xe2\x80\xae' "$T/h.html")" -eq 0 ]
python3 "$DOM_PY" dom "$T/h.html" > "$T/src.facts"
check "the page parses: the tables are there" [ "$(fact "$T/src.facts" 'rows processes')" -ge 1 ]
check "no event handler attribute" [ "$(fact "$T/src.facts" 'attr on')" -eq 0 ]
check "no img element" [ "$(fact "$T/src.facts" 'tag img')" -eq 0 ]

if [ -z "$CHROMIUM" ]; then
	skip "chromium-headless-shell is not installed (scripts/deps.sh test installs it): no rendering checks"
	finish
fi
render "$T/h.html" "$T/h.dom"
python3 "$DOM_PY" dom "$T/h.dom" > "$T/dom.facts"
check "rendered: no img element" [ "$(fact "$T/dom.facts" 'tag img')" -eq 0 ]
check "rendered: one script element" [ "$(fact "$T/dom.facts" 'tag script')" -eq 1 ]
check "rendered: no on* attribute" [ "$(fact "$T/dom.facts" 'attr on')" -eq 0 ]
# Three device ids: two GPUs, and one of them with invalid UTF-8 (U+FFFD) in a third of the records.
check "rendered: one plot per GPU (three device ids)" [ "$(fact "$T/dom.facts" plots)" -eq 3 ]
check "rendered: the process name shows as its characters" grep -qxF 'text <img src=x onerror=alert(1)>' "$T/dom.facts"
check "rendered: #gpus has the three" [ "$(fact "$T/dom.facts" 'rows gpus')" -eq 3 ]
finish
