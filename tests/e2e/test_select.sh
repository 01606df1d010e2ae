# test_select: gpur --select on the fake NVML, a recording and MIG. Four
# GPUs of 80 GiB: GPU 0 free (a process of the current user on it), GPU 1
# with 3.2 GiB free, GPU 2 at 45 %, GPU 3 running a process of another user
# (nobody, through setpriv). The right GPUs in the right order, as UUIDs and
# as indices; each filter's reason in the one-line failure; a spike within
# --stable keeps a GPU out (live, and exactly by a recording's times);
# unknowns never pass a filter that is on; MIG instances by their ids; and
# every usage error, exit 2 naming the option.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

# usage_error TEXT ARGS...: exit 2, nothing on stdout, one "gpur: " line
# with TEXT.
usage_error() {
	local text=$1
	shift
	run "$@"
	expect_rc 2 "gpur $*"
	expect_one_gpur_line "gpur $*"
	expect_stderr_contains "$text" "gpur $*"
	check "gpur $*: nothing on stdout" test ! -s "$T/out"
}
usage_error "--select: '0' is not a number of GPUs from 1 to 65536" --select 0
usage_error "--wait: '0' is not a number of GPUs from 1 to 65536" --wait 0 -- true
usage_error "--wait needs a command after --: gpur --wait N [OPTION]... -- CMD [ARG]..." --wait 1
usage_error "--wait needs a command after --" --wait 1 --
usage_error "unexpected argument 'true' (--wait's command follows --" --wait 1 true
usage_error "unexpected argument 'true' (try --help)" --select 1 -- true
usage_error "--select and --wait conflict" --select 1 --wait 1 -- true
usage_error "--min-free needs --select N or --wait N (it filters their choice)" --min-free 1G
usage_error "--max-util needs --select N or --wait N" --max-util 5 --once
usage_error "--stable needs --select N or --wait N" --stable 1s
usage_error "--shared needs --select N or --wait N" --shared
usage_error "--select-format needs --select N or --wait N" --select-format index
usage_error "--lock needs --wait N (locks are held while its command runs)" --select 1 --lock
usage_error "--timeout needs --wait N (it limits the wait)" --select 1 --timeout 1m
usage_error "--min-free: '20GB' is not a size" --select 1 --min-free 20GB
usage_error "--min-free: '101%' is not a size" --select 1 --min-free 101%
usage_error "--max-util: '101' is not a percentage from 0 to 100" --select 1 --max-util 101
usage_error "--stable: '10x' is not a duration" --select 1 --stable 10x
usage_error "--stable: '25h' is not a duration" --select 1 --stable 25h
usage_error "--timeout: '0' is not a duration" --wait 1 --timeout 0 -- true
usage_error "--select-format: 'name' is not uuid or index" --select 1 --select-format name
usage_error "--select cannot be combined with --once (it prints its choice and exits)" --select 1 --once
usage_error "--select cannot be combined with --log" --select 1 --log "$T/x.jsonl"
usage_error "--wait cannot be combined with --json (it runs a command)" --wait 1 --json -- true
usage_error "--wait cannot be combined with --replay (the command runs on this machine's GPUs)" \
	--wait 1 --replay "$REC/canonical.jsonl" -- true
usage_error "--wait cannot be combined with --prometheus" --wait 1 --prometheus http://127.0.0.1:1 -- true

spawn_sleeper
MINE=$SLEEPER
OTHER_USER=""
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 &
	OTHER=$!
	SLEEPERS="$SLEEPERS $OTHER"
	wait_until 5 grep -q '^sleep' "/proc/$OTHER/comm"
	OTHER_USER=$(id -nu 65534 2> /dev/null || echo 65534)
else
	# Without root, another user's process is one gpur cannot name: the
	# kernel's init, whose user it still reads as root, stands in.
	OTHER=1
	OTHER_USER=root
fi
TOTAL=85899345920
scenario "$T/four.json" <<JSON
{"fast_pcie":1,"gpus":[
 {"name":"F","uuid":"GPU-sel-0","pci":"0000:01:00.0","util":0,"mem_total":$TOTAL,"mem_used":2147483648,
  "processes":[{"pid":$MINE,"mem":1048576,"sm":0}]},
 {"name":"F","uuid":"GPU-sel-1","pci":"0000:02:00.0","util":0,"mem_total":$TOTAL,"mem_used":$((TOTAL - 3435973837))},
 {"name":"F","uuid":"GPU-sel-2","pci":"0000:03:00.0","util":45,"mem_total":$TOTAL,"mem_used":0},
 {"name":"F","uuid":"GPU-sel-3","pci":"0000:04:00.0","util":0,"mem_total":$TOTAL,"mem_used":0,
  "processes":[{"pid":$OTHER,"mem":1048576,"sm":0}]}]}
