# test_fleet_scale: a fleet at scale. A Prometheus TSDB backfilled with
# promtool (tests/tools/gen_fleet.py: 500 hosts x 8 GPUs, half of them gpur
# exporters with containers, half dcgm-exporter-like) and a real Prometheus
# on it; gpur --prometheus --once --json answers one record per host with
# every GPU and the generated values; the fleet summary appears under tmux
# at 80x24 and 200x60, sorts, filters, opens a host and comes back.
. "$(dirname "$0")/tui_lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'tui_stop; stop_all; rm -rf "$T"' EXIT

need_prometheus || exit 0
HOSTS=500
GPUS=8
GEN="$SOURCE_DIR/tests/tools/gen_fleet.py"
# Samples a minute apart up to now: an instant query at now finds the last
# within Prometheus's 5 min lookback. promtool cuts the blocks itself on
# its 2 h boundaries.
python3 "$GEN" $HOSTS $GPUS "$(date +%s)" > "$T/fleet.om"
check "promtool backfills the TSDB" "$PROMTOOL" tsdb create-blocks-from openmetrics "$T/fleet.om" "$T/tsdb" > "$T/promtool.log" 2>&1
check "Prometheus is ready on the backfilled TSDB" start_prometheus "$T/tsdb"
check "Prometheus answers every GPU" wait_until 30 sh -c "
	curl -s --get --data-urlencode 'query=count(DCGM_FI_DEV_GPU_TEMP) + count(gpur_gpu_lost == 1)' '$P/api/v1/query' |
	grep -q '\"$((HOSTS * GPUS))\"'"

"$GPUR" --prometheus "$P" --once --json > "$T/fleet.json" 2> "$T/fleet.err"
check "--once --json succeeds" test $? = 0
python3 - "$T/fleet.json" "$GEN" $HOSTS $GPUS > "$T/check.txt" <<'PY'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("gen", sys.argv[2])
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
hosts, gpus = int(sys.argv[3]), int(sys.argv[4])
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = []
if len(recs) != hosts:
    bad.append("%d records, not %d" % (len(recs), hosts))
seen = set()
for r in recs:
    h = int(r["host"].split("-")[1])
    seen.add(h)
    if len(r["gpus"]) != gpus:
        bad.append("%s: %d GPUs" % (r["host"], len(r["gpus"])))
    for i, g in enumerate(r["gpus"]):
        if gen.lost(h, i):
            if g.get("state") != "lost" or "util_pct" in g:
                bad.append("%s GPU %d should be lost: %s" % (r["host"], i, g))
            continue
        want = {"device_id": "GPU-%04d-%d" % (h, i), "util_pct": gen.util(h, i), "temp_c": gen.temp(h, i),
                "power_w": gen.power(h, i), "mem_used_bytes": gen.fb_used(h, i) * 1048576,
                "mem_total_bytes": gen.FB_TOTAL_MIB * 1048576, "name": gen.MODEL}
        for k, v in want.items():
            if g.get(k) != v:
                bad.append("%s GPU %d %s: %r, not %r" % (r["host"], i, k, g.get(k), v))
    procs = sorted((p["gpu_index"], p["pid"], p.get("name"), p.get("container_name"), p.get("gpu_mem_bytes"),
                    p.get("gpu_util_pct")) for p in r.get("processes", []))
    want_procs = sorted((i,) + gen.process(h, i) for i in range(gpus) if gen.gpur_host(h) and not gen.lost(h, i))
    if procs != want_procs:
        bad.append("%s processes: %s, not %s" % (r["host"], procs[:2], want_procs[:2]))
if seen != set(range(hosts)):
    bad.append("hosts missing: %s" % sorted(set(range(hosts)) - seen)[:5])
print("\n".join(bad[:10]) if bad else "ok")
PY
check "500 records, 4000 GPUs, each with the generated values and processes" grep -qx ok "$T/check.txt"
[ "$(cat "$T/check.txt")" = ok ] || sed 's/^/    /' "$T/check.txt" >&2

