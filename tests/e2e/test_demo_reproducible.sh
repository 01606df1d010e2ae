# test_demo_reproducible: the bundled demo recording is what gpur itself
# makes from its scenario, byte for byte (scripts/make-demo.sh), and it tells
# the story it claims: 8 GPUs, one lost halfway while the others go on.
. "$(dirname "$0")/lib.sh"
: "${SOURCE_DIR:?SOURCE_DIR must name the source tree}"

"$SOURCE_DIR/scripts/make-demo.sh" "$(dirname "$GPUR")" "$T/demo.jsonl" 2> "$T/err"
RC=$?
expect_rc 0 "make-demo.sh"
check "the regenerated demo equals share/demo/demo.jsonl byte for byte" \
	cmp -s "$T/demo.jsonl" "$SOURCE_DIR/share/demo/demo.jsonl"
D=$SOURCE_DIR/share/demo/demo.jsonl
check "300 records" test "$(lines "$D")" -eq 300
check "no trace of the building machine (host)" sh -c "! grep -q '\"host\":\"$(hostname)\"' '$D'"
check "one gpu_lost event" test "$(grep -c '"kind":"gpu_lost"' "$D")" -eq 1
check "GPU 3 is lost in the last record" sh -c "tail -n 1 '$D' | grep -q '\"pci_bus_id\":\"0000:5d:00.0\",\"state\":\"lost\"'"
check "the other GPUs go on (GPU 7 reads in the last record)" \
	sh -c "tail -n 1 '$D' | grep -q '\"pci_bus_id\":\"0000:db:00.0\",\"state\":\"ok\",\"pstate\":0'"
finish
