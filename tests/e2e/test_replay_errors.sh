# test_replay_errors: recordings that cannot be played exit 1 with
# "gpur: FILE: ..." on stderr and nothing on stdout, in every mode.
. "$(dirname "$0")/lib.sh" || exit 1

# replay_fails FILE TEXT: every mode exits 1 naming FILE, with TEXT.
replay_fails() {
	local file=$1 text=$2 mode
	for mode in --once --json --headless "--json --count 1" ""; do
		# shellcheck disable=SC2086 # mode is a list of words
		run --replay "$file" $mode
		expect_rc 1 "--replay $file $mode"
		expect_gpur_lines "--replay $file $mode"
		expect_stderr_contains "gpur: $file: $text" "--replay $file $mode"
		check "--replay $file $mode: nothing on stdout" test ! -s "$T/out"
	done
}

replay_fails "$T/does-not-exist.jsonl" "No such file"
mkdir "$T/a directory"
replay_fails "$T/a directory" ""
: > "$T/empty.jsonl"
replay_fails "$T/empty.jsonl" "no valid JSONL records"
head -c 65536 /dev/urandom | tr -d '\n{' > "$T/garbage.bin"
replay_fails "$T/garbage.bin" "no valid JSONL records"
printf 'hello\nworld\n[1,2]\n"x"\n42\nnull\n{"unterminated":\n' > "$T/not-records.jsonl"
replay_fails "$T/not-records.jsonl" "no valid JSONL records"
printf '\n\n   \n\r\n\t\n' > "$T/blank.jsonl"
replay_fails "$T/blank.jsonl" "no valid JSONL records"
printf '\xef\xbb\xbf' > "$T/bom-only.jsonl"
replay_fails "$T/bom-only.jsonl" "no valid JSONL records"
printf '{"ts_ms":1,"gpus":[{"name":"to' > "$T/only-torn.jsonl"
replay_fails "$T/only-torn.jsonl" "no valid JSONL records"
replay_fails /dev/null "no valid JSONL records"

# A failed replay creates no log file.
run --replay "$T/does-not-exist.jsonl" --headless --log "$T/never.jsonl"
expect_rc 1 "missing recording with --log"
check "a failed replay creates no --log file" test ! -e "$T/never.jsonl"

# A BOM before a good first record is ignored: the record plays.
printf '\xef\xbb\xbf{"ts_ms":5}\n' > "$T/bom.jsonl"
run --replay "$T/bom.jsonl" --json
expect_rc 0 "recording with a BOM"
expect_json "$T/out" "recording with a BOM" <<'EOF'
{"schema":1,"ts_ms":5,"gpus":[],"processes":[]}
EOF

finish
