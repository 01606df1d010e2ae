# test_serve_health: GET /health behind --serve, as a Kubernetes probe sees
# it, against the fake NVML's faults and a replay: 503 "no frame yet" before
# the first frame (a replay waiting for input, a live detection that hangs);
# 200 "ok" while fresh; a hung NVML call turns it 503 "nvml: no answer for
# N s" within three intervals of the hang's start, while frames keep
# coming, and 200 again once the call answers; the library failing as a
# whole gives 503 "every backend is lost (nvml)" until it is re-detected; a
# GPU lost alone does not; a replay stays healthy while it plays and long
# after its end. A poller (python3) samples /health (and the frame counter
# of /metrics) all along; the fake's hang log says when a hang began and
# ended, so the checks are conditions on those times, not sleeps.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; kill $SLEEPERS $MON 2>/dev/null; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT
MON=""

for tool in curl python3; do
	if ! command -v "$tool" > /dev/null; then
		skip "$TEST_NAME: $tool is not installed"
		exit 0
	fi
done

# The poller: until STOPFILE exists (60 s at most), one line per sample:
# "SENT_MS DONE_MS STATUS FRAMES BODY" (wall-clock ms, as the hang log;
# FRAMES: gpur_exporter_frames_total then, or - without a metrics scrape;
# STATUS 0: no answer).
cat > "$T/poll.py" << 'PY'
import os, re, sys, time, urllib.error, urllib.request
url, out, stop = sys.argv[1], sys.argv[2], sys.argv[3]
metrics = len(sys.argv) > 4
def get(path):
    try:
        with urllib.request.urlopen(url + path, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except Exception as e:
        return 0, type(e).__name__
end = time.monotonic() + 60
with open(out, "w", buffering=1) as f:
    while not os.path.exists(stop) and time.monotonic() < end:
        sent = time.time_ns() // 1000000
        status, body = get("/health")
        frames = "-"
        if metrics:
            st, text = get("/metrics")
            m = re.search(r"^gpur_exporter_frames_total(?:\{[^}]*\})? (\d+)$", text, re.M)
            frames = m.group(1) if st == 200 and m else "?"
        done = time.time_ns() // 1000000
        f.write("%d %d %d %s %s\n" % (sent, done, status, frames, body.strip().replace("\n", "\\n")))
        time.sleep(0.01)
PY
# poller NAME URL [metrics]: starts one in the background; its samples in
# $T/NAME.samples, stopped by stop_poller NAME.
poller() {
	rm -f "$T/$1.stop" "$T/$1.samples"
	python3 "$T/poll.py" "$2" "$T/$1.samples" "$T/$1.stop" ${3:+metrics} &
	MON=$!
}
stop_poller() {
	touch "$T/$1.stop"
	wait "$MON" 2> /dev/null
	MON=""
}
# samples NAME: at least one sample so far.
has_samples() { [ -s "$T/$1.samples" ]; }
# A sample line with this status and body, from the poller NAME.
sampled() { grep -qE "^[0-9]+ [0-9]+ $2 [^ ]+ $3\$" "$T/$1.samples" 2> /dev/null; }
# health URL: "STATUS BODY" of one GET.
health() {
	local out
	out=$(curl -s --max-time 5 -w '\n%{http_code}' "$1/health")
	printf '%s %s\n' "${out##*$'\n'}" "$(printf '%s' "${out%$'\n'*}" | tr '\n' ' ' | sed 's/ *$//')"
}
# frames_are URL N: /metrics says gpur_exporter_frames_total N.
frames_are() { curl -s --max-time 5 "$1/metrics" | grep -Eq "^gpur_exporter_frames_total(\{[^}]*\})? $2\$"; }
health_is() { [ "$(health "$1")" = "$2" ]; }
# analyse ARGS... <<PY: runs the python3 analysis on stdin, which prints
# "ok<TAB>WHAT", "fail<TAB>WHAT" or "info<TAB>TEXT" lines, and counts them
# here (not in a pipeline's subshell); an analysis that dies fails.
analyse() {
	local v w rc
	python3 - "$@" > "$T/verdicts" 2>&1
	rc=$?
	while IFS=$'\t' read -r v w; do
		case $v in
		ok) ok ;;
		fail) fail "$w" ;;
		info) echo "  $w" ;;
		*) echo "  $v${w:+ $w}" ;;
		esac
	done < "$T/verdicts"
	[ "$rc" -eq 0 ] || fail "an analysis exited with status $rc"
}

