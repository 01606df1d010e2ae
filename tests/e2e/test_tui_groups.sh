# test_tui_groups: the process table grouped (g: container, pod, job, user,
# none) on the attribution recording — counts, sums, GPUs, Enter opens a
# group, Esc goes back, the mode kept in the settings — and the details
# screen (Enter on a process) with its names and its history chart, at
# 80x24, 120x40 and 200x60.
. "$(dirname "$0")/tui_lib.sh" || exit 1

ATTR="$FIXTURES/recordings/attribution.jsonl"

tui_start 120 40 -- --replay "$ATTR"
expect_screen 'q quit' "the dashboard starts"
expect_not_now 'grouped by' "not grouped at first"

keys g
expect_screen '^grouped by container: 4 groups' "g: grouped by container, 4 groups"
expect_screen '^GPU-MEM▼ +GPU% +PROCS +GPUS +CONTAINER' "the group table's header"
expect_screen '^ +2\.0G +-- +1 1 +notebook  docker:05cff9470056$' "notebook: 1 process, 2 GiB, GPU 1, its id beside its name"
expect_screen '^ +2\.0G +-- +2 0,1 +trainer  containerd:184c8653db58$' "trainer: 2 processes summed (2 GiB), GPUs 0,1"
expect_screen '^ +4\.0M +-- +1 0 +slurm:4242$' "the Slurm job as its own group"
expect_screen '^ +1\.0M +-- +1 0 +\(none\)$' "no owner: (none), last"

# Enter opens the selected group (the second: trainer); Esc goes back.
keys j Enter
expect_screen '^container trainer: 2 processes' "Enter opens a group: the title says which"
expect_screen '^ +10 alice ' "the group's pid 10"
expect_screen '^ +11 alice ' "the group's pid 11"
expect_not_now '^ +12 bob ' "no other group's process (12)"
keys Escape
expect_screen '^grouped by container: 4 groups' "Esc: back to the groups"
keys Down Enter
expect_screen '^container slurm:4242: 1 process' "the selection moved on (the third group)"
keys BSpace
expect_screen '^grouped by container: 4 groups' "Backspace: back to the groups"

keys g
expect_screen '^grouped by pod: 2 groups' "g: by pod"
expect_screen '^ +2\.0G +-- +2 0,1 +ml/ddp-0$' "the pod as namespace/name, 2 processes on GPUs 0,1"
expect_screen '^ +2\.0G +-- +3 0,1 +\(none\)$' "the rest: 3 processes on GPUs 0,1"
keys g
expect_screen '^grouped by job: 2 groups' "g: by job"
expect_screen '^ +4\.0M +-- +1 0 +slurm:4242$' "the job slurm:4242"
keys g
expect_screen '^grouped by user: 4 groups' "g: by user"
expect_screen '^ +2\.0G +-- +2 0,1 +alice$' "alice: 2 processes"
expect_screen '^ +1\.0M +-- +1 0 +root$' "root: 1 process"
keys g
expect_screen_gone 'grouped by' "g: back to no grouping"
expect_screen '^ +PID USER +DEV ' "the process table again"

# The grouping is kept in the settings.
keys g g q
tui_wait_exit 5
check "the settings file says group = pod" grep -qx 'group = pod' "$TUI_XDG/gpur/config"
tui_start 120 40 -- --replay "$ATTR"
expect_screen '^grouped by pod: 2 groups' "the next start is grouped by pod"
keys g g g
expect_screen_gone 'grouped by' "g cycles back to none (pod, job, user, none)"

# A member's memory unknown: the group's sum is unknown, and says why.
sed 's/"name":"Xorg","user":"root","gpu_mem_bytes":1048576/"name":"Xorg","user":"root"/' "$ATTR" > "$T/unknown.jsonl"
rm -f "$TUI_XDG/gpur/config"
tui_start 120 40 -- --replay "$T/unknown.jsonl"
keys g
expect_screen '^ +-- +-- +1 0 +\(none\)  \(GPU memory of 1 unknown\)$' "an unknown member: the sum -- (not 0), said so"
keys g
expect_screen '^ +-- +-- +3 0,1 +\(none\)  \(GPU memory of 1 unknown\)$' "by pod: 2 GiB + 4 MiB + unknown is unknown"
keys g g g

# Details: the largest first (pid 12, GPU-MEM▼), then pid 10.
keys Enter
expect_screen '[─-] pid 12 ' "Enter: the details of pid 12"
expect_screen 'container +notebook   \(docker:05cff9470056\)' "its container by name and id"
expect_screen 'GPU +1 G1   memory 2\.0GiB   util --' "its GPU and memory; util unknown as --"
expect_screen 'history of this process' "its history chart"
keys Escape
expect_screen_gone '[─-] pid 12 ' "Esc closes the details"
keys j j Enter
expect_screen '[─-] pid 1[01] ' "the details of a pod's process"
expect_screen 'pod +ml/ddp-0   uid ccd0a30e-12e9-4cab-a4ff-9124262dfbee' "the pod as namespace/name and uid"
expect_screen 'container +trainer   \(containerd:184c8653db58\)' "the pod's container by name"
expect_screen 'unit +(cri-containerd-184c|--)' "the unit line"
keys Escape