JSON
sel() { nvml modern "$T/four.json" --select "$@" --stable 0.3s --interval 0.1; }

sel 1
expect_rc 0 "--select 1"
check "--select 1: the free GPU's UUID and a newline, nothing else" \
	sh -c "test \"\$(cat '$T/out')\" = GPU-sel-0 && test \$(wc -c < '$T/out') = 10"
check "--select 1: stderr is empty" test ! -s "$T/err"

sel 2
expect_rc 1 "--select 2 with one free GPU"
expect_one_gpur_line "--select 2"
check "--select 2: nothing on stdout" test ! -s "$T/out"
want="gpur: --select 2: only 1 GPU qualifies: GPU 1 has 3.2 GiB free (< 72.0 GiB, --min-free); GPU 2 is at 45% (> 10%, --max-util); GPU 3 runs a process of user $OTHER_USER (--shared)"
check "--select 2: each filter's reason, GPU by GPU ($(cat "$T/err"))" test "$(cat "$T/err")" = "$want"

sel 2 --shared
expect_rc 0 "--select 2 --shared"
check "--shared: GPU 3 (80 GiB free) before GPU 0 (78 GiB)" test "$(cat "$T/out")" = "GPU-sel-3,GPU-sel-0"
sel 2 --shared --select-format index
check "--select-format index: 3,0" test "$(cat "$T/out")" = "3,0"
sel 4 --shared --min-free 0 --max-util 100 --select-format index
expect_rc 0 "every filter off"
check "the most free first, then the lowest utilisation (GPU 3 at 0 % before GPU 2 at 45 %): $(cat "$T/out")" \
	test "$(cat "$T/out")" = "3,2,0,1"
sel 2 --max-util 50
check "--max-util 50 lets GPU 2 in, first by its free memory: $(cat "$T/out")" \
	test "$(cat "$T/out")" = "GPU-sel-2,GPU-sel-0"
sel 1 --min-free 3G --max-util 0 --gpus 1
check "--min-free 3G takes GPU 1 with 3.2 GiB, --gpus 1 narrows to it" test "$(cat "$T/out")" = "GPU-sel-1"
sel 2 --min-free 50% --gpus GPU-sel-1,2
expect_rc 1 "--gpus 1,2"
check "--gpus: only the named GPUs' reasons, 50 % of 80 GiB asked" test "$(cat "$T/err")" = \
	"gpur: --select 2: no GPU qualifies: GPU 1 has 3.2 GiB free (< 40.0 GiB, --min-free); GPU 2 is at 45% (> 10%, --max-util)"
sel 1 --gpus 7
expect_rc 1 "--gpus 7"
expect_stderr_contains "--gpus: no GPU matches '7' (4 GPUs here)" "--gpus naming no GPU"

# A GPU whose utilisation is unknown is not free, unless the filter is off.
scenario "$T/unknown.json" <<JSON
{"fast_pcie":1,"gpus":[
 {"name":"F","uuid":"GPU-u-0","pci":"0000:01:00.0","util":0,"mem_total":$TOTAL,"mem_used":0,"not_supported":["util"]}]}
JSON
nvml modern "$T/unknown.json" --select 1 --stable 0
expect_rc 1 "unknown utilisation"
check "unknown utilisation never qualifies" test "$(cat "$T/err")" = \
	"gpur: --select 1: no GPU qualifies: GPU 0's utilisation is unknown (--max-util)"
nvml modern "$T/unknown.json" --select 1 --stable 0 --max-util 100
check "--max-util 100 turns the filter off" test "$(cat "$T/out")" = GPU-u-0

# A spike within --stable: GPU 0 reaches 60 % every third poll, so every
# window of 0.6 s at 0.1 s holds one; GPU 1 stays at 0 %.
scenario "$T/spike.json" <<JSON
{"fast_pcie":1,"gpus":[
 {"name":"F","uuid":"GPU-spike","pci":"0000:01:00.0","util":[0,0,60],"mem_total":$TOTAL,"mem_used":0},
 {"name":"F","uuid":"GPU-calm","pci":"0000:02:00.0","util":0,"mem_total":$TOTAL,"mem_used":0}]}
JSON
nvml modern "$T/spike.json" --select 2 --stable 0.6s --interval 0.1
expect_rc 1 "a GPU that spiked within --stable"
check "the spike's reason: $(cat "$T/err")" grep -qE "^gpur: --select 2: only 1 GPU qualifies: GPU 0 (is|was) at 60%" "$T/err"
nvml modern "$T/spike.json" --select 1 --stable 0.6s --interval 0.1
check "--select 1 takes the calm GPU" test "$(cat "$T/out")" = GPU-calm

