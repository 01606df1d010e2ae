# serve_lib.sh: helpers for the exporter's tests (sourced after lib.sh).
#   start_exporter NAME [VAR=VALUE...] -- ARGS...
#                        runs gpur ARGS... --serve 127.0.0.1:0 in the
#                        background (environment VAR=VALUE), stderr in
#                        $T/NAME.err, and waits (20 s at most) for the line
#                        that names the address; sets ADDR (host:port) and
#                        PID. False when it never serves.
#   free_port            prints a port nobody listens on now
#   http_get URL [CURL ARGS...]   the body on stdout (curl)
#   stop_all             SIGTERM to every process started here, and waits
SERVE_PIDS=""

start_exporter() {
	local name=$1
	shift
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		envs+=("$1")
		shift
	done
	shift
	env "${envs[@]}" "$GPUR" "$@" --serve 127.0.0.1:0 < /dev/null > "$T/$name.out" 2> "$T/$name.err" &
	PID=$!
	SERVE_PIDS="$SERVE_PIDS $PID"
	ADDR=""
	wait_until 20 grep -q 'serving metrics at http://' "$T/$name.err" || {
		echo "  $name never served; stderr:" >&2
		sed 's/^/    /' "$T/$name.err" >&2
		return 1
	}
	ADDR=$(sed -n 's|^gpur: serving metrics at http://\(.*\)/metrics$|\1|p' "$T/$name.err")
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

http_get() {
	local url=$1
	shift
	curl -s --max-time 10 "$@" "$url"
}

stop_all() {
	local p
	for p in $SERVE_PIDS; do kill -TERM "$p" 2> /dev/null; done
	for p in $SERVE_PIDS; do wait "$p" 2> /dev/null; done
	SERVE_PIDS=""
}
