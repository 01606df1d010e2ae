# test_log_rotation: --log with --log-max-size on the fake NVML and the
# virtual clock (records exactly 1 s apart from T0): segment names, zstd -t
# on every closed segment after a clean exit, the set holding every record
# once and in order, retention, --from/--to, gzip found by magic under any
# name, a segment torn in half, ENOSPC while compressing (a small tmpfs),
# SIGKILL while recording and while compressing, and the next start
# finishing an interrupted compression.
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/nvml_lib.sh" || exit 1

T0=1764583200000 # 2025-12-01T10:00:00Z
scenario "$T/scen.json" <<'JSON'
{"driver":"550.54.15","cuda":12040,
 "gpus":[{"name":"NVIDIA A100-SXM4-80GB","uuid":"GPU-11111111-2222-3333-4444-555555555555","pci":"00000000:3B:00.0",
  "util":37,"mem_util":12,"mem_total":85899345920,"mem_used":1073741824,"temp":45,"power_mw":245123,
  "power_limit_mw":400000,"clock_gfx":1410,"clock_mem":1593}]}
JSON
# record DIR N ARGS...: N polls into DIR/rec.jsonl on the virtual clock.
record() {
	local dir=$1 n=$2
	shift 2
	mkdir -p "$dir"
	GPUR_VIRTUAL_CLOCK_MS=${VCLOCK:-$T0} GPUR_NVML_LIBRARY=$(fake modern) FAKE_NVML_SCENARIO=$T/scen.json \
		"$GPUR" --backend nvml --headless --hostname t --interval 1 --count "$n" --log "$dir/rec.jsonl" "$@" \
		< /dev/null > "$T/out" 2> "$T/err"
	RC=$?
}
# The ts_ms of every record a replay of PATH prints, one a line.
times_of() { "$GPUR" --replay "$1" --json "${@:2}" 2> "$T/replay.err" | grep -o '"ts_ms":[0-9]*' | cut -d: -f2; }
# seq_ms FROM N: N times 1 s apart from FROM.
seq_ms() { local i; for ((i = 0; i < $2; i++)); do echo $(($1 + i * 1000)); done; }
segments() { find "$1" -maxdepth 1 -name 'rec.jsonl.*' ! -name '.*' | sort; }

# ---- rotation, names, zstd -t, every record once in order ----
record "$T/a" 200 --log-max-size 8K
expect_rc 0 "recording with --log-max-size 8K"
check "nothing on stderr after a clean recording" test ! -s "$T/err"
nseg=$(segments "$T/a" | wc -l)
check "8K segments: several closed ($nseg)" test "$nseg" -ge 5
bad=$(segments "$T/a" | grep -vE '/rec\.jsonl\.[0-9]{8}T[0-9]{6}Z(-[0-9]+)?\.zst$' || true)
check "every closed segment is named rec.jsonl.YYYYMMDDTHHMMSSZ[-N].zst (bad: $bad)" test -z "$bad"
check "the first segment is named for the first record's UTC time" test -e "$T/a/rec.jsonl.20251201T100000Z.zst"
zbad=0
for f in $(segments "$T/a"); do zstd -t -q "$f" || zbad=$((zbad + 1)); done
check "zstd -t passes on every closed segment" test "$zbad" -eq 0
check "no temporary is left" test -z "$(find "$T/a" -name '*.tmp')"
for f in "$T/a"/rec.jsonl*; do
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f is mode $(stat -c %a "$f"), not 0600"
done
big=$(for f in $(segments "$T/a"); do zstd -dc "$f" | wc -c; done | sort -n | tail -n 1)
check "no segment holds more than --log-max-size ($big bytes)" test "$big" -le 8192
seq_ms $T0 200 > "$T/want"
times_of "$T/a/rec.jsonl" > "$T/got"
check "the set replays every record once, in order (200)" cmp -s "$T/want" "$T/got"
times_of "$T/a" > "$T/got"
check "the directory replays as the same timeline" cmp -s "$T/want" "$T/got"
# The set equals the plain recording of the same run (but for "system",
# this machine's CPU and memory, which change from run to run).
record "$T/plain" 200
"$GPUR" --replay "$T/plain/rec.jsonl" --json | sed 's/"system":{[^}]*}//' > "$T/plain.out"
"$GPUR" --replay "$T/a/rec.jsonl" --json | sed 's/"system":{[^}]*}//' > "$T/set.out"
check "the set's records equal a plain recording's" cmp -s "$T/plain.out" "$T/set.out"

