# test_table: the --once table of a replay: the first record, "--" for
# unknown values (never for a recorded 0), LOST for lost GPUs, the recorded
# source, ASCII only in the C locale.
. "$(dirname "$0")/lib.sh" || exit 1

R="$REC/canonical.jsonl"

# has TEXT ERE / lacks TEXT ERE: whether TEXT (a table line) matches ERE.
has() { printf '%s\n' "$1" | grep -qE -- "$2"; }
lacks() { [ -n "$1" ] && ! has "$@"; }

run --replay "$R" --once
expect_rc 0 "--once"
check "--once writes nothing to stderr" test ! -s "$T/err"
gpu0=$(grep -m1 '^\[0\]' "$T/out")
gpu1=$(grep -m1 '^\[1\]' "$T/out")
gpu2=$(grep -m1 '^\[2\]' "$T/out")
# The first record: its host, its three GPUs, its processes; not record 2's.
check "table shows the first record's host" grep -q '^rec-host' "$T/out"
check "table shows GPU 0 of record 1" has "$gpu0" 'NVIDIA H100 80GB HBM3'
check "table shows GPU 2 of record 1" has "$gpu2" 'RX 7900 XTX'
check "table does not show record 2" lacks "$(cat "$T/out")" 'A100|vllm'
check "table shows pid 4242" grep -q '4242' "$T/out"
# Everything shown for GPU 0 and pid 4242 is known: no "--" on their lines.
check "a fully known GPU shows no --" lacks "$gpu0" '--'
check "a fully known process shows no --" lacks "$(grep -m1 4242 "$T/out")" '--'
# GPU 1 is lost: LOST, readings unknown.
check "the lost GPU shows LOST" has "$gpu1" 'LOST'
check "the lost GPU's readings show --" has "$gpu1" '--'
check "only the lost GPU shows LOST" test "$(grep -c LOST "$T/out")" -eq 1
# GPU 2 has util 0 and memory used 0 recorded, power unknown.
check "unknown power shows --" has "$gpu2" '--'
check "a recorded 0 % is not shown as --" has "$gpu2" '(^|[^0-9])0 %'
# Processes: 0 MiB recorded vs unknown memory.
check "a recorded 0 MiB shows 0" has "$(grep -m1 5151 "$T/out")" '\(0 MiB\)'
check "unknown process memory shows --" has "$(grep -m1 6161 "$T/out")" '-- MiB'
# The recorded source (backend and driver), not this machine's.
check "table names the recorded backend" grep -q 'nvml+amdgpu' "$T/out"
check "table names the recorded driver" grep -q '550.54.15+6.8.0' "$T/out"

# A record with nothing known at all.
printf '%s\n' '{"gpus":[{}],"processes":[{"pid":1}]}' > "$T/unknown.jsonl"
run --replay "$T/unknown.jsonl" --once
expect_rc 0 "--once of an all-unknown record"
gpu0=$(grep -m1 '^\[0\]' "$T/out")
check "an all-unknown GPU shows --" has "$gpu0" '--'
check "an all-unknown GPU shows no number but its index" lacks "${gpu0#\[0\]}" '[0-9]'
check "a process with unknown memory shows --" has "$(grep -m1 '/1 ' "$T/out")" '-- MiB'

# A record without "state" (the original gpur's recordings have none): no
# state to print on any GPU, while a known lost or suspended one still says
# so beside them.
printf '%s\n' '{"ts_ms":1764583200000,"gpus":[{"name":"A","device_id":"GPU-a","util_pct":5,"temp_c":40},{"name":"B","device_id":"GPU-b","util_pct":7},{"name":"C","device_id":"GPU-c","state":"lost"},{"name":"D","device_id":"GPU-d","state":"suspended"},{"name":"E","device_id":"GPU-e","state":"sleeping"}],"processes":[]}' > "$T/nostate.jsonl"
run --replay "$T/nostate.jsonl" --once
expect_rc 0 "--once of a record without state"
check "no GPU of a record without state says 'state'" sh -c "! grep '^\\[' '$T/out' | grep -q state"
check "a GPU without state ends with its power, nothing after" grep -qE '^\[0\] A +\| .* W$' "$T/out"
check "an unrecognised state is unknown: nothing said" grep -qE '^\[4\] E +\| .* W$' "$T/out"
check "a known lost GPU still says LOST" grep -qE '^\[2\] C .*\| LOST$' "$T/out"
check "a known suspended GPU still says so" grep -qE '^\[3\] D .*\| suspended$' "$T/out"

