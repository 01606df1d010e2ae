# test_gpus: --gpus selects GPUs by index, device_id (UUID) or PCI bus id
# (lowercase or NVML's 8-digit-domain uppercase form), per record; process
# rows and events are renumbered to the GPU's new position.
. "$(dirname "$0")/lib.sh" || exit 1

# gpus_select.jsonl: record 1 has GPUs A, B, C (0000:3b, 0000:86, 0000:c3);
# record 2 has the same GPUs in the order C, A, B.
R="$REC/gpus_select.jsonl"

# select LIST: replays with --gpus LIST --json; expects exit 0.
select_gpus() {
	run --replay "$R" --json --gpus "$1"
	expect_rc 0 "--gpus $1"
	check "--gpus $1: valid JSONL" "$JSONCMP" --valid "$T/out"
}

# By index: the position in each record (record 2's position 2 is B).
select_gpus 2
expect_json "$T/out" "--gpus 2" <<'EOF'
{"schema":1,"ts_ms":1,"gpus":[{"name":"C","device_id":"pci:0000:c3:00.0","pci_bus_id":"0000:c3:00.0"}],"processes":[{"pid":30,"gpu_index":0},{"pid":31,"gpu_index":0}],"events":[{"kind":"note","gpu_index":0,"detail":"about C"}]}
{"schema":1,"ts_ms":2,"gpus":[{"name":"B","device_id":"GPU-bbbbbbbb-0000-0000-0000-000000000000","pci_bus_id":"0000:86:00.0"}],"processes":[{"pid":20,"gpu_index":0}]}
EOF

# By device_id: the same GPU in every record, wherever it is.
C_ONLY='{"schema":1,"ts_ms":1,"gpus":[{"name":"C","device_id":"pci:0000:c3:00.0","pci_bus_id":"0000:c3:00.0"}],"processes":[{"pid":30,"gpu_index":0},{"pid":31,"gpu_index":0}],"events":[{"kind":"note","gpu_index":0,"detail":"about C"}]}
{"schema":1,"ts_ms":2,"gpus":[{"name":"C","device_id":"pci:0000:c3:00.0","pci_bus_id":"0000:c3:00.0"}],"processes":[{"pid":30,"gpu_index":0}]}'
select_gpus pci:0000:c3:00.0
expect_json "$T/out" "--gpus pci:0000:c3:00.0 (device_id)" <<< "$C_ONLY"

# By PCI bus id: normal form, and NVML's form (8-digit domain, uppercase).
select_gpus 0000:c3:00.0
expect_json "$T/out" "--gpus 0000:c3:00.0" <<< "$C_ONLY"
select_gpus 00000000:C3:00.0
expect_json "$T/out" "--gpus 00000000:C3:00.0 (NVML form)" <<< "$C_ONLY"

# Two GPUs, mixed selectors (UUID + NVML PCI form): kept in record order,
# rows renumbered, rows of unselected GPUs dropped.
select_gpus GPU-bbbbbbbb-0000-0000-0000-000000000000,00000000:C3:00.0
expect_json "$T/out" "--gpus UUID,PCI" <<'EOF'
{"schema":1,"ts_ms":1,"gpus":[{"name":"B","device_id":"GPU-bbbbbbbb-0000-0000-0000-000000000000","pci_bus_id":"0000:86:00.0"},{"name":"C","device_id":"pci:0000:c3:00.0","pci_bus_id":"0000:c3:00.0"}],"processes":[{"pid":20,"gpu_index":0},{"pid":30,"gpu_index":1},{"pid":31,"gpu_index":1}],"events":[{"kind":"note","gpu_index":1,"detail":"about C"}]}
{"schema":1,"ts_ms":2,"gpus":[{"name":"C","device_id":"pci:0000:c3:00.0","pci_bus_id":"0000:c3:00.0"},{"name":"B","device_id":"GPU-bbbbbbbb-0000-0000-0000-000000000000","pci_bus_id":"0000:86:00.0"}],"processes":[{"pid":30,"gpu_index":0},{"pid":20,"gpu_index":1}]}
EOF

# An index and a PCI id naming the same GPU select it once; in record 2
# index 0 is C and 0000:3b:00.0 is A.
select_gpus 0,0000:3b:00.0
expect_json "$T/out" "--gpus 0,0000:3b:00.0" <<'EOF'
{"schema":1,"ts_ms":1,"gpus":[{"name":"A","device_id":"GPU-aaaaaaaa-0000-0000-0000-000000000000","pci_bus_id":"0000:3b:00.0"}],"processes":[{"pid":10,"gpu_index":0}]}
{"schema":1,"ts_ms":2,"gpus":[{"name":"C","device_id":"pci:0000:c3:00.0","pci_bus_id":"0000:c3:00.0"},{"name":"A","device_id":"GPU-aaaaaaaa-0000-0000-0000-000000000000","pci_bus_id":"0000:3b:00.0"}],"processes":[{"pid":30,"gpu_index":0},{"pid":10,"gpu_index":1}]}
EOF

# The table and --log use the selection too.
run --replay "$R" --json --gpus 2 --log "$T/log.jsonl"
check "--gpus: --log holds the selected records" cmp -s "$T/out" "$T/log.jsonl"
run --replay "$R" --once --gpus pci:0000:c3:00.0
expect_rc 0 "--once --gpus"
check "--once --gpus shows C as [0]" grep -q '^\[0\] C' "$T/out"
check "--once --gpus shows no other GPU" test "$(grep -c '^\[' "$T/out")" -eq 1
check "--once --gpus shows C's processes" grep -q '/31 ' "$T/out"
check "--once --gpus hides other GPUs' processes" sh -c "! grep -q '/10 ' '$T/out'"

# A --gpus item that names no GPU of the first frame is an error that says
# so (exit 1), in every mode: nothing is printed or recorded for it.
for mode in --json --once --headless; do
	run --replay "$R" $mode --gpus 7 --log "$T/miss.jsonl"
	expect_rc 1 "--gpus 7 $mode: no such GPU"
	check "--gpus 7 $mode: the message names the item" grep -qx "gpur: --gpus: no GPU matches '7' (3 GPUs here)" "$T/err"
	check "--gpus 7 $mode: nothing on stdout" test ! -s "$T/out"
	check "--gpus 7 $mode: nothing recorded" test ! -s "$T/miss.jsonl"
	rm -f "$T/miss.jsonl"
done

finish
