#!/bin/bash
# test_report_gpm.sh: GPM activity and XID errors in the report. A recording
# made live with the fake NVML (an H100 with SM and tensor activity, an A100
# without GPM, an H100 with SM activity only, XIDs on the first two), then
# hand-made records an hour later (activity unknown, null and a measured 0,
# XIDs without a detail, with a hostile one, with a MIG instance, without a
# GPU, on a GPU past the record's, in one record without a time, two in one
# pixel column). report_oracle.py computes from the recording alone what the
# JSON and the page must say: SM and tensor means and peaks only for GPUs
# that had them, their lanes and column means, an xid mark per pixel column
# on the right GPU's plot and an xid row per event; a page with a figure or
# a mark changed must fail it. A GPU without GPM keeps the height of its
# plot (five lanes), and the hostile detail shows as text.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
. "$(dirname "$0")/report_lib.sh"
ORACLE="$SOURCE_DIR/tests/e2e/report_oracle.py"

scenario "$T/gpm.json" <<'JSON'
{"driver":"550.54.15","gpus":[
 {"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-g0","util":[50,60],"mem_total":85520809984,"mem_used":1048576,
  "gpm":{"sm":[10,20,30,40.5],"tensor":[0,5,12.25]},"xid":[{"poll":5,"xid":79},{"poll":8,"xid":31}]},
 {"name":"NVIDIA A100-SXM4-80GB","uuid":"GPU-a1","util":30,"mem_total":85899345920,"mem_used":0,
  "xid":[{"poll":6,"xid":4242}]},
 {"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-h2","util":70,"mem_total":85520809984,"mem_used":0,
  "gpm":{"sm":[60,65]}}]}
JSON
# GPM needs windows of over 100 ms, so this part runs on the real clock.
nvml modern "$T/gpm.json" --json --hostname gpm --interval 0.2 --count 20
expect_rc 0 "the live part of the recording"
cp "$T/out" "$T/rec.jsonl"

python3 - "$T/rec.jsonl" << 'PY'
import json, sys
path = sys.argv[1]
last = json.loads(open(path).read().splitlines()[-1])["ts_ms"]
t1 = last + 3600000
sm = [50, None, "null", 0, 99.5, 70, None, 20, 30, 40, 10, 5]
tensor = [None, 25, 0, "null", 80.25, None, 1, 2, 3, 4, 5, 6]
events = {
    2: [{"kind": "xid", "gpu_index": 0, "backend": "nvml", "xid": 48},
        {"kind": "xid", "gpu_index": 2, "xid": 13, "gpu_instance_id": 2, "detail": "<b>XID 13</b> & co"}],
    5: [{"kind": "xid", "gpu_index": 0, "xid": 79, "detail": "XID 79: GPU has fallen off the bus"},
        {"kind": "xid", "gpu_index": 0, "xid": 94, "detail": "XID 94: contained ECC error"}],
    7: [{"kind": "xid", "xid": 63, "detail": "row remapping pending"},
        {"kind": "note", "detail": "XID 5 is not an xid event"}],
    8: [{"kind": "xid", "gpu_index": 9, "xid": 4242}],
    9: [{"kind": "xid", "gpu_index": 1, "xid": 31, "detail": "XID 31"}],
}
with open(path, "a") as out:
    for i in range(12):
        g0 = {"device_id": "GPU-g0", "name": "NVIDIA H100 80GB HBM3", "util_pct": 90}
        for key, vals in (("sm_active_pct", sm), ("tensor_active_pct", tensor)):
            if vals[i] == "null":
                g0[key] = None
            elif vals[i] is not None:
                g0[key] = vals[i]
        gpus = [g0, {"device_id": "GPU-a1", "name": "NVIDIA A100-SXM4-80GB", "util_pct": 30},
                {"device_id": "GPU-h2", "name": "NVIDIA H100 80GB HBM3", "util_pct": 70}]
        rec = {"schema": 1, "ts_ms": t1 + i * 1000, "host": "gpm", "gpus": gpus, "events": events.get(i, [])}
        if i == 9:
            del rec["ts_ms"]  # its events have no time: a row, no mark
        out.write(json.dumps(rec) + "\n")
