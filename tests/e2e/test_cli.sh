# test_cli: --help/--version, every usage error (exit 2, one "gpur: " line
# naming the option) and live mode without a GPU (exit 1, backend by backend).
. "$(dirname "$0")/lib.sh" || exit 1

R="$REC/canonical.jsonl"

for opt in --help -h; do
	run "$opt"
	expect_rc 0 "$opt"
	expect_stdout_contains "Usage: gpur" "$opt"
	check "$opt writes nothing to stderr" test ! -s "$T/err"
done
for opt in --version -V; do
	run "$opt"
	expect_rc 0 "$opt"
	check "$opt prints 'gpur VERSION' on stdout" grep -qE '^gpur [0-9]' "$T/out"
	check "$opt writes nothing to stderr" test ! -s "$T/err"
done

# usage_error TEXT ARGS...: exit 2, nothing on stdout, one line "gpur: ..."
# that contains TEXT (the option it is about).
usage_error() {
	local text=$1
	shift
	run "$@"
	expect_rc 2 "gpur $*"
	expect_one_gpur_line "gpur $*"
	expect_stderr_contains "$text" "gpur $*"
	check "gpur $*: nothing on stdout" test ! -s "$T/out"
}

# Intervals: never clamped.
usage_error --interval --interval 0.01
usage_error --interval -d 0.01
usage_error --interval --interval=0.049
usage_error --interval -d -1
usage_error --interval --interval -0.5
usage_error --interval -d abc
usage_error --interval -d ''
usage_error --interval -d 1s
usage_error --interval -d nan
usage_error --interval -d inf
usage_error --interval -d 0
usage_error --interval --interval 0 --replay "$R"
usage_error --interval --interval 0 --read-only
# The same checks hold when a replay follows (usage errors come first).
usage_error --interval --replay "$R" -d 0.01 --json
# --count: a whole number >= 1.
usage_error --count --count 0
usage_error --count -n 0 --replay "$R" --json
usage_error --count --count -1
usage_error --count --count abc
usage_error --count --count 1.5
usage_error --count --count ''
usage_error --count -n 2x
# --backend names
usage_error --backend --backend cuda
usage_error --backend --backend nvml,bogus
usage_error --backend --backend ''
# A replay reads no hardware.
usage_error --backend --replay "$R" --backend nvml
usage_error --procfs --replay "$R" --procfs /proc
usage_error --sysfs --replay "$R" --sysfs /sys
usage_error --rootfs --replay "$R" --rootfs /
usage_error --rootfs --rootfs "$FIXTURES/rootfs-node" --replay "$R" --json
# --rootfs must be an existing directory.
usage_error "gpur: --rootfs /nonexistent: " --rootfs /nonexistent --once
usage_error "gpur: --rootfs $R: Not a directory" --rootfs "$R" --once
usage_error --rootfs --rootfs ''
usage_error --rootfs --rootfs
usage_error --backend --backend amdgpu --replay "$R" --json
# Conflicts
usage_error --count --once --count 2 --replay "$R"
usage_error --once --once -n 1
# Options that are not built yet.
usage_error "--speed: '0.1' is not a pace from 0.25 to 64" --speed 0.1 --replay "$R"
usage_error "--speed: '65' is not a pace from 0.25 to 64" --speed 65 --replay "$R"
usage_error "--speed: 'fast' is not a pace from 0.25 to 64" --speed fast --replay "$R"
run --speed 0.25 --replay "$R" --once
expect_rc 0 "--speed 0.25 is accepted"
usage_error "--prometheus: 'ftp://h' is not an http:// or https:// URL" --prometheus ftp://h --once
usage_error "--prometheus: '127.0.0.1:9090' is not an http:// or https:// URL" --prometheus 127.0.0.1:9090 --once
usage_error "--prometheus cannot be combined with --replay" --prometheus http://127.0.0.1:9 --replay "$R"
usage_error "--prometheus cannot be combined with --backend" --prometheus http://127.0.0.1:9 --backend nvml
usage_error "--prometheus cannot be combined with --gpus" --prometheus http://127.0.0.1:9 --gpus 0 --once
usage_error "--prometheus cannot be combined with --serve" --prometheus http://127.0.0.1:9 --serve :0 --headless
usage_error "--prometheus-match needs --prometheus URL" --prometheus-match '{job="x"}' --replay "$R"
# --serve ADDR: a bad ADDR is a usage error naming it (the exporter's own
# tests are test_serve*.sh).
for bad in 9400 : :x :65536 :123456 '::1:9400' '[::1]9400' '[nonsense]:9400' 'ho st:9400' 'host:' ''; do
	usage_error "--serve: '$bad' is not host:port" --replay "$R" --headless --serve "$bad"
