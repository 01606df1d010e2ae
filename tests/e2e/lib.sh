# lib.sh: helpers for gpur's end-to-end tests; each test_*.sh sources it.
#
#   T                   this test's own temp dir (removed on exit)
#   run ARGS...         runs "$GPUR ARGS..." with stdout to $T/out, stderr to
#                       $T/err, exit status in $RC (stdin is /dev/null)
#   run_nogpu ARGS...   run, live, on any host: NVML from a missing file
#                       ($NO_NVML), empty --sysfs and --procfs trees
#   expect_rc N WHAT    checks $RC
#   expect_stderr_contains TEXT WHAT / expect_stdout_contains TEXT WHAT
#   expect_one_gpur_line WHAT   stderr is exactly one line starting "gpur: "
#   expect_gpur_lines WHAT      stderr is not empty and every line starts "gpur: "
#   expect_json FILE WHAT <<EOF ... EOF   FILE equals the JSONL on stdin (jsoncmp)
#   wait_until SECONDS CMD...   polls CMD until it succeeds; false at the deadline
#   check WHAT CMD...   a check that passes when CMD succeeds
#   ok / fail WHAT      count a pass / a failure (printed); skip WHAT prints SKIP
#   lines FILE          its number of lines
#   finish              prints the totals; exit status 1 if anything failed
# Environment (from tests/CMakeLists.txt): GPUR, JSONCMP, RSSRUN, FIXTURES,
# GPUR_TEST_TMP.
set -u

: "${GPUR:?GPUR must name the gpur binary}"
: "${JSONCMP:?JSONCMP must name the jsoncmp tool}"
: "${RSSRUN:?RSSRUN must name the rssrun tool}"
: "${FIXTURES:?FIXTURES must name tests/fixtures}"
: "${GPUR_TEST_TMP:=${TMPDIR:-/tmp}}"

# shellcheck disable=SC2034 # used by the tests
REC="$FIXTURES/recordings"
TEST_NAME=$(basename "$0" .sh)
mkdir -p "$GPUR_TEST_TMP" && chmod 755 "$GPUR_TEST_TMP" 2> /dev/null
T=$(mktemp -d "$GPUR_TEST_TMP/$TEST_NAME.XXXXXX") || exit 1
trap 'chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT
# Records and tables must not depend on the caller's environment.
unset NODE_NAME NO_COLOR GPUR_NVML_LIBRARY
export LC_ALL=C.UTF-8 TZ=UTC

PASSED=0
FAILED=0
RC=0

ok() { PASSED=$((PASSED + 1)); }
fail() {
	FAILED=$((FAILED + 1))
	echo "FAIL: $*" >&2
}
skip() { echo "SKIP: $*"; }
check() {
	local what=$1
	shift
	if "$@"; then ok; else fail "$what"; fi
}

run() {
	"$GPUR" "$@" < /dev/null > "$T/out" 2> "$T/err"
	RC=$?
}

NO_NVML="$T/no-nvml/libnvidia-ml.so.1"
run_nogpu() {
	mkdir -p "$T/empty-sys" "$T/empty-proc"
	GPUR_NVML_LIBRARY=$NO_NVML "$GPUR" --sysfs "$T/empty-sys" --procfs "$T/empty-proc" "$@" \
		< /dev/null > "$T/out" 2> "$T/err"
	RC=$?
}

show_output() {
	echo "  command stdout (first lines):" >&2
	head -c 2000 "$T/out" | head -n 8 | sed 's/^/    /' >&2
	echo "  command stderr:" >&2
	head -c 2000 "$T/err" | sed 's/^/    /' >&2
}

expect_rc() {
	if [ "$RC" -eq "$1" ]; then ok; else
		fail "$2: exit status $RC, expected $1"
		show_output
	fi
}

expect_stderr_contains() {
	if grep -qF -- "$1" "$T/err"; then ok; else
		fail "$2: stderr lacks '$1'"
		show_output
	fi
}

expect_stdout_contains() {
	if grep -qF -- "$1" "$T/out"; then ok; else
		fail "$2: stdout lacks '$1'"
		show_output
	fi
}

expect_one_gpur_line() {
	if [ "$(wc -l < "$T/err")" -eq 1 ] && head -c 6 "$T/err" | grep -q '^gpur: '; then ok; else
		fail "$1: stderr is not one line starting 'gpur: '"
		show_output
	fi
}

expect_gpur_lines() {
	if [ -s "$T/err" ] && ! grep -qv '^gpur: ' "$T/err"; then ok; else
		fail "$1: stderr is empty or has a line not starting 'gpur: '"
		show_output
	fi
}

expect_json() {
	cat > "$T/expected"
	if "$JSONCMP" "$T/expected" "$1" 2> "$T/jsoncmp.err"; then ok; else
		fail "$2: output differs from the expected records"
		sed 's/^/    /' "$T/jsoncmp.err" >&2
	fi
}

wait_until() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -ge "$deadline" ] && return 1
		sleep 0.02
	done
}

lines() { wc -l < "$1" | tr -d ' '; }

finish() {
	echo "$TEST_NAME: $PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
	exit $?
}
