# test_signals: SIGTERM and SIGINT end a headless run with exit 0, also while
# the replay is waiting for more input (a recording read from a FIFO whose
# writer stays open, as with --replay <(ssh host tail -f log)).
. "$(dirname "$0")/lib.sh" || exit 1

# finished PID: the process has exited (gone, or a zombie not yet reaped).
finished() {
	local state
	state=$(awk '{print $3}' "/proc/$1/stat" 2> /dev/null) || return 0
	[ -z "$state" ] || [ "$state" = Z ]
}

for case in TERM:--headless INT:--json; do
	sig=${case%%:*} mode=${case#*:}
	rm -f "$T/fifo" "$T/out" "$T/log.jsonl"
	mkfifo "$T/fifo"
	exec 3<> "$T/fifo" # the writer: open until the end of this case
	printf '{"ts_ms":1}\n' >&3
	# gpur must not inherit the writer, or it would never see EOF.
	"$GPUR" --replay "$T/fifo" "$mode" --log "$T/log.jsonl" > "$T/out" 2> "$T/err" 3>&- &
	pid=$!
	if ! wait_until 10 test -s "$T/log.jsonl"; then
		fail "SIG$sig $mode: the first record was not logged within 10 s"
	fi
	kill -"$sig" "$pid"
	if wait_until 3 finished "$pid"; then
		wait "$pid"
		RC=$?
		expect_rc 0 "SIG$sig while the replay waits for input ($mode)"
		check "SIG$sig $mode: stderr has only gpur: lines" sh -c "! grep -qv '^gpur: ' '$T/err'"
	else
		fail "SIG$sig $mode: gpur still runs 3 s after SIG$sig while its replay waits for input"
		exec 3>&- # EOF lets it finish
		wait "$pid"
	fi
	exec 3>&-
	check "SIG$sig $mode: the record played before the signal is logged" \
		"$JSONCMP" --valid "$T/log.jsonl"
done

finish
