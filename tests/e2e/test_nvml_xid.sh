# test_nvml_xid: XID errors from NVML's event set become xid events, in
# order, with the GPU, the number, the MIG instance where given and a short
# meaning; XID 79 is followed by the GPU's loss, which gpur survives; the
# dashboard's events line shows them; a library without the event calls
# says so once and nothing else changes; a set whose waits fail backs off;
# gpur still ends within a second when asked to stop.
. "$(dirname "$0")/tui_lib.sh" || exit 1

scenario "$T/xid.json" <<JSON
{"gpus":[
 {"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-x0","util":10,"mem_total":1,"mem_used":0,
  "xid":[{"poll":4,"xid":31,"gi":1,"ci":0},{"poll":6,"xid":79}],"lost_at_poll":7},
 {"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-x1","util":10,"mem_total":1,"mem_used":0,
  "xid":[{"poll":5,"xid":48},{"poll":5,"xid":4242}]}]}
JSON

# xids FILE: every xid event as "GPU:XID:INSTANCE:DETAIL", in order.
xids() {
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    for e in json.loads(l).get("events", []):
        if e.get("kind") == "xid":
            print("%s:%s:%s:%s" % (e.get("device_id"), e.get("xid"), e.get("gpu_instance_id", "-"), e.get("detail")))' "$1"
}

# 1. In order, each once, with its GPU, instance and meaning.
nvml modern "$T/xid.json" --json --count 12 --interval 0.2
expect_rc 0 "XID: runs"
xids "$T/out" > "$T/xids"
cat > "$T/want" <<'EOF'
GPU-x0:31:1:XID 31: GPU memory page fault (an application fault)
GPU-x1:48:-:XID 48: double-bit ECC error
GPU-x1:4242:-:XID 4242
GPU-x0:79:-:XID 79: GPU has fallen off the bus
EOF
check "the XIDs in order, once each ($(tr '\n' '|' < "$T/xids"))" cmp -s "$T/xids" "$T/want"
# XID 79 comes before GPU 0 is lost, and the other GPU goes on.
python3 - "$T/out" > "$T/story" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
xid79 = next(i for i, r in enumerate(recs) for e in r.get("events", []) if e.get("xid") == 79)
lost = next(i for i, r in enumerate(recs) if r["gpus"][0].get("state") == "lost")
print("order", xid79 <= lost)
print("other", recs[-1]["gpus"][1].get("state") == "ok" and "util_pct" in recs[-1]["gpus"][1])
PY
check "XID 79, then the GPU's loss" grep -q '^order True$' "$T/story"
check "the other GPU goes on" grep -q '^other True$' "$T/story"

# 2. A library without the event calls: said once, records as before.
nvml minimal "$T/xid.json" --json --count 4 --interval 0.2
expect_rc 0 "no event calls: runs"
check "no event calls: no xid event" test "$(xids "$T/out" | wc -l)" -eq 0
check "no event calls: said once" test "$(grep -c 'XID errors are not reported' "$T/out")" -eq 1

# 3. A GPU whose driver does not support the event: said once, the other
# GPU's XIDs still come.
scenario "$T/part.json" <<JSON
{"gpus":[{"name":"A","uuid":"GPU-p0","mem_total":1,"mem_used":0,"not_supported":["events"]},
 {"name":"B","uuid":"GPU-p1","mem_total":1,"mem_used":0,"xid":[{"poll":4,"xid":13}]}]}
JSON
nvml modern "$T/part.json" --json --count 8 --interval 0.2
check "one GPU without events: the other's XID" test "$(xids "$T/out")" = "GPU-p1:13:-:XID 13: graphics engine exception (an application fault)"
check "one GPU without events: said once" test "$(grep -c 'not reported for 1 of 2 GPUs' "$T/out")" -eq 1

# 3b. The one registered GPU lost: every wait would fail at once, so the
# polls leave the set alone for a while (3 s of polls: a few waits, not one
# or more a poll).
scenario "$T/lost.json" <<JSON
{"gpus":[{"name":"A","uuid":"GPU-l0","mem_total":1,"mem_used":0,"lost_at_poll":3}]}
JSON
FAKE_NVML_CALLS=$T/lost.calls nvml modern "$T/lost.json" --json --count 15 --interval 0.2
waits=$(awk '$1 ~ /^nvmlEventSetWait/ { n += $3 } END { print n + 0 }' "$T/lost.calls")
check "a lost GPU: the waits back off ($waits waits in 15 polls)" test "$waits" -le 8
check "a lost GPU: event sets freed" grep -q '^event_sets_live - 0$' "$T/lost.calls"

# 4. Asked to stop, gpur ends within a second (the XID waits never block).
GPUR_NVML_LIBRARY=$(fake modern) FAKE_NVML_SCENARIO=$T/part.json \
	"$GPUR" --backend nvml --headless --json --interval 0.2 < /dev/null > "$T/h.out" 2> "$T/h.err" &
H=$!
wait_until 10 sh -c "test \$(wc -l < '$T/h.out') -ge 2"
kill -TERM "$H"
check "gpur ends within a second of SIGTERM" wait_until 1 sh -c "! kill -0 $H 2> /dev/null"
wait "$H" 2> /dev/null

# 5. The dashboard's events line shows an XID.
tui_start 200 60 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/xid.json" -- --backend nvml --interval 0.2
expect_screen "xid GPU [01] \\(nvml\\)( instance 1)? XID [0-9]+: [a-zG]" "the events line shows an XID once, with its meaning"
tui_stop
finish
