#!/bin/bash
# test_report_cmdline.sh: #processes shows each process's command line, cut
# to 120 bytes on a character boundary with an ellipsis, the whole line in
# the cell's title; markup and quotes in it are text in both; the JSON
# report has it whole; a process without one shows "--".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"

python3 - "$T/cmd.jsonl" << 'PY'
import json, sys
# 119 ASCII bytes, then a 3-byte character that does not fit in 120, then more.
head = "python3 -m torch.distributed.run --nproc_per_node=8 train.py "
long = head + "x" * (119 - len(head)) + "\u20ac" + " --flag=\"<b>a&b</b>\"" * 10
assert len(long[:119].encode()) == 119
out = open(sys.argv[1], "w")
for i in range(5):
    rec = {"schema": 1, "ts_ms": 1764583200000 + i * 1000, "host": "h", "backend": "nvml",
           "gpus": [{"index": 0, "name": "G", "device_id": "GPU-0", "util_pct": 10}],
           "processes": [{"pid": 100, "gpu_index": 0, "name": "python3", "cmdline": long, "start_ms": 1,
                          "gpu_mem_bytes": 1 << 30},
                         {"pid": 200, "gpu_index": 0, "name": "nocmd", "start_ms": 2, "gpu_mem_bytes": 1 << 29}]}
    out.write(json.dumps(rec) + "\n")
open(sys.argv[1] + ".want", "w").write(long)
PY

run --replay "$T/cmd.jsonl" --report "$T/r.json"
expect_rc 0 "--report OUT.json"
check "the JSON has the whole command line" python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); want = open(sys.argv[2]).read()
p = {q["pid"]: q for q in d["processes"]}
sys.exit(not (p[100]["cmdline"] == want and "cmdline" not in p[200]))' "$T/r.json" "$T/cmd.jsonl.want"

run --replay "$T/cmd.jsonl" --report "$T/r.html"
expect_rc 0 "--report OUT.html"
python3 "$DOM_PY" dom "$T/r.html" > "$T/facts"
check "the title holds the whole line, markup as text" python3 -c '
import sys
want = open(sys.argv[2]).read()
titles = [l[6:].rstrip("\n") for l in open(sys.argv[1]) if l.startswith("title ")]
sys.exit(titles != [want])' "$T/facts" "$T/cmd.jsonl.want"
check "the cell shows 119 bytes and an ellipsis (the euro sign does not fit in 120)" python3 -c '
import sys
want = open(sys.argv[2]).read()
cells = [l[5:].rstrip("\n") for l in open(sys.argv[1]) if l.startswith("text ")]
sys.exit((want[:119] + "\u2026") not in cells)' "$T/facts" "$T/cmd.jsonl.want"
check "a process without a command line shows --" python3 -c '
import sys
rows = [l[5:].rstrip("\n") for l in open(sys.argv[1]) if l.startswith("text ")]
i = rows.index("nocmd")
sys.exit(rows[i + 1] != "--")' "$T/facts"
check "no <b> element from the command line" [ "$(grep -c '<b>' "$T/r.html")" -eq 0 ]
finish
