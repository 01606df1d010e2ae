#!/bin/bash
# test_report_values.sh: gpur --replay REC --report OUT.json against values
# computed independently (report_oracle.py, from docs/report.md's
# definitions) from a recording made with the fake NVML on the virtual
# clock: three GPUs, GPU 1 lost halfway, processes that come and go
# (scenario "polls" windows), throttling, a GPU without energy (power
# integrated) and one without power, and a one-hour gap between two runs.
# Also: --from/--to, --gpus, rotated and compressed sets give the same
# report as the plain file; `-` is HTML on stdout, and the page's lanes and
# columns agree with the oracle; usage and path errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
ORACLE="$SOURCE_DIR/tests/e2e/report_oracle.py"
SCEN="$SOURCE_DIR/tests/fixtures/report/scenario.json"
T0=1764583200000

record() { # START_MS COUNT >> $T/rec.jsonl
	rm -rf "$T/root" && cp -R "$FIXTURES/demo-root" "$T/root"
	GPUR_NVML_LIBRARY=$(fake modern) FAKE_NVML_SCENARIO=$SCEN FAKE_NVML_PROCFS="$T/root/proc" \
		GPUR_VIRTUAL_CLOCK_MS=$1 "$GPUR" --json --backend nvml --hostname rep --procfs "$T/root/proc" \
		--rootfs "$T/root" --interval 1 --count "$2" >> "$T/rec.jsonl" 2> "$T/rec.err"
}
record $T0 60
record $((T0 + 3600000)) 20
check "the recording has 80 records" [ "$(lines "$T/rec.jsonl")" -eq 80 ]
check "GPU 1 is lost in the recording" grep -q '"state":"lost"' "$T/rec.jsonl"

run --replay "$T/rec.jsonl" --report "$T/r.json"
expect_rc 0 "--report OUT.json"
check "the report is one JSON object" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/r.json"
check "the values agree with the independent computation" python3 "$ORACLE" "$T/rec.jsonl" "$T/r.json"
# Things the oracle agrees on must also be what the scenario says.
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$T/r.json"; }
# GPU 1 is lost in records 30 to 60 of the first run (fake poll 32; detection
# takes two): 30 stretches of 1 s, and the last one, across the gap, counts
# 5 s; after the gap it is back.
check "GPU 1 was lost for 35 s" [ "$(jq_py 'd["gpus"][1]["lost_s"]')" = 35 ]
check "the gap of an hour is counted" [ "$(jq_py 'd["span"]["gaps"]')" = 1 ]
check "GPU 2 (no power, no energy) has no energy_j" [ "$(jq_py '"energy_j" in d["gpus"][2]')" = False ]
check "GPU 2 (throttle not supported) has no throttled_s" [ "$(jq_py '"throttled_s" in d["gpus"][2]')" = False ]
# pid 48311 is listed from fake poll 10 (record 8, 7 s in) in both runs; the
# second run has 20 records, so it is last seen 19 s after the gap.
check "a process that came and went: first and last seen" \
	[ "$(jq_py '[(p["first_ms"]-'$T0', p["last_ms"]-'$T0') for p in d["processes"] if p["pid"]==48311][0]')" = "(7000, 3619000)" ]

# A span and a selection: the oracle applies the same ones.
run --replay "$T/rec.jsonl" --report "$T/span.json" --from $((T0 + 10000)) --to $((T0 + 40000))
expect_rc 0 "--report with --from/--to"
check "--from/--to values agree" python3 "$ORACLE" "$T/rec.jsonl" "$T/span.json" --from $((T0 + 10000)) --to $((T0 + 40000))
run --replay "$T/rec.jsonl" --report "$T/sel.json" --gpus 1,2
expect_rc 0 "--report with --gpus"
check "--gpus values agree (recorded indices kept)" python3 "$ORACLE" "$T/rec.jsonl" "$T/sel.json" --gpus 1,2
run --replay "$T/rec.jsonl" --report "$T/none.json" --gpus 7
expect_rc 1 "--gpus naming no GPU"
expect_stderr_contains "--gpus: no GPU matches '7'" "--gpus naming no GPU"
check "no report is left behind" [ ! -e "$T/none.json" ]

# A rotated, compressed set and a gzip file read like the plain file.
mkdir -p "$T/set"
head -n 50 "$T/rec.jsonl" | zstd -q -o "$T/set/rec.jsonl.20251201T100000Z.zst"
tail -n 30 "$T/rec.jsonl" > "$T/set/rec.jsonl"
gzip -c "$T/rec.jsonl" > "$T/rec.jsonl.gz"
same_json() { python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$@"; }
run --replay "$T/set/rec.jsonl" --report "$T/set.json"
expect_rc 0 "--report of a rotated set"
check "a rotated zstd set gives the same report" same_json "$T/r.json" "$T/set.json"
run --replay "$T/rec.jsonl.gz" --report "$T/gz.json"
expect_rc 0 "--report of a gzip file"
check "a gzip file gives the same report" same_json "$T/r.json" "$T/gz.json"

# stdout is HTML; the extension decides otherwise.
run --replay "$T/rec.jsonl" --report -
expect_rc 0 "--report -"
check "--report - writes HTML on stdout" grep -q '^<!DOCTYPE html>' "$T/out"
run --replay "$T/rec.jsonl" --report "$T/R.HTML"
expect_rc 0 "--report OUT.HTML"
check ".HTML is HTML" grep -q '<table id="gpus">' "$T/R.HTML"
# No GPU here has GPM: five lanes each, no SM or tensor column, no xid mark.
check "the page agrees with the independent computation" python3 "$ORACLE" "$T/rec.jsonl" "$T/R.HTML"

# Errors: each one line naming the option or the file.
run --report "$T/x.json"
expect_rc 2 "--report without --replay"
expect_stderr_contains "--report needs --replay" "--report without --replay"
run --replay "$T/rec.jsonl" --report "$T/x.txt"
expect_rc 2 "--report with an unknown extension"
expect_stderr_contains "x.txt: the name must end in .html, .htm or .json" "unknown extension"
run --replay "$T/rec.jsonl" --report "$T/r.json" --json
expect_rc 2 "--report with --json"
expect_one_gpur_line "--report with --json"
run --replay "$T/rec.jsonl" --report "$T/no/such/dir/r.html"
expect_rc 1 "--report into a missing directory"
expect_stderr_contains "--report $T/no/such/dir/r.html: No such file or directory" "a bad output path"
expect_one_gpur_line "a bad output path"
mkdir "$T/adir.json"
run --replay "$T/rec.jsonl" --report "$T/adir.json"
expect_rc 1 "--report onto a directory"
expect_stderr_contains "adir.json: Is a directory" "--report onto a directory"
cp "$T/rec.jsonl" "$T/self.json"
run --replay "$T/self.json" --report "$T/self.json"
expect_rc 2 "--report over its own recording"
check "the recording is untouched" cmp -s "$T/rec.jsonl" "$T/self.json"
check "no temporary file is left" [ -z "$(find "$T" -name '.*.tmp.*')" ]
finish
