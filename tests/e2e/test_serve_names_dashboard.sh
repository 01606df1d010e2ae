# test_serve_names_dashboard: gpur's Grafana dashboard under both of
# --serve-names. A real Prometheus scrapes two exporters of one scenario,
# node-l under the legacy names and node-n under dcgm-exporter 4.10's; every
# query of the dashboard answers for each of them alone (its $instance), the
# panels over dcgm-exporter's families give the same values for both (the
# unit conversion is in the query, so the panel's unit holds) with the host
# in the Hostname label the legends show, and 4.10's names answer for node-n
# only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT

need_prometheus || exit 0

cp -R "$FIXTURES/demo-root" "$T/root"
serve() {
	local name=$1
	shift
	start_exporter "$name" GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$FIXTURES/serve-names/scenario.json" \
		FAKE_NVML_PROCFS="$T/root/proc" -- --backend nvml --headless --interval 0.2 --procfs "$T/root/proc" \
		--rootfs "$T/root" "$@"
}
serve l --hostname node-l
check "node-l serves" test -n "$ADDR"
L=$ADDR
serve n --hostname node-n --serve-names dcgm-4.10
check "node-n serves" test -n "$ADDR"
N=$ADDR
scrape_config 1s "$L" "$N"
check "Prometheus is ready" start_prometheus "$T/tsdb"

# Instant query; prints "labels value" per result (sorted); false on an
# error answer.
query() {
	curl -s --max-time 10 --get --data-urlencode "query=$1" "$P/api/v1/query" | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("status") != "success":
    sys.exit(1)
for s in sorted(d["data"]["result"], key=lambda s: sorted(s["metric"].items())):
    print(",".join("%s=%s" % kv for kv in sorted(s["metric"].items())), s["value"][1])
'
}
has_data() { [ -n "$(query "$1")" ]; }
check "Prometheus has both exporters' GPUs, their GPM, PCIe rates and two samples each" wait_until 60 sh -c "
	curl -s --get --data-urlencode 'query=count(DCGM_FI_DEV_POWER_USAGE) + count(DCGM_FI_DEV_BOARD_POWER_WATTS)' '$P/api/v1/query' | grep -q '\"4\"' &&
	curl -s --get --data-urlencode 'query=count(DCGM_FI_PROF_SM_ACTIVE) + count(DCGM_FI_PROF_SM_UTIL_RATIO)' '$P/api/v1/query' | grep -q '\"2\"' &&
	curl -s --get --data-urlencode 'query=count(DCGM_FI_PROF_PCIE_TX_BYTES) + count(DCGM_FI_PROF_PCIE_TX_BYTES_PER_SECOND)' '$P/api/v1/query' | grep -q '\"2\"' &&
	curl -s --get --data-urlencode 'query=count(rate(gpur_exporter_scrapes_total[5s])) == 2' '$P/api/v1/query' | grep -q '\"value\"'"

# The new names answer for node-n only, in their units; the legacy ones for
# node-l only.
expect_value() {
	local got
	got=$(query "$1" | awk 'NR == 1 {print $NF}')
	if [ "$got" = "$2" ]; then ok; else fail "$1 = '$got', expected '$2'"; fi
}
expect_value "DCGM_FI_DEV_GPU_UTIL_RATIO{instance=\"$N\",gpu=\"0\"}" 0.57
expect_value "DCGM_FI_DEV_GPU_UTIL{instance=\"$L\",gpu=\"0\"}" 57
check "node-n serves no legacy name" test -z "$(query "{__name__=~\"DCGM_FI_DEV_GPU_UTIL|DCGM_FI_DEV_FB_USED|DCGM_FI_DEV_SM_CLOCK\",instance=\"$N\"}")"
check "node-l serves no 4.10 name" test -z "$(query "{__name__=~\"DCGM_FI_DEV_GPU_UTIL_RATIO|DCGM_FI_DEV_FB_USED_BYTES\",instance=\"$L\"}")"
check "node-n's hostname label" has_data "DCGM_FI_DEV_FB_CAPACITY_BYTES{hostname=\"node-n\",DCGM_FI_SYSTEM_DRIVER_VERSION=\"550.54.15\"}"

# Every query and variable of the dashboard.
python3 - "$SOURCE_DIR/deploy/grafana/gpur-dashboard.json" > "$T/dash.queries" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def walk(panels):
    for p in panels:
        yield from walk(p.get("panels", []))
        for t in p.get("targets", []):
            yield t["expr"]
for e in walk(d["panels"]):
    print(e)
for v in d["templating"]["list"]:
    q = v.get("query")
    if isinstance(q, dict) and q.get("query", "").startswith("label_values("):
        print("LABEL " + q["query"])
PY
# The values of a query's answer for one host: gpu, MIG profile, the legend's
# Hostname, and the value to 9 significant digits.
values() {
	query "$1" | python3 -c '
import sys
for line in sys.stdin:
    labels, v = line.rsplit(" ", 1)
    l = dict(kv.split("=", 1) for kv in labels.split(",") if "=" in kv)
    print(l.get("gpu", "-"), l.get("GPU_I_PROFILE", "-"), l.get("Hostname", "-"), "%.9g" % float(v))' | sort
}
n=0
ndcgm=0
while IFS= read -r q; do
	n=$((n + 1))
	if [ "${q#LABEL }" != "$q" ]; then
		inner=${q#LABEL label_values(}
		metric=${inner%%,*}
		label=$(echo "${inner#*,}" | tr -d ' )')
		curl -s --get --data-urlencode "match[]=$metric" "$P/api/v1/label/$label/values" > "$T/label.json"
		for want in "$L" "$N"; do
			[ "$label" = instance ] || want=nvidia
			check "dashboard variable $q has $want" grep -qF "\"$want\"" "$T/label.json"
		done
		continue
	fi
	case $q in *DCGM_*) dcgm=true ;; *) dcgm=false ;; esac
	for host in l n; do
		inst=$L
		[ $host = n ] && inst=$N
		e=$(printf '%s' "$q" | sed -e "s/\\\$instance/$inst/g" -e 's/\$vendor/.*/g')
		check "dashboard query answers for node-$host: $e" has_data "$(printf '%s' "$e" | sed 's/\$__rate_interval/5s/g')"
		# The scenario's counters stand still, so a rate is 0 under either
		# name: the counter itself shows the conversion.
		$dcgm && values "$(printf '%s' "$e" | sed 's/rate(\([^[]*\)\[\$__rate_interval\])/\1/g')" > "$T/values.$host"
	done
	$dcgm || continue
	ndcgm=$((ndcgm + 1))
	sed 's/ node-l / HOST /' "$T/values.l" > "$T/values.l.cmp"
	sed 's/ node-n / HOST /' "$T/values.n" > "$T/values.n.cmp"
	check "the same values, with the host in Hostname, under both names: $q" diff -u "$T/values.l.cmp" "$T/values.n.cmp"
	cat "$T/values.n" >> "$T/values.all"
done < "$T/dash.queries"
check "the dashboard has queries ($n, $ndcgm over dcgm-exporter's families)" sh -c "test $n -ge 20 && test $ndcgm -ge 7"

stop_all
finish
