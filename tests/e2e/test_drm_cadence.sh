# test_drm_cadence: the DRM backends read what changes every poll, the fan
# every 5 s and the power cap (with the other rare files) every 10 s, and
# carry the held values into every record. On the real clock: the fixture
# changes once two records are out, and the records after it show the new
# power at once, the old fan and cap while they are held, and the new ones
# by the end.
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/nvml_lib.sh" || exit 1
. "$(dirname "$0")/drm_lib.sh" || exit 1

R="$T/amd"
fx_root "$R" "6.8.0-45-generic"
dev=$(fx_pci_card "$R" 1 0000:03:00.0 amdgpu 1002 744c)
fx_amdgpu "$dev" 6.8
hw="$dev/hwmon/hwmon4"
GPUR_NVML_LIBRARY=$NO_NVML timeout 60 "$GPUR" --sysfs "$R/sys" --procfs "$R/proc" --backend amdgpu --json \
	--interval 0.5 --count 27 < /dev/null > "$T/out" 2> "$T/err" &
run=$!
two_records() { test "$(lines "$T/out")" -ge 2; }
check "two records" wait_until 20 two_records
before=$(lines "$T/out")
put "$hw/power1_average" "50000000\n"
put "$hw/fan1_input" "2000\n"
put "$hw/power1_cap" "300000000\n"
wait "$run"
RC=$?
expect_rc 0 "27 records"
check "27 records" test "$(lines "$T/out")" -eq 27
# Per record after the change: power, fan, cap.
for ((r = before + 1; r <= 27; r++)); do
	echo "$(get "$T/out" "$r" gpus.0.power_w) $(get "$T/out" "$r" gpus.0.fan_rpm) $(get "$T/out" "$r" gpus.0.power_limit_w)"
done > "$T/after"
check "every record has the fan and the cap" bash -c "! grep -q absent '$T/after'"
check "power is read every poll: new from the second record after the change" \
	awk 'NR >= 2 && $1 != 50 { exit 1 }' "$T/after"
check "the fan is held between reads: the old value after the change" awk '$1 == 50 && $2 == 1211 { f = 1 } END { exit !f }' "$T/after"
check "the cap is held between reads: the old value after the change" awk '$1 == 50 && $3 == 327 { f = 1 } END { exit !f }' "$T/after"
check "the fan is read again within 5 s" awk 'END { exit !($2 == 2000) }' "$T/after"
check "the cap is read again within 10 s" awk 'END { exit !($3 == 300) }' "$T/after"
check "the fan changes before the cap" awk '$2 == 2000 && $3 == 327 { f = 1 } END { exit !f }' "$T/after"
finish