# The busiest container of a gpur host, and -- for a dcgm-like one.
"$GPUR" --prometheus "$P" --once > "$T/table.txt" 2>&1
want=$(python3 -c "
import importlib.util, sys
spec = importlib.util.spec_from_file_location('gen', '$GEN'); gen = importlib.util.module_from_spec(spec); spec.loader.exec_module(gen)
print(max(gen.containers(42), key=lambda c: c[1])[0])")
check "host-0042's busiest container is $want" grep -qE "^host-0042 .* $want \(" "$T/table.txt"
check "host-0043 has no container series: --" grep -qE "^host-0043 .* --$" "$T/table.txt"

for size in "80 24" "200 60"; do
	set -- $size
	tui_start "$1" "$2" -- --prometheus "$P"
	expect_screen "$HOSTS hosts, $((HOSTS * GPUS)) GPUs, $((HOSTS / 50)) lost" "the fleet summary at ${1}x$2" 30
	expect_screen "^host-0000 " "hosts in name order at ${1}x$2"
	expect_not_now "no answer|STALE" "no failure shown at ${1}x$2"
	# Every line fits: nothing drawn past the last column.
	check "no line longer than $1 columns" sh -c "! tmux -L '$TUI_SOCK' -f /dev/null capture-pane -p -t gpur | awk 'length > $1' | grep -q ."
	type_text "/"
	type_text "host-0042"
	keys Enter
	expect_screen "^host-0042 " "the filter keeps host-0042 at ${1}x$2"
	expect_screen_gone "^host-0000 " "the filter hides the others at ${1}x$2"
	keys Enter
	expect_screen "gpur host-0042" "Enter opens host-0042's GPU view at ${1}x$2"
	expect_screen "NVIDIA H100" "its GPUs are shown at ${1}x$2"
	expect_screen "^Esc/. fleet" "the footer says how to go back at ${1}x$2"
	expect_screen "1000 +u0 .*train-0" "and its processes (pid, user, name) at ${1}x$2"
	keys Escape
	expect_screen "hosts, .* GPUs" "Esc returns to the summary at ${1}x$2"
	keys q
	tui_wait_exit 10
	check "q quits with rc 0 at ${1}x$2" test "$RC" = 0
done

# A fleet recording: one record per host per poll; headless replay gives
# every record back as it was, the dashboard's replay opens on the summary
# (the records of one poll are one fleet frame).
"$GPUR" --prometheus "$P" --json --count 2 --interval 0.5 > "$T/rec.jsonl" 2> "$T/rec.err"
check "two polls: $((2 * HOSTS)) records" test "$(wc -l < "$T/rec.jsonl")" = $((2 * HOSTS))
"$GPUR" --replay "$T/rec.jsonl" --json > "$T/replayed.jsonl" 2> "$T/replay.err"
check "headless replay: record for record" "$JSONCMP" "$T/rec.jsonl" "$T/replayed.jsonl"
tui_start 120 40 -- --replay "$T/rec.jsonl"
expect_screen "REPLAY rec.jsonl" "the replay's header" 20
expect_screen "$HOSTS hosts, $((HOSTS * GPUS)) GPUs" "a fleet recording replays as the fleet summary" 20
keys Enter
expect_screen "gpur host-0000" "Enter opens a host in the replay too"
keys Escape
expect_screen "$HOSTS hosts" "and Esc comes back"
keys q
tui_wait_exit 10

# Sorting: by utilisation (> from HOST: GPUS, then UTIL%), busiest first
# (the selection follows its host: Home goes to the top).
tui_start 200 60 -- --prometheus "$P"
expect_screen "$HOSTS hosts" "the summary again" 30
keys '>' '>'
top=$(python3 -c "
import importlib.util
spec = importlib.util.spec_from_file_location('gen', '$GEN'); gen = importlib.util.module_from_spec(spec); spec.loader.exec_module(gen)
rows = []
for h in range($HOSTS):
    u = [gen.util(h, g) for g in range($GPUS) if not gen.lost(h, g)]
    rows.append((-round(sum(u) / len(u), 6), gen.host(h)))
print(sorted(rows)[0][1])")
expect_screen "UTIL%(▼|v)" "the UTIL% column is the sort key"
keys Home
check "the busiest host ($top) comes first" wait_until 10 sh -c "tmux -L '$TUI_SOCK' -f /dev/null capture-pane -p -t gpur | grep -A1 '^HOST' | tail -n 1 | grep -q '^$top '"
keys q
tui_wait_exit 10
finish