PY
has() { python3 -c 'import json,sys
recs = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(not eval(sys.argv[2]))' "$T/rec.jsonl" "$1"; }
check "the live part has SM and tensor activity on GPU 0" \
	has 'any("tensor_active_pct" in r["gpus"][0] for r in recs[:20])'
check "the live part has no GPM key on the A100" \
	has 'not any(k in r["gpus"][1] for r in recs for k in ("sm_active_pct", "tensor_active_pct"))'
check "the live part has no tensor activity on GPU 2" \
	has 'not any("tensor_active_pct" in r["gpus"][2] for r in recs) and "sm_active_pct" in recs[10]["gpus"][2]'
check "the live part has its three XIDs" \
	has 'sorted(e["xid"] for r in recs[:20] for e in r.get("events", []) if e["kind"] == "xid") == [31, 79, 4242]'

# 1. The JSON, against the oracle and the recording's own figures.
run --replay "$T/rec.jsonl" --report "$T/r.json"
expect_rc 0 "--report OUT.json"
check "the JSON agrees with the independent computation" python3 "$ORACLE" "$T/rec.jsonl" "$T/r.json"
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); g={x['device_id']: x for x in d['gpus']}; print($1)" "$T/r.json"; }
check "GPU 0's SM peak is the hand-made 99.5" [ "$(jq_py 'g["GPU-g0"]["sm_active_pct_max"]')" = 99.5 ]
check "GPU 0's tensor peak is the hand-made 80.25" [ "$(jq_py 'g["GPU-g0"]["tensor_active_pct_max"]')" = 80.25 ]
check "the A100 has no SM or tensor key (unknown, not 0)" \
	[ "$(jq_py '[k for k in g["GPU-a1"] if "active" in k]')" = "[]" ]
check "GPU 2 has SM keys but no tensor key" \
	[ "$(jq_py 'sorted(k for k in g["GPU-h2"] if "active" in k)')" = "['sm_active_pct_max', 'sm_active_pct_mean']" ]
check "the SM keys follow util's" \
	[ "$(jq_py 'list(g["GPU-g0"])[3:9]')" = "['util_pct_mean', 'util_pct_max', 'sm_active_pct_mean', 'sm_active_pct_max', 'tensor_active_pct_mean', 'tensor_active_pct_max']" ]
check "xid events keep their numbers" \
	[ "$(jq_py '[e["xid"] for e in d["events"] if e["kind"] == "xid"][-7:]')" = "[48, 13, 79, 94, 63, 4242, 31]" ]
check "an xid event's MIG instance is in the JSON" \
	[ "$(jq_py '[e.get("gpu_instance_id") for e in d["events"] if e.get("xid") == 13]')" = "[2]" ]

