# nvml_lib.sh: helpers for the tests that run gpur against the fake NVML
# (sourced after lib.sh).
#   fake VARIANT         path of a fake libnvidia-ml.so.1 (modern, noold, cuda13,
#                        legacy, cc32, minimal)
#   scenario FILE        writes stdin to FILE (a JSON scenario)
#   nvml VARIANT SCEN ARGS...   runs gpur live on the fake: --backend nvml,
#                        output in $T/out / $T/err, status in $RC
#   get FILE LINE PATH   one value of a record (jsonget)
#   expect_get FILE LINE PATH VALUE WHAT
#   spawn_sleeper        starts a real process; its pid in $SLEEPER
: "${FAKE_NVML_DIR:?FAKE_NVML_DIR must name the fake NVML build directory}"
: "${JSONGET:?JSONGET must name the jsonget tool}"

fake() { echo "$FAKE_NVML_DIR/$1/libnvidia-ml.so.1"; }

scenario() { cat > "$1"; }

nvml() {
	local variant=$1 scen=$2
	shift 2
	GPUR_NVML_LIBRARY=$(fake "$variant") FAKE_NVML_SCENARIO=$scen \
		"$GPUR" --backend nvml "$@" < /dev/null > "$T/out" 2> "$T/err"
	RC=$?
}

get() { "$JSONGET" "$1" "$2" "$3"; }

expect_get() {
	local got
	got=$(get "$1" "$2" "$3")
	if [ "$got" = "$4" ]; then ok; else fail "$5: $3 is '$got', expected '$4'"; fi
}

SLEEPERS=""
spawn_sleeper() {
	sleep 600 &
	SLEEPER=$!
	SLEEPERS="$SLEEPERS $SLEEPER"
	# The child is ours once it has exec'd sleep.
	wait_until 5 grep -q '^sleep' "/proc/$SLEEPER/comm"
}
trap 'kill $SLEEPERS 2>/dev/null; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT
