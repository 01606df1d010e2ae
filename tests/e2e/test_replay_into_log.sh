# test_replay_into_log: --log naming the recording being replayed must not
# feed gpur its own output forever (a disk-filling loop). Either gpur refuses
# (exit 1 or 2, file unchanged) or it plays the records that were there once
# (exit 0, file = the records twice). RLIMIT_FSIZE (1 MiB) keeps a failing
# run from filling the disk: gpur then stops on its own at the limit.
. "$(dirname "$0")/lib.sh" || exit 1

cp "$REC/canonical.jsonl" "$T/self.jsonl"
n=$(lines "$T/self.jsonl")
for mode in --headless --json; do
	cp "$REC/canonical.jsonl" "$T/self.jsonl"
	(
		ulimit -f 1024
		exec timeout 20 "$GPUR" --replay "$T/self.jsonl" "$mode" --log "$T/self.jsonl"
	) < /dev/null > "$T/out" 2> "$T/err"
	RC=$?
	after=$(lines "$T/self.jsonl")
	if { [ "$RC" -eq 1 ] || [ "$RC" -eq 2 ]; } && [ "$after" -eq "$n" ]; then
		ok # refused
		expect_gpur_lines "--replay X $mode --log X refused"
	elif [ "$RC" -eq 0 ] && [ "$after" -eq $((2 * n)) ]; then
		ok # played once
	else
		fail "--replay X $mode --log X: exit $RC, X grew from $n to $after lines (its own output replayed)"
	fi
done

finish
