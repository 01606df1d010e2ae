# bench/lib.sh: what the benchmark scripts share (sourced).

# need_bins NAME HINT BIN...: each BIN is an executable, or NAME says which
# is not (with HINT) and the script ends.
need_bins() {
	local name=$1 hint=$2 bin
	shift 2
	for bin in "$@"; do
		if [[ ! -x $bin ]]; then
			echo "$name: $bin not found ($hint)" >&2
			exit 1
		fi
	done
}

# bench_tmp TAG: sets tmp to $KEEP_DIR (kept), else to a new temporary
# directory removed at exit.
bench_tmp() {
	if [[ -n ${KEEP_DIR:-} ]]; then
		tmp=$KEEP_DIR
		mkdir -p "$tmp"
	else
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpur-bench-$1.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
	fi
}
