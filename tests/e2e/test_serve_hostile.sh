# test_serve_hostile: slow and hostile HTTP clients (slowloris, thousands of
# connections held open, huge headers, bad methods, paths and garbage, from
# other loopback addresses) never stop a normal scrape from being answered
# (tests/tools/hostile_http.py); the exporter lives through it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT

if ! command -v python3 > /dev/null; then
	skip "test_serve_hostile: python3 is not installed"
	exit 0
fi
# The demo recording's last frame, served until a signal.
start_exporter demo -- --replay "$SOURCE_DIR/share/demo/demo.jsonl" --headless
check "the exporter serves" test -n "$ADDR"
python3 "$SOURCE_DIR/tests/tools/hostile_http.py" "$ADDR" > "$T/hostile.log" 2>&1
rc=$?
grep '^FAIL' "$T/hostile.log" | sed 's/^/  /' >&2
# A failure that is no FAIL line (an exception of the script): its end.
if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$T/hostile.log"; then
	tail -n 15 "$T/hostile.log" | sed 's/^/  /' >&2
fi
check "every normal scrape answered during the attacks (hostile_http.py exit $rc)" test "$rc" -eq 0
check "the exporter is still running" kill -0 "$PID"
check "and still answers" sh -c "curl -s --max-time 5 http://$ADDR/metrics | grep -q '^DCGM_FI_DEV_GPU_UTIL{'"
kill -TERM "$PID"
wait "$PID"
check "SIGTERM ends it with status 0" test $? -eq 0
SERVE_PIDS=""
finish
