# test_output_faults: stdout closed early (EPIPE: exit 0, quietly); --log on
# a full disk (/dev/full) or past RLIMIT_FSIZE (a real short write): exit 1
# naming the file, stdout still complete, no torn line left in the log.
. "$(dirname "$0")/lib.sh" || exit 1

R="$REC/canonical.jsonl"

# A recording big enough that gpur is still writing when head exits:
# 20,000 records, far more than a pipe holds.
yes '{"ts_ms":1700000000000,"host":"h","gpus":[{"name":"NVIDIA H100 80GB HBM3","util_pct":50,"temp_c":60}],"processes":[{"pid":1,"name":"python3"}]}' |
	head -n 20000 > "$T/big.jsonl"
"$GPUR" --replay "$T/big.jsonl" --json > "$T/big.out" 2> "$T/err"
RC=$?
expect_rc 0 "--json of the big recording"
check "big recording: 20000 records out" test "$(lines "$T/big.out")" -eq 20000
check "big output is far larger than a pipe" test "$(wc -c < "$T/big.out")" -gt 1048576

# stdout closed early: exit 0 and nothing on stderr.
"$GPUR" --replay "$T/big.jsonl" --json 2> "$T/err" | head -n 1 > "$T/out"
RC=${PIPESTATUS[0]}
expect_rc 0 "gpur --json | head -1"
check "| head -1: stderr is empty (EPIPE is quiet)" test ! -s "$T/err"
head -n 1 "$T/big.out" > "$T/first"
check "| head -1: the first record arrived" cmp -s "$T/first" "$T/out"
# The same with --log: the pipe closing ends the run; the log holds whole lines.
"$GPUR" --replay "$T/big.jsonl" --json --log "$T/epipe-log.jsonl" 2> "$T/err" | head -c 100 > /dev/null
RC=${PIPESTATUS[0]}
expect_rc 0 "gpur --json --log | head -c 100"
check "| head -c 100: stderr is empty" test ! -s "$T/err"
check "| head -c 100: the log holds whole records" "$JSONCMP" --valid "$T/epipe-log.jsonl"

# --log /dev/full: exit 1, a "gpur: " message naming /dev/full, stdout complete.
"$GPUR" --replay "$R" --json > "$T/all.jsonl" 2> /dev/null
run --replay "$R" --json --log /dev/full
expect_rc 1 "--json --log /dev/full"
expect_gpur_lines "--log /dev/full"
expect_stderr_contains "/dev/full" "--log /dev/full"
check "--log /dev/full: stdout still has every record" cmp -s "$T/all.jsonl" "$T/out"
run --replay "$R" --headless --log /dev/full
expect_rc 1 "--headless --log /dev/full"
expect_gpur_lines "--headless --log /dev/full"
expect_stderr_contains "/dev/full" "--headless --log /dev/full"
run --replay "$R" --once --log /dev/full
expect_rc 1 "--once --log /dev/full"
expect_stderr_contains "/dev/full" "--once --log /dev/full"
check "--once --log /dev/full: the table is still printed" grep -q '^rec-host' "$T/out"

# --log naming a directory, or a file under a missing directory: exit 1.
mkdir "$T/logdir"
for log in "$T/logdir" "$T/missing-dir/log.jsonl"; do
	run --replay "$R" --headless --log "$log"
	expect_rc 1 "--log $log"
	expect_gpur_lines "--log $log"
	expect_stderr_contains "gpur: $log: " "--log $log"
done

# --json to a full stdout: a lost record is a runtime failure naming stdout.
"$GPUR" --replay "$R" --json > /dev/full 2> "$T/err"
RC=$?
expect_rc 1 "--json > /dev/full"
expect_gpur_lines "--json > /dev/full"
expect_stderr_contains "stdout" "--json > /dev/full"

# RLIMIT_FSIZE (4 KiB): a real short write. The log keeps only whole records
# (the torn piece is cut off again), each one of the records played.
(
	ulimit -f 4
	exec "$GPUR" --replay "$T/big.jsonl" --headless --log "$T/limited.jsonl"
) > "$T/out" 2> "$T/err"
RC=$?
expect_rc 1 "--log past RLIMIT_FSIZE"
expect_gpur_lines "--log past RLIMIT_FSIZE"
expect_stderr_contains "$T/limited.jsonl" "--log past RLIMIT_FSIZE"
check "RLIMIT_FSIZE: the log holds whole records only" "$JSONCMP" --valid "$T/limited.jsonl"
check "RLIMIT_FSIZE: the log is within the limit" test "$(wc -c < "$T/limited.jsonl")" -le 4096
check "RLIMIT_FSIZE: some records were written" test "$(lines "$T/limited.jsonl")" -ge 1
check "RLIMIT_FSIZE: every logged line is a played record" \
	sh -c "! grep -vxFf '$T/first' '$T/limited.jsonl'"

finish
