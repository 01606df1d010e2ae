#!/bin/sh
# run.sh: `make run`. Runs gpur on this machine's GPUs; where there is none,
# replays the bundled demo recording instead and says so.
set -u
build=${1:-build}
gpur="$build/gpur"
if "$gpur" --once --json >/dev/null 2>&1; then
	exec "$gpur"
fi
demo=share/demo/demo.jsonl
if [ ! -f "$demo" ]; then
	# Until the NVML issue adds the recorded demo, play a generated one.
	demo="$build/demo.jsonl"
	"$build/bench/gen_recording" --gpus 8 --procs 24 --seconds 120 --interval 1 >"$demo" || exit 1
fi
echo "make run: no GPU found on this machine; replaying the demo recording $demo" >&2
exec "$gpur" --replay "$demo"