# ---- --log-max-age: by record time ----
record "$T/age" 125 --log-max-age 1m
expect_rc 0 "--log-max-age 1m"
check "--log-max-age 1m: 125 s make two closed segments" test "$(segments "$T/age" | wc -l)" -eq 2
check "--log-max-age: the second starts a minute in" test -e "$T/age/rec.jsonl.20251201T100100Z.zst"

# ---- retention: only gpur's segments go ----
mkdir -p "$T/k"
echo keep > "$T/k/notes.txt"
echo keep > "$T/k/rec.jsonl.backup"
echo keep > "$T/k/other.jsonl.20251201T100000Z.zst"
record "$T/k" 200 --log-max-size 8K --log-keep 3
expect_rc 0 "--log-keep 3"
check "--log-keep 3 leaves 3 closed segments" test "$(segments "$T/k" | grep -c '\.zst$')" -eq 3
check "retention leaves other files alone" test -e "$T/k/notes.txt" -a -e "$T/k/rec.jsonl.backup" -a -e "$T/k/other.jsonl.20251201T100000Z.zst"
tail -n "$(times_of "$T/k/rec.jsonl" | wc -l)" "$T/want" > "$T/want.k"
times_of "$T/k/rec.jsonl" > "$T/got"
check "what is kept is the newest records, in order" cmp -s "$T/want.k" "$T/got"
record "$T/tot" 200 --log-max-size 8K --log-max-total 6K
expect_rc 0 "--log-max-total 6K"
tot=$(segments "$T/tot" | xargs stat -c %s | awk '{s += $1} END {print s + 0}')
check "--log-max-total 6K: closed segments take at most 6 KiB ($tot)" test "$tot" -le 6144 -a "$tot" -gt 0

# ---- --from / --to ----
seq_ms $((T0 + 30000)) 31 > "$T/want.span"
times_of "$T/a/rec.jsonl" --from $((T0 + 30000)) --to $((T0 + 60000)) > "$T/got"
check "--from/--to in epoch ms" cmp -s "$T/want.span" "$T/got"
times_of "$T/a/rec.jsonl" --from 2025-12-01T10:00:30Z --to 2025-12-01T11:01:00+01:00 > "$T/got"
check "--from/--to in RFC 3339" cmp -s "$T/want.span" "$T/got"
times_of "$T/a/rec.jsonl" --from 10:00:30 --to 10:01 > "$T/got"
check "--from/--to as HH:MM[:SS] on the first day (TZ=UTC)" cmp -s "$T/want.span" "$T/got"
TZ=Europe/Paris times_of "$T/a/rec.jsonl" --from 11:00:30 --to 11:01 > "$T/got"
check "--from/--to HH:MM is local time (Europe/Paris)" cmp -s "$T/want.span" "$T/got"
run --replay "$T/a/rec.jsonl" --json --from 12:00
expect_rc 1 "a span with no record"
expect_stderr_contains "no record between --from and --to" "a span with no record says so"
run --replay "$T/a/rec.jsonl" --json --from 11:00 --to 10:00
expect_rc 2 "--from after --to"
run --json --from 10:00
expect_rc 2 "--from without --replay"
expect_stderr_contains "--from needs --replay" "--from without --replay names it"
for bad in "--log-max-size 0" "--log-max-size 12X" "--log-max-age 5y" "--log-zstd-level 30" "--log-keep -1" "--from 25:00" "--to yesterday"; do
	# shellcheck disable=SC2086
	run --replay "$T/plain/rec.jsonl" --log "$T/x.jsonl" --log-max-size 1M --json $bad
	expect_rc 2 "$bad"
	expect_stderr_contains "gpur: ${bad%% *}" "$bad: the message names the option"
done
run --replay "$T/plain/rec.jsonl" --json --log-keep 3
expect_rc 2 "--log-keep without --log"
run --replay "$T/plain/rec.jsonl" --json --log "$T/x.jsonl" --log-keep 3
expect_rc 2 "--log-keep without rotation"

# ---- gzip and zstd by magic, whatever the name ----
gzip -c "$T/plain/rec.jsonl" > "$T/looks-plain.jsonl"
times_of "$T/looks-plain.jsonl" > "$T/got"
check "gzip is read by its magic bytes (named .jsonl)" cmp -s "$T/want" "$T/got"
zstd -q -c "$T/plain/rec.jsonl" > "$T/noext"
times_of "$T/noext" > "$T/got"
check "zstd is read by its magic bytes (no extension)" cmp -s "$T/want" "$T/got"
{ head -n 100 "$T/plain/rec.jsonl" | gzip -c; tail -n 100 "$T/plain/rec.jsonl" | gzip -c; } > "$T/two.gz"
times_of "$T/two.gz" > "$T/got"
check "a gzip file of two members plays both" cmp -s "$T/want" "$T/got"

