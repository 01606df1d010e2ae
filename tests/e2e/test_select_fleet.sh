# test_select_fleet: gpur --select with --prometheus, a real Prometheus
# scraping two gpur exporters on the fake NVML (node-a, node-b): the free
# GPUs of the fleet as HOST:UUID (or HOST:INDEX), best first, the others'
# reasons named by host, and a fleet recording judged the same way.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; rm -rf "$T"' EXIT

need_prometheus || exit 0
TOTAL=85899345920
# node-a: GPU 0 at 31 %, GPU 1 free with 80 GiB; node-b: GPU 0 at 32 %,
# GPU 1 free with 79 GiB.
for h in a b; do
	u=31 used=0
	[ $h = b ] && u=32 used=1073741824
	scenario "$T/$h.json" <<JSON
{"driver":"550.54.15","fast_pcie":1,"gpus":[
 {"name":"NVIDIA H100","uuid":"GPU-$h-0","pci":"00000000:3B:00.0","util":$u,"mem_total":$TOTAL,"mem_used":0},
 {"name":"NVIDIA H100","uuid":"GPU-$h-1","pci":"00000000:5E:00.0","util":0,"mem_total":$TOTAL,"mem_used":$used}]}
JSON
	start_exporter $h GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/$h.json" -- \
		--backend nvml --headless --interval 0.2 --hostname node-$h
	eval "ADDR_$h=\$ADDR"
done
scrape_config 1s "$ADDR_a" "$ADDR_b"
check "Prometheus is ready" start_prometheus "$T/tsdb"
check "Prometheus has both hosts' GPUs" wait_until 60 sh -c "
	curl -s --get --data-urlencode 'query=count(DCGM_FI_DEV_GPU_UTIL)' '$P/api/v1/query' | grep -q '\"4\"'"

"$GPUR" --prometheus "$P" --select 2 --stable 0 < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "--prometheus --select 2"
check "the fleet's two free GPUs as HOST:UUID, the most free first ($(cat "$T/out"))" \
	test "$(cat "$T/out")" = "node-a:GPU-a-1,node-b:GPU-b-1"
"$GPUR" --prometheus "$P" --select 2 --stable 0 --select-format index < /dev/null > "$T/out" 2> "$T/err"
check "as HOST:INDEX ($(cat "$T/out"))" test "$(cat "$T/out")" = "node-a:1,node-b:1"
"$GPUR" --prometheus "$P" --select 3 --stable 0.5s --interval 0.2 < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 1 "--prometheus --select 3"
check "the reasons name each GPU after its host ($(cat "$T/err"))" test "$(cat "$T/err")" = \
	"gpur: --select 3: only 2 GPUs qualify: node-a GPU 0 is at 31% (> 10%, --max-util); node-b GPU 0 is at 32% (> 10%, --max-util)"

# A fleet recording: one record per host per poll, judged at its end.
"$GPUR" --prometheus "$P" --json --count 3 --interval 0.2 > "$T/rec.jsonl" 2> "$T/rec.err"
check "three polls of two hosts: six records" test "$(wc -l < "$T/rec.jsonl")" = 6
"$GPUR" --replay "$T/rec.jsonl" --select 2 --stable 0 < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "--replay of a fleet recording --select 2"
check "the recording's free GPUs as HOST:UUID ($(cat "$T/out") $(cat "$T/err"))" \
	test "$(cat "$T/out")" = "node-a:GPU-a-1,node-b:GPU-b-1"

stop_all
"$GPUR" --prometheus "$P" --select 1 --stable 0 < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 1 "Prometheus stopped"
expect_stderr_contains "$P" "the message names the URL"
finish
