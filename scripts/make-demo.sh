#!/bin/sh
# make-demo.sh: regenerate share/demo/demo.jsonl, byte for byte, with gpur
# itself: the fake NVML plays share/demo/scenario.json (an 8-GPU training
# node: a DDP job on all 8, a notebook, an inference server; GPU 3 falls off
# the bus halfway), processes come from a procfs fixture, the clock is
# virtual and the host name fixed, so nothing of this machine leaks in.
#   scripts/make-demo.sh BUILD_DIR [OUT]
set -eu
build=${1:-build}
out=${2:-share/demo/demo.jsonl}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
GPUR_NVML_LIBRARY="$build/tests/fake-nvml/modern/libnvidia-ml.so.1" \
FAKE_NVML_SCENARIO=share/demo/scenario.json \
GPUR_VIRTUAL_CLOCK_MS=1764583200000 \
	"$build/gpur" --json --backend nvml --hostname demo --procfs tests/fixtures/demo-root/proc --rootfs tests/fixtures/demo-root \
	--interval 1 --count 300 >"$out.tmp"
mv "$out.tmp" "$out"