# The memory fixture: 0 vs null vs absent, in the table.
run --replay "$REC/memory_zero_null_absent.jsonl" --once
expect_rc 0 "--once 0/null/absent"
check "GPU with recorded zeros shows no -- %" lacks "$(grep -m1 '^\[0\] zero' "$T/out")" '-- %'
check "GPU with null readings shows -- %" has "$(grep -m1 '^\[1\] null' "$T/out")" '-- %'
check "GPU with absent readings shows -- %" has "$(grep -m1 '^\[2\] absent' "$T/out")" '-- %'

# ASCII only with LC_ALL=C and with LANG=C (LC_ALL unset); UTF-8 otherwise.
ascii_only() { LC_ALL=C tr -d '\040-\176\n' < "$1" | LC_ALL=C wc -c | grep -qx '0'; }
for f in canonical.jsonl memory_zero_null_absent.jsonl legacy_no_attribution.jsonl seed_attribution.jsonl; do
	LC_ALL=C "$GPUR" --replay "$REC/$f" --once > "$T/out" 2> "$T/err"
	RC=$?
	expect_rc 0 "LC_ALL=C --once $f"
	check "LC_ALL=C: $f table is printable ASCII" ascii_only "$T/out"
	env -u LC_ALL -u LC_CTYPE LANG=C "$GPUR" --replay "$REC/$f" --once > "$T/out" 2> "$T/err"
	RC=$?
	expect_rc 0 "LANG=C --once $f"
	check "LANG=C: $f table is printable ASCII" ascii_only "$T/out"
done
LC_ALL=C.UTF-8 "$GPUR" --replay "$R" --once > "$T/out" 2> "$T/err"
check "C.UTF-8: a UTF-8 name is shown as recorded" grep -q 'Radeon™ RX 7900 XTX' "$T/out"
# The seed: the driver line is "backend · driver" (ASCII stand-in under C).
LC_ALL=C.UTF-8 "$GPUR" --replay "$REC/seed_attribution.jsonl" --once > "$T/out" 2> "$T/err"
check "driver line is 'nvml · 550.1'" grep -qF 'nvml · 550.1' "$T/out"
LC_ALL=C "$GPUR" --replay "$REC/seed_attribution.jsonl" --once > "$T/out" 2> "$T/err"
check "driver line in ASCII names nvml and 550.1" grep -qE 'nvml.{1,5}550\.1' "$T/out"

# Events: the table says them as the dashboard's events line does (one
# description, model/event.c), controls made inert.
printf '%s\n' '{"ts_ms":1764583200000,"gpus":[{"name":"G","device_id":"GPU-x","state":"lost"}],"processes":[],"events":[{"kind":"gpu_lost","gpu_index":0,"device_id":"GPU-x","backend":"nvml","detail":"fell \u001b[31moff"},{"kind":"signal","pid":4242,"signal":"SIGTERM","result":"ok"}]}' > "$T/ev.jsonl"
run --replay "$T/ev.jsonl" --once
expect_rc 0 "--once with events"
check "the table says the gpu_lost event as the dashboard does" grep -q '^event: gpu_lost GPU 0 (nvml): fell ' "$T/out"
check "the table says a signal event with its pid, signal and result" grep -qx 'event: signal pid 4242 SIGTERM = ok' "$T/out"
check "an escape in an event's detail never reaches the terminal" sh -c "! grep -q \"\$(printf '\\033')\" '$T/out'"

