#!/bin/sh
# check-layers.sh [SRC_DIR]: the layers of src/LAYERS hold. Every .c and .h
# under SRC_DIR (default: src beside this script) belongs to exactly one
# layer; no file includes a header of a later layer (an upward include);
# only the tui layer includes curses.h (or ncurses.h, term.h); and the
# layers' libraries in CMakeLists.txt are made from the same table (it reads
# src/LAYERS), so the check and the build cannot disagree. Prints each
# offence as "FILE: includes HEADER (layer A above layer B)" and exits 1 if
# there is any. Run by `make test` (ctest: layers/check).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../src}
[ -f "$src/LAYERS" ] || { echo "check-layers: $src/LAYERS not found" >&2; exit 2; }

cd "$src"
find . \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | LC_ALL=C sort > "${TMPDIR:-/tmp}/gpur-layers.$$.files"
trap 'rm -f "${TMPDIR:-/tmp}/gpur-layers.$$".*' EXIT

# Each file's layer number and name: the longest path of the table that is
# the file itself or a directory above it.
awk '
	NR == FNR {
		if ($0 ~ /^[a-z]/) {
			n++
			name[n] = $1
			for (i = 2; i <= NF; i++) { path[++np] = $i; of[np] = n }
		}
		next
	}
	{
		best = 0; bestlen = -1
		for (k = 1; k <= np; k++) {
			p = path[k]
			if ((p ~ /\/$/ && index($0, p) == 1) || $0 == p)
				if (length(p) > bestlen) { best = of[k]; bestlen = length(p) }
		}
		print $0, best, (best ? name[best] : "-")
	}
' LAYERS "${TMPDIR:-/tmp}/gpur-layers.$$.files" > "${TMPDIR:-/tmp}/gpur-layers.$$.map"

bad=0
# A file in no layer, or in two (a directory and a file of another row).
while read -r f n name; do
	if [ "$n" = 0 ]; then
		echo "$f: in no layer of src/LAYERS"
		bad=1
	fi
done < "${TMPDIR:-/tmp}/gpur-layers.$$.map"

# Upward includes and curses outside the dashboard.
while read -r f n name; do
	[ "$n" = 0 ] && continue
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$f" | while IFS= read -r line; do
		num=${line%%:*}
		inc=$(printf '%s\n' "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p')
		case $inc in
		curses.h | ncurses.h | ncursesw/* | term.h)
			if [ "$name" != tui ]; then
				echo "$f:$num: includes <$inc> (curses is the tui layer's alone; $f is in $name)"
			fi
			continue
			;;
		esac
		[ -f "$inc" ] || continue # a system header
		to=$(awk -v f="$inc" '$1 == f { print $2, $3 }' "${TMPDIR:-/tmp}/gpur-layers.$$.map")
		tn=${to% *}
		tname=${to#* }
		if [ -n "$tn" ] && [ "$tn" -gt "$n" ]; then
			echo "$f:$num: includes \"$inc\" (layer $tname is above layer $name)"
		fi
	done
done < "${TMPDIR:-/tmp}/gpur-layers.$$.map" > "${TMPDIR:-/tmp}/gpur-layers.$$.bad"
if [ -s "${TMPDIR:-/tmp}/gpur-layers.$$.bad" ]; then
	cat "${TMPDIR:-/tmp}/gpur-layers.$$.bad"
	bad=1
fi

# The build's libraries come from the same table.
if ! grep -q 'src/LAYERS' "$src/../CMakeLists.txt"; then
	echo "CMakeLists.txt: the layers' libraries are not made from src/LAYERS"
	bad=1
fi
# ncursesw is linked by the dashboard's library alone.
if grep -n 'NCURSESW' "$src/../CMakeLists.txt" | grep -v 'pkg_check_modules(NCURSESW' |
	grep -v 'target_link_libraries(gpur_tui ' | grep -q .; then
	echo "CMakeLists.txt: ncursesw is linked by more than the tui layer's library:"
	grep -n 'NCURSESW' "$src/../CMakeLists.txt" | grep -v 'pkg_check_modules(NCURSESW'
	bad=1
fi
if [ "$bad" = 0 ]; then
	echo "check-layers: $(wc -l < "${TMPDIR:-/tmp}/gpur-layers.$$.map") files in $(grep -c '^[a-z]' LAYERS) layers, no upward include"
fi
exit "$bad"