# 2. The page: columns, lanes, marks and rows against the oracle.
run --replay "$T/rec.jsonl" --report "$T/r.html"
expect_rc 0 "--report OUT.html"
check "the page agrees with the independent computation" python3 "$ORACLE" "$T/rec.jsonl" "$T/r.html"
# Plot heights: 16 + 72 per lane, then the throttle band and the axis.
plot_h() { python3 -c 'import re,sys
page = open(sys.argv[1]).read()
for dev, box in re.findall(r"<small>([^<]*)</small></h2>\n<svg [^>]*viewBox=\"0 0 716 (\d+)\"", page):
    if dev == sys.argv[2]: print(box)' "$T/r.html" "$1"; }
check "the A100's plot has its five lanes, as before GPM" [ "$(plot_h GPU-a1)" = 406 ]
check "GPU 0's plot has seven lanes" [ "$(plot_h GPU-g0)" = 550 ]
check "GPU 2's plot has six lanes (no tensor lane)" [ "$(plot_h GPU-h2)" = 478 ]
check "the hostile detail is text" grep -qF '&lt;b&gt;XID 13&lt;/b&gt; &amp; co' "$T/r.html"
check "the hostile detail is never markup" [ "$(grep -c '<b>' "$T/r.html")" -eq 0 ]
check "the legend names the XID mark" grep -q 'color:#e7298a">XID</span>' "$T/r.html"

# The oracle fails a page with a figure, a lane, a mark or a row changed.
fails() { ! "$@" 2> /dev/null > /dev/null; }
tamper() { # SED-EXPRESSION NAME: a copy of the page with one change, which must happen
	sed "$1" "$T/r.html" > "$T/$2.html"
	! cmp -s "$T/r.html" "$T/$2.html"
}
check "tamper: an SM peak" tamper 's|<td class="n">99.5</td>|<td class="n">99.4</td>|' sm
check "the oracle fails a wrong SM peak" fails python3 "$ORACLE" "$T/rec.jsonl" "$T/sm.html"
check "tamper: an xid mark moved" tamper '0,/class="ev ev-xid" x1="\([0-9]*\)/s//class="ev ev-xid" x1="1\1/' mark
check "the oracle fails a moved xid mark" fails python3 "$ORACLE" "$T/rec.jsonl" "$T/mark.html"
check "tamper: an xid mark dropped" tamper 's|<line class="ev ev-xid"[^>]*><title>[^<]*XID 79: GPU has[^<]*</title></line>||' nomark
check "the oracle fails a missing xid mark" fails python3 "$ORACLE" "$T/rec.jsonl" "$T/nomark.html"
check "tamper: a tensor lane on the A100" \
	tamper '/<small>GPU-a1/,/<\/svg>/s|<g class="lane" data-label="memory used"|<g class="lane" data-label="tensor active" data-v=""></g>&|' lane
check "the oracle fails an empty lane on a GPU without GPM" fails python3 "$ORACLE" "$T/rec.jsonl" "$T/lane.html"
check "tamper: a column mean" tamper '0,/data-label="SM active" data-unit="%" data-v="\([0-9.]*\)/s//data-label="SM active" data-unit="%" data-v="1\1/' col
check "the oracle fails a wrong column mean" fails python3 "$ORACLE" "$T/rec.jsonl" "$T/col.html"
check "tamper: an xid row without its meaning" tamper 's|XID 48: double-bit ECC error</td>|XID 48</td>|' row
check "the oracle fails an xid row without its meaning" fails python3 "$ORACLE" "$T/rec.jsonl" "$T/row.html"

# 3. --gpus and a span: the oracle applies the same ones.
run --replay "$T/rec.jsonl" --report "$T/sel.json" --gpus 1,2
expect_rc 0 "--report with --gpus"
check "--gpus: the JSON agrees" python3 "$ORACLE" "$T/rec.jsonl" "$T/sel.json" --gpus 1,2
run --replay "$T/rec.jsonl" --report "$T/sel.html" --gpus 1,2
expect_rc 0 "--report OUT.html with --gpus"
check "--gpus: the page agrees" python3 "$ORACLE" "$T/rec.jsonl" "$T/sel.html" --gpus 1,2
run --replay "$T/rec.jsonl" --report "$T/nogpm.html" --gpus 1
expect_rc 0 "--report of the A100 alone"
check "--gpus 1: the page agrees" python3 "$ORACLE" "$T/rec.jsonl" "$T/nogpm.html" --gpus 1
check "--gpus 1: no SM or tensor column when no GPU had them" [ "$(grep -c '<th>SM active' "$T/nogpm.html")" -eq 0 ]
check "--gpus 1,2: the columns are there when one GPU had them" [ "$(grep -c '<th>SM active' "$T/sel.html")" -eq 1 ]

if [ -z "$CHROMIUM" ]; then
	skip "chromium-headless-shell is not installed (scripts/deps.sh test installs it): no rendering checks"
	finish
fi
render "$T/r.html" "$T/dom.html"
check "rendered: the page as the browser built it agrees" python3 "$ORACLE" "$T/rec.jsonl" "$T/dom.html"
finish