gpu() { # gpu NAME UUID PCI [extra JSON]
	printf '{"name":"%s","uuid":"%s","pci":"%s","util":[11,22,33],"mem_total":1000,"mem_used":10,"temp":40%s}' \
		"$1" "$2" "$3" "${4:-}"
}

# --- A replay behind --serve: no frame before its first record, then
# healthy while it plays and after its end. Its records come through a FIFO
# whose writer is this script.
rm -f "$T/fifo"
mkfifo "$T/fifo"
exec 3<> "$T/fifo"
head -n 3 "$REC/canonical.jsonl" > "$T/rec.jsonl"
start_exporter fifo -- --replay "$T/fifo" --headless --interval 0.05 3>&-
U=http://$ADDR
check "a replay waiting for its first record: 503 no frame yet" health_is "$U" "503 no frame yet"
curl -s -D "$T/h.h" -o /dev/null "$U/health"
check "/health is text/plain" grep -qi '^Content-Type: text/plain' "$T/h.h"
check "/health is not cached" grep -qi '^Cache-Control: no-store' "$T/h.h"
poller fifo "$U"
wait_until 10 has_samples fifo
sed -n 1p "$T/rec.jsonl" >&3
check "its first record: 200 ok" wait_until 10 health_is "$U" "200 ok"
sed -n 2p "$T/rec.jsonl" >&3
sed -n 3p "$T/rec.jsonl" >&3
check "all three records served" wait_until 10 frames_are "$U" 3
exec 3>&- # the end of the replay
# Long after its end (40 intervals of 0.05 s, by the samples' own clock):
# still healthy, every sample.
t_end=$(($(date +%s%3N)))
span_done() { [ "$(awk -v e="$t_end" '$1 > e + 2000 {n++} END {print n + 0}' "$T/fifo.samples")" -ge 1 ]; }
check "the poller samples 2 s past the replay's end" wait_until 20 span_done
stop_poller fifo
check "gpur still serves after the replay's end" kill -0 "$PID"
analyse "$T/fifo.samples" << 'PY'
import sys
s = [l.rstrip("\n").split(" ", 4) for l in open(sys.argv[1])]
first = next((i for i, x in enumerate(s) if x[2] == "200"), None)
if first is None:
    print("fail\tthe replay never was healthy")
    sys.exit()
before = {(x[2], x[4]) for x in s[:first]}
print("ok" if before <= {("503", "no frame yet")} else "fail", "\tbefore the first record only 503 no frame yet (%s)" % sorted(before), sep="")
after = [x for x in s[first:] if (x[2], x[4]) != ("200", "ok")]
print("ok" if not after else "fail", "\tfrom the first record on, and after the end, every sample 200 ok (%d of %d; first other: %s)" % (len(after), len(s) - first, after[:1]), sep="")
PY
stop_exporters "$TEST_NAME"

# A recording file played to its end at once: healthy afterwards.
start_exporter file -- --replay "$REC/canonical.jsonl" --headless --interval 0.05
U=http://$ADDR
check "a recording played to its end: all its records served" \
	wait_until 10 frames_are "$U" 3
check "a recording played to its end: 200 ok" health_is "$U" "200 ok"
stop_exporters "$TEST_NAME"

# --- Live, the fake NVML: detection hangs 1.5 s in nvmlDeviceGetCount, so
# the port is open before any frame: 503 "no frame yet", then 200 "ok".
scenario "$T/detect.json" << JSON
{"fast_pcie":1,"hang":{"poll":0,"ms":1500,"call":"nvmlDeviceGetCount"},"gpus":[$(gpu A GPU-a 0000:01:00.0)]}
JSON
rm -f "$T/detect.log"
start_exporter detect GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/detect.json" \
	FAKE_NVML_HANG_LOG="$T/detect.log" -- --backend nvml --headless --interval 0.2