# A longer recording: the chart fills with the process's own samples.
gen_recording "$T/long.jsonl" 2 200 1
tui_start 120 40 -- --replay "$T/long.jsonl" --speed 64
expect_screen 'q quit' "the long recording plays"
keys Enter
expect_screen '[─-] pid 10[01]0 ' "details on the long recording"
expect_screen 'history of this process: [1-9][0-9]+ samples' "the chart holds many samples" 20
expect_screen '^.?│ GPU-MEM +[▁▂▃▄▅▆▇█]{10,}' "GPU memory drawn as a line of blocks"
expect_screen '^.?│ GPU% +[▁▂▃▄▅▆▇█]{10,}' "GPU util drawn"
expect_screen '^.?│ CPU% +·{10,}' "CPU % unknown throughout: dots, not zeros"
expect_screen '-[0-9]+s─+now' "the chart's time axis"

# Nothing overflows at 80x24 and 200x60: grouped, opened, details.
for size in 80x24 200x60; do
	cols=${size%x*} rows=${size#*x}
	rm -f "$TUI_XDG/gpur/config"
	tui_start "$cols" "$rows" -- --replay "$ATTR"
	expect_screen 'q quit' "$size: starts"
	keys g
	expect_screen '^grouped by container: 4 groups' "$size: grouped"
	s=$(screen)
	check "$size: grouped: $rows lines" test "$(wc -l <<< "$s")" -eq "$rows"
	check "$size: grouped: the footer last" grep -q '^q quit' <(sed -n "${rows}p" <<< "$s")
	check "$size: grouped: no line wider than $cols" test "$(LC_ALL=C.UTF-8 wc -L <<< "$s")" -le "$cols"
	keys Enter
	expect_screen '^container notebook: 1 process' "$size: opened"
	keys Escape g g g g Enter
	expect_screen '[─-] pid 12 ' "$size: details"
	s=$(screen)
	check "$size: details: $rows lines" test "$(wc -l <<< "$s")" -eq "$rows"
	check "$size: details: the box closes on line $((rows - 1))" grep -qE '^.└─+┘.?$' <(sed -n "$((rows - 1))p" <<< "$s")
	check "$size: details: the box's right edge on every line" test "$(sed -n "3,$((rows - 2))p" <<< "$s" | grep -cE '│.?$')" -eq "$((rows - 4))"
	check "$size: details: the chart axis fits" grep -qE -- '-[0-9]+s─+now' <<< "$s"
done

# CONTAINER as wide as its longest owner on a wide terminal (the pod whole,
# as namespace/name), narrowed but kept at 80 columns.
tui_start 200 60 -- --replay "$SOURCE_DIR/share/demo/demo.jsonl"
expect_screen ' research/train-llama-7b-0 +/usr/bin/python3 ' "200x60: the pod whole in CONTAINER"
expect_screen ' slurm:4242 +python3 eval.py' "200x60: the Slurm job"
keys q
tui_wait_exit 5
tui_start 80 24 -- --replay "$SOURCE_DIR/share/demo/demo.jsonl"
expect_screen ' research/train +/usr/bin/python3' "80x24: CONTAINER narrowed, not gone"
keys q
tui_wait_exit 5

# Live details of a Kubernetes pod's process at 80x24: the pod uid, the unit
# and the cgroup path wrap instead of being cut, so the container's full id
# at the end of the path is there whole. (tui_lib.sh has sourced
# nvml_lib.sh already: sourcing it again would replace tui_lib's exit trap,
# which stops the tmux servers.)
K=184c8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63ba
printf '{"driver":"550.54.15","fast_pcie":1,"gpus":[{"name":"NVIDIA A100","uuid":"GPU-1","pci":"00000000:3B:00.0","util":1,"mem_total":1000,"mem_used":10,"processes":[{"pid":2007,"type":"compute","mem":1048576}]}]}\n' > "$T/k8s.json"
tui_start 80 24 GPUR_NVML_LIBRARY="$(fake modern)" FAKE_NVML_SCENARIO="$T/k8s.json" -- --backend nvml --procfs "$FIXTURES/attrib-root/proc" --rootfs "$FIXTURES/rootfs-node"
expect_screen '^ +2007 ' "80x24 live: the pod's process"
keys Enter
expect_screen '[─-] pid 2007 ' "80x24 live: its details"
s=$(screen | tr -d ' │')
check "80x24 details: the cgroup path ends with the container's full id" grep -q "cri-containerd-$K.scope" <<< "$(tr -d '\n' <<< "$s")"
check "80x24 details: the chart still fits" grep -q 'historyofthisprocess' <<< "$s"
keys q
tui_wait_exit 5

# The footer's hints are joined once per mode and joined again when it
# changes: grouping turns Enter from a command line into opening a group.
tui_start 200 40 -- --replay "$ATTR"
expect_screen '⏎ cmd' "the footer's Enter shows a command line"
keys g
expect_screen '⏎ open' "grouped: the footer's Enter opens a group"
keys g g g g
expect_screen '⏎ cmd' "ungrouped again: the footer's Enter shows a command line"
tui_stop
finish