done
usage_error "--once and --serve conflict" --replay "$R" --once --serve :0
usage_error "--serve-processes: 'maybe' is not yes or no" --replay "$R" --headless --serve :0 --serve-processes=maybe
usage_error "--serve-names: 'dcgm-4.9' is not legacy or dcgm-4.10" --replay "$R" --headless --serve :0 --serve-names dcgm-4.9
usage_error "--serve-names needs --serve ADDR" --replay "$R" --headless --serve-names dcgm-4.10
# Unknown options, missing arguments, stray arguments.
usage_error --frobnicate --frobnicate
usage_error "-x" -x
usage_error --interval --interval
usage_error --replay --replay
usage_error stray stray
usage_error extra --replay "$R" --once extra
usage_error --gpus --gpus ''
usage_error --gpus --gpus 0,,1 --replay "$R" --json
usage_error --hostname --hostname ''

# Accepted edge values (exit 0 on a replay): 0.05 and 0 with --json/--once.
for args in "-d 0.05 --once" "-d 0 --json" "-d 0 --once" "-d 0 --headless" "--interval=0.05 --json"; do
	# shellcheck disable=SC2086 # word splitting of args is intended
	run --replay "$R" $args --log "$T/edge.jsonl"
	expect_rc 0 "gpur --replay R $args"
done

# Live mode without any GPU: exit 1, one "gpur: " line per backend saying why,
# and the demo recording with the command that plays it. run_nogpu makes
# this host GPU-less: NVML from a missing file, empty sysfs and procfs.
for mode in "" --once --json --headless "--json --count 1" "-d 0.05 --json"; do
	# shellcheck disable=SC2086 # mode is a list of words
	run_nogpu $mode
	expect_rc 1 "live gpur $mode"
	expect_gpur_lines "live gpur $mode"
	for b in nvml amdgpu intel drm; do
		expect_stderr_contains "gpur: $b: " "live gpur $mode names backend $b"
	done
	expect_stderr_contains "gpur --replay " "live gpur $mode names the demo command"
	expect_stderr_contains "demo" "live gpur $mode names the demo recording"
	check "live gpur $mode: nothing on stdout" test ! -s "$T/out"
done
# GPUR_NVML_LIBRARY set and failing: no fallback, the path is named.
run_nogpu --backend nvml --once
expect_rc 1 "--backend nvml without NVML"
expect_stderr_contains "gpur: nvml: " "--backend nvml names nvml"
expect_stderr_contains "$NO_NVML" "a failing GPUR_NVML_LIBRARY is named"
check "--backend nvml reports only nvml" sh -c "! grep -qE '^gpur: (amdgpu|intel|drm):' '$T/err'"
run_nogpu --backend amdgpu,drm --json
expect_rc 1 "--backend amdgpu,drm"
expect_stderr_contains "gpur: amdgpu: " "--backend amdgpu,drm names amdgpu"
expect_stderr_contains "gpur: drm: " "--backend amdgpu,drm names drm"
check "--backend amdgpu,drm does not report nvml" sh -c "! grep -q '^gpur: nvml:' '$T/err'"
# A good --rootfs is accepted: no GPU is a runtime failure, not a usage error.
run_nogpu --rootfs "$FIXTURES/rootfs-node" --once
expect_rc 1 "live --rootfs DIR without GPU"
check "--rootfs DIR is not a usage error" sh -c "! grep -q -- '--rootfs' '$T/err'"
# --log gets no records when there is nothing to monitor.
run_nogpu --log "$T/live.jsonl"
expect_rc 1 "live --log without GPU"
check "live --log without GPU writes no records" test ! -s "$T/live.jsonl"

# --interval 0 is "as fast as possible": on the virtual clock (which moves
# only by the waits) the records are not an interval apart, and live they
# all come (nothing waits a second each).
. "$(dirname "$0")/nvml_lib.sh"
scenario "$T/one.json" <<JSON
{"driver":"550.54.15","gpus":[{"name":"G","uuid":"GPU-0","pci":"00000000:3B:00.0","util":1}]}
JSON
GPUR_VIRTUAL_CLOCK_MS=1700000000000 nvml modern "$T/one.json" --json --count 3 --interval 0
expect_rc 0 "--interval 0 --json"
check "--interval 0: no wait between records (virtual clock)" \
	test "$(get "$T/out" 1 ts_ms)" = "$(get "$T/out" 3 ts_ms)"
GPUR_VIRTUAL_CLOCK_MS=1700000000000 nvml modern "$T/one.json" --json --count 3 --interval 1
check "--interval 1: records a second apart (virtual clock)" \
	test "$(($(get "$T/out" 3 ts_ms) - $(get "$T/out" 1 ts_ms)))" = 2000
nvml modern "$T/one.json" --json --count 200 --interval 0
expect_rc 0 "--interval 0 live"
check "--interval 0 live: 200 records" test "$(wc -l < "$T/out")" = 200

finish