U=http://$ADDR
poller detect "$U"
check "detection hangs" wait_until 10 grep -qs '^begin nvmlDeviceGetCount' "$T/detect.log"
check "detection's hang ends" wait_until 10 grep -qs '^end nvmlDeviceGetCount' "$T/detect.log"
check "live, after detection: 200 ok" wait_until 15 health_is "$U" "200 ok"
stop_poller detect
analyse "$T/detect.samples" "$T/detect.log" << 'PY'
import sys
s = [l.rstrip("\n").split(" ", 4) for l in open(sys.argv[1])]
log = dict((l.split()[0], int(l.split()[2])) for l in open(sys.argv[2]))
inside = [x for x in s if int(x[0]) >= log["begin"] and int(x[1]) <= log["end"]]
print("info\t%d samples while detection hung" % len(inside))
print(("ok" if inside and all((x[2], x[4]) == ("503", "no frame yet") for x in inside) else "fail") +
      "\tlive, while detection hangs: 503 no frame yet (%s)" % sorted({(x[2], x[4]) for x in inside}))
PY
stop_exporters "$TEST_NAME"

# --- A hung NVML call at poll 10 (util, 3 s) at --interval 0.2: 503 within
# three intervals of its start, frames on all along, 200 once it answers.
# (It once stayed 200: the exporter was told of the source before the
# source was made, so it never learned that NVML did not answer.)
IV_MS=200
scenario "$T/hang.json" << JSON
{"fast_pcie":1,"hang":{"poll":10,"ms":3000,"call":"util"},"gpus":[$(gpu A GPU-a 0000:01:00.0)]}
JSON
rm -f "$T/hang.log"
start_exporter hang GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/hang.json" \
	FAKE_NVML_HANG_LOG="$T/hang.log" -- --backend nvml --headless --interval 0.2
U=http://$ADDR
poller hang "$U" metrics
check "the hung call began" wait_until 20 grep -qs '^begin util' "$T/hang.log"
check "and answered" wait_until 20 grep -qs '^end util' "$T/hang.log"
check "healthy again after it answered" wait_until 10 health_is "$U" "200 ok"
# A last sample after the return to health.
n=$(wc -l < "$T/hang.samples")
more_samples() { [ "$(wc -l < "$T/hang.samples")" -gt "$((n + 2))" ]; }
wait_until 10 more_samples
stop_poller hang
analyse "$T/hang.samples" "$T/hang.log" "$IV_MS" << 'PY'
import re, sys
s = [l.rstrip("\n").split(" ", 4) for l in open(sys.argv[1])]
s = [(int(a), int(b), int(c), f, body) for a, b, c, f, body in s]
log = dict((l.split()[0], int(l.split()[2])) for l in open(sys.argv[2]))
iv = int(sys.argv[3])
begin, end = log["begin"], log["end"]
print("info\thang from %d to %d (%d ms); %d samples" % (begin, end, end - begin, len(s)))
def say(cond, what):
    print(("ok" if cond else "fail") + "\t" + what)
pre = [x for x in s if x[1] < begin]
say(pre and all((x[2], x[4]) == (200, "ok") for x in pre[1:]),
    "before the hang every sample 200 ok (%d samples; others: %s)" % (len(pre), [x for x in pre[1:] if x[2] != 200][:2]))
bad = [x for x in s if x[2] == 503 and x[1] >= begin]
if not bad:
    say(False, "/health never said 503 during a %d ms hang of NVML (%s)" % (end - begin, sorted({(x[2], x[4]) for x in s if begin <= x[0] and x[1] <= end})))
    sys.exit()
