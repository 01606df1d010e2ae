# test_replay_records: what --replay ... --json prints for the seed's
# recordings and for rules 1-5 of the record format (docs/record-format.md).
. "$(dirname "$0")/lib.sh" || exit 1

# replay_json NAME: plays $REC/NAME with --json; expects exit 0.
replay_json() {
	run --replay "$REC/$1" --json
	expect_rc 0 "--replay $1 --json"
	check "$1: output is valid JSONL" "$JSONCMP" --valid "$T/out"
}

# Seed: recorded attribution and container survive playback.
replay_json seed_attribution.jsonl
expect_json "$T/out" "seed: attribution" <<'EOF'
{"schema":1,"ts_ms":1,"backend":"nvml","driver":"550.1","gpus":[{"name":"card0","device_id":"replay:0"}],"processes":[{"pid":7,"gpu_index":0,"container":"docker:abcdef123456"}]}
EOF

# Seed: a row naming a card outside the recorded frame is dropped.
replay_json seed_stray_gpu_index.jsonl
expect_json "$T/out" "seed: stray gpu_index" <<'EOF'
{"schema":1,"gpus":[{"name":"card0","device_id":"replay:0"},{"name":"card1","device_id":"replay:1"}],"processes":[{"pid":1,"gpu_index":0},{"pid":2,"gpu_index":1}]}
EOF

# Seed: a recorded 0 is a measurement of zero; absent memory is unknown.
replay_json seed_memory_zero.jsonl
expect_json "$T/out" "seed: 0 memory stays 0" <<'EOF'
{"schema":1,"gpus":[{"name":"card0","device_id":"replay:0"}],"processes":[{"pid":1,"gpu_index":0,"gpu_mem_bytes":0},{"pid":2,"gpu_index":0,"gpu_mem_bytes":2147483648}]}
EOF
replay_json seed_memory_absent.jsonl
expect_json "$T/out" "seed: absent memory stays unknown" <<'EOF'
{"schema":1,"gpus":[{"name":"card0","device_id":"replay:0"}],"processes":[{"pid":1,"gpu_index":0}]}
EOF

# Seed: pre-attribution recordings load.
replay_json seed_legacy.jsonl
expect_json "$T/out" "seed: legacy record" <<'EOF'
{"schema":1,"gpus":[],"processes":[]}
EOF

# Rule 1: 0 is a measurement; null and absent are both unknown (omitted).
replay_json memory_zero_null_absent.jsonl
expect_json "$T/out" "rule 1: 0 vs null vs absent" <<'EOF'
{"schema":1,"gpus":[{"name":"zero","device_id":"replay:0","util_pct":0,"mem_used_bytes":0,"temp_c":0,"power_w":0},{"name":"null","device_id":"replay:1"},{"name":"absent","device_id":"replay:2"}],"processes":[{"pid":1,"gpu_index":0,"gpu_mem_bytes":0,"gpu_util_pct":0},{"pid":2,"gpu_index":1},{"pid":3,"gpu_index":2}]}
EOF

# Rule 2: older recordings (no schema/host/backend/driver/device_id/events/
# arrays/gpu_index) still load; nothing of this machine is filled in.
replay_json legacy_no_attribution.jsonl
expect_json "$T/out" "rule 2: older recordings" <<'EOF'
{"schema":1,"gpus":[{"name":"GeForce GTX 1080","device_id":"replay:0","util_pct":55,"mem_used_bytes":1073741824,"mem_total_bytes":8589934592,"temp_c":60}],"processes":[{"pid":100,"gpu_index":0,"name":"game","gpu_mem_bytes":524288000}]}
{"schema":1,"gpus":[],"processes":[]}
{"schema":1,"ts_ms":1600000000000,"gpus":[{"name":"a","device_id":"GPU-x"},{"name":"b","device_id":"replay:1"}],"processes":[{"pid":1,"gpu_index":0},{"pid":2,"gpu_index":1}]}
{"schema":1,"ts_ms":1600000001000,"gpus":[],"processes":[]}
EOF

# Rule 2: unknown keys are ignored and not written back; a later schema is
# read as far as it is understood; an unrecognised state is unknown, not ok.
replay_json unknown_keys.jsonl
expect_json "$T/out" "rule 2: unknown keys, later schema" <<'EOF'
{"schema":1,"ts_ms":10,"host":"h","gpus":[{"name":"g","device_id":"replay:0","state":"ok","temp_c":50}],"processes":[{"pid":1,"gpu_index":0,"name":"p"}],"events":[{"kind":"note","detail":"d"}]}
{"schema":1,"ts_ms":11,"gpus":[{"name":"g","device_id":"replay:0","temp_c":51}],"processes":[]}
EOF

