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
echo "make run: no GPU found on this machine; replaying the bundled demo recording $demo" \
	"(an 8-GPU training node; GPU 3 falls off the bus halfway);" \
	"for its report with plots: $gpur --replay $demo --report demo.html" >&2
exec "$gpur" --replay "$demo"
