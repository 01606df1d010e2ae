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

# Any JSON number is a number: every measured quantity keeps fractions,
# integers past 2^53 and negative temperatures exactly; whole numbers in any
# form (1.0, 7E2, 1e3) come back as integers. jsoncmp compares exactly.
N="$REC/numbers.jsonl"
run --replay "$N" --json
expect_rc 0 "replay numbers.jsonl"
check "numbers: every number comes back exactly (jsoncmp)" "$JSONCMP" "$N" "$T/out"
for kv in '"temp_c":41.5,' '"temp_mem_c":-12.25,' '"temp_c":-0.5,' '"temp_c":-3.75}' \
	'"mem_used_bytes":9007199254740993,' '"energy_j":9007199254740993,' '"energy_j":9007199254740995}' \
	'"ecc_errors_uncorrected":9007199254740993}' '"gpu_mem_bytes":9007199254740993,' \
	'"pcie_rx_bytes_per_s":123456789.125,' '"pcie_tx_bytes_per_s":2251799813685248.5,' \
	'"cpu_pct":12.345678901234567,' '"clock_gfx_mhz":1410.5,' '"fan_rpm":1234.5,' \
	'"energy_j":1.8446744073709552e+19,' '"temp_shutdown_c":1000,' '"util_pct":1,' \
	'"power_limit_w":700,' '"clock_gfx_max_mhz":1980,' '"mem_total_bytes":68719476736,'; do
	check "numbers: $kv" grep -qF -- "$kv" "$T/out"
done
# The oracle is exact too: an integer that lost its last digit through a
# double, or a double one ulp off, is a difference (status 1, not 2).
differs() { "$JSONCMP" "$1" "$2" 2> /dev/null; [ $? -eq 1 ]; }
printf '%s\n' '{"a":9007199254740993}' > "$T/n1"
printf '%s\n' '{"a":9007199254740992}' > "$T/n2"
printf '%s\n' '{"a":9007199254740992.0}' > "$T/n3"
printf '%s\n' '{"a":0.1}' > "$T/n4"
printf '%s\n' '{"a":0.10000000000000002}' > "$T/n5"
printf '%s\n' '{"a":0.1000000000000000055511151231257827}' > "$T/n6"
check "jsoncmp: 9007199254740993 differs from 9007199254740992" differs "$T/n1" "$T/n2"
check "jsoncmp: 9007199254740993 differs from 9007199254740992.0" differs "$T/n1" "$T/n3"
check "jsoncmp: 9007199254740992 equals 9007199254740992.0" "$JSONCMP" "$T/n2" "$T/n3"
check "jsoncmp: 0.1 differs from 0.10000000000000002" differs "$T/n4" "$T/n5"
check "jsoncmp: two spellings of one double are equal" "$JSONCMP" "$T/n4" "$T/n6"

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
