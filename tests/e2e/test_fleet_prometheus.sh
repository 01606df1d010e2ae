# test_fleet_prometheus: a real Prometheus scrapes three gpur exporters (fake
# NVML; --hostname node-a and node-b with plain scenarios, node-c the demo's
# training node with containers); gpur --prometheus reads every host back:
# --once --json is one record per host with its values, --once prints the
# fleet summary (one line per host, the busiest container or --) and the
# hosts' tables, a fleet recording replays record for record; Prometheus
# stopped: rc 1 naming the URL; a URL that is not http(s) is a usage error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; rm -rf "$T"' EXIT

need_prometheus || exit 0
"$GPUR" --prometheus ftp://x --once > /dev/null 2> "$T/usage.err"
check "a non-http URL is a usage error" test $? = 2
check "the usage error names it" grep -q "ftp://x" "$T/usage.err"

for h in a b; do
	u=31
	[ $h = b ] && u=32
	scenario "$T/$h.json" <<JSON
{"driver":"550.54.15","gpus":[
 {"name":"NVIDIA H100","uuid":"GPU-$h-0","pci":"00000000:3B:00.0","util":$u,"mem_total":85899345920,
  "mem_used":1073741824,"temp":45,"power_mw":245500,"gpm":{"sm":45.25,"tensor":12.5}},
 {"name":"NVIDIA H100","uuid":"GPU-$h-1","pci":"00000000:5E:00.0","util":5,"mem_total":85899345920,
  "mem_used":0,"temp":30,"power_mw":60000}]}
JSON
	start_exporter $h GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/$h.json" -- \
		--backend nvml --headless --interval 0.2 --hostname node-$h
	eval "ADDR_$h=\$ADDR"
done
cp -R "$FIXTURES/demo-root" "$T/root"
start_exporter c GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$SOURCE_DIR/share/demo/scenario.json" \
	FAKE_NVML_PROCFS="$T/root/proc" -- \
	--backend nvml --headless --interval 0.2 --hostname node-c --procfs "$T/root/proc" --rootfs "$T/root"
ADDR_c=$ADDR
scrape_config 1s "$ADDR_a" "$ADDR_b" "$ADDR_c"
check "Prometheus is ready" start_prometheus "$T/tsdb"
check "Prometheus has every host's GPUs and node-c's containers" wait_until 60 sh -c "
	curl -s --get --data-urlencode 'query=count(DCGM_FI_DEV_POWER_USAGE)' '$P/api/v1/query' | grep -q '\"12\"' &&
	curl -s --get --data-urlencode 'query=count(gpur_container_gpu_memory_bytes)' '$P/api/v1/query' | grep -q '\"value\"' &&
	curl -s --get --data-urlencode 'query=count(DCGM_FI_PROF_PIPE_TENSOR_ACTIVE)' '$P/api/v1/query' | grep -q '\"2\"'"

"$GPUR" --prometheus "$P" --once --json > "$T/fleet.json" 2> "$T/fleet.err"
check "--prometheus --once --json succeeds" test $? = 0
check "one valid JSON record per host" sh -c "'$JSONCMP' --valid '$T/fleet.json' && test \$(wc -l < '$T/fleet.json') = 3"
python3 - "$T/fleet.json" > "$T/fleet.txt" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["host"] == "node-c":
        print(r["host"], len(r["gpus"]), r["backend"])
        continue
    for g in r["gpus"]:
        sm, tc = g.get("sm_active_pct"), g.get("tensor_active_pct")
        print(r["host"], g["name"], g["device_id"], g.get("util_pct"), g.get("mem_used_bytes"),
              g.get("mem_total_bytes"), g.get("temp_c"), g.get("power_w"),
              None if sm is None else round(sm, 6), None if tc is None else round(tc, 6))