# Who each process belongs to: the container's name and id, the pod as
# namespace/name, a Slurm job; totals per owner when there are several.
run --replay "$REC/attribution.jsonl" --once
expect_rc 0 "--once with attribution"
check "a pod's process shows its container name, id and pod" grep -q '/10 train (1024 MiB) \[trainer containerd:184c8653db58 pod ml/ddp-0\]$' "$T/out"
check "a Docker container's process shows its name and id" grep -q '/12 jupyter (2048 MiB) \[notebook docker:05cff9470056\]$' "$T/out"
check "a Slurm job's process shows the job" grep -q '/13 srun (4 MiB) \[slurm:4242\]$' "$T/out"
check "a process of no container shows none" grep -q '/14 Xorg (1 MiB)$' "$T/out"
check "group totals: the pod's container (name and id), over two GPUs" grep -qx 'group trainer (containerd:184c8653db58): 2 processes, 2048 MiB, GPU 0,1' "$T/out"
check "group totals: the notebook" grep -qx 'group notebook (docker:05cff9470056): 1 process, 2048 MiB, GPU 1' "$T/out"
check "group totals: the Slurm job" grep -qx 'group slurm:4242: 1 process, 4 MiB, GPU 0' "$T/out"
printf '%s\n' '{"ts_ms":1764583200000,"gpus":[{"name":"G0","device_id":"GPU-0","state":"ok"}],"processes":[{"pid":10,"gpu_index":0,"gpu_mem_bytes":1048576,"pod":"a","pod_name":"train-0","pod_namespace":"research"},{"pid":11,"gpu_index":0,"gpu_mem_bytes":2097152,"pod":"b","pod_name":"train-0","pod_namespace":"prod"}]}' > "$T/pods.jsonl"
run --replay "$T/pods.jsonl" --once
check "two pods of one name in two namespaces are two groups" test "$(grep -c '^group pod .*/train-0: 1 process' "$T/out")" -eq 2
check "the biggest group first" test "$(grep -m1 '^group ' "$T/out")" = 'group pod prod/train-0: 1 process, 2 MiB, GPU 0'
check "the prod pod's totals are its own" grep -qx 'group pod prod/train-0: 1 process, 2 MiB, GPU 0' "$T/out"
run --replay "$REC/canonical.jsonl" --once
check "one owner or none: no group totals" sh -c "! grep -q '^group ' '$T/out'"
# Two replicas whose containers are both named "trainer" stay two groups, each
# with its id; services and login sessions are no containers (no totals for
# them; their unit is shown after the process).
printf '%s\n' '{"ts_ms":1764583200000,"gpus":[{"name":"G0","device_id":"GPU-0","state":"ok"}],"processes":[{"pid":10,"gpu_index":0,"gpu_mem_bytes":1048576,"container":"containerd:aaaaaaaaaaaa","container_name":"trainer"},{"pid":11,"gpu_index":0,"gpu_mem_bytes":2097152,"container":"containerd:bbbbbbbbbbbb","container_name":"trainer"},{"pid":12,"gpu_index":0,"gpu_mem_bytes":1048576,"unit":"ollama.service"},{"pid":13,"gpu_index":0,"gpu_mem_bytes":1048576,"unit":"init.scope"},{"pid":14,"gpu_index":0,"gpu_mem_bytes":1048576,"unit":"init.scope"}]}' > "$T/replicas.jsonl"
run --replay "$T/replicas.jsonl" --once
check "two containers of one name: two groups, told apart by id" sh -c "grep -qx 'group trainer (containerd:aaaaaaaaaaaa): 1 process, 1 MiB, GPU 0' '$T/out' && grep -qx 'group trainer (containerd:bbbbbbbbbbbb): 1 process, 2 MiB, GPU 0' '$T/out'"
check "units are no groups" test "$(grep -c '^group ' "$T/out")" -eq 2
check "a service's process shows its unit" grep -q '/12 .*\[ollama.service\]$' "$T/out"
printf '%s\n' '{"ts_ms":1764583200000,"gpus":[{"name":"G0","device_id":"GPU-0","state":"ok"}],"processes":[{"pid":12,"gpu_index":0,"gpu_mem_bytes":1048576,"unit":"ollama.service"},{"pid":13,"gpu_index":0,"gpu_mem_bytes":1048576,"unit":"session-3.scope"}]}' > "$T/units.jsonl"
run --replay "$T/units.jsonl" --once
check "services and sessions only: no group totals" sh -c "! grep -q '^group ' '$T/out'"

finish