# ---- a segment torn in half: read as far as it decodes, the timeline goes on ----
cp -R "$T/a" "$T/torn"
victim=$(segments "$T/torn" | sed -n 2p)
size=$(stat -c %s "$victim")
truncate -s $((size / 2)) "$victim"
times_of "$T/torn/rec.jsonl" > "$T/got"
got=$(wc -l < "$T/got")
check "a torn segment: fewer records, but most ($got of 200)" test "$got" -lt 200 -a "$got" -gt 150
check "a torn segment: still in order, none twice" sh -c "sort -n -u '$T/got' | cmp -s - '$T/got'"
check "a torn segment: the records after it play" test "$(tail -n 1 "$T/got")" = "$(tail -n 1 "$T/want")"
check "a torn segment counts as a skipped line" grep -q "skipped 1 line" "$T/replay.err"
printf 'garbage that is not zstd' | cat <(printf '\x28\xb5\x2f\xfd') - > "$T/torn/rec.jsonl.20251201T100001Z.zst"
times_of "$T/torn/rec.jsonl" > /dev/null
check "a corrupt segment is passed over with a message, exit 0" grep -q "skipped 2 lines" "$T/replay.err"

# ---- SIGKILL while recording: every written record replays once ----
mkdir -p "$T/kill"
GPUR_NVML_LIBRARY=$(fake modern) FAKE_NVML_SCENARIO=$T/scen.json \
	"$GPUR" --backend nvml --headless --hostname t --interval 0.05 --log "$T/kill/rec.jsonl" --log-max-size 8K \
	< /dev/null > /dev/null 2>&1 &
pid=$!
wait_until 20 sh -c "[ \$(find '$T/kill' -name 'rec.jsonl.*.zst' | wc -l) -ge 3 ]"
kill -KILL $pid
wait $pid 2> /dev/null
times_of "$T/kill/rec.jsonl" > "$T/got"
n=$(wc -l < "$T/got")
check "after SIGKILL: records replay ($n)" test "$n" -gt 10
check "after SIGKILL: none twice" sh -c "sort -u '$T/got' | wc -l | grep -qx '$n'"
# (Killed between a segment's .zst landing and its plain file's removal,
# both are there: the set holds those records once.)
written=$(for f in "$T/kill"/rec.jsonl*; do
	case $f in *.zst) zstd -dc "$f" ;; *) [ -e "$f.zst" ] || cat "$f" ;; esac
done | grep -c '"ts_ms"')
check "after SIGKILL: every written record plays ($written written, $n played)" test "$written" -eq "$n"

# ---- SIGKILL while compressing: the plain segment stays; the next start finishes ----
# A segment is left plain with a stray temporary, as a kill mid-compression leaves it.
mkdir -p "$T/crash"
head -n 100 "$T/plain/rec.jsonl" > "$T/crash/rec.jsonl.20251201T100000Z"
head -c 77 "$T/crash/rec.jsonl.20251201T100000Z" > "$T/crash/.rec.jsonl.20251201T100000Z.zst.tmp"
tail -n 100 "$T/plain/rec.jsonl" > "$T/crash/rec.jsonl"
times_of "$T/crash/rec.jsonl" > "$T/got"
check "mid-compression: the set replays every record once (plain segment + FILE)" cmp -s "$T/want" "$T/got"
# And a kill between the rename and the unlink: both copies, read once.
mkdir -p "$T/crash2"
head -n 100 "$T/plain/rec.jsonl" > "$T/crash2/rec.jsonl.20251201T100000Z"
zstd -q -c "$T/crash2/rec.jsonl.20251201T100000Z" > "$T/crash2/rec.jsonl.20251201T100000Z.zst"
tail -n 100 "$T/plain/rec.jsonl" > "$T/crash2/rec.jsonl"
times_of "$T/crash2/rec.jsonl" > "$T/got"
check "plain segment beside its .zst: read once" cmp -s "$T/want" "$T/got"
VCLOCK=$((T0 + 200000)) record "$T/crash" 1 --log-max-size 1M
expect_rc 0 "the next start"
check "the next start compressed the plain segment" test -e "$T/crash/rec.jsonl.20251201T100000Z.zst" -a ! -e "$T/crash/rec.jsonl.20251201T100000Z"
check "the next start removed the stray temporary" test ! -e "$T/crash/.rec.jsonl.20251201T100000Z.zst.tmp"
zstd -t -q "$T/crash/rec.jsonl.20251201T100000Z.zst"
check "the finished segment passes zstd -t" test $? -eq 0
VCLOCK=$((T0 + 200000)) record "$T/crash2" 1 --log-max-size 1M
check "the next start removed the plain copy beside its .zst" test ! -e "$T/crash2/rec.jsonl.20251201T100000Z"

