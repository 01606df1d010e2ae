# test_completions: gpur --completions bash|zsh|fish prints the script and
# exits 0 (any other value, or another option with it, is a usage error);
# each script loads in its shell and completes options, their words, files
# and directories there (zsh and fish are skipped when not installed); every
# option --help lists is in all three scripts; and the install puts them
# where each shell looks, under DESTDIR.
. "$(dirname "$0")/lib.sh" || exit 1
HERE=$(cd "$(dirname "$0")" && pwd)

# Shells started here read no startup files and write nothing outside $T.
mkdir -p "$T/home"
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_DATA_HOME="$T/home/.local/share"

for sh in bash zsh fish; do
	run --completions "$sh"
	expect_rc 0 "--completions $sh"
	check "--completions $sh writes a script on stdout" test -s "$T/out"
	check "--completions $sh writes nothing to stderr" test ! -s "$T/err"
	cp "$T/out" "$T/comp.$sh"
done
check "the bash script registers _gpur" grep -qx 'complete -F _gpur gpur' "$T/comp.bash"
check "the zsh script starts with #compdef gpur" test "$(head -n 1 "$T/comp.zsh")" = "#compdef gpur"
check "the fish script completes gpur" grep -q '^complete -c gpur ' "$T/comp.fish"
check "the three scripts differ" sh -c "! cmp -s '$T/comp.bash' '$T/comp.zsh' && ! cmp -s '$T/comp.zsh' '$T/comp.fish'"
run --completions=fish
expect_rc 0 "--completions=fish"
check "--completions=fish is --completions fish" cmp -s "$T/out" "$T/comp.fish"

# usage_error TEXT ARGS...: exit 2, nothing on stdout, one line "gpur: ..."
# that contains TEXT.
usage_error() {
	local text=$1
	shift
	run "$@"
	expect_rc 2 "gpur $*"
	expect_one_gpur_line "gpur $*"
	expect_stderr_contains "$text" "gpur $*"
	check "gpur $*: nothing on stdout" test ! -s "$T/out"
}
usage_error "gpur: --completions: 'tcsh' is not a shell: bash, zsh or fish" --completions tcsh
usage_error "gpur: --completions: 'BASH' is not a shell: bash, zsh or fish" --completions BASH
usage_error "gpur: --completions: '' is not a shell" --completions ''
usage_error "gpur: --completions: missing argument" --completions
# It only prints a script: another option would be ignored, so it is refused.
usage_error "gpur: --completions cannot be combined with --once" --completions bash --once
usage_error "gpur: --completions cannot be combined with --replay" --replay "$REC/canonical.jsonl" --completions zsh
usage_error "gpur: --completions cannot be combined with --interval" -d 1 --completions fish
usage_error "gpur: --completions cannot be combined with --no-color" --completions fish --no-color
usage_error "unexpected argument 'extra'" --completions bash extra
# --help and --version win over it, as over any option; the last
# --completions wins, as the last of any option does.
run --completions bash --help
expect_rc 0 "--completions bash --help"
expect_stdout_contains "Usage: gpur" "--completions bash --help"
run --completions bash --completions fish
expect_rc 0 "--completions twice"
check "the last --completions wins" cmp -s "$T/out" "$T/comp.fish"
# A script that cannot be written is a runtime failure that says why.
"$GPUR" --completions bash > /dev/full 2> "$T/err"
RC=$?
expect_rc 1 "--completions bash > /dev/full"
expect_one_gpur_line "--completions bash > /dev/full"
expect_stderr_contains "gpur: stdout: " "--completions bash > /dev/full"

# Each script parses in its shell.
have_zsh=false have_fish=false
check "bash -n accepts the bash script" bash -n "$T/comp.bash"
if command -v zsh > /dev/null; then
	have_zsh=true
	check "zsh -n accepts the zsh script" zsh -n "$T/comp.zsh"
else
	skip "zsh is not installed: no zsh checks beyond the script's text"
fi
if command -v fish > /dev/null; then
	have_fish=true
	check "fish -n accepts the fish script" fish --no-config -n "$T/comp.fish"
else
	skip "fish is not installed: no fish checks beyond the script's text"
fi

