# test_fleet_faults: the fleet view against a fake Prometheus
# (tests/tools/fake_prometheus.py) that answers 500, an error envelope,
# partial JSON, or hangs, or is slow: --once says so naming the URL (rc 1); the
# dashboard keeps the last good hosts marked stale with a status line naming
# the URL (from the start too), stays responsive while the server hangs,
# sends a poll's queries at once,
# retries with backoff
# (1 s doubling: never sooner), and recovers; hostile host names reach
# neither the terminal nor the records raw.
. "$(dirname "$0")/tui_lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'tui_stop; kill $FAKE 2> /dev/null; rm -rf "$T"' EXIT

echo ok > "$T/mode"
python3 "$SOURCE_DIR/tests/tools/fake_prometheus.py" "$T/port" "$T/mode" "$T/requests.log" 2> "$T/fake.err" &
FAKE=$!
check "the fake Prometheus listens" wait_until 20 test -s "$T/port"
P="http://127.0.0.1:$(cat "$T/port")"

# Good answers, hostile names: made safe, bounded, one record per host.
"$GPUR" --prometheus "$P" --once --json > "$T/ok.json" 2> "$T/ok.err"
check "--once --json against the fake server succeeds" test $? = 0
check "two records, valid JSON" sh -c "'$JSONCMP' --valid '$T/ok.json' && test \$(wc -l < '$T/ok.json') = 2"
check "no control character in the records, not even escaped" sh -c "! grep -qiE '\\\\u00[01][0-9a-f]|\\\\n' '$T/ok.json' && grep -q '\"host\":\"evil?\\[31m?hostxx' '$T/ok.json'"
"$GPUR" --prometheus "$P" --once > "$T/ok.txt" 2>&1
check "the --once summary has no escape character" sh -c "! grep -q \$(printf '\\033') '$T/ok.txt'"
check "the hostile host is shown made safe" grep -q '^evil?\[31m?hostxxx' "$T/ok.txt"
check "its name is bounded (128 bytes)" sh -c "! grep -qE 'x{200}' '$T/ok.txt'"

# A poll's queries go out together: this server answers a query only once
# a second one for the same evaluation time has come, so queries sent one
# after another would time out (4 s each) and --once would fail.
echo together > "$T/mode"
"$GPUR" --prometheus "$P" --once --json > "$T/together.json" 2> "$T/together.err"
check "--once against a server that needs the queries at once succeeds" test $? = 0
check "its two records are there" test "$(wc -l < "$T/together.json")" = 2

for mode in 500 error partial; do
	echo $mode > "$T/mode"
	"$GPUR" --prometheus "$P" --once > /dev/null 2> "$T/$mode.err"
	check "--once, server answers $mode: rc 1" test $? = 1
	check "--once, $mode: the message names the URL" grep -qF "$P" "$T/$mode.err"
done
check "500: says HTTP 500" grep -q "HTTP 500" "$T/500.err"
check "error envelope: Prometheus's own message" grep -q "execution: query timed out" "$T/error.err"
check "partial: cut short" grep -q "cut short" "$T/partial.err"

# The dashboard: a server that fails from the start is waited for, with
# the reason; then good data, then failures.
echo 500 > "$T/mode"
tui_start 200 30 -- --prometheus "$P" --interval 0.2
expect_screen "0 hosts, 0 GPUs, 0 lost - retry in [0-9]+ s: $P: HTTP 500" "failing from the start: the reason and the retry"
echo ok > "$T/mode"
expect_screen "2 hosts, 4 GPUs" "the summary once it answers"
expect_screen "^node-1 +2 +40 " "node-1's line"
: > "$T/requests.log"
echo 500 > "$T/mode"
expect_screen "STALE \(data from [0-9]+ s ago, retry in [0-9]+ s\): $P: HTTP 500" "a stale status line naming the URL and the answer"
expect_screen "^node-1 +2 +40 " "the last good data stays shown"
# Backoff: tries while failing come 1 s, then 2 s apart at least.
check "three tries seen" wait_until 30 sh -c "test \$(awk '\$2 == 500' '$T/requests.log' | awk 'NR == 1 || \$1 - last > 0.5 {n++} {last = \$1} END {print n + 0}') -ge 3"
python3 - "$T/requests.log" > "$T/backoff.txt" <<'PY'
import sys
tries, last = [], None
for line in open(sys.argv[1]):
    t, mode = line.split()
    t = float(t)
    if mode != "500":
        continue
    if last is None or t - last > 0.5:  # a poll's first query: one try
        tries.append(t)
    last = t
gaps = [b - a for a, b in zip(tries, tries[1:])]
print("ok" if len(gaps) >= 2 and all(g >= want - 0.05 for g, want in zip(gaps, (1, 2))) else "gaps %s" % gaps)
PY
check "retries back off: 1 s, then 2 s at least ($(cat "$T/backoff.txt"))" grep -qx ok "$T/backoff.txt"
echo ok > "$T/mode"
expect_screen_gone "STALE" "an answer again (the backoff is reset)" 20
# Slow but answering (0.3 s a query, the poll's queries at once): fresh,
# never stale, read in 0.3 s or more (the server sleeps that long).
echo slow > "$T/mode"
expect_screen "read in [0-9]{3,} ms" "a slow server: its answers are taken" 30
expect_not_now "STALE" "a slow server is not a failing one"
echo hang > "$T/mode"
expect_screen "STALE.*$P.*(timed out|no complete answer)" "a hanging server: timed out" 20
type_text "/"
expect_screen "filter hosts: _" "keys still work while the server hangs"
keys Escape
keys Enter
expect_screen "gpur evil" "Enter opens the first host while the server hangs"
expect_screen "STALE.*$P" "the host's view says it is stale too"
keys Escape
expect_screen "2 hosts, 4 GPUs" "Esc: back to the summary"
echo ok > "$T/mode"
expect_screen_gone "STALE" "an answer again: no longer stale" 20
expect_screen "^node-1 +2 +40 " "fresh data"
check "no escape character on the screen" sh -c "! tmux -L '$TUI_SOCK' -f /dev/null capture-pane -p -t gpur | grep -q \$(printf '\\033')"
keys q
tui_wait_exit 10
check "q quits with rc 0" test "$RC" = 0
finish
