# test_demo_reproducible: the bundled demo recording is what gpur itself
# makes from its scenario, byte for byte (scripts/make-demo.sh), and it tells
# the story it claims: 8 GPUs, one lost halfway while the others go on, on a
# machine whose CPU % (host and processes) are measured rates.
. "$(dirname "$0")/lib.sh"
: "${SOURCE_DIR:?SOURCE_DIR must name the source tree}"

"$SOURCE_DIR/scripts/make-demo.sh" "$(dirname "$GPUR")" "$T/demo.jsonl" 2> "$T/err"
RC=$?
expect_rc 0 "make-demo.sh"
check "the regenerated demo equals share/demo/demo.jsonl byte for byte" \
	cmp -s "$T/demo.jsonl" "$SOURCE_DIR/share/demo/demo.jsonl"
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
check "every later record has the host's CPU % (3-12 % of 224 CPUs)" grep -qx "host_rest True" "$T/story.txt"
check "the training ranks read as busy (80-100 % CPU) after the first record" grep -qx "ranks True" "$T/story.txt"
check "containers' processes have their pid inside (NSpid), the Slurm job's none" grep -qx "cpid True" "$T/story.txt"
finish