# Every option --help lists is in every script, and the scripts offer no
# option --help does not list.
mapfile -t HELP_OPTS < <("$GPUR" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
check "--help lists at least 30 options (${#HELP_OPTS[@]})" test "${#HELP_OPTS[@]}" -ge 30
check "--help lists --completions" grep -qx -- --completions <(printf '%s\n' "${HELP_OPTS[@]}")
for o in "${HELP_OPTS[@]}"; do
	check "the zsh script has a spec for $o" \
		grep -qE -- "^[[:space:]]*'(\([^)]*\))?$o(=|\[|')" "$T/comp.zsh"
	check "the fish script has a line for $o" grep -qE -- "^complete -c gpur( -s .)? -l ${o#--}( |$)" "$T/comp.fish"
done
# The bash script, asked for each option as typed, offers it.
bash --norc --noprofile -c '. "$1" || exit 9; shift
	for o; do
		COMP_WORDS=(gpur "$o") COMP_CWORD=1
		_gpur
		if printf "%s\n" "${COMPREPLY[@]}" | grep -qxF -- "$o"; then echo "yes $o"; else echo "no $o"; fi
	done' _ "$T/comp.bash" "${HELP_OPTS[@]}" > "$T/bash.all"
for o in "${HELP_OPTS[@]}"; do
	check "bash completes $o" grep -qxF -- "yes $o" "$T/bash.all"
done
bash --norc --noprofile -c '. "$1" && COMP_WORDS=(gpur --) COMP_CWORD=1 && _gpur && printf "%s\n" "${COMPREPLY[@]}"' \
	_ "$T/comp.bash" > "$T/bash.longs"
check "bash offers 30 options or more for --" test "$(lines "$T/bash.longs")" -ge 30
while read -r o; do
	check "bash's $o is in --help" grep -qxF -- "$o" <(printf '%s\n' "${HELP_OPTS[@]}")
done < "$T/bash.longs"

# Files for the tests of file and directory arguments.
mkdir -p "$T/files/sub/dir" "$T/files/with space"
touch "$T/files/a.html" "$T/files/b.json" "$T/files/c.txt" "$T/files/d.htm" "$T/files/sub/r.html"

# same_set FILE WORD...: FILE's lines are the WORDs, in any order, once each.
same_set() {
	local file=$1
	shift
	[ "$(sort "$file")" = "$(printf '%s\n' "$@" | sed '/^$/d' | sort)" ]
}

# bash_says WHAT EXPECTED... -- WORD...: _gpur, with COMP_WORDS = the WORDs
# (the last one being completed), replies exactly the EXPECTED words.
bash_says() {
	local what=$1 expected=()
	shift
	while [ "$1" != -- ]; do
		expected+=("$1")
		shift
	done
	shift
	(cd "$T/files" && bash --norc --noprofile -c '. "$1" || exit 9; shift
		COMP_WORDS=("$@") COMP_CWORD=$(($# - 1))
		_gpur
		((${#COMPREPLY[@]} == 0)) || printf "%s\n" "${COMPREPLY[@]}"' _ "$T/comp.bash" "$@") > "$T/bash.out"
	if same_set "$T/bash.out" "${expected[@]}"; then ok; else
		fail "bash: $what: got '$(tr '\n' ' ' < "$T/bash.out")', expected '${expected[*]}'"
	fi
}
# shellcheck disable=SC2016 # the quoted code is run by another shell
check "bash: complete -p gpur names _gpur" \
	bash --norc --noprofile -c '. "$1" && [ "$(complete -p gpur)" = "complete -F _gpur gpur" ]' _ "$T/comp.bash"
bash_says "--ba" --backend -- gpur --ba
bash_says "--log-m" --log-max-size --log-max-age --log-max-total -- gpur --log-m
bash_says "backends" nvml amdgpu intel drm -- gpur --backend ''
bash_says "a second backend" nvml,amdgpu nvml,intel nvml,drm -- gpur --backend nvml,
bash_says "backends after --backend=" amdgpu -- gpur --backend = am
bash_says "--backend=nv as one word" --backend=nvml -- gpur --backend=nv
bash_says "shells" bash zsh fish -- gpur --completions ''
bash_says "shells after --completions=" zsh -- gpur --completions = z
bash_says "--serve-processes=" no yes -- gpur --serve-processes = ''
bash_says "--serve-names" legacy dcgm-4.10 -- gpur --serve-names ''
bash_says "report files" - a.html b.json d.htm sub "with space" -- gpur --report ''
bash_says "report files in a directory" sub/dir sub/r.html -- gpur --report sub/
bash_says "log files" a.html b.json c.txt d.htm sub "with space" -- gpur --log ''
bash_says "replay files" sub -- gpur --replay s
bash_says "procfs directories" sub "with space" -- gpur --procfs ''
bash_says "sysfs directories after --sysfs=" sub -- gpur --sysfs = su
bash_says "--rootfs=w as one word" "--rootfs=with space" -- gpur --rootfs=w
bash_says "a number" -- gpur -d ''
bash_says "a count" -- gpur --count ''
bash_says "an option without argument given one" -- gpur --once = ''
bash_says "nothing for a stray word" -- gpur foo

if $have_fish; then
	# fish_says WHAT LINE EXPECTED...: fish's completions of LINE (first
	# fields) are exactly the EXPECTED words.
	fish_says() {
		local what=$1 line=$2
		shift 2
		# shellcheck disable=SC2016 # the quoted code is fish's
		(cd "$T/files" && fish --no-config -c 'source $argv[1]; complete -C $argv[2] | string split -f1 \t' \
			"$T/comp.fish" "$line") > "$T/fish.out"
		if same_set "$T/fish.out" "$@"; then ok; else
			fail "fish: $what: got '$(tr '\n' ' ' < "$T/fish.out")', expected '$*'"
		fi
	}
	fish_says "--ba" "gpur --ba" --backend
	fish_says "backends" "gpur --backend " nvml amdgpu intel drm
	fish_says "a second backend" "gpur --backend nvml," nvml,amdgpu nvml,intel nvml,drm
	fish_says "--backend=nvml,in" "gpur --backend=nvml,in" --backend=nvml,intel
	fish_says "shells" "gpur --completions " bash zsh fish
	fish_says "--serve-processes=" "gpur --serve-processes=" --serve-processes=no --serve-processes=yes
	fish_says "--serve-names" "gpur --serve-names " legacy dcgm-4.10
	fish_says "report files" "gpur --report " - a.html b.json d.htm sub/ "with space/"
	fish_says "report files in a directory" "gpur --report sub/" sub/dir/ sub/r.html
	fish_says "log files" "gpur --log " a.html b.json c.txt d.htm sub/ "with space/"
	fish_says "procfs directories" "gpur --procfs " sub/ "with space/"
	fish_says "a number" "gpur -d "
	# Every option --help lists, as typed, is offered.
	# shellcheck disable=SC2016 # the quoted code is fish's
	fish --no-config -c 'source $argv[1]
		for o in $argv[2..-1]
			if contains -- $o (complete -C "gpur $o" | string split -f1 \t)
				echo "yes $o"
			else
				echo "no $o"
			end
		end' "$T/comp.fish" "${HELP_OPTS[@]}" > "$T/fish.all"
	for o in "${HELP_OPTS[@]}"; do
		check "fish completes $o" grep -qxF -- "yes $o" "$T/fish.all"
	done
fi

if $have_zsh; then
	# zsh runs interactively on a pseudo-terminal (its zpty module): each
	# line is typed with a Tab after it, and the matches are collected.
	mkdir -p "$T/fpath"
	cp "$T/comp.zsh" "$T/fpath/_gpur"
	ZSH_LINES=("gpur --ba" "gpur --backend " "gpur --backend=nvml," "gpur --completions " "gpur --serve-processes="
		"gpur --report " "gpur --procfs " "gpur --log " "gpur -d " "gpur --help ")
	(cd "$T/files" && zsh -f "$HERE/zsh_complete.zsh" "$T/fpath" "$T/zsh.out" "${ZSH_LINES[@]}")
	zrc=$?
	if [ "$zrc" = 3 ]; then
		skip "zsh has no zpty module: no interactive zsh checks"
	else
		check "zsh answered every line" test "$zrc" = 0
		# zsh_says LINE EXPECTED...: the matches after "> LINE" (each once).
		zsh_says() {
			local line=$1
			shift
			awk -v want="> $line" '$0 == want { on = 1; next } on && $0 == "DONE" { exit } on' "$T/zsh.out" \
				| sort -u > "$T/zsh.one"
			if same_set "$T/zsh.one" "$@"; then ok; else
				fail "zsh: '$line': got '$(tr '\n' ' ' < "$T/zsh.one")', expected '$*'"
			fi
		}
		zsh_says "gpur --ba" --backend
		zsh_says "gpur --backend " nvml amdgpu intel drm
		zsh_says "gpur --backend=nvml," amdgpu intel drm
		zsh_says "gpur --completions " bash zsh fish
		zsh_says "gpur --serve-processes=" no yes
		zsh_says "gpur --serve-names " legacy dcgm-4.10
		zsh_says "gpur --report " - a.html b.json d.htm sub 'with\ space'
		zsh_says "gpur --procfs " sub 'with\ space'
		zsh_says "gpur --log " a.html b.json c.txt d.htm sub 'with\ space'
		zsh_says "gpur -d "
		zsh_says "gpur --help "
	fi
fi

# The install: each script where its shell looks, under DESTDIR and the prefix.
: "${CMAKE:=cmake}"
if [ -z "${GPUR_BUILD_DIR:-}" ]; then
	skip "GPUR_BUILD_DIR is not set (tests/CMakeLists.txt sets it): no install checks"
else
	DESTDIR="$T/dest" "$CMAKE" --install "$GPUR_BUILD_DIR" --prefix /usr --component completions > "$T/install.log" 2>&1
	RC=$?
	expect_rc 0 "cmake --install --component completions"
	check "the completions component installs three files" test "$(find "$T/dest" -type f | wc -l)" = 3
	check "bash's is share/bash-completion/completions/gpur" \
		cmp -s "$T/dest/usr/share/bash-completion/completions/gpur" "$T/comp.bash"
	check "zsh's is share/zsh/vendor-completions/_gpur" cmp -s "$T/dest/usr/share/zsh/vendor-completions/_gpur" "$T/comp.zsh"
	check "fish's is share/fish/vendor_completions.d/gpur.fish" \
		cmp -s "$T/dest/usr/share/fish/vendor_completions.d/gpur.fish" "$T/comp.fish"
	# A whole install (make install) has them too, under its prefix.
	DESTDIR="$T/all" "$CMAKE" --install "$GPUR_BUILD_DIR" --prefix /opt/gpur > "$T/install.log" 2>&1
	RC=$?
	expect_rc 0 "cmake --install"
	for f in share/bash-completion/completions/gpur share/zsh/vendor-completions/_gpur \
		share/fish/vendor_completions.d/gpur.fish bin/gpur; do
		check "a whole install has $f" test -s "$T/all/opt/gpur/$f"
	done
fi

finish
