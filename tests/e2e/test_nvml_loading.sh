# test_nvml_loading: how gpur finds NVML (GPUR_NVML_LIBRARY with no
# fallback; else the loader's search, never the current directory) and the
# exact reason when it cannot.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

scenario "$T/one.json" <<'JSON'
{"fast_pcie":1,"gpus":[{"name":"NVIDIA L4","uuid":"GPU-4444","pci":"0000:01:00.0","util":1,"mem_total":100,"mem_used":1}]}
JSON
export FAKE_NVML_SCENARIO=$T/one.json

# GPUR_NVML_LIBRARY naming a missing file: the resolved path, no fallback
# (even though the loader's path has a working library).
(cd "$T" && LD_LIBRARY_PATH=$FAKE_NVML_DIR/modern GPUR_NVML_LIBRARY=nope/libnvidia-ml.so.1 \
	"$GPUR" --backend nvml --once > "$T/out" 2> "$T/err")
RC=$?
expect_rc 1 "GPUR_NVML_LIBRARY missing"
expect_stderr_contains "gpur: nvml: GPUR_NVML_LIBRARY=nope/libnvidia-ml.so.1: No such file or directory" \
	"names the variable, the path and the reason"
expect_stderr_contains "gpur --replay " "names the demo command"

# A file that is not NVML: the missing symbol, with the resolved path.
cp "$FIXTURES/../../README.md" "$T/notalib.so" 2> /dev/null || echo "not an ELF" > "$T/notalib.so"
GPUR_NVML_LIBRARY=$T/notalib.so "$GPUR" --backend nvml --once > "$T/out" 2> "$T/err"
RC=$?
expect_rc 1 "not a shared library"
expect_stderr_contains "gpur: nvml: GPUR_NVML_LIBRARY=$T/notalib.so: cannot load $T/notalib.so" "dlopen error"
LIBM=$(ldconfig -p | awk '/libm\.so\.6 .*x86-64|libm\.so\.6 \(libc6,/ {print $NF; exit}')
if [ -n "$LIBM" ]; then
	GPUR_NVML_LIBRARY=$LIBM "$GPUR" --backend nvml --once > "$T/out" 2> "$T/err"
	RC=$?
	expect_rc 1 "a library without NVML symbols"
	expect_stderr_contains "missing symbol nvmlInit_v2" "names the missing symbol"
	expect_stderr_contains "$(readlink -f "$LIBM")" "names the resolved path"
fi

# The loader's search finds libnvidia-ml.so.1 on LD_LIBRARY_PATH.
LD_LIBRARY_PATH=$FAKE_NVML_DIR/modern "$GPUR" --backend nvml --once --json > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "found through the loader's path"
expect_get "$T/out" 1 gpus.0.name "NVIDIA L4" "the fake answered"

# ...but never in the current directory.
mkdir -p "$T/cwd"
cp "$(fake modern)" "$T/cwd/libnvidia-ml.so.1"
(cd "$T/cwd" && LD_LIBRARY_PATH= "$GPUR" --backend nvml --once > "$T/out" 2> "$T/err")
RC=$?
if ldconfig -p | grep -q 'libnvidia-ml.so.1 '; then
	skip "a real libnvidia-ml.so.1 is installed: the not-found message cannot be tested here"
else
	expect_rc 1 "a library in the current directory is not loaded"
	expect_stderr_contains "gpur: nvml: libnvidia-ml.so.1 not found (is the NVIDIA driver installed?)" \
		"the not-found message"
fi
finish
