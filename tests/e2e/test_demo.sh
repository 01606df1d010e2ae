# test_demo: with no GPU, gpur names the bundled demo recording with the
# command that plays it; that command must work.
. "$(dirname "$0")/lib.sh" || exit 1

run_nogpu --once
expect_rc 1 "live --once without a GPU"
line=$(grep -m1 -- 'gpur --replay ' "$T/err")
check "the no-GPU message names 'gpur --replay FILE'" test -n "$line"
demo=${line##*gpur --replay }
demo=${demo%% *}
if [ -n "$demo" ] && ! [ -f "$demo" ]; then
	fail "the named demo recording does not exist: $demo"
elif [ -n "$demo" ]; then
	run --replay "$demo" --once
	expect_rc 0 "the named demo command (gpur --replay $demo --once)"
	run --replay "$demo" --json
	expect_rc 0 "gpur --replay $demo --json"
	check "the demo recording plays as valid JSONL" "$JSONCMP" --valid "$T/out"
	check "the demo recording has at least one GPU" grep -q '"device_id"' "$T/out"
fi

finish
