#!/bin/sh
# make-demo.sh: regenerate share/demo/demo.jsonl, byte for byte, with gpur
# itself: the fake NVML plays share/demo/scenario.json (an 8-GPU training
# node: a DDP job in a Kubernetes pod on all 8, a notebook in Docker, an
# inference server in Podman, an evaluation as a Slurm job; GPU 3 falls off
# the bus halfway), processes come from a procfs fixture (a copy: the fake
# moves the busy processes' CPU time, and the host's in /proc/stat, on at
# every poll, so their CPU % are real rates), container and pod names from the same tree as --rootfs, the
# clock is virtual and the host name fixed, so nothing of this machine leaks
# in.
#   scripts/make-demo.sh BUILD_DIR [OUT]
set -eu
build=${1:-build}
out=${2:-share/demo/demo.jsonl}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpur-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -R tests/fixtures/demo-root "$tmp/root"
GPUR_NVML_LIBRARY="$build/tests/fake-nvml/modern/libnvidia-ml.so.1" \
FAKE_NVML_SCENARIO=share/demo/scenario.json \
FAKE_NVML_PROCFS="$tmp/root/proc" \
GPUR_VIRTUAL_CLOCK_MS=1764583200000 \
	"$build/gpur" --json --backend nvml --hostname demo --procfs "$tmp/root/proc" --rootfs "$tmp/root" \
	--interval 1 --count 300 >"$out.tmp"
mv "$out.tmp" "$out"
