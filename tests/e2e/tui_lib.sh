# tui_lib.sh: helpers for the dashboard's end-to-end tests: the real binary
# in a tmux pane of a private server (tmux -L, -f /dev/null), keys in, screen
# captured. Sourced by tests/e2e/test_tui_*.sh (it sources lib.sh and
# nvml_lib.sh itself).
#
#   tui_start COLS ROWS [VAR=VALUE ...] [--] ARGS...
#                         starts a new private tmux server (tmux -L, a socket
#                         name of its own; the previous one of this test is
#                         killed) whose one pane, COLSxROWS,
#                         runs "$GPUR ARGS..." under a wrapper. gpur gets a
#                         clean environment: TERM from tmux, PATH, LANG=C.UTF-8,
#                         TZ=UTC, HOME=$T/home, XDG_CONFIG_HOME=$TUI_XDG, the
#                         sanitizers' *SAN_OPTIONS when set, plus the VAR=VALUE
#                         given (VAR= with no value removes one).
#                         The wrapper prints TUI_BEFORE before gpur starts and
#                         "gpur-exited rc=N" after it ends, then waits, so the
#                         pane shows the shell's state after gpur.
#   screen                the pane's text now (capture-pane -p)
#   screen_e              the same with attributes as escape sequences (-e)
#   wait_screen ERE [SECONDS]      polls the screen until grep -E matches
#                         (default 10 s); false at the deadline
#   wait_screen_gone ERE [SECONDS] polls until it no longer matches
#   expect_screen ERE WHAT [SECONDS]       wait_screen, counted; a screen
#                         dump on failure
#   expect_screen_gone ERE WHAT [SECONDS]  wait_screen_gone, counted
#   expect_not_now ERE WHAT        the screen does not match now, counted
#   keys KEY...           tmux send-keys (key names: Up, PageDown, F10, Escape,
#                         Enter, Space, Home, End, C-c ...)
#   type_text TEXT        sends TEXT literally (send-keys -l)
#   tui_pid               gpur's pid (waits up to 5 s for it)
#   tui_wait_exit [SECONDS]   waits for gpur to end; its exit status in $RC
#                         (false, RC=255, when it still runs at the deadline)
#   tui_resize COLS ROWS  resizes the window (gpur gets SIGWINCH)
#   tui_flag NAME         a tmux pane format value, e.g. alternate_on
#   dump_screen WHY       prints the screen to stderr
#   tui_stop              kills this test's tmux server and waits for it to
#                         go (also done on exit)
#   gpu_json I NAME [EXTRA]        one fake-NVML GPU object (scenario helper)
#   gen_recording FILE NGPUS NRECORDS [PROCS_PER_GPU]
#                         writes a recording: records 1 s apart (ts_ms), GPU i
#                         named "GPU-NAME-i", utilisation rising by record
#                         number, PROCS_PER_GPU processes per GPU (default 1)
#                         with pid 1000 + 10*i + k, command "job-g<i>-p<k>",
#                         users from GEN_USERS (comma-separated, default
#                         alice,bob) taken in turn; with GEN_BUSY_GPUS=N only
#                         the first N GPUs have processes and utilisation (the
#                         others are idle)
#   TUI_XDG               XDG_CONFIG_HOME given to gpur ($T/xdg)
#   TUI_BEFORE            the line the wrapper prints before gpur starts
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || exit 1
. "$(dirname "${BASH_SOURCE[0]}")/nvml_lib.sh" || exit 1

# One tmux server (socket) per tui_start: gpur-TEST-PID-N.
TUI_SOCK_BASE="gpur-${TEST_NAME}-$$"
TUI_STARTS=0
TUI_SOCK="$TUI_SOCK_BASE-0"
TUI_DIR="$T/tui"
TUI_XDG="$T/xdg"
TUI_BEFORE="tui-shell-before-gpur"
mkdir -p "$TUI_DIR" "$TUI_XDG" "$T/home"

if ! command -v tmux > /dev/null 2>&1; then
	echo "SKIP: $TEST_NAME: tmux is not installed (scripts/deps.sh test installs it)"
	exit 0
fi

tmx() { tmux -L "$TUI_SOCK" -f /dev/null "$@"; }

