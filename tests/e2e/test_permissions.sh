# test_permissions: as an unprivileged user (uid/gid 65534 via setpriv when
# run as root, else the current user), an unreadable recording and a --log
# in a directory the user cannot write both exit 1 naming the file.
. "$(dirname "$0")/lib.sh" || exit 1

if [ "$(id -u)" -eq 0 ]; then
	if ! command -v setpriv > /dev/null; then
		skip "setpriv is missing: cannot drop root's privileges"
		finish
	fi
	AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	OWNER=65534:65534
else
	AS=()
	OWNER=$(id -u):$(id -g)
fi
as_user() { "${AS[@]}" "$@"; }

# A world-traversable tree the user can reach, with its own copy of gpur.
P="$T/perm"
mkdir -p "$P"
chmod 755 "$T" "$P"
cp "$GPUR" "$P/gpur"
chmod 755 "$P/gpur"
cp "$REC/canonical.jsonl" "$P/readable.jsonl"
chmod 644 "$P/readable.jsonl"
if ! as_user "$P/gpur" --version > /dev/null 2>&1; then
	fail "setup: the unprivileged user cannot run $P/gpur (is a parent of $T not world-searchable?)"
	finish
fi

# runu ARGS...: runs the copy of gpur as the user.
runu() {
	as_user "$P/gpur" "$@" < /dev/null > "$T/out" 2> "$T/err"
	RC=$?
}

# Control: the user can play a readable recording.
runu --replay "$P/readable.jsonl" --json
expect_rc 0 "control: the user plays a readable recording"

# An unreadable recording (mode 000, in a directory the user can search).
cp "$REC/canonical.jsonl" "$P/unreadable.jsonl"
chmod 000 "$P/unreadable.jsonl"
check "setup: the user sees the recording" as_user test -e "$P/unreadable.jsonl"
check "setup: the user cannot read the recording" as_user sh -c "! test -r '$P/unreadable.jsonl'"
for mode in --json --once --headless; do
	runu --replay "$P/unreadable.jsonl" "$mode"
	expect_rc 1 "unreadable recording $mode"
	expect_gpur_lines "unreadable recording $mode"
	expect_stderr_contains "gpur: $P/unreadable.jsonl: " "unreadable recording $mode"
	check "unreadable recording $mode: nothing on stdout" test ! -s "$T/out"
done

# --log into a directory the user cannot write (r-x for everyone), and into
# an existing file there that the user cannot write (r-- for everyone).
mkdir "$P/ro"
: > "$P/ro/existing.jsonl"
chmod 444 "$P/ro/existing.jsonl"
chmod 555 "$P/ro"
check "setup: the user can search the read-only directory" as_user test -x "$P/ro"
check "setup: the user cannot write the read-only directory" as_user sh -c "! test -w '$P/ro'"
for mode in --headless --json --once; do
	runu --replay "$P/readable.jsonl" "$mode" --log "$P/ro/out.jsonl"
	expect_rc 1 "--log in an unwritable directory ($mode)"
	expect_gpur_lines "--log in an unwritable directory ($mode)"
	expect_stderr_contains "gpur: $P/ro/out.jsonl: " "--log in an unwritable directory ($mode)"
	check "--log in an unwritable directory: no file created ($mode)" test ! -e "$P/ro/out.jsonl"
done
check "setup: the user cannot write the existing file" as_user sh -c "! test -w '$P/ro/existing.jsonl'"
runu --replay "$P/readable.jsonl" --headless --log "$P/ro/existing.jsonl"
expect_rc 1 "--log into a read-only file"
expect_stderr_contains "gpur: $P/ro/existing.jsonl: " "--log into a read-only file"
check "--log into a read-only file leaves it empty" test ! -s "$P/ro/existing.jsonl"

# Control: a directory the user owns takes the log, mode 0600, owned by them.
mkdir "$P/rw"
chown "$OWNER" "$P/rw"
runu --replay "$P/readable.jsonl" --headless --log "$P/rw/out.jsonl"
expect_rc 0 "control: --log in the user's own directory"
check "control: the log is mode 0600" test "$(stat -c %a "$P/rw/out.jsonl" 2> /dev/null)" = 600
check "control: the log is the user's" test "$(stat -c %u:%g "$P/rw/out.jsonl" 2> /dev/null)" = "$OWNER"
"$GPUR" --replay "$P/readable.jsonl" --json > "$T/expected.jsonl" 2> /dev/null
check "control: the log holds every record" cmp -s "$T/expected.jsonl" "$P/rw/out.jsonl"

finish