first = bad[0]
# busy_since is set when the poll starts, before the fake's "begin": the
# first 503 may come a little before 2 intervals after "begin", never at once.
delay = first[1] - begin
print("info\tfirst 503 %d ms after the hang began (2 intervals: %d ms; 3: %d ms)" % (delay, 2 * iv, 3 * iv))
say(first[0] >= begin + 2 * iv - 150, "no 503 before two intervals of hang (first sent %d ms after it began)" % (first[0] - begin))
# Three intervals, and CI's slack for the poller's own request.
say(first[0] <= begin + 3 * iv + 700, "503 within three intervals of the hang (first 503 sent %d ms after it began; allowed %d)" % (first[0] - begin, 3 * iv + 700))
reason = re.compile(r"^nvml: no answer for (\d+(?:\.\d)?) s$")
during = [x for x in s if x[0] >= first[0] and x[1] < end]
say(all(x[2] == 503 for x in during), "503 on every sample from the first until the call answered (%s)" % [x for x in during if x[2] != 503][:2])
say(all(reason.match(x[4]) for x in during if x[2] == 503), "every 503 says 'nvml: no answer for N s' (%s)" % sorted({x[4] for x in during})[:4])
# N is the hang's age in whole seconds.
wrong = [x for x in during if reason.match(x[4]) and not ((x[0] - begin) / 1000 - 1 <= float(reason.match(x[4]).group(1)) <= (x[1] - begin) / 1000 + 1)]
say(not wrong, "N follows the hang's age in seconds (%s)" % wrong[:2])
ns = [float(reason.match(x[4]).group(1)) for x in during if reason.match(x[4])]
say(ns and max(ns) >= 2, "N reaches 2 s in a 3 s hang (max %s)" % (max(ns) if ns else None))
fr = [int(x[3]) for x in during if x[3].isdigit()]
say(len(fr) >= 2 and fr[-1] - fr[0] >= 5, "frames keep coming while /health says 503 (frames_total %s -> %s)" % (fr[:1], fr[-1:]))
post = [x for x in s if x[0] > end]
okpost = [x for x in post if (x[2], x[4]) == (200, "ok")]
say(okpost, "200 ok after the call answered")
if okpost:
    back = okpost[0][1] - end
    print("info\t200 again %d ms after the call answered" % back)
    say(back <= 3 * iv + 1000, "200 within three intervals of the answer (%d ms)" % back)
    late = [x for x in s if x[0] > okpost[0][1] and (x[2], x[4]) != (200, "ok")]
    say(not late, "and 200 ok from then on (%s)" % late[:2])
PY
stop_exporters "$TEST_NAME"

# --- A GPU lost alone leaves /health healthy; the library failing as a
# whole (NVML_ERROR_DRIVER_NOT_LOADED from poll 25) is 503 "every backend
# is lost (nvml)", until one re-init succeeds (after the 1 s backoff).
scenario "$T/lost.json" << JSON
{"fast_pcie":1,"library_fail":{"poll":25,"code":9,"inits":1},
 "gpus":[$(gpu A GPU-a 0000:01:00.0),$(gpu B GPU-b 0000:02:00.0 ',"lost_at_poll":5')]}
JSON
start_exporter lost GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/lost.json" -- \
	--backend nvml --headless --interval 0.1
U=http://$ADDR
poller lost "$U"
metric_is() { curl -s --max-time 5 "$U/metrics" | grep -q "^$1{[^}]*$2[^}]*} $3\$"; }
check "GPU 1 is lost" wait_until 20 metric_is gpur_gpu_lost 'gpu="1"' 1
check "a GPU lost alone: 200 ok" health_is "$U" "200 ok"
check "the library failing: 503 every backend is lost (nvml)" \
	wait_until 20 sampled lost 503 'every backend is lost \(nvml\)'
check "NVML re-detected: 200 ok again" wait_until 20 health_is "$U" "200 ok"
check "and its backend is up" metric_is gpur_backend_up 'backend="nvml"' 1
n=$(wc -l < "$T/lost.samples")
more_samples() { [ "$(wc -l < "$T/lost.samples")" -gt "$((n + 2))" ]; }
wait_until 10 more_samples
stop_poller lost
analyse "$T/lost.samples" << 'PY'
import sys
s = [l.rstrip("\n").split(" ", 4) for l in open(sys.argv[1])]
kinds = []
if s and (s[0][2], s[0][4]) == ("503", "no frame yet"):
    s = [x for x in s if (x[2], x[4]) != ("503", "no frame yet")] if all((x[2], x[4]) == ("503", "no frame yet") for x in s[:next((i for i, x in enumerate(s) if x[2] == "200"), len(s))]) else s
for x in s:
    k = (x[2], x[4])
    if not kinds or kinds[-1] != k:
        kinds.append(k)
print("info\t/health went %s" % " -> ".join("%s %s" % k for k in kinds))
want = [("200", "ok"), ("503", "every backend is lost (nvml)"), ("200", "ok")]
print(("ok" if kinds == want else "fail") + "\t/health: 200 ok, then 503 every backend is lost (nvml), then 200 ok, and nothing else (%s)" % kinds)
PY
stop_exporters "$TEST_NAME"
stop_all
finish