server_gone() { ! tmx list-sessions > /dev/null 2>&1; }
# gpur of the last tui_start is still running (not a zombie).
gpur_alive() {
	local pid state
	pid=$(cat "$TUI_DIR/pid" 2> /dev/null) || return 1
	[ "$(readlink "/proc/$pid/exe" 2> /dev/null)" = "$(readlink -f "$GPUR")" ] || return 1
	state=$(awk '{print $3}' "/proc/$pid/stat" 2> /dev/null) || return 1
	[ -n "$state" ] && [ "$state" != Z ]
}
gpur_gone() { ! gpur_alive; }
# kill-server returns before the server has exited: wait for it. gpur gets
# SIGHUP from the closing pane; one that does not end within 3 s (a hang) is
# killed, so no test leaves one behind.
# tmux leaves its socket file behind: removed too.
tui_stop() {
	local sock
	sock=$(tmx display -p '#{socket_path}' 2> /dev/null) || return 0
	tmx kill-server > /dev/null 2>&1
	wait_until 3 server_gone
	case $sock in */"$TUI_SOCK") rm -f "$sock" ;; esac
	if ! wait_until 3 gpur_gone; then
		echo "  (gpur, pid $(cat "$TUI_DIR/pid"), still ran 3 s after its pane closed: killed)" >&2
		kill -KILL "$(cat "$TUI_DIR/pid")" 2> /dev/null
	fi
}

trap 'tui_stop; kill $SLEEPERS 2> /dev/null; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT

tui_start() {
	local cols=$1 rows=$2
	shift 2
	local envs=()
	while [ $# -gt 0 ]; do
		case $1 in
		--)
			shift
			break
			;;
		[A-Za-z_]*=*)
			envs+=("$1")
			shift
			;;
		*) break ;;
		esac
	done
	tui_stop
	TUI_STARTS=$((TUI_STARTS + 1))
	TUI_SOCK="$TUI_SOCK_BASE-$TUI_STARTS"
	rm -f "$TUI_DIR/pid" "$TUI_DIR/rc"
	# Later VAR=VALUE arguments win over the defaults; "VAR=" drops VAR.
	local all=("PATH=$PATH" "HOME=$T/home" "LANG=C.UTF-8" "TZ=UTC" "XDG_CONFIG_HOME=$TUI_XDG") e v
	# Sanitizer settings of the suite's sanitizer builds go through.
	for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS; do
		[ -n "${!v:-}" ] && all+=("$v=${!v}")
	done
	all+=("${envs[@]}")
	local keep=()
	for e in "${all[@]}"; do
		local name=${e%%=*} k found=0
		for k in "${!keep[@]}"; do
			if [ "${keep[$k]%%=*}" = "$name" ]; then
				keep[k]=$e
				found=1
			fi
		done
		[ "$found" = 0 ] && keep+=("$e")
	done
	local final=()
	for e in "${keep[@]}"; do
		[ -n "${e#*=}" ] && final+=("$e")
	done
	{
		echo '#!/bin/bash'
		printf 'printf "%%s\\n" %q\n' "$TUI_BEFORE"
		# gpur's pid is the inner shell's, which execs it in the foreground.
		# shellcheck disable=SC2016 # expanded by the wrapper, not here
		printf 'bash -c '\''echo $$ > "$0"; exec "$@"'\'' %q env -i TERM="$TERM"' "$TUI_DIR/pid"
		printf ' %q' "${final[@]}" "$GPUR" "$@"
		# shellcheck disable=SC2016
		printf '\nrc=$?\necho "$rc" > %q\nprintf "gpur-exited rc=%%s\\n" "$rc"\nexec sleep 3600\n' "$TUI_DIR/rc"
	} > "$TUI_DIR/run.sh"
	chmod +x "$TUI_DIR/run.sh"
	# The status line off, so the pane is the whole COLSxROWS window.
	tmx -u start-server \; set -g status off \; set -g exit-empty off \; \
		new-session -d -s gpur -x "$cols" -y "$rows" "$TUI_DIR/run.sh"
	tui_pid > /dev/null
}

screen() { tmx capture-pane -p -t gpur 2> /dev/null; }
screen_e() { tmx capture-pane -p -e -t gpur 2> /dev/null; }

dump_screen() {
	echo "  --- screen ($1) ---" >&2
	screen | sed 's/^/  |/' >&2
	echo "  ---" >&2
}

