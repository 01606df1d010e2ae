# test_serve_slowloris: idle and half-sent connections, all from 127.0.0.1
# (behind a NAT every client has the scraper's address, so there is no
# limit per address), never keep a scrape from 127.0.0.1 out, and cost
# little memory: 200 of them and a scrape answered within 1 s; 4000 and
# scrapes still answered, gpur's VmHWM growth bounded; 1000 TLS connections
# that never finish their handshake and a curl HTTPS scrape answered; and,
# with a low RLIMIT_NOFILE (prlimit), above 15/16 of the connection limit
# the half-sent connections that waited 3 s are shut, oldest first, a fresh
# scrape gets through, and the rest end at the 10 s timeout
# (tests/tools/slowloris.py).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; kill $LORIS 2> /dev/null; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT
LORIS=""

for tool in python3 curl openssl prlimit; do
	if ! command -v "$tool" > /dev/null; then
		skip "$TEST_NAME: $tool is not installed"
		exit 0
	fi
done
DEMO=$SOURCE_DIR/share/demo/demo.jsonl
LORIS_PY=$SOURCE_DIR/tests/tools/slowloris.py

# Descriptors for this shell, python and gpur (which raises its soft limit
# to the hard one): 4000 connections need 4000 on each side. As root the
# hard limit may be raised.
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt 10000 ]; then
	ulimit -Hn 10000 2> /dev/null
fi
ulimit -n "$(ulimit -Hn)" 2> /dev/null
HARD=$(ulimit -Hn)
[ "$HARD" = unlimited ] && HARD=1048576
# What gpur makes of it: min(hard, 8192 + 512) - 512 connections, the
# oldest waiting shut above 15/16 of that. 4000 stay under it when the hard
# limit allows; fewer otherwise.
N=4000
conns=$((HARD < 8704 ? HARD - 512 : 8192))
if [ $((conns - conns / 16 - 100)) -lt "$N" ]; then
	N=$((conns - conns / 16 - 100))
	echo "  the descriptor limit ($HARD) allows $N connections, not 4000"
fi

# played_all URL: the exporter has rendered every record of the demo (the
# replay's end), so that no descriptor or memory of the replay itself moves
# the figures measured next.
DEMO_RECORDS=$(wc -l < "$DEMO")
played_all() {
	curl -sk --max-time 5 "$1/metrics" |
		grep -Eq "^gpur_exporter_frames_total(\{[^}]*\})? $DEMO_RECORDS\$"
}

# analyse ARGS...: runs slowloris.py, counting its ok/fail lines here.
analyse() {
	local rc
	python3 "$LORIS_PY" "$@" > "$T/loris.out" 2>&1
	rc=$?
	counted "$rc"
}
counted() {
	local v w
	while IFS=$'\t' read -r v w; do
		case $v in
		ok) ok ;;
		fail) fail "$w" ;;
		info) echo "  $w" ;;
		*) echo "  $v${w:+ $w}" ;;
		esac
	done < "$T/loris.out"
	[ "$1" -eq 0 ] || fail "slowloris.py exited with status $1"
}

# Under AddressSanitizer (build-asan) freed memory waits in a quarantine of
# up to 256 MiB before reuse, so VmHWM would measure the churn of TLS
# handshakes, not what connections hold; the exporters whose memory is
# measured run without it (redzones and the leak check stay). No effect on
# other builds.
NOQ=ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=0

# --- Plain HTTP: 200, then N connections.
start_exporter plain "$NOQ" -- --replay "$DEMO" --headless
check "the exporter serves" test -n "$ADDR"
check "the demo played to its end" wait_until 60 played_all "http://$ADDR"
analyse plain "$ADDR" "$PID" "$N"
check "the exporter lived through $N connections" kill -0 "$PID"
stop_exporters "plain HTTP"

# --- TLS: 1000 connections that never finish their handshake.
PKI=$T/pki
mkdir -p "$PKI"
if openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$PKI/server.key" \
	-out "$PKI/server.crt" -days 2 -subj /CN=localhost \
	-addext subjectAltName=IP:127.0.0.1,DNS:localhost > "$T/openssl.log" 2>&1; then
	printf 'tls_server_config:\n  cert_file: pki/server.crt\n  key_file: pki/server.key\n' > "$T/web.yml"
	start_exporter tls "$NOQ" -- --replay "$DEMO" --headless --web-config "$T/web.yml"
	check "the exporter serves over HTTPS" grep -q '^gpur: serving metrics at https://' "$T/tls.err"
	check "the demo played to its end" wait_until 60 played_all "https://$ADDR"
	rm -f "$T/ready" "$T/release"
	python3 "$LORIS_PY" tls "$ADDR" "$PID" 1000 "$PKI/server.crt" "$T/ready" "$T/release" > "$T/loris.out" 2>&1 &
	LORIS=$!
	if check "1000 half-open TLS connections held" wait_until 60 test -s "$T/ready"; then
		code=$(curl -s --max-time 10 --cacert "$PKI/server.crt" -o "$T/tls.body" \
			-w '%{http_code} %{time_total}' "https://$ADDR/metrics")
		echo "  curl over HTTPS beside 1000 half-open TLS connections: $code"
		check "1000 half-open TLS connections: a curl HTTPS scrape answered 200 ($code)" test "${code%% *}" = 200
		check "with the metrics" grep -q '^DCGM_FI_DEV_GPU_UTIL{' "$T/tls.body"
	fi
	touch "$T/release"
	wait "$LORIS"
	rc=$?
	LORIS=""
	counted "$rc"
	check "the HTTPS exporter lived through them" kill -0 "$PID"
	stop_exporters "TLS"
else
	fail "openssl could not make a certificate: $(tail -n 2 "$T/openssl.log")"
fi

# --- gpur raises its soft RLIMIT_NOFILE to the hard limit, up to what 8192
# connections and 512 descriptors of its own need.
soft_nofile() { awk '/^Max open files/ {print $4}' "/proc/$1/limits"; }
START_WITH=(prlimit --nofile=1024:2048 --)
start_exporter raise1 -- --replay "$DEMO" --headless
check "a soft limit of 1024 under a hard one of 2048 is raised to 2048 ($(soft_nofile "$PID"))" \
	test "$(soft_nofile "$PID")" = 2048
if [ "$HARD" -ge 8704 ]; then
	START_WITH=(prlimit --nofile=1024:"$HARD" --)
	start_exporter raise2 -- --replay "$DEMO" --headless
	check "under a hard limit of $HARD it is raised to 8704 only ($(soft_nofile "$PID"))" \
		test "$(soft_nofile "$PID")" = 8704
fi
START_WITH=()
stop_exporters "RLIMIT_NOFILE raised"

# --- A low descriptor limit: 700, so 188 connections, 177 before the
# oldest waiting ones are shut.
START_WITH=(prlimit --nofile=700:700 --)
start_exporter limit -- --replay "$DEMO" --headless
START_WITH=()
check "gpur runs with RLIMIT_NOFILE 700" grep -q '^Max open files *700 *700 ' "/proc/$PID/limits"
check "the demo played to its end" wait_until 60 played_all "http://$ADDR"
analyse limit "$ADDR" "$PID"
check "the exporter lived through it" kill -0 "$PID"
stop_exporters "a low descriptor limit"
finish
