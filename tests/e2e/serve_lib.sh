# serve_lib.sh: helpers for the exporter's tests (sourced after lib.sh).
#   start_exporter NAME [VAR=VALUE...] -- ARGS...
#                        runs gpur ARGS... --serve 127.0.0.1:0 in the
#                        background (environment VAR=VALUE), stderr in
#                        $T/NAME.err, and waits (20 s at most) for the line
#                        that names the address; sets ADDR (host:port) and
#                        PID. False when it never serves. START_WITH, an
#                        array, is put before gpur's name (prlimit ... --).
#   stop_exporters WHAT  SIGTERM to the exporters started since the last
#                        stop; each must end within 15 s with status 0 and
#                        only "gpur: " lines on its stderr (a sanitizer's
#                        report fails it); one that does not end is named,
#                        with what its threads wait in, and killed
#   free_port            prints a port nobody listens on now
#   http_get URL [CURL ARGS...]   the body on stdout (curl)
#   stop_all             SIGTERM to every process started here, and waits
#   need_prometheus      sets PROMETHEUS and PROMTOOL; as root installs
#                        Debian's package when missing (scripts/deps.sh
#                        test); false (after a skip line) when still missing
#   scrape_config INTERVAL TARGET...   $T/prometheus.yml scraping TARGETs
#   start_prometheus TSDB [ARGS...]    Prometheus on a free loopback port
#                        with $T/prometheus.yml and storage TSDB, its log in
#                        $T/prometheus.log; waits (60 s at most) until it is
#                        ready; sets P (its URL) and PROM_PID. Stopped by
#                        stop_all. False when it never gets ready.
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
	env "${envs[@]}" ${START_WITH[@]+"${START_WITH[@]}"} "$GPUR" "$@" --serve 127.0.0.1:0 < /dev/null \
		> "$T/$name.out" 2> "$T/$name.err" &
	PID=$!
	SERVE_PIDS="$SERVE_PIDS $PID"
	EXPORTERS="$EXPORTERS $PID:$name"
	ADDR=""
	wait_until 20 grep -q 'serving metrics at https\{0,1\}://' "$T/$name.err" || {
		echo "  $name never served; stderr:" >&2
		sed 's/^/    /' "$T/$name.err" >&2
		return 1
	}
	ADDR=$(sed -n 's|^gpur: serving metrics at https\{0,1\}://\(.*\)/metrics$|\1|p' "$T/$name.err")
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

http_get() {
	local url=$1
	shift
	curl -s --max-time 10 "$@" "$url"
}

EXPORTERS=""
# ended PID: the process has exited (gone, or a zombie not yet reaped).
ended() {
	local state
	state=$(awk '{print $3}' "/proc/$1/stat" 2> /dev/null) || return 0
	[ -z "$state" ] || [ "$state" = Z ]
}
stop_exporters() {
	local e p name rc t
	for e in $EXPORTERS; do kill -TERM "${e%%:*}" 2> /dev/null; done
	for e in $EXPORTERS; do
		p=${e%%:*} name=${e#*:}
		if ! wait_until 15 ended "$p"; then
			fail "$1: the exporter $name still runs 15 s after SIGTERM; its threads wait in:"
			for t in /proc/"$p"/task/*; do
				echo "    $(cat "$t/comm" 2> /dev/null): $(cat "$t/wchan" 2> /dev/null)" >&2
			done
			kill -KILL "$p" 2> /dev/null
			wait "$p" 2> /dev/null
			SERVE_PIDS=$(echo " $SERVE_PIDS " | sed "s/ $p / /")
			continue
		fi
		wait "$p" 2> /dev/null
		rc=$?
		if [ "$rc" -eq 0 ] && ! grep -qv '^gpur: ' "$T/$name.err"; then ok; else
			fail "$1: the exporter $name ended with status $rc on SIGTERM, or wrote other than gpur: lines"
			grep -v '^gpur: ' "$T/$name.err" | head -n 20 | sed 's/^/    /' >&2
		fi
		SERVE_PIDS=$(echo " $SERVE_PIDS " | sed "s/ $p / /")
	done
	EXPORTERS=""
}

stop_all() {
	local p
	for p in $SERVE_PIDS; do kill -TERM "$p" 2> /dev/null; done
	for p in $SERVE_PIDS; do wait "$p" 2> /dev/null; done
	SERVE_PIDS=""
	EXPORTERS=""
}

need_prometheus() {
	PROMETHEUS=$(command -v prometheus || echo /usr/bin/prometheus)
	PROMTOOL=$(command -v promtool || echo /usr/bin/promtool)
	if [ ! -x "$PROMETHEUS" ] && [ "$(id -u)" = 0 ]; then
		"$SOURCE_DIR/scripts/deps.sh" test > "$T/deps.log" 2>&1 || true
	fi
	if [ ! -x "$PROMETHEUS" ] || [ ! -x "$PROMTOOL" ]; then
		skip "$TEST_NAME: Debian's prometheus package is not installed and could not be (not root, or no network: $(tail -n 1 "$T/deps.log" 2> /dev/null))"
		return 1
	fi
}

scrape_config() {
	local iv=$1 targets="" t
	shift
	for t in "$@"; do targets="$targets${targets:+, }'$t'"; done
	cat > "$T/prometheus.yml" <<YML
global:
  scrape_interval: $iv
  evaluation_interval: $iv
scrape_configs:
  - job_name: gpur
    scrape_interval: $iv
    scrape_timeout: 900ms
    static_configs:
      - targets: [$targets]
YML
}

start_prometheus() {
	local tsdb=$1 port
	shift
	[ -f "$T/prometheus.yml" ] || printf 'global:\n  scrape_interval: 1m\n' > "$T/prometheus.yml"
	port=$(free_port)
	"$PROMETHEUS" --config.file="$T/prometheus.yml" --storage.tsdb.path="$tsdb" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn "$@" > "$T/prometheus.log" 2>&1 &
	PROM_PID=$!
	SERVE_PIDS="$SERVE_PIDS $PROM_PID"
	P="http://127.0.0.1:$port"
	wait_until 60 curl -sf "$P/-/ready" -o /dev/null || {
		echo "  Prometheus never got ready; its log:" >&2
		sed 's/^/    /' "$T/prometheus.log" | tail -n 20 >&2
		return 1
	}
}