screen_matches() { screen | grep -qE -- "$1"; }
screen_lacks() { ! screen | grep -qE -- "$1"; }

wait_screen() { wait_until "${2:-10}" screen_matches "$1"; }
wait_screen_gone() { wait_until "${2:-10}" screen_lacks "$1"; }

expect_screen() {
	if wait_screen "$1" "${3:-10}"; then ok; else
		fail "$2: the screen never showed /$1/ within ${3:-10} s"
		dump_screen "$2"
	fi
}

expect_screen_gone() {
	if wait_screen_gone "$1" "${3:-10}"; then ok; else
		fail "$2: the screen still shows /$1/ after ${3:-10} s"
		dump_screen "$2"
	fi
}

expect_not_now() {
	if screen_lacks "$1"; then ok; else
		fail "$2: the screen shows /$1/"
		dump_screen "$2"
	fi
}

keys() { tmx send-keys -t gpur "$@"; }
type_text() { tmx send-keys -t gpur -l -- "$1"; }

tui_pid() {
	wait_until 5 test -s "$TUI_DIR/pid" || return 1
	cat "$TUI_DIR/pid"
}

tui_wait_exit() {
	if wait_until "${1:-10}" test -s "$TUI_DIR/rc"; then
		RC=$(cat "$TUI_DIR/rc")
	else
		# shellcheck disable=SC2034 # for expect_rc
		RC=255
		return 1
	fi
}

tui_resize() { tmx resize-window -t gpur -x "$1" -y "$2"; }

tui_flag() { tmx display -p -t gpur "#{$1}"; }

# One fake-NVML GPU: gpu_json I NAME [EXTRA JSON members, with a leading comma].
gpu_json() {
	printf '{"name":"%s","uuid":"GPU-%08d-0000-0000-0000-000000000000","pci":"00000000:%02X:00.0","util":%d,"mem_util":5,"mem_total":85899345920,"mem_used":%d,"temp":%d,"power_mw":200000,"power_limit_mw":400000,"clock_gfx":1410,"clock_mem":1593,"pcie_gen":4,"pcie_width":16,"pstate":0%s}' \
		"$2" "$1" "$(($1 % 256))" "$((10 + $1 % 80))" "$((1073741824 * ($1 % 8 + 1)))" "$((40 + $1 % 40))" "${3:-}"
}

gen_recording() {
	awk -v ngpus="$2" -v nrec="$3" -v nproc="${4:-1}" -v users="${GEN_USERS:-alice,bob}" \
		-v busy="${GEN_BUSY_GPUS:-$2}" 'BEGIN {
		nu = split(users, u, ",")
		for (r = 0; r < nrec; r++) {
			# %.0f, as the %d of mawk stops at 2^31.
			printf "{\"schema\":1,\"ts_ms\":%.0f,\"host\":\"genhost\",\"backend\":\"nvml\",\"driver\":\"550.54.15\",\"gpus\":[", 1764583200000 + r * 1000
			for (g = 0; g < ngpus; g++) {
				printf "%s{\"name\":\"GPU-NAME-%d\",\"device_id\":\"GPU-gen-%d\",\"state\":\"ok\",\"util_pct\":%d,\"mem_used_bytes\":%.0f,\"mem_total_bytes\":85899345920,\"temp_c\":%d,\"power_w\":%d,\"power_limit_w\":700}", g ? "," : "", g, g, g < busy ? 1 + (r + g) % 100 : 0, (g % 8 + 1) * 1073741824, 40 + g % 40, 100 + g
			}
			printf "],\"processes\":["
			n = 0
			for (g = 0; g < ngpus && g < busy; g++)
				for (k = 0; k < nproc; k++)
					printf "%s{\"pid\":%d,\"gpu_index\":%d,\"name\":\"job\",\"cmdline\":\"job-g%d-p%d\",\"user\":\"%s\",\"kind\":\"compute\",\"gpu_mem_bytes\":%.0f,\"gpu_util_pct\":%d}", n++ ? "," : "", 1000 + 10 * g + k, g, g, k, u[1 + (g + k) % nu], (g * nproc + k + 1) * 1048576, (g + k) % 100
			printf "]}\n"
		}
	}' > "$1"
}