# A recording: the window is the records' time, and a record's readings
# stand until the next. GPU-r0 reaches 70 % at 4000, 1 s before the last
# record; GPU-r1 stays at 5 %.
for ts in 1000 2000 3000 4000 5000; do
	u=0
	[ $ts = 4000 ] && u=70
	printf '{"ts_ms":%s,"gpus":[{"device_id":"GPU-r0","state":"ok","util_pct":%s,"mem_used_bytes":0,"mem_total_bytes":%s},{"device_id":"GPU-r1","state":"ok","util_pct":5,"mem_used_bytes":0,"mem_total_bytes":%s}]}\n' \
		$ts $u $TOTAL $TOTAL
done > "$T/rec.jsonl"
run --replay "$T/rec.jsonl" --select 2 --stable 1.5s
expect_rc 1 "replay: the spike is within the last 1.5 s"
check "replay: the recorded spike, by the records' times" test "$(cat "$T/err")" = \
	"gpur: --select 2: only 1 GPU qualifies: GPU 0 was at 70% in the last 1.5s (> 10%, --max-util)"
run --replay "$T/rec.jsonl" --select 2 --stable 0.9s
expect_rc 1 "replay: the spike's record stands until the next, 1 s later"
check "replay: so it is within the last 0.9 s" test "$(cat "$T/err")" = \
	"gpur: --select 2: only 1 GPU qualifies: GPU 0 was at 70% in the last 0.9s (> 10%, --max-util)"
run --replay "$T/rec.jsonl" --select 2 --stable 0
expect_rc 0 "replay: --stable 0, the last record alone"
check "replay: both, the one at 0 % first: $(cat "$T/out")" test "$(cat "$T/out")" = "GPU-r0,GPU-r1"
run --replay "$T/rec.jsonl" --select 1 --stable 1h
check "replay shorter than --stable: judged whole, GPU-r1" test "$(cat "$T/out")" = "GPU-r1"
printf '{"ts_ms":6000,"gpus":[{"device_id":"GPU-r0","state":"lost"},{"device_id":"GPU-r1","state":"ok","util_pct":5,"mem_used_bytes":0,"mem_total_bytes":%s}]}\n' \
	$TOTAL >> "$T/rec.jsonl"
run --replay "$T/rec.jsonl" --select 2 --stable 0
check "replay: a lost GPU never qualifies" test "$(cat "$T/err")" = \
	"gpur: --select 2: only 1 GPU qualifies: GPU 0 is lost"

# MIG: the instances are chosen by their MIG ids, never the GPU in MIG
# mode. MIG-one has GPM (its graphics activity is its utilisation),
# MIG-two has none, so its utilisation is unknown; GPU-plain is busy.
scenario "$T/mig.json" <<JSON
{"fast_pcie":1,"gpus":[
 {"name":"NVIDIA A100-SXM4-40GB","uuid":"GPU-parent","pci":"0000:07:00.0","util":0,"mem_total":42949672960,"mem_used":0,
  "mig":[{"uuid":"MIG-one","profile":"3g.20gb","gi":1,"ci":0,"mem_total":21474836480,"mem_used":1048576,"gpm":{"gr":3}},
         {"uuid":"MIG-two","profile":"1g.5gb","gi":2,"ci":0,"mem_total":5368709120,"mem_used":2097152}]},
 {"name":"NVIDIA A100-SXM4-40GB","uuid":"GPU-plain","pci":"0000:0f:00.0","util":50,"mem_total":42949672960,"mem_used":0}]}
JSON
nvml modern "$T/mig.json" --select 1 --stable 0.3s --interval 0.1
expect_rc 0 "MIG"
check "MIG: an instance by its id" test "$(cat "$T/out")" = MIG-one
nvml modern "$T/mig.json" --select 2 --stable 0.3s --interval 0.1
check "MIG: the reasons name the instance and the plain GPU by its place" test "$(cat "$T/err")" = \
	"gpur: --select 2: only 1 GPU qualifies: MIG-two's utilisation is unknown (--max-util); GPU 3 is at 50% (> 10%, --max-util)"
nvml modern "$T/mig.json" --select 3 --stable 0 --max-util 100 --select-format index
check "MIG: indices count physical GPUs, instances keep their ids: $(cat "$T/out")" \
	test "$(cat "$T/out")" = "1,MIG-one,MIG-two"
nvml modern "$T/mig.json" --select 4 --stable 0 --max-util 100
check "MIG: the GPU in MIG mode is never a candidate" grep -q "only 3 GPUs qualify: there are only 3 GPUs" "$T/err"

finish
