# test_tui_replay_set: the dashboard plays a rotated set (a zstd segment, a
# plain segment, then FILE) as one timeline, and seeks by recorded time:
# Left/Right 10 s, Shift+Left/Right and { } 1 min, J and a clock time, Home,
# End — each landing on the record of that time, across segment borders.
. "$(dirname "$0")/tui_lib.sh" || exit 1

gen_recording "$T/all.jsonl" 2 600 1 # 10:00:00 .. 10:09:59, 1 s apart
mkdir -p "$T/set"
head -n 200 "$T/all.jsonl" | zstd -q -c > "$T/set/rec.jsonl.20251201T100000Z.zst"
sed -n 201,400p "$T/all.jsonl" > "$T/set/rec.jsonl.20251201T100320Z"
sed -n 401,600p "$T/all.jsonl" > "$T/set/rec.jsonl"

# The header's recorded time and record number: "· 10:00:10 #11 ".
at() { screen | head -n 1 | grep -qE "· $1 #$2 "; }
expect_at() {
	if wait_until 10 at "$1" "$2"; then ok; else
		fail "$3: expected $1 #$2"
		dump_screen "$3"
	fi
}

tui_start 120 40 -- --replay "$T/set/rec.jsonl"
expect_screen 'REPLAY rec\.jsonl' "the set opens"
keys Space
expect_screen ' ❚❚' "paused"
keys Home
expect_at 10:00:00 1 "Home: the first record of the first (zstd) segment"
keys Right
expect_at 10:00:10 11 "Right: 10 s on"
keys Right Right
expect_at 10:00:30 31 "Right Right: 20 s more"
keys Left
expect_at 10:00:20 21 "Left: 10 s back"
keys '}'
expect_at 10:01:20 81 "}: a minute on"
keys S-Right
expect_at 10:02:20 141 "Shift+Right: a minute on"
keys S-Right S-Right
expect_at 10:04:20 261 "into the plain segment"
keys J
expect_screen 'jump to time' "J asks for a time"
type_text 10:08:20
keys Enter
expect_at 10:08:20 501 "J 10:08:20: into FILE itself"
keys '{'
expect_at 10:07:20 441 "{: a minute back"
keys S-Left S-Left S-Left S-Left
expect_at 10:03:20 201 "Shift+Left x4: back across a border, into the plain segment's first record"
keys Left
expect_at 10:03:10 191 "Left: back into the zstd segment"
keys J
type_text 25:00
keys Enter
expect_screen "not a time: '25:00'" "J with a bad time says so"
expect_at 10:03:10 191 "a bad time does not move"
keys End
expect_at 10:09:59 600 "End: the last record of FILE"
keys Right
expect_at 10:09:59 600 "Right at the end holds the last record"
keys Home Left
expect_at 10:00:00 1 "Left at the start holds the first"
# Playing on from a seek goes through the borders, record by record.
keys J
type_text 10:03:18
keys Enter
expect_at 10:03:18 199 "J 10:03:18"
keys . . .
expect_at 10:03:21 202 ". . . steps across the border"
keys q
tui_wait_exit 5
check "q quits (exit $RC)" test "$RC" -eq 0

finish
