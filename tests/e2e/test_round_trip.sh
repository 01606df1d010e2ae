# test_round_trip: rule 8. replay X --json > A equals X as parsed JSON (for a
# recording already in gpur's form), and replay A --json > B is A, byte for
# byte; --hostname and NODE_NAME never rename a replay.
. "$(dirname "$0")/lib.sh" || exit 1

R="$REC/canonical.jsonl"

run --replay "$R" --json
expect_rc 0 "replay canonical"
cp "$T/out" "$T/A.jsonl"
check "canonical: A equals X as parsed JSON" "$JSONCMP" "$R" "$T/A.jsonl"

# Numbers: integers as integers, other numbers in the shortest form that
# reads back as the same double.
check "a double that needs 17 digits keeps them" grep -qF '"mem_util_pct":0.30000000000000004' "$T/A.jsonl"
check "312.456 is written as 312.456" grep -qF '"power_w":312.456' "$T/A.jsonl"
check "2^63-1 stays an exact integer" grep -qF '"ecc_errors_uncorrected":9223372036854775807' "$T/A.jsonl"
check "whole numbers are written as integers" grep -qF '"util_pct":87,' "$T/A.jsonl"
printf '%s\n' '{"gpus":[{"name":"n","util_pct":42.0,"temp_c":42.0,"power_w":1e2,"energy_j":2.5e-3}]}' > "$T/num.jsonl"
run --replay "$T/num.jsonl" --json
check "42.0 is written as 42" grep -qF '"util_pct":42,' "$T/out"
check "an integer field given as 42.0 is 42" grep -qF '"temp_c":42,' "$T/out"
check "1e2 is written as 100" grep -qF '"power_w":100' "$T/out"
check "2.5e-3 is written as 0.0025" grep -qF '"energy_j":0.0025' "$T/out"

# Every fixture: one pass normalises, a second pass changes nothing.
for X in "$REC"/*.jsonl; do
	name=$(basename "$X")
	"$GPUR" --replay "$X" --json > "$T/A.jsonl" 2> "$T/err"
	RC=$?
	expect_rc 0 "round trip $name (A)"
	"$GPUR" --replay "$T/A.jsonl" --json > "$T/B.jsonl" 2> "$T/err"
	RC=$?
	expect_rc 0 "round trip $name (B)"
	check "round trip $name: A and B equal as JSON" "$JSONCMP" "$T/A.jsonl" "$T/B.jsonl"
	check "round trip $name: A and B byte-identical" cmp -s "$T/A.jsonl" "$T/B.jsonl"
	check "round trip $name: replaying A prints nothing on stderr" test ! -s "$T/err"
done

# --hostname and NODE_NAME do not rename a replay's host; a recording without
# host gets none (never this machine's name).
run --replay "$R" --json
cp "$T/out" "$T/A.jsonl"
run --replay "$R" --json --hostname renamed-host
expect_rc 0 "--hostname with --replay"
check "--hostname does not rename a replay" cmp -s "$T/A.jsonl" "$T/out"
NODE_NAME=node-name-host "$GPUR" --replay "$R" --json > "$T/out" 2> "$T/err"
check "NODE_NAME does not rename a replay" cmp -s "$T/A.jsonl" "$T/out"
NODE_NAME=node-name-host "$GPUR" --replay "$REC/legacy_no_attribution.jsonl" --json --hostname renamed-host \
	> "$T/out" 2> "$T/err"
check "a recording without host gets no host" sh -c "! grep -q '\"host\"' '$T/out'"
check "a recording without backend/driver/system gets none" \
	sh -c "! grep -qE '\"(backend|driver|system)\"' '$T/out'"
run --replay "$R" --once --hostname renamed-host
check "the --once table shows the recorded host" grep -q '^rec-host' "$T/out"
check "the --once table does not show --hostname" sh -c "! grep -q renamed-host '$T/out'"
run --replay "$R" --headless --log "$T/log.jsonl" --hostname renamed-host
check "--log of a replay keeps the recorded host" cmp -s "$T/A.jsonl" "$T/log.jsonl"

finish
