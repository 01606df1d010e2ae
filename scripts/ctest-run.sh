#!/bin/sh
# ctest-run.sh BUILD_DIR [CTEST ARGS...]: runs ctest in BUILD_DIR, keeps its
# summary in BUILD_DIR/ctest-summary for scripts/test-summary.sh, and exits
# with ctest's status.
set -u
dir=$1
shift
ctest --test-dir "$dir" --output-on-failure "$@" >"$dir/ctest.log" 2>&1
rc=$?
cat "$dir/ctest.log"
grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$dir/ctest.log" | tail -n 1 >"$dir/ctest-summary"
exit $rc
