#!/bin/bash
# test_report_golden.sh: a small checked-in recording and the JSON summary
# gpur made of it when the definitions were reviewed
# (tests/fixtures/report/make-golden.sh makes both): the report of the same
# recording today must be the same, value for value. The independent oracle
# agrees with it too, so the golden file itself is checked.
. "$(dirname "$0")/lib.sh"
DIR="$SOURCE_DIR/tests/fixtures/report"

run --replay "$DIR/golden.jsonl" --report "$T/golden.json"
expect_rc 0 "--report of the golden recording"
if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
	"$DIR/golden.report.json" "$T/golden.json"; then ok; else
	fail "the report differs from tests/fixtures/report/golden.report.json"
	diff <(python3 -m json.tool --sort-keys "$DIR/golden.report.json") \
		<(python3 -m json.tool --sort-keys "$T/golden.json") | head -n 40 >&2
fi
check "the golden summary agrees with the independent computation" \
	python3 "$SOURCE_DIR/tests/e2e/report_oracle.py" "$DIR/golden.jsonl" "$DIR/golden.report.json"
finish
