# test_limits: rule 5's bounds. A line over 8 MiB is skipped (one of exactly
# 8 MiB is kept), records over 1,024 GPUs / 16,384 processes / 1,024 events
# are skipped, a 2 GiB file without a newline is "no valid JSONL records",
# the writer never emits a line over 8 MiB (rule 7), and gpur's peak RSS
# stays under 64 MiB throughout (skipped for sanitizer builds).
. "$(dirname "$0")/lib.sh" || exit 1

MIB8=8388608
RSS_LIMIT_KIB=65536

# padded_line TS LEN: a record of exactly LEN bytes (no newline) with ts_ms TS,
# padded by an unknown key.
padded_line() {
	local head="{\"ts_ms\":$1,\"pad\":\"" tail='"}'
	printf '%s' "$head"
	head -c $(($2 - ${#head} - ${#tail})) /dev/zero | tr '\0' a
	printf '%s' "$tail"
}

# rss_run ARGS...: runs gpur under rssrun; sets RC and RSS_KIB.
rss_run() {
	"$RSSRUN" "$GPUR" "$@" < /dev/null > "$T/out" 2> "$T/err"
	RC=$?
	RSS_KIB=$(sed -n 's/^rssrun: maxrss_kib=\([0-9]*\)$/\1/p' "$T/err")
	sed -i '/^rssrun: maxrss_kib=/d; /^$/d' "$T/err"
}
# A sanitizer build's shadow memory makes its RSS meaningless here.
SANITIZED=false
grep -qaE '__(asan|tsan|msan)_init' "$GPUR" && SANITIZED=true
$SANITIZED && skip "peak RSS checks: $GPUR is built with a sanitizer"
expect_rss_below_limit() {
	$SANITIZED && return
	if [ -n "$RSS_KIB" ] && [ "$RSS_KIB" -lt "$RSS_LIMIT_KIB" ]; then ok; else
		fail "$1: peak RSS ${RSS_KIB:-?} KiB, limit $RSS_LIMIT_KIB KiB"
	fi
}

# Lines around 8 MiB between good lines.
{
	printf '{"ts_ms":1}\n'
	padded_line 2 $((MIB8 + 1)); printf '\n'          # over: skipped
	printf '{"ts_ms":3}\n'
	padded_line 4 $MIB8; printf '\n'                  # exactly 8 MiB: kept
	padded_line 5 $MIB8; printf '\r\n'                # 8 MiB + \r: kept
	padded_line 6 $((MIB8 + 1)); printf '\r\n'        # over, with \r: skipped
	padded_line 7 $((3 * MIB8)); printf '\n'          # far over: skipped
	printf '{"ts_ms":8}\n'
	padded_line 9 $((MIB8 + 1))                       # over, last, no \n
} > "$T/long-lines.jsonl"
rss_run --replay "$T/long-lines.jsonl" --json
expect_rc 0 "long lines"
expect_json "$T/out" "lines over 8 MiB are skipped, 8 MiB kept" <<'EOF'
{"schema":1,"ts_ms":1,"gpus":[],"processes":[]}
{"schema":1,"ts_ms":3,"gpus":[],"processes":[]}
{"schema":1,"ts_ms":4,"gpus":[],"processes":[]}
{"schema":1,"ts_ms":5,"gpus":[],"processes":[]}
{"schema":1,"ts_ms":8,"gpus":[],"processes":[]}
EOF
expect_rss_below_limit "long lines"
# Only over-long lines: no valid record.
{ padded_line 1 $((MIB8 + 1)); printf '\n'; padded_line 2 $((2 * MIB8)); } > "$T/only-long.jsonl"
rss_run --replay "$T/only-long.jsonl" --json
expect_rc 1 "only over-long lines"
expect_stderr_contains "gpur: $T/only-long.jsonl: no valid JSONL records" "only over-long lines"
expect_rss_below_limit "only over-long lines"

# A 2 GiB sparse file: one 2 GiB "line" of NUL bytes, never held whole.
truncate -s 2G "$T/sparse.jsonl"
rss_run --replay "$T/sparse.jsonl" --json
expect_rc 1 "2 GiB sparse file"
expect_stderr_contains "gpur: $T/sparse.jsonl: no valid JSONL records" "2 GiB sparse file"
expect_rss_below_limit "2 GiB sparse file"
# A good record after the 2 GiB line still plays.
printf '\n{"ts_ms":42}\n' >> "$T/sparse.jsonl"
rss_run --replay "$T/sparse.jsonl" --json
expect_rc 0 "2 GiB line then a good record"
expect_json "$T/out" "the record after a 2 GiB line" <<'EOF'
{"schema":1,"ts_ms":42,"gpus":[],"processes":[]}
EOF
expect_rss_below_limit "2 GiB line then a good record"
rm -f "$T/sparse.jsonl"

# repeat N TEXT: TEXT N times, comma-separated.
repeat() {
	local i
	printf '%s' "$2"
	for ((i = 1; i < $1; i++)); do printf ',%s' "$2"; done
}
# Records at and over the limits, between good records.
{
	printf '{"ts_ms":1}\n'
	printf '{"ts_ms":2,"gpus":[%s]}\n' "$(repeat 1025 '{}')"
	printf '{"ts_ms":3,"gpus":[%s]}\n' "$(repeat 1024 '{}')"
	printf '{"ts_ms":4,"gpus":[{}],"processes":[%s]}\n' "$(repeat 16385 '{"pid":1}')"
	printf '{"ts_ms":5,"gpus":[{}],"processes":[%s]}\n' "$(repeat 16384 '{"pid":1}')"
	printf '{"ts_ms":6,"events":[%s]}\n' "$(repeat 1025 '{"kind":"note"}')"
	printf '{"ts_ms":7,"events":[%s]}\n' "$(repeat 1024 '{"kind":"note"}')"
	printf '{"ts_ms":8}\n'
} > "$T/counts.jsonl"
rss_run --replay "$T/counts.jsonl" --json
expect_rc 0 "record limits"
expect_rss_below_limit "record limits"
check "record limits: valid output" "$JSONCMP" --valid "$T/out"
ts_list=$(grep -o '^{"schema":1,"ts_ms":[0-9]*' "$T/out" | sed 's/.*://' | tr '\n' ' ')
check "records over the limits are skipped, at the limits kept (got: $ts_list)" \
	test "$ts_list" = "1 3 5 7 8 "
check "1,024 GPUs are all kept" test "$(sed -n 2p "$T/out" | grep -o '"device_id"' | wc -l)" -eq 1024
check "16,384 processes are all kept" test "$(sed -n 3p "$T/out" | grep -o '"pid"' | wc -l)" -eq 16384
check "1,024 events are all kept" test "$(sed -n 4p "$T/out" | grep -o '"kind"' | wc -l)" -eq 1024
# The table of a record with 1,024 GPUs.
sed -n 3p "$T/counts.jsonl" > "$T/1024.jsonl"
rss_run --replay "$T/1024.jsonl" --once
expect_rc 0 "--once with 1,024 GPUs"
check "--once shows all 1,024 GPUs" test "$(grep -c '^\[' "$T/out")" -eq 1024
# The writer never emits a line over 8 MiB (rule 7). Each invalid byte 0xFF
# read becomes U+FFFD (3 bytes) written, so records under 8 MiB in grow past
# it out: first command lines are left out, then process rows, each with a
# note event saying so.
FF85=$(printf '\xff%.0s' $(seq 85))
FF1365=$(printf '\xff%.0s' $(seq 1365))
{
	printf '{"ts_ms":1,"gpus":[{}],"processes":['
	printf '{"pid":%d,"cmdline":"'"$FF1365"'"},' $(seq 4999)
	printf '{"pid":5000}]}\n'
	printf '{"ts_ms":2,"gpus":[{}],"processes":['
	printf '{"pid":%d,"name":"'"$FF85"'","user":"'"$FF85"'","container":"'"$FF85"'","pod":"'"$FF85"'","unit":"'"$FF85"'"},' $(seq 16383)
	printf '{"pid":16384}]}\n'
} > "$T/grows.jsonl"
check "setup: the growing records are each under 8 MiB" \
	test "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/grows.jsonl")" -le $MIB8
rss_run --replay "$T/grows.jsonl" --json --log "$T/grows-log.jsonl"
expect_rc 0 "records that grow past 8 MiB when written"
expect_rss_below_limit "records that grow past 8 MiB when written"
check "grown records: both are written" test "$(lines "$T/out")" -eq 2
check "grown records: valid JSONL" "$JSONCMP" --valid "$T/out"
check "grown records: no line over 8 MiB" \
	test "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/out")" -le $MIB8
check "grown records: --log got the same" cmp -s "$T/out" "$T/grows-log.jsonl"
sed -n 1p "$T/out" > "$T/rec1"
sed -n 2p "$T/out" > "$T/rec2"
check "record 1 keeps its 5,000 process rows" test "$(grep -o '"pid"' "$T/rec1" | wc -l)" -eq 5000
check "record 1 drops its command lines" sh -c "! grep -q '\"cmdline\"' '$T/rec1'"
check "record 1 says so in a note event" grep -q '"events":\[{"kind":"note","detail":"[^"]*command line' "$T/rec1"
check "record 2 drops its process rows" grep -q '"processes":\[\]' "$T/rec2"
check "record 2 says so in a note event" grep -q '"kind":"note","detail":"[^"]*process' "$T/rec2"
# What was written plays back unchanged.
mv "$T/out" "$T/grown.jsonl"
run --replay "$T/grown.jsonl" --json
expect_rc 0 "replay of the grown records"
check "grown records replay as written" cmp -s "$T/grown.jsonl" "$T/out"

# Only too-big records: nothing valid.
sed -n 2p "$T/counts.jsonl" > "$T/1025.jsonl"
rss_run --replay "$T/1025.jsonl" --json
expect_rc 1 "only a record with 1,025 GPUs"
expect_stderr_contains "no valid JSONL records" "only a record with 1,025 GPUs"

finish
