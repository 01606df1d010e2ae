# test_hostile_strings: terminal escapes, control characters and invalid
# UTF-8 in a recording's strings. --json stays valid JSON in valid UTF-8
# (invalid bytes become U+FFFD, EF BF BD), records are kept, and no raw ESC
# or other control byte ever reaches stdout in the table.
. "$(dirname "$0")/lib.sh" || exit 1

# JSON-escaped controls (valid JSON that decodes to control characters).
CSI='\u001b[2J\u001b[H'
OSC='\u001b]0;owned\u0007'
C1='\u009b31m'
# Raw bytes inside JSON strings (legal JSON, but hostile or invalid UTF-8).
C1_RAW=$'\xc2\x9b''32m'
DEL_RAW=$'\x7f'
BAD=$'inv\xffalid'
OVERLONG=$'ov\xc0\xafer'
SURROGATE=$'sur\xed\xa0\x80'
FIVE=$'five\xf8\x88\x80\x80\x80'
CONT=$'cont\x80'
TRUNC=$'trunc\xe2\x82'
LONG_FF=$(printf '\xff%.0s' $(seq 300))
LONG_2B=$(printf '\xc3\xa9%.0s' $(seq 300))
LONG_ESC=$(printf '\\u001b%.0s' $(seq 300))

{
	printf '%s\n' "{\"ts_ms\":1,\"host\":\"h$OSC$CSI\",\"backend\":\"b$C1\",\"driver\":\"d$C1_RAW$BAD\",\"gpus\":[{\"name\":\"$BAD\",\"device_id\":\"id$CSI\",\"vendor\":\"v$DEL_RAW\",\"pci_bus_id\":\"$OVERLONG\"},{\"name\":\"$SURROGATE $FIVE $CONT $TRUNC\"},{\"name\":\"nul\\u0000after \\\"quoted\\\" back\\\\slash tab\\t nl\\n cr\\r\"}],\"processes\":[{\"pid\":1,\"gpu_index\":0,\"name\":\"$CSI\",\"user\":\"$OSC\",\"cmdline\":\"rm -rf / $CSI$C1_RAW$DEL_RAW\",\"container\":\"c$BAD\",\"pod\":\"p$C1\",\"unit\":\"u$TRUNC\"},{\"pid\":2,\"gpu_index\":1,\"name\":\"$C1_RAW\",\"user\":\"$DEL_RAW\",\"container\":\"$CSI\"}],\"events\":[{\"kind\":\"note\",\"backend\":\"$CSI\",\"detail\":\"$OSC$BAD\"},{\"kind\":\"signal\",\"pid\":1,\"signal\":\"$CSI\",\"result\":\"$C1_RAW\"}]}"
	printf '%s\n' "{\"ts_ms\":2,\"gpus\":[{\"name\":\"$LONG_FF\"},{\"name\":\"$LONG_2B\"},{\"name\":\"$LONG_ESC\"}],\"processes\":[{\"pid\":3,\"name\":\"$LONG_FF\",\"cmdline\":\"$LONG_2B$LONG_FF\"}]}"
	printf '%s\n' "{\"ts_ms\":3,\"host\":\"lone\\ud800surrogate\\udc00escapes\",\"gpus\":[{\"name\":\"pair\\ud83d\\ude00ok\"}]}"
} > "$T/hostile.jsonl"

# --json: valid JSON, valid UTF-8, every record kept, U+FFFD for bad bytes.
run --replay "$T/hostile.jsonl" --json
expect_rc 0 "--json of hostile strings"
check "hostile --json output is valid JSON in valid UTF-8" "$JSONCMP" --valid "$T/out"
check "hostile records are all kept (3)" test "$(lines "$T/out")" -eq 3
check "no raw ESC byte in --json output" sh -c "! LC_ALL=C grep -q \"\$(printf '\\033')\" '$T/out'"
check "invalid UTF-8 becomes U+FFFD (EF BF BD)" \
	env LC_ALL=C grep -qF "$(printf 'inv\357\277\275alid')" "$T/out"
check "an overlong sequence becomes U+FFFD" env LC_ALL=C grep -qF "$(printf 'ov\357\277\275')" "$T/out"
check "a surrogate encoding becomes U+FFFD" env LC_ALL=C grep -qF "$(printf 'sur\357\277\275')" "$T/out"
check "a sequence cut by the closing quote becomes U+FFFD" \
	env LC_ALL=C grep -qF "$(printf 'trunc\357\277\275"')" "$T/out"
check "escaped text survives (quote, backslash)" grep -qF '\"quoted\" back\\slash' "$T/out"
check "a valid surrogate pair escape becomes the character" grep -qF 'pair😀ok' "$T/out"
check "ESC in a string is written escaped" grep -qiF '\u001b[2J' "$T/out"
# Replaying the output again changes nothing.
cp "$T/out" "$T/A.jsonl"
run --replay "$T/A.jsonl" --json
expect_rc 0 "replay of hostile output"
check "hostile output round-trips byte for byte" cmp -s "$T/A.jsonl" "$T/out"
# --log gets the same bytes.
run --replay "$T/hostile.jsonl" --headless --log "$T/log.jsonl"
check "hostile --log equals --json" cmp -s "$T/A.jsonl" "$T/log.jsonl"

# The table: never a raw ESC or other control byte (but \n), never DEL; in a
# UTF-8 locale no C1 control either and valid UTF-8; in C printable ASCII.
no_controls() { ! LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1"; }
no_c1() { ! LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"; }
valid_utf8() { iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1; }
ascii_only() { LC_ALL=C tr -d '\040-\176\n' < "$1" | LC_ALL=C wc -c | grep -qx '0'; }
# The recording's own name can be hostile too: the table shows it.
ESCNAME="$T/$(printf 'esc\033[31mname\302\233x\377').jsonl"
cp "$T/hostile.jsonl" "$ESCNAME"
for f in "$T/hostile.jsonl" "$T/A.jsonl" "$ESCNAME"; do
	for loc in C.UTF-8 C; do
		LC_ALL=$loc "$GPUR" --replay "$f" --once > "$T/out" 2> "$T/err"
		RC=$?
		expect_rc 0 "LC_ALL=$loc --once (hostile)"
		check "LC_ALL=$loc: table has no raw control bytes ($f)" no_controls "$T/out"
		if [ "$loc" = C ]; then
			check "LC_ALL=C: table is printable ASCII ($f)" ascii_only "$T/out"
		else
			check "UTF-8 table has no C1 controls ($f)" no_c1 "$T/out"
			if command -v iconv > /dev/null; then
				check "UTF-8 table is valid UTF-8 ($f)" valid_utf8 "$T/out"
			fi
		fi
	done
done
# The second record (long names) through the table too.
sed -n 2p "$T/hostile.jsonl" > "$T/long.jsonl"
LC_ALL=C.UTF-8 "$GPUR" --replay "$T/long.jsonl" --once > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "--once of long hostile names"
check "long hostile names: no raw control bytes" no_controls "$T/out"
command -v iconv > /dev/null && check "long hostile names: valid UTF-8 table" valid_utf8 "$T/out"

finish
