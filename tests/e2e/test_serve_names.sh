# test_serve_names: --serve-names. One scenario with every exported field
# (fake NVML, MIG, GPM, an XID, processes in containers) served three times:
# by default, with --serve-names legacy and with --serve-names dcgm-4.10.
# The default is the golden legacy exposition taken before the option
# existed (gpur's volatile families aside), and so is legacy; dcgm-4.10 is
# checked against legacy by tests/tools/dcgm_names.py, which holds the names,
# factors, types and labels of dcgm-exporter 4.10 as the facts give them;
# promtool reports only the lint dcgm-exporter's names force.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT

NAMES="$SOURCE_DIR/tests/tools/dcgm_names.py"
GOLDEN="$FIXTURES/serve-names/legacy.prom"
cp -R "$FIXTURES/demo-root" "$T/root"
serve() {
	local name=$1
	shift
	start_exporter "$name" GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$FIXTURES/serve-names/scenario.json" \
		FAKE_NVML_PROCFS="$T/root/proc" -- --backend nvml --headless --interval 0.2 --hostname node-golden \
		--procfs "$T/root/proc" --rootfs "$T/root" "$@"
}
serve default
check "the default serves" test -n "$ADDR"
DEFAULT=$ADDR
serve legacy --serve-names legacy
check "--serve-names legacy serves" test -n "$ADDR"
LEGACY=$ADDR
serve dcgm --serve-names dcgm-4.10
check "--serve-names dcgm-4.10 serves" test -n "$ADDR"
DCGM=$ADDR

# settled ADDR NAME: the exposition at ADDR, without the volatile families,
# in $T/NAME.prom once every reading of the scenario is in (GPM needs two
# windows, PCIe a slow read, the XID its poll) and two scrapes agree.
settled() {
	http_get "http://$1/metrics" > "$T/$2.full" || return 1
	python3 "$NAMES" stable "$T/$2.full" > "$T/$2.next" || return 1
	grep -q '^gpur_xid_errors_total{' "$T/$2.next" && grep -q '^DCGM_FI_PROF_PCIE_TX_BYTES' "$T/$2.next" &&
		grep -q '^DCGM_FI_PROF_\(SM_ACTIVE\|SM_UTIL_RATIO\){' "$T/$2.next" &&
		grep -q '^gpur_process_gpu_util_percent{' "$T/$2.next" || return 1
	if [ -f "$T/$2.prom" ] && cmp -s "$T/$2.prom" "$T/$2.next"; then
		return 0
	fi
	mv "$T/$2.next" "$T/$2.prom"
	return 1
}
check "default: every reading is in and two scrapes agree" wait_until 30 settled "$DEFAULT" default
check "legacy: every reading is in and two scrapes agree" wait_until 30 settled "$LEGACY" legacy
check "dcgm-4.10: every reading is in and two scrapes agree" wait_until 30 settled "$DCGM" dcgm

check "the default is the golden legacy exposition, byte for byte" diff -u "$GOLDEN" "$T/default.prom"
check "--serve-names legacy is the default" diff -u "$T/default.prom" "$T/legacy.prom"
if python3 "$NAMES" check "$T/legacy.prom" "$T/dcgm.prom" > "$T/check.out"; then ok; else
	fail "dcgm-4.10 against the facts: $(head -c 2000 "$T/check.out")"
fi
# The checker itself: a wrong unit, a legacy label and a missing sample fail.
sed -e 's/^\(DCGM_FI_DEV_SM_CLOCK_HERTZ{.*}\) 1980000000$/\1 1980/' "$T/dcgm.prom" > "$T/bad1.prom"
sed -e '/^DCGM_FI_DEV_GPU_UTIL_RATIO{/s/hostname=/Hostname=/' "$T/dcgm.prom" > "$T/bad2.prom"
grep -v '^DCGM_FI_DEV_FB_USED_BYTES{.*GPU_I_ID' "$T/dcgm.prom" > "$T/bad3.prom"
for bad in bad1 bad2 bad3; do
	check "the checker refuses $bad" sh -c "! cmp -s '$T/dcgm.prom' '$T/$bad.prom' && ! python3 '$NAMES' check '$T/legacy.prom' '$T/$bad.prom' > /dev/null"
done

# A few values read straight from the scenario, beside the checker: 57 %
# as the ratio 0.57, 1980 MHz in Hz, 20 GiB used and 80 GiB total in bytes,
# 123456789 mJ in J, and the labels dcgm-exporter 4.10 writes.
S='{gpu="0",UUID="GPU-5b0f3e8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b",pci_bus_id="0000:3b:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",hostname="node-golden",DCGM_FI_SYSTEM_DRIVER_VERSION="550.54.15",vendor="nvidia"}'
for want in "DCGM_FI_DEV_GPU_UTIL_RATIO$S 0.57" "DCGM_FI_DEV_SM_CLOCK_HERTZ$S 1980000000" \
	"DCGM_FI_DEV_FB_USED_BYTES$S 21474836480" "DCGM_FI_DEV_FB_CAPACITY_BYTES$S 85899345920" \
	"DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL$S 123456.789" "DCGM_FI_PROF_PCIE_TX_BYTES_PER_SECOND$S 2048000" \
	"DCGM_FI_DEV_XID_ERROR$S 31"; do
	check "dcgm-4.10 serves ${want%%\{*}" grep -qxF "$want" "$T/dcgm.prom"
done
check "dcgm-4.10: energy is a counter" grep -qx '# TYPE DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL counter' "$T/dcgm.prom"
check "dcgm-4.10: no DCGM family keeps the legacy labels" sh -c "! grep '^DCGM_' '$T/dcgm.prom' | grep -q 'Hostname=\|DCGM_FI_DRIVER_VERSION='"

# promtool: only the lint dcgm-exporter's names force (as for the legacy
# names in test_serve_prometheus.sh).
if command -v promtool > /dev/null; then
	promtool check metrics < "$T/dcgm.full" > "$T/lint.txt" 2>&1
	grep -v -E "^[A-Za-z0-9_:]+ label names should be written in 'snake_case' not 'camelCase'$" "$T/lint.txt" |
		grep -v -E '^DCGM_FI_[A-Z0-9_]+ counter metrics should have "_total" suffix$' > "$T/lint.left"
	if [ -s "$T/lint.left" ]; then fail "promtool check metrics: $(head -c 600 "$T/lint.left")"; else ok; fi
else
	skip "$TEST_NAME: promtool is not installed: the dcgm-4.10 exposition is not linted"
fi

stop_all
finish
