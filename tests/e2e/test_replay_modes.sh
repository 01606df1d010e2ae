# test_replay_modes: a replay through --json, --count, --once, --headless
# --log and the default mode: every valid record once, in order, exit 0 at
# the end of the file; --log is created 0600 and appended to.
. "$(dirname "$0")/lib.sh" || exit 1

R="$REC/canonical.jsonl"
NREC=$(lines "$R")

# --json: every record once; the first poll shows the first record.
run --replay "$R" --json
expect_rc 0 "--json"
check "--json writes nothing to stderr" test ! -s "$T/err"
check "--json prints every record once ($NREC)" test "$(lines "$T/out")" -eq "$NREC"
check "--json output is valid JSONL" "$JSONCMP" --valid "$T/out"
check "--json prints the recorded records" "$JSONCMP" "$R" "$T/out"
cp "$T/out" "$T/all.jsonl"

# --count N stops after N records; a count past the end stops at the end.
for n in 1 2; do
	run --replay "$R" --json --count "$n"
	expect_rc 0 "--json --count $n"
	head -n "$n" "$T/all.jsonl" > "$T/head.jsonl"
	check "--json --count $n prints the first $n records" cmp -s "$T/head.jsonl" "$T/out"
done
run --replay "$R" --json -n 1000
expect_rc 0 "--json -n 1000"
check "--count past the end prints every record" cmp -s "$T/all.jsonl" "$T/out"

# --once --json: one line, the first record.
run --replay "$R" --once --json
expect_rc 0 "--once --json"
head -n 1 "$T/all.jsonl" > "$T/first.jsonl"
check "--once --json prints the first record only" cmp -s "$T/first.jsonl" "$T/out"

# --interval is ignored headless: a day between polls still ends at once.
run --replay "$R" --json --interval 86400
expect_rc 0 "--json --interval 86400"
check "--interval does not pace a headless replay" cmp -s "$T/all.jsonl" "$T/out"

# --headless --log OUT: OUT equals the --json output; created mode 0600
# whatever the umask; nothing on stdout.
(umask 000 && "$GPUR" --replay "$R" --headless --log "$T/log.jsonl" > "$T/out" 2> "$T/err")
RC=$?
expect_rc 0 "--headless --log"
check "--headless prints nothing on stdout" test ! -s "$T/out"
check "--headless --log equals --json" cmp -s "$T/all.jsonl" "$T/log.jsonl"
check "--log is created mode 0600 (umask 000)" test "$(stat -c %a "$T/log.jsonl")" = 600
# --log appends.
run --replay "$R" --headless --log "$T/log.jsonl" --count 1
expect_rc 0 "--headless --log --count 1 (append)"
cat "$T/all.jsonl" "$T/first.jsonl" > "$T/appended.jsonl"
check "--log appends to an existing file" cmp -s "$T/appended.jsonl" "$T/log.jsonl"
# An existing file keeps its mode.
printf '' > "$T/existing.jsonl"
chmod 640 "$T/existing.jsonl"
run --replay "$R" --headless --log "$T/existing.jsonl"
check "--log into an existing file keeps its mode" test "$(stat -c %a "$T/existing.jsonl")" = 640
check "--log into an existing empty file" cmp -s "$T/all.jsonl" "$T/existing.jsonl"

# --json and --log together: both get the same records.
run --replay "$R" --json --log "$T/both.jsonl"
expect_rc 0 "--json --log"
check "--json --log: stdout has every record" cmp -s "$T/all.jsonl" "$T/out"
check "--json --log: the log has every record" cmp -s "$T/all.jsonl" "$T/both.jsonl"

# --once --log: the one record is logged too.
run --replay "$R" --once --log "$T/once.jsonl"
expect_rc 0 "--once --log"
check "--once --log logs the first record" cmp -s "$T/first.jsonl" "$T/once.jsonl"

# No mode option, stdout not a terminal: the --once table...
run --replay "$R" --once
mv "$T/out" "$T/table.txt"
run --replay "$R"
expect_rc 0 "no mode, stdout a file"
check "no mode and no --log prints the --once table" cmp -s "$T/table.txt" "$T/out"
# ...or, with --log, headless recording.
run --replay "$R" --log "$T/default.jsonl"
expect_rc 0 "no mode with --log"
check "no mode with --log records every record" cmp -s "$T/all.jsonl" "$T/default.jsonl"
check "no mode with --log prints nothing on stdout" test ! -s "$T/out"

# --read-only, --no-color and NO_COLOR change nothing in a replay's records.
run --replay "$R" --json --read-only --no-color
check "--read-only --no-color: same records" cmp -s "$T/all.jsonl" "$T/out"
NO_COLOR=1 "$GPUR" --replay "$R" --json > "$T/out" 2> "$T/err"
check "NO_COLOR=1: same records" cmp -s "$T/all.jsonl" "$T/out"

# Reading the recording from a pipe works the same.
"$GPUR" --replay /dev/stdin --json < "$R" > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "--replay /dev/stdin"
check "--replay /dev/stdin plays every record" cmp -s "$T/all.jsonl" "$T/out"
# shellcheck disable=SC2002 # the cat makes stdin a pipe, not a file
cat "$R" | "$GPUR" --replay /dev/stdin --json > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "--replay /dev/stdin from a pipe"
check "--replay from a pipe plays every record" cmp -s "$T/all.jsonl" "$T/out"

finish
