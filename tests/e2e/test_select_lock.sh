# test_select_lock: gpur --wait --lock. Two waiters with two free GPUs get
# one each; with one free GPU the second waits, saying the GPU is locked,
# until the first's command ends, and --select skips the locked GPU
# meanwhile; four waiters on two GPUs never run two commands on one GPU;
# and the lock directory is refused when it is a symbolic link, another
# user's, or writable by others.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvml_lib.sh"

export XDG_RUNTIME_DIR="$T/xdg"
mkdir -p "$XDG_RUNTIME_DIR"
TOTAL=85899345920
scenario "$T/two.json" <<JSON
{"fast_pcie":1,"gpus":[
 {"name":"F","uuid":"GPU-l-0","pci":"0000:01:00.0","util":0,"mem_total":$TOTAL,"mem_used":0},
 {"name":"F","uuid":"GPU-l-1","pci":"0000:02:00.0","util":0,"mem_total":$TOTAL,"mem_used":0},
 {"name":"F","uuid":"GPU-l-2","pci":"0000:03:00.0","util":50,"mem_total":$TOTAL,"mem_used":0}]}
JSON
scenario "$T/one.json" <<JSON
{"fast_pcie":1,"gpus":[
 {"name":"F","uuid":"GPU-l-0","pci":"0000:01:00.0","util":0,"mem_total":$TOTAL,"mem_used":0},
 {"name":"F","uuid":"GPU-l-1","pci":"0000:02:00.0","util":50,"mem_total":$TOTAL,"mem_used":0}]}
JSON
PIDS=""
trap 'kill $SLEEPERS $PIDS 2> /dev/null; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT

# waiter NAME SCENARIO: a gpur --wait 1 --lock in the background whose
# command writes its CUDA_VISIBLE_DEVICES to $T/NAME.cvd and holds the GPU
# until $T/NAME.release exists; its pid in PID_NAME.
waiter() {
	local name=$1 scen=$2
	GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$scen" "$GPUR" --backend nvml --interval 0.1 \
		--wait 1 --lock --stable 0.3s -- \
		sh -c 'echo "$CUDA_VISIBLE_DEVICES" > "$0.tmp" && mv "$0.tmp" "$0.cvd"; while [ ! -e "$0.release" ]; do sleep 0.05; done' \
		"$T/$name" < /dev/null > "$T/$name.out" 2> "$T/$name.err" &
	eval "PID_$name=\$!"
	PIDS="$PIDS $!"
}
# finished NAME: waits for the waiter and checks that it exited 0.
finished() {
	local pid
	eval "pid=\$PID_$1"
	wait "$pid"
	RC=$?
	expect_rc 0 "waiter $1"
}

# Two free GPUs, two waiters at once: one GPU each.
waiter a "$T/two.json"
waiter b "$T/two.json"
check "both commands run" wait_until 30 sh -c "test -e '$T/a.cvd' && test -e '$T/b.cvd'"
check "on different GPUs ($(cat "$T/a.cvd" "$T/b.cvd" 2> /dev/null | tr '\n' ' '))" \
	sh -c "test \"\$(cat '$T/a.cvd')\" != \"\$(cat '$T/b.cvd')\" && sort -u '$T/a.cvd' '$T/b.cvd' | tr '\n' ' ' | grep -qx 'GPU-l-0 GPU-l-1 '"
touch "$T/a.release" "$T/b.release"
finished a
finished b

# One free GPU: the second waiter waits for the first's command to end.
waiter c "$T/one.json"
check "the first command runs" wait_until 30 test -e "$T/c.cvd"
check "the first got the free GPU" test "$(cat "$T/c.cvd")" = GPU-l-0
nvml modern "$T/one.json" --select 1 --stable 0
expect_rc 1 "--select while the GPU is locked"
check "--select skips the locked GPU ($(cat "$T/err"))" test "$(cat "$T/err")" = \
	"gpur: --select 1: no GPU qualifies: GPU 0 is locked by another gpur --lock; GPU 1 is at 50% (> 10%, --max-util)"
waiter d "$T/one.json"
check "the second says the GPU is locked" wait_until 30 grep -qF \
	"gpur: waiting for 1 GPU: 0 qualify (GPU 0: locked; GPU 1: 50% > 10%)" "$T/d.err"
check "and its command has not started" test ! -e "$T/d.cvd"
touch "$T/c.release"
finished c
check "once the first's command ended, the second's runs" wait_until 30 test -e "$T/d.cvd"
check "on the same GPU" test "$(cat "$T/d.cvd")" = GPU-l-0
touch "$T/d.release"
finished d

# Four waiters, two GPUs: no two commands ever hold one GPU. Each command
# makes a directory named after its GPU (mkdir is atomic), holds it for a
# while and removes it; a clash is written down.
for i in 1 2 3 4; do
	GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/two.json" "$GPUR" --backend nvml --interval 0.05 \
		--wait 1 --lock --stable 0.1s -- \
		sh -c 'mkdir "$0/busy-$CUDA_VISIBLE_DEVICES" || echo "clash on $CUDA_VISIBLE_DEVICES" >> "$0/clash"
		       sleep 0.3; rmdir "$0/busy-$CUDA_VISIBLE_DEVICES"; echo "$CUDA_VISIBLE_DEVICES" >> "$0/ran"' "$T" \
		< /dev/null > /dev/null 2> "$T/w$i.err" &
	eval "PID_w$i=\$!"
	PIDS="$PIDS $!"
done
for i in 1 2 3 4; do
	finished w$i
done
check "four commands ran" test "$(lines "$T/ran")" = 4
check "never two on one GPU ($(cat "$T/clash" 2> /dev/null))" test ! -e "$T/clash"

# The lock directory is checked before it is trusted.
lock_refused() {
	local what=$1 text=$2
	XDG_RUNTIME_DIR=$3 nvml modern "$T/two.json" --wait 1 --lock --stable 0 -- touch "$T/ran-refused"
	expect_rc 1 "$what"
	expect_stderr_contains "$text" "$what"
	check "$what: the command did not run" test ! -e "$T/ran-refused"
}
mkdir -p "$T/sym" "$T/elsewhere"
ln -s "$T/elsewhere" "$T/sym/gpur"
lock_refused "a symbolic link" "--lock: $T/sym/gpur is a symbolic link; refusing it" "$T/sym"
mkdir -p "$T/open/gpur"
chmod 0777 "$T/open/gpur"
lock_refused "a directory others may write" "--lock: $T/open/gpur may be written by others (mode 0777); refusing it" \
	"$T/open"
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$T/theirs/gpur"
	chown 65534 "$T/theirs/gpur"
	lock_refused "another user's directory" "--lock: $T/theirs/gpur belongs to uid 65534, not to you; refusing it" \
		"$T/theirs"
else
	skip "another user's lock directory: needs root"
fi
lock_refused "a runtime directory that does not exist" "--lock: cannot make $T/none/gpur: No such file or directory" \
	"$T/none"

finish