# Rule 3: replay:<position> fills a missing (or null) device_id; a recorded
# one always wins, even one that looks like a filled one.
replay_json missing_device_ids.jsonl
expect_json "$T/out" "rule 3: device ids" <<'EOF'
{"schema":1,"ts_ms":1,"gpus":[{"name":"a","device_id":"replay:0"},{"name":"b","device_id":"GPU-recorded-b"},{"name":"c","device_id":"replay:2"},{"name":"d","device_id":"replay:0"}],"processes":[]}
{"schema":1,"ts_ms":2,"gpus":[{"name":"b","device_id":"GPU-recorded-b"},{"name":"a","device_id":"replay:1"}],"processes":[]}
EOF

# Rule 4: rows whose gpu_index is not a non-negative integer below the
# number of GPUs are dropped, and so are rows without an integer pid;
# gpu_index missing or null reads as 0.
replay_json stray_rows.jsonl
expect_json "$T/out" "rule 4: stray rows" <<'EOF'
{"schema":1,"ts_ms":1,"gpus":[{"name":"card0","device_id":"replay:0"},{"name":"card1","device_id":"replay:1"}],"processes":[{"pid":1,"gpu_index":0},{"pid":2,"gpu_index":1},{"pid":8,"gpu_index":0},{"pid":9,"gpu_index":0}]}
{"schema":1,"ts_ms":2,"gpus":[],"processes":[]}
EOF

# Rule 5: a torn last line is skipped; a last line without \n counts.
replay_json torn_last_line.jsonl
expect_json "$T/out" "rule 5: torn last line" <<'EOF'
{"schema":1,"ts_ms":1,"gpus":[{"name":"a","device_id":"replay:0"}],"processes":[]}
{"schema":1,"ts_ms":2,"gpus":[{"name":"b","device_id":"replay:0"}],"processes":[]}
EOF
replay_json last_line_no_newline.jsonl
expect_json "$T/out" "rule 5: last line without newline" <<'EOF'
{"schema":1,"ts_ms":1,"gpus":[{"name":"a","device_id":"replay:0"}],"processes":[]}
{"schema":1,"ts_ms":2,"gpus":[{"name":"last line without newline","device_id":"replay:0"}],"processes":[]}
EOF

# Rule 5: blank lines and lines that are not one JSON object are skipped.
replay_json malformed_between.jsonl
expect_json "$T/out" "rule 5: malformed lines between good ones" <<'EOF'
{"schema":1,"ts_ms":1,"gpus":[],"processes":[]}
{"schema":1,"ts_ms":2,"gpus":[{"name":"good","device_id":"replay:0"}],"processes":[]}
{"schema":1,"ts_ms":3,"gpus":[],"processes":[]}
EOF

# Rule 5: wrong types and out-of-range values are unknown, the record stays;
# duplicate keys: the last wins; gpus/processes null or not arrays are empty.
replay_json wrong_types.jsonl
expect_json "$T/out" "rule 5: wrong types, duplicates" <<'EOF'
{"schema":1,"ts_ms":1,"gpus":[{"device_id":"replay:0"}],"processes":[{"pid":1,"gpu_index":0}]}
{"schema":1,"ts_ms":2,"host":"second","gpus":[{"name":"b","device_id":"replay:0"},{"name":"c","device_id":"replay:1"}],"processes":[]}
{"schema":1,"ts_ms":3,"gpus":[],"processes":[]}
{"schema":1,"gpus":[{"name":"ok","device_id":"replay:0","temp_c":40}],"processes":[]}
EOF

# Rule 5: CRLF line ends read exactly like LF ones (one trailing \r only).
for f in canonical.jsonl legacy_no_attribution.jsonl malformed_between.jsonl; do
	sed 's/$/\r/' "$REC/$f" > "$T/crlf.jsonl"
	run --replay "$REC/$f" --json
	mv "$T/out" "$T/lf.out"
	run --replay "$T/crlf.jsonl" --json
	expect_rc 0 "CRLF $f"
	check "CRLF $f plays exactly like LF" cmp -s "$T/lf.out" "$T/out"
done
# Two \r: one is stripped, the other is JSON whitespace; the records around
# it play either way.
printf '{"ts_ms":1}\r\n{"ts_ms":2}\r\r\n{"ts_ms":3}\r\n' > "$T/cr2.jsonl"
run --replay "$T/cr2.jsonl" --json
expect_rc 0 "double CR"
check "double CR: records 1 and 3 play" grep -q '"ts_ms":3' "$T/out"

# A lost or suspended GPU carries no readings, even when recorded with some.
printf '%s\n' '{"gpus":[{"name":"l","state":"lost","temp_c":80,"util_pct":5,"mem_used_bytes":1,"mem_total_bytes":2,"power_limit_w":300,"throttle":[]},{"name":"s","state":"suspended","power_w":3,"pstate":8}]}' > "$T/lost.jsonl"
run --replay "$T/lost.jsonl" --json
expect_rc 0 "lost GPU with readings"
expect_json "$T/out" "lost/suspended GPUs drop readings" <<'EOF'
{"schema":1,"gpus":[{"name":"l","device_id":"replay:0","state":"lost","mem_total_bytes":2,"power_limit_w":300},{"name":"s","device_id":"replay:1","state":"suspended"}],"processes":[]}
EOF

finish
