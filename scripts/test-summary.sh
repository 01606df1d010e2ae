#!/bin/sh
# test-summary.sh BUILD_DIR...: one closing line for the whole suite,
# "N passed, N failed", summed over the ctest runs of each build.
passed=0
failed=0
for dir in "$@"; do
	line=$(cat "$dir/ctest-summary" 2>/dev/null) || continue
	f=$(echo "$line" | sed -E 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\1/')
	t=$(echo "$line" | sed -E 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\2/')
	passed=$((passed + t - f))
	failed=$((failed + f))
done
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