# A real kill during compression: a large segment at level 19, killed as
# soon as its temporary appears.
mkdir -p "$T/kill2"
for i in $(seq 1 40); do cat "$T/plain/rec.jsonl"; done > "$T/kill2/rec.jsonl"
GPUR_VIRTUAL_CLOCK_MS=$((T0 + 9000000)) GPUR_NVML_LIBRARY=$(fake modern) FAKE_NVML_SCENARIO=$T/scen.json \
	"$GPUR" --backend nvml --headless --hostname t --interval 1 --log "$T/kill2/rec.jsonl" --log-max-size 64K \
	--log-zstd-level 19 < /dev/null > /dev/null 2>&1 &
pid=$!
if wait_until 20 sh -c "ls -a '$T/kill2' | grep -q '\.zst\.tmp$'"; then
	kill -KILL $pid
	wait $pid 2> /dev/null
	times_of "$T/kill2/rec.jsonl" > "$T/got"
	n=$(wc -l < "$T/got")
	check "killed mid-compression: the plain segment's 8000 records and the new file's play ($n)" test "$n" -ge 8000
	check "killed mid-compression: no .zst of a half-written segment" sh -c "! ls '$T/kill2' | grep -q 'Z\.zst$' || zstd -t -q '$T/kill2'/rec.jsonl.*.zst"
	VCLOCK=$((T0 + 9900000)) record "$T/kill2" 1 --log-max-size 64K
	check "the next start finished the killed compression" sh -c "ls '$T/kill2' | grep -q 'Z\.zst$' && ! ls -a '$T/kill2' | grep -q 'tmp$'"
	times_of "$T/kill2/rec.jsonl" > "$T/got2"
	check "after it, every record still plays once ($(wc -l < "$T/got2"))" test "$(wc -l < "$T/got2")" -eq $((n + 1))
else
	kill -KILL $pid 2> /dev/null
	wait $pid 2> /dev/null
	skip "compression was over before it could be killed"
fi

# ---- No room to compress (ENOSPC): the plain segment stays, said once, recording goes on,
# and compressing never took the space the new records needed ----
if [ "$(id -u)" = 0 ] && mkdir -p "$T/full" && mount -t tmpfs -o size=160k tmpfs "$T/full" 2> /dev/null; then
	trap 'umount "$T/full" 2> /dev/null; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT
	# The active file fills most of the disk with records that do not
	# compress (random text): its segment's .zst cannot be written beside it.
	for i in $(seq 1 100); do
		printf '{"ts_ms":%d,"host":"%s"}\n' $((T0 + 4000000 + i * 1000)) "$(head -c 900 /dev/urandom | base64 -w0)"
	done > "$T/full/rec.jsonl"
	before=$(grep -c ts_ms "$T/full/rec.jsonl")
	VCLOCK=$((T0 + 5000000)) record "$T/full" 5 --log-max-size 100K --log-zstd-level 1
	check "ENOSPC: recording goes on (exit $RC)" test "$RC" -eq 0 -o "$RC" -eq 1
	check "ENOSPC: the plain segment is kept" sh -c "ls '$T/full' | grep -qE 'Z$'"
	check "ENOSPC: no temporary is left" sh -c "! ls -a '$T/full' | grep -q tmp"
	check "ENOSPC: said once" test "$(grep -c 'not compressed' "$T/err")" -eq 1
	expect_stderr_contains "No space left on device" "ENOSPC named"
	expect_stderr_contains "needed to compress beside it" "ENOSPC: found before compressing, not by filling the disk"
	after=$("$GPUR" --replay "$T/full/rec.jsonl" --json 2> /dev/null | wc -l)
	check "ENOSPC: every record is still there ($before + 5 -> $after)" test "$after" -eq $((before + 5))
	umount "$T/full"
else
	skip "ENOSPC while compressing needs root to mount a small tmpfs"
fi

finish