PY
cat > "$T/want.txt" <<TXT
node-a NVIDIA H100 GPU-a-0 31 1073741824 85899345920 45 245.5 45.25 12.5
node-a NVIDIA H100 GPU-a-1 5 0 85899345920 30 60 None None
node-b NVIDIA H100 GPU-b-0 32 1073741824 85899345920 45 245.5 45.25 12.5
node-b NVIDIA H100 GPU-b-1 5 0 85899345920 30 60 None None
node-c $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["gpus"]))' "$SOURCE_DIR/share/demo/scenario.json") prometheus
TXT
check "every host's GPUs with their values, one record each with host set" diff -u "$T/want.txt" "$T/fleet.txt"
# node-c's process rows: the pids, GPUs and names of its exporter's
# per-process series (read from the exporter itself, not from Prometheus;
# the demo's memory moves from scrape to scrape, so only its presence).
http_get "http://$ADDR_c/metrics" | python3 -c '
import re, sys
for line in sys.stdin:
    m = re.match(r"gpur_process_gpu_memory_bytes\{(.*)\} (\S+)$", line)
    if m:
        l = dict(re.findall(r"(\w+)=\"([^\"]*)\"", m.group(1)))
        print(l["UUID"], l["pid"], l.get("comm", ""), float(m.group(2)) > 0)' | sort > "$T/procs_want.txt"
python3 - "$T/fleet.json" <<'PY' | sort > "$T/procs_got.txt"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["host"] == "node-c":
        for p in r.get("processes", []):
            print(r["gpus"][p["gpu_index"]]["device_id"], p["pid"], p.get("name", ""), p["gpu_mem_bytes"] > 0)
PY
check "node-c's processes come from the fleet ($(wc -l < "$T/procs_want.txt") rows)" sh -c "test -s '$T/procs_want.txt' && diff -u '$T/procs_want.txt' '$T/procs_got.txt'"
"$GPUR" --prometheus "$P" --prometheus-match '{Hostname="node-b"}' --once --json > "$T/b.json" 2>&1
check "--prometheus-match narrows to node-b" sh -c "test \$(wc -l < '$T/b.json') = 1 && grep -q '\"host\":\"node-b\"' '$T/b.json'"

# The summary: one line per host with figures from the scenarios; the
# busiest container is the one with the most GPU memory in node-c's own
# exposition, and dcgm-like hosts without container series show --.
"$GPUR" --prometheus "$P" --once > "$T/table.txt" 2>&1
check "--once succeeds" test $? = 0
busiest=$(http_get "http://$ADDR_c/metrics" | python3 -c '
import re, sys
best = None
for line in sys.stdin:
    m = re.match(r"gpur_container_gpu_memory_bytes\{(.*)\} (\S+)$", line)
    if m:
        name = re.search(r"(?:^|,)container=\"([^\"]*)\"", m.group(1)).group(1)
        if best is None or float(m.group(2)) > best[0]:
            best = (float(m.group(2)), name)
print(best[1])')
python3 - "$T/table.txt" "$busiest" > "$T/summary.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
head = next(i for i, l in enumerate(lines) if l.startswith("HOST"))
for l in lines[head + 1:]:
    if not l.strip():
        break
    f = l.split()
    print(f[0], f[1], f[2], f[4], f[5], " ".join(f[6:]).split(" (")[0])
PY
cat > "$T/want_summary.txt" <<TXT
node-a 2 $(( (31 + 5) / 2 )) $(python3 -c 'print("%.0fW" % (245.5 + 60))') 0/0 --
node-b 2 $(python3 -c 'print("%.0f" % ((32 + 5) / 2))') $(python3 -c 'print("%.0fW" % (245.5 + 60))') 0/0 --
TXT
check "the summary: a line per host with GPUs, mean util, power, lost/suspended, no container" \
	diff -u "$T/want_summary.txt" <(head -n 2 "$T/summary.txt")
check "node-c's busiest container ($busiest) in the summary" \
	sh -c "sed -n 3p '$T/summary.txt' | grep -q '^node-c .* $busiest\$'"
check "--once prints each host's table after the summary" test "$(grep -cE '^node-[abc]  [0-9]{4}-' "$T/table.txt")" = 3

# A fleet recording replays: every record, as recorded.
"$GPUR" --prometheus "$P" --json --count 2 --interval 0.2 > "$T/rec.jsonl" 2> "$T/rec.err"
check "two polls of three hosts: six records" test "$(wc -l < "$T/rec.jsonl")" = 6
"$GPUR" --replay "$T/rec.jsonl" --json > "$T/replayed.jsonl" 2> "$T/replay.err"
check "the fleet recording replays record for record" "$JSONCMP" "$T/rec.jsonl" "$T/replayed.jsonl"

kill -TERM $PROM_PID; wait $PROM_PID 2> /dev/null
"$GPUR" --prometheus "$P" --once --json > /dev/null 2> "$T/down.err"
check "Prometheus stopped: rc 1" test $? = 1
check "the message names the URL" grep -qF "$P" "$T/down.err"
stop_all
finish
