# test_tui_fleet_filter: the fleet summary's host filter is the dashboard's
# one line editor, so it takes UTF-8 as the process filter does: a host
# named in another script is found by what is typed, Backspace removes a
# whole character, Esc clears. A fleet recording (one record per host per
# poll, backend prometheus) replays as the fleet summary, no Prometheus
# needed.
. "$(dirname "$0")/tui_lib.sh" || exit 1

REC="$T/fleet.jsonl"
for r in $(seq 0 59); do
	for h in node-a 'nœud-ü' 'gpu-straße'; do
		printf '{"schema":1,"ts_ms":%d,"host":"%s","backend":"prometheus","driver":"http://prom:9090","gpus":[{"name":"GPU-X","device_id":"GPU-%s-0","state":"ok","util_pct":%d,"mem_used_bytes":1073741824,"mem_total_bytes":85899345920}],"processes":[]}\n' \
			$((1764583200000 + r * 1000)) "$h" "$h" $((10 + r % 50))
	done
done > "$REC"

tui_start 120 40 -- --replay "$REC"
expect_screen '3 hosts, 3 GPUs' "the fleet recording replays as the fleet summary"
expect_screen '^nœud-ü ' "the host nœud-ü is listed"
expect_screen '^node-a ' "node-a is listed"

keys /
expect_screen '^filter hosts: _' "/ starts the host filter"
type_text 'nœ'
expect_screen '^filter hosts: nœ_' "the filter takes UTF-8 as typed"
keys Enter
expect_screen_gone '^node-a ' "nœ: node-a is filtered out"
expect_screen '^nœud-ü ' "nœ: nœud-ü stays"
check "nœ: gpu-straße is filtered out" screen_lacks '^gpu-straße '
expect_screen '/ filter nœ ' "the footer says the filter"

keys /
keys BSpace
expect_screen '^filter hosts: n_' "Backspace removes œ whole (two bytes)"
keys BSpace
expect_screen '^filter hosts: _' "Backspace again: empty"
type_text 'ße'
keys Enter
expect_screen '^gpu-straße ' "ße: gpu-straße is listed"
expect_screen_gone '^nœud-ü ' "ße: nœud-ü is filtered out"

keys Escape
expect_screen '^node-a ' "Esc clears the filter: node-a is back"
expect_screen '^nœud-ü ' "Esc clears the filter: nœud-ü is back"

keys q
tui_wait_exit 10
expect_rc 0 "q quits"
finish
