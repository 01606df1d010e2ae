# test_demo_reproducible: the bundled demo recording is what gpur itself
# makes from its scenario, byte for byte (scripts/make-demo.sh: the dashboard
# driven under tmux in a PID namespace of its own), and it tells the story it
# claims: 8 GPUs, one lost halfway while the others go on, on a machine whose
# CPU % (host and processes) are measured rates, and one idle notebook sent
# SIGTERM from the dashboard, which then leaves its GPU.
. "$(dirname "$0")/lib.sh"
: "${SOURCE_DIR:?SOURCE_DIR must name the source tree}"

# Needs root, unshare and tmux (and room for the fixture's pids); exit 77
# says which is missing. Any other failure fails.
"$SOURCE_DIR/scripts/make-demo.sh" "$(dirname "$GPUR")" "$T/demo.jsonl" 2> "$T/err"
RC=$?
if [ "$RC" = 77 ]; then
	skip "regenerating the demo: $(cat "$T/err")"
else
	expect_rc 0 "make-demo.sh"
	check "the regenerated demo equals share/demo/demo.jsonl byte for byte" \
		cmp -s "$T/demo.jsonl" "$SOURCE_DIR/share/demo/demo.jsonl"
fi
D=$SOURCE_DIR/share/demo/demo.jsonl
check "300 records" test "$(lines "$D")" -eq 300
check "no trace of the building machine (host)" sh -c "! grep -q '\"host\":\"$(hostname)\"' '$D'"
check "one gpu_lost event" test "$(grep -c '"kind":"gpu_lost"' "$D")" -eq 1
check "GPU 3 is lost in the last record" sh -c "tail -n 1 '$D' | grep -q '\"pci_bus_id\":\"0000:5d:00.0\",\"state\":\"lost\"'"
check "the other GPUs go on (GPU 7 reads in the last record)" \
	sh -c "tail -n 1 '$D' | grep -q '\"pci_bus_id\":\"0000:db:00.0\",\"state\":\"ok\",\"pstate\":0'"
# The machine around the GPUs reads as measured: the host's CPU % from the
# second record on (a rate: the fake moves the fixture's /proc/stat), the
# training ranks' CPU % as busy processes' (rates over their stat files).
python3 - "$D" > "$T/story.txt" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
host = [r.get("system", {}).get("cpu_pct") for r in recs]
print("host_rest", all(h is not None and 3 <= h <= 12 for h in host[1:]))
ranks = [p.get("cpu_pct") for r in recs[1:] for p in r["processes"] if "train.py" in p.get("cmdline", "")]
print("ranks", len(ranks) > 0 and all(c is not None and 80 <= c <= 100 for c in ranks))
first = {p["pid"]: p for p in recs[0]["processes"]}
print("cpid", first[51200].get("container_pid") == 23 and first[39021].get("container_pid") == 1
      and "container_pid" not in first[52310])
PY
check "one signal event" test "$(grep -c '"kind":"signal"' "$D")" -eq 1
python3 - "$D" > "$T/signal.txt" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
at = [i for i, r in enumerate(recs) for e in r.get("events", []) if e.get("kind") == "signal"][0]
e = [e for e in recs[at]["events"] if e["kind"] == "signal"][0]
print("event", e["pid"] == 48311 and e["signal"] == "SIGTERM" and e["result"] == "sent"
      and e["detail"] == "SIGTERM sent to pid 48311")
has = [any(p["pid"] == 48311 for p in r["processes"]) for r in recs]
print("notebook", at > 10 and all(has[:at]) and not any(has[at:]))
nb = [p for p in recs[at - 1]["processes"] if p["pid"] == 48311][0]
print("named", nb.get("container_name") == "bob-notebook" and nb.get("container", "").startswith("docker:"))
# The notebook held 6 GiB of GPU 0, next to rank 0 (whose use moves by
# well under 1 GiB a second); the GPU's used memory never falls below what
# its processes hold.
used = lambda i: recs[i]["gpus"][0]["mem_used_bytes"]
held = lambda r, g: sum(p.get("gpu_mem_bytes", 0) for p in r["processes"] if p.get("gpu_index") == g)
print("freed", 5.5 * 2**30 < used(at - 1) - used(at) < 6.5 * 2**30)
print("held", all(g.get("mem_used_bytes", 2**62) >= held(r, g["index"] if "index" in g else i)
                  for r in recs for i, g in enumerate(r["gpus"])))
PY
check "the signal event: SIGTERM sent to the notebook's pid, in words" grep -qx "event True" "$T/signal.txt"
check "the notebook is listed until the signal's record, and never after" grep -qx "notebook True" "$T/signal.txt"
check "the signalled notebook was shown by its Docker container's name" grep -qx "named True" "$T/signal.txt"
check "GPU 0 has the notebook's 6 GiB back at once" grep -qx "freed True" "$T/signal.txt"
check "no GPU's used memory is below what its processes hold" grep -qx "held True" "$T/signal.txt"
check "every later record has the host's CPU % (3-12 % of 224 CPUs)" grep -qx "host_rest True" "$T/story.txt"
check "the training ranks read as busy (80-100 % CPU) after the first record" grep -qx "ranks True" "$T/story.txt"
check "containers' processes have their pid inside (NSpid), the Slurm job's none" grep -qx "cpid True" "$T/story.txt"
finish
