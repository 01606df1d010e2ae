# test_serve_tls: --serve with --web-config (the exporter-toolkit's web
# config), black-box with curl, openssl and a real Prometheus: HTTPS with a
# CA made here, client certificates under each client_auth_type and
# client_allowed_sans, bcrypt basic auth (401 with the Basic challenge and
# an empty body), the configured headers, /health without credentials
# unless --health-auth, rate_limit, SIGHUP re-reading the file (a new
# certificate for new connections, a bad file keeping the old one), bad
# files refused with exit status 2 before anything listens; then Prometheus
# scraping over HTTPS with a client certificate and basic auth.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"
trap 'stop_all; chmod -R u+rwX "$T" 2> /dev/null; rm -rf "$T"' EXIT
: "${BCRYPT:?BCRYPT must name the bcrypt tool}"

for tool in openssl curl python3; do
	if ! command -v "$tool" > /dev/null; then
		skip "$TEST_NAME: $tool is not installed"
		exit 0
	fi
done
DEMO=$SOURCE_DIR/share/demo/demo.jsonl

# --- A PKI made now: a CA, a server certificate for 127.0.0.1 and
# localhost, a client certificate the CA signed (SAN scraper.example), and
# a self-signed client certificate with the same names (wrong); and, signed
# by the CA, a certificate for servers only (extendedKeyUsage serverAuth)
# and an expired client certificate.
PKI=$T/conf/pki
mkdir -p "$PKI"
newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>> "$T/openssl.log"; }
# signed NAME CN EXT: NAME.crt signed by the CA, extensions EXT.
signed() {
	newkey "$PKI/$1.key" &&
		openssl req -new -key "$PKI/$1.key" -subj "/CN=$2" -out "$PKI/$1.csr" 2>> "$T/openssl.log" &&
		printf '%s\n' "$3" > "$PKI/$1.ext" &&
		openssl x509 -req -in "$PKI/$1.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
			-days 2 -extfile "$PKI/$1.ext" -out "$PKI/$1.crt" 2>> "$T/openssl.log"
}
pki_ok=true
newkey "$PKI/ca.key" &&
	openssl req -x509 -new -key "$PKI/ca.key" -subj /CN=gpur-test-ca -days 2 -out "$PKI/ca.crt" 2>> "$T/openssl.log" &&
	signed server gpur-server-one 'subjectAltName=IP:127.0.0.1,DNS:localhost' &&
	signed server2 gpur-server-two 'subjectAltName=IP:127.0.0.1,DNS:localhost' &&
	signed client scraper $'subjectAltName=DNS:scraper.example\nextendedKeyUsage=clientAuth' &&
	signed srvonly scraper $'subjectAltName=DNS:scraper.example\nextendedKeyUsage=serverAuth' &&
	newkey "$PKI/wrong.key" &&
	openssl req -x509 -new -key "$PKI/wrong.key" -subj /CN=intruder -days 2 \
		-addext subjectAltName=DNS:scraper.example -out "$PKI/wrong.crt" 2>> "$T/openssl.log" || pki_ok=false
if ! $pki_ok; then
	fail "openssl could not make the test certificates: $(tail -n 3 "$T/openssl.log")"
	finish
fi
# The expired one: openssl ca takes explicit dates (x509 -req does not).
mkdir -p "$PKI/db"
: > "$PKI/db/index.txt"
echo 1000 > "$PKI/db/serial"
printf '[ca]\ndefault_ca = d\n[d]\ndatabase = %s\nnew_certs_dir = %s\nserial = %s\ndefault_md = sha256\npolicy = p\ncopy_extensions = copy\n[p]\ncommonName = supplied\n' \
	"$PKI/db/index.txt" "$PKI/db" "$PKI/db/serial" > "$PKI/db/ca.cnf"
openssl ca -batch -config "$PKI/db/ca.cnf" -keyfile "$PKI/ca.key" -cert "$PKI/ca.crt" -in "$PKI/client.csr" \
	-startdate 20200101000000Z -enddate 20200102000000Z -notext -out "$PKI/expired.crt" >> "$T/openssl.log" 2>&1 ||
	fail "openssl ca could not make an expired certificate: $(tail -n 3 "$T/openssl.log")"

HASH=$("$BCRYPT" s3cret 4)
check "bcrypt makes a \$2b\$ hash ($HASH)" test "${HASH:0:7}" = '$2b$04$'
# Two users; the second's hash is of another password.
HASH2=$("$BCRYPT" other-pw 4)

CONF=$T/conf/web.yml
# web_config FILE CLIENT_AUTH [EXTRA YAML LINES...]: TLS with certificates
# relative to the file's directory, the two users, two headers.
web_config() {
	local file=$1 auth=$2
	shift 2
	{
		echo "tls_server_config:"
		echo "  cert_file: pki/server.crt"
		echo "  key_file: pki/server.key"
		if [ "$auth" != NoClientCert ]; then
			echo "  client_auth_type: $auth"
			echo "  client_ca_file: pki/ca.crt"
		fi
		printf '%s\n' "$@"
		echo "basic_auth_users:"
		echo "  alice: '$HASH'"
		echo "  bob: '$HASH2'"
		echo "http_server_config:"
		echo "  headers:"
		echo "    X-Frame-Options: deny"
		echo "    Strict-Transport-Security: max-age=31536000"
	} > "$file"
}

# req NAME URL [CURL ARGS...]: the status in $CODE ("000": no HTTP answer),
# curl's exit status in $CRC, the headers in $T/NAME.h, the body in
# $T/NAME.b. A fresh connection each time.
req() {
	local name=$1 url=$2
	shift 2
	rm -f "$T/$name.h" "$T/$name.b"
	CODE=$(curl -s --max-time 10 -o "$T/$name.b" -D "$T/$name.h" -w '%{http_code}' "$@" "$url")
	CRC=$?
}
expect_code() {
	if [ "$CODE" = "$1" ]; then ok; else
		fail "$2: HTTP $CODE (curl exit $CRC), expected $1"
		head -n 12 "$T/$3.h" 2> /dev/null | sed 's/^/    /' >&2
	fi
}
# No HTTP answer at all: the connection closed without a status line.
expect_no_answer() {
	if [ "$CODE" = 000 ] && [ "$CRC" -ne 0 ] && ! grep -q '^HTTP/' "$T/$2.h" 2> /dev/null; then ok; else
		fail "$1: expected no HTTP answer, got HTTP $CODE (curl exit $CRC)"
	fi
}
# The header NAME: VALUE of the answer NAME (case-insensitive name, exact value).
has_header() { tr -d '\r' < "$T/$1.h" | grep -qi "^$2: $3\$"; }

# reloads_above FILE N: FILE has more than N lines saying a SIGHUP was taken.
reloads_above() { [ "$(grep -c 're-read; serving with it' "$1")" -gt "$2" ]; }

CA=(--cacert "$PKI/ca.crt")
CERT=(--cert "$PKI/client.crt" --key "$PKI/client.key")
WRONG=(--cert "$PKI/wrong.crt" --key "$PKI/wrong.key")
AUTH=(-u alice:s3cret)

# --- Bad files: exit status 2, one line naming the file and the key, and
# nothing listens. A port held here shows the file is judged first: had
# gpur bound first, it would say the port is in use.
python3 -c 'import signal, socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True)
signal.pause()' > "$T/held.port" &
HOLDER=$!
wait_until 10 test -s "$T/held.port"
HELD=$(cat "$T/held.port")
BAD=$T/conf/bad.yml
# bad_file WHAT KEY TEXT [YAML...]: gpur with that file exits 2 with one line
# "gpur: --web-config FILE: KEY...TEXT".
bad_file() {
	local what=$1 key=$2 text=$3
	shift 3
	printf '%s\n' "$@" > "$BAD"
	run_nogpu --headless --serve "127.0.0.1:$HELD" --web-config "$BAD"
	expect_rc 2 "$what: exit status"
	expect_one_gpur_line "$what"
	if grep -qF -- "gpur: --web-config $BAD: $key" "$T/err" && grep -qF -- "$text" "$T/err"; then ok; else
		fail "$what: stderr does not say 'gpur: --web-config $BAD: $key' and '$text': $(head -c 300 "$T/err")"
	fi
}
bad_file "an unknown key" "unknown key 'tls_server_config.cert_fil'" "" \
	"tls_server_config:" "  cert_fil: pki/server.crt" "  key_file: pki/server.key"
bad_file "an unknown top-level key" "unknown key 'basic_auth'" "" "basic_auth:" "  alice: '$HASH'"
bad_file "an unknown key of http_server_config" "unknown key 'http_server_config.header'" "" \
	"http_server_config:" "  header:" "    X-Frame-Options: deny"
bad_file "a missing cert_file" "tls_server_config.cert_file: " "$T/conf/pki/missing.crt" \
	"tls_server_config:" "  cert_file: pki/missing.crt" "  key_file: pki/server.key"
bad_file "a key of another certificate" "tls_server_config.key_file: " "does not belong" \
	"tls_server_config:" "  cert_file: pki/server.crt" "  key_file: pki/client.key"
bad_file "a key without its certificate" "tls_server_config.cert_file: " "missing" \
	"tls_server_config:" "  key_file: pki/server.key"
bad_file "a bad bcrypt hash" "basic_auth_users.alice: " "bcrypt" \
	"basic_auth_users:" "  alice: '\$2y\$10\$notreallyahash'"
bad_file "a plain-text password" "basic_auth_users.alice: " "bcrypt" "basic_auth_users:" "  alice: s3cret"
bad_file "a YAML syntax error" "not YAML" "line" "tls_server_config:" "  cert_file: [pki/server.crt" \
	"  key_file: pki/server.key"
bad_file "cipher_suites" "tls_server_config.cipher_suites: " "not supported" \
	"tls_server_config:" "  cert_file: pki/server.crt" "  key_file: pki/server.key" \
	"  cipher_suites: [TLS_AES_128_GCM_SHA256]"
bad_file "client_ca_file with NoClientCert" "tls_server_config.client_ca_file: " "NoClientCert" \
	"tls_server_config:" "  cert_file: pki/server.crt" "  key_file: pki/server.key" \
	"  client_auth_type: NoClientCert" "  client_ca_file: pki/ca.crt"
bad_file "RequireAndVerifyClientCert without a CA" "tls_server_config.client_ca_file: " "RequireAndVerifyClientCert" \
	"tls_server_config:" "  cert_file: pki/server.crt" "  key_file: pki/server.key" \
	"  client_auth_type: RequireAndVerifyClientCert"
bad_file "an unknown client_auth_type" "tls_server_config.client_auth_type: " "RequireAndVerifyClientCert" \
	"tls_server_config:" "  cert_file: pki/server.crt" "  key_file: pki/server.key" \
	"  client_auth_type: VerifyAlways" "  client_ca_file: pki/ca.crt"
bad_file "min_version TLS14" "tls_server_config.min_version: " "TLS14" \
	"tls_server_config:" "  cert_file: pki/server.crt" "  key_file: pki/server.key" "  min_version: TLS14"
bad_file "a header gpur may not add" "http_server_config.headers.Server: " "" \
	"http_server_config:" "  headers:" "    Server: gpur"
bad_file "X-Frame-Options allow" "http_server_config.headers.X-Frame-Options: " "deny" \
	"http_server_config:" "  headers:" "    X-Frame-Options: allow"
bad_file "a rate_limit interval" "rate_limit.interval: " "duration" "rate_limit:" "  interval: soon" "  burst: 1"
rm -f "$BAD"
run_nogpu --headless --serve "127.0.0.1:$HELD" --web-config "$BAD"
expect_rc 2 "a missing web config file: exit status"
expect_one_gpur_line "a missing web config file"
expect_stderr_contains "gpur: --web-config $BAD: " "a missing web config file names it"
kill "$HOLDER" 2> /dev/null
wait "$HOLDER" 2> /dev/null

# Usage errors.
web_config "$CONF" NoClientCert
run_nogpu --headless --web-config "$CONF"
expect_rc 2 "--web-config without --serve"
expect_stderr_contains "--web-config" "--web-config without --serve names it"
run_nogpu --headless --serve 127.0.0.1:0 --health-auth
expect_rc 2 "--health-auth without --web-config"
expect_stderr_contains "--health-auth" "--health-auth without --web-config names it"

# --- HTTPS without client certificates; basic auth; headers; /health.
start_exporter plain -- --replay "$DEMO" --headless --web-config "$CONF"
check "the exporter serves over HTTPS" grep -q "^gpur: serving metrics at https://$ADDR/metrics\$" "$T/plain.err"
A=$ADDR
req r1 "https://$A/metrics" "${CA[@]}" "${AUTH[@]}"
expect_code 200 "HTTPS with the CA trusted and the right password" r1
check "the metrics over HTTPS" grep -q '^DCGM_FI_DEV_GPU_UTIL{' "$T/r1.b"
check "the configured X-Frame-Options header" has_header r1 X-Frame-Options deny
check "the configured Strict-Transport-Security header" has_header r1 Strict-Transport-Security max-age=31536000
req r2 "https://$A/metrics" "${CA[@]}" -u bob:other-pw
expect_code 200 "the second user" r2
req r3 "https://$A/metrics" "${CA[@]}"
expect_code 401 "no credentials" r3
check "401 asks for basic auth with realm gpur" has_header r3 WWW-Authenticate 'Basic realm="gpur"'
check "401 has an empty body" test ! -s "$T/r3.b"
check "401 says Content-Length: 0" has_header r3 Content-Length 0
for cred in alice:wrong bob:s3cret mallory:s3cret alice: ':s3cret' 'alice:s3cret '; do
	req r4 "https://$A/metrics" "${CA[@]}" -u "$cred"
	expect_code 401 "credentials '$cred'" r4
	check "credentials '$cred': the Basic challenge" has_header r4 WWW-Authenticate 'Basic realm="gpur"'
	check "credentials '$cred': an empty body" test ! -s "$T/r4.b"
done
req r5 "https://$A/metrics" "${CA[@]}" -H 'Authorization: Basic !!notbase64!!'
expect_code 401 "an Authorization that is not base64" r5
req r5 "https://$A/metrics" "${CA[@]}" -H 'Authorization: Bearer abc'
expect_code 401 "a Bearer token" r5
req r6 "https://$A/" "${CA[@]}"
expect_code 401 "the index page asks for credentials too" r6
req r7 "https://$A/nothing" "${CA[@]}"
expect_code 401 "an unknown path asks for credentials first (nothing about paths is told)" r7
req h1 "https://$A/health" "${CA[@]}"
expect_code 200 "/health without credentials" h1
check "/health says ok" test "$(cat "$T/h1.b")" = ok
check "/health carries the configured header" has_header h1 X-Frame-Options deny
req p1 "http://$A/metrics" "${AUTH[@]}"
check "plain HTTP to the HTTPS port gets no metrics (HTTP $CODE)" test "$CODE" != 200
req r8 "https://$A/metrics" "${CA[@]}" "${AUTH[@]}"
expect_code 200 "still served after all that" r8
# A server certificate the client does not trust: curl refuses it.
req r9 "https://$A/metrics" "${AUTH[@]}" --cacert "$PKI/wrong.crt"
check "a client without the CA does not trust the server (curl exit $CRC)" test "$CRC" -ne 0 -a "$CODE" = 000

# --- A connection open across a SIGHUP that changes the certificate keeps
# being answered (the old server drains), while a new connection gets the
# new certificate; then a bad file keeps the new one.
cat > "$T/keepalive.py" << 'PY'
import base64, http.client, os, signal, ssl, sys, time
host, port, pid, errfile, ca = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
ctx = ssl.create_default_context(cafile=ca)
c = http.client.HTTPSConnection(host, port, context=ctx, timeout=10)
hdr = {"Authorization": "Basic " + base64.b64encode(b"alice:s3cret").decode()}
def get():
    c.request("GET", "/metrics", headers=hdr)
    r = c.getresponse()
    body = r.read()
    return r.status, body
s1, b1 = get()
cn1 = dict(x[0] for x in c.sock.getpeercert()["subject"])["commonName"]
os.kill(pid, signal.SIGHUP)
deadline = time.monotonic() + 20
while b"re-read; serving with it" not in open(errfile, "rb").read():
    if time.monotonic() > deadline:
        print("no re-read line"); sys.exit(1)
    time.sleep(0.02)
s2, b2 = get()
cn2 = dict(x[0] for x in c.sock.getpeercert()["subject"])["commonName"]
print(s1, cn1, s2, cn2, b"DCGM_FI_DEV_GPU_UTIL{" in b2)
PY
cp "$PKI/server2.crt" "$PKI/server.crt.new" && cp "$PKI/server2.key" "$PKI/server.key.new"
cp "$PKI/server.crt" "$PKI/server1.crt" && cp "$PKI/server.key" "$PKI/server1.key"
mv "$PKI/server.crt.new" "$PKI/server.crt" && mv "$PKI/server.key.new" "$PKI/server.key"
# The new files are in place; the running server still has the old ones.
served_cn() {
	openssl s_client -connect "$A" -servername localhost -CAfile "$PKI/ca.crt" < /dev/null 2> /dev/null |
		openssl x509 -noout -subject -nameopt multiline 2> /dev/null | sed -n 's/^ *commonName *= *//p'
}
check "before SIGHUP a new connection still gets gpur-server-one ($(served_cn))" test "$(served_cn)" = gpur-server-one
got=$(python3 "$T/keepalive.py" 127.0.0.1 "${A##*:}" "$PID" "$T/plain.err" "$PKI/ca.crt" 2>&1)
check "a keep-alive connection across the SIGHUP: both answers 200 on the old certificate ($got)" \
	test "$got" = "200 gpur-server-one 200 gpur-server-one True"
check "SIGHUP: one line 're-read; serving with it over HTTPS'" \
	test "$(grep -cxF "gpur: --web-config $CONF: re-read; serving with it over HTTPS" "$T/plain.err")" -eq 1
check "SIGHUP: stderr is only gpur: lines" sh -c "! grep -qv '^gpur: ' '$T/plain.err'"
check "after SIGHUP a new connection gets gpur-server-two ($(served_cn))" test "$(served_cn)" = gpur-server-two
req r10 "https://$A/metrics" "${CA[@]}" "${AUTH[@]}"
expect_code 200 "after SIGHUP: metrics on the new certificate" r10
check "gpur still runs after SIGHUP" kill -0 "$PID"
# A bad file: the previous configuration goes on, with one line.
cp "$CONF" "$T/conf/good.yml"
printf 'tls_server_config:\n  cert_file: pki/server.crt\n  key_file: pki/server.key\n  bogus: 1\n' > "$CONF"
nbefore=$(wc -l < "$T/plain.err")
kill -HUP "$PID"
check "a bad file on SIGHUP: one line ending '; still serving with the previous configuration'" \
	wait_until 20 grep -qxF "gpur: --web-config $CONF: unknown key 'tls_server_config.bogus'; still serving with the previous configuration" "$T/plain.err"
check "a bad file on SIGHUP: only that line" test "$(wc -l < "$T/plain.err")" -eq $((nbefore + 1))
check "a bad file on SIGHUP: gpur still runs" kill -0 "$PID"
check "a bad file on SIGHUP: still gpur-server-two ($(served_cn))" test "$(served_cn)" = gpur-server-two
req r11 "https://$A/metrics" "${CA[@]}"
expect_code 401 "a bad file on SIGHUP: basic auth still asked" r11
req r12 "https://$A/metrics" "${CA[@]}" "${AUTH[@]}"
expect_code 200 "a bad file on SIGHUP: still served" r12
# A certificate file that went missing is also a bad file.
mv "$T/conf/good.yml" "$CONF"
mv "$PKI/server.crt" "$PKI/server.crt.away"
nbefore=$(wc -l < "$T/plain.err")
kill -HUP "$PID"
check "a missing certificate on SIGHUP: the previous configuration goes on" \
	wait_until 20 grep -qF "gpur: --web-config $CONF: tls_server_config.cert_file: " "$T/plain.err"
check "a missing certificate on SIGHUP: one line, ending as it should" \
	sh -c "test \$(wc -l < '$T/plain.err') -eq $((nbefore + 1)) && tail -n 1 '$T/plain.err' | grep -q '; still serving with the previous configuration\$'"
req r13 "https://$A/metrics" "${CA[@]}" "${AUTH[@]}"
expect_code 200 "a missing certificate on SIGHUP: still served" r13
mv "$PKI/server.crt.away" "$PKI/server.crt"
# Back to the first certificate by SIGHUP.
cp "$PKI/server1.crt" "$PKI/server.crt" && cp "$PKI/server1.key" "$PKI/server.key"
n=$(grep -c 're-read; serving with it' "$T/plain.err")
kill -HUP "$PID"
check "a second good SIGHUP is taken" wait_until 20 reloads_above "$T/plain.err" "$n"
check "and a new connection gets gpur-server-one again" test "$(served_cn)" = gpur-server-one
stop_exporters "the HTTPS exporter, after its SIGHUPs"

# --- Client certificates, each client_auth_type, on one exporter that
# SIGHUP moves from one to the next. "none": no answer at all.
web_config "$CONF" RequireAndVerifyClientCert
start_exporter certs -- --replay "$DEMO" --headless --web-config "$CONF"
A=$ADDR
CERTS_PID=$PID
# auth_case TYPE NONE WRONG RIGHT: what a client without a certificate,
# with the self-signed one and with the CA's gets for /metrics (with the
# right password): 200 or none.
auth_case() {
	local type=$1 c
	for c in none:"$2" wrong:"$3" right:"$4"; do
		local who=${c%%:*} want=${c#*:} args=()
		[ "$who" = wrong ] && args=("${WRONG[@]}")
		[ "$who" = right ] && args=("${CERT[@]}")
		req c1 "https://$A/metrics" "${CA[@]}" "${AUTH[@]}" "${args[@]}"
		if [ "$want" = none ]; then
			expect_no_answer "$type, $who client certificate" c1
		else
			expect_code "$want" "$type, $who client certificate" c1
		fi
	done
}
reload_to() {
	local n
	n=$(grep -c 're-read; serving with it over HTTPS' "$T/certs.err")
	web_config "$CONF" "$@"
	kill -HUP "$CERTS_PID"
	wait_until 20 reloads_above "$T/certs.err" "$n"
}
auth_case RequireAndVerifyClientCert none none 200
req c2 "https://$A/metrics" "${CA[@]}" "${CERT[@]}"
expect_code 401 "RequireAndVerifyClientCert: the right certificate still needs the password" c2
check "its 401 has the Basic challenge" has_header c2 WWW-Authenticate 'Basic realm="gpur"'
req c3 "https://$A/metrics" "${CA[@]}" "${CERT[@]}" -u alice:wrong
expect_code 401 "RequireAndVerifyClientCert: the right certificate with a wrong password" c3
req c4 "https://$A/health" "${CA[@]}"
expect_code 200 "/health without a certificate (or credentials)" c4
check "/health without a certificate says ok" test "$(cat "$T/c4.b")" = ok
req c5 "https://$A/health" "${CA[@]}" "${WRONG[@]}"
expect_code 200 "/health with the wrong certificate" c5
req c6 "https://$A/" "${CA[@]}" "${AUTH[@]}"
expect_no_answer "the index page without a certificate" c6
req c7 "https://$A/nothing" "${CA[@]}"
expect_no_answer "an unknown path without a certificate" c7
req c9 "https://$A/metrics" "${CA[@]}" "${AUTH[@]}" --cert "$PKI/expired.crt" --key "$PKI/client.key"
expect_no_answer "RequireAndVerifyClientCert: an expired certificate the CA signed" c9
# A certificate the CA signed for servers only (extendedKeyUsage serverAuth)
# is not a client's: Go's crypto/tls, which the exporter-toolkit's
# client_auth_type names, verifies client certificates for
# ExtKeyUsageClientAuth and refuses it, and so does gpur (it once took it).
req c10 "https://$A/metrics" "${CA[@]}" "${AUTH[@]}" --cert "$PKI/srvonly.crt" --key "$PKI/srvonly.key"
expect_no_answer "RequireAndVerifyClientCert: a certificate the CA signed for serverAuth only" c10
check "RequireAndVerifyClientCert: taken at once" reload_to RequireAnyClientCert
auth_case RequireAnyClientCert none 200 200
check "VerifyClientCertIfGiven: taken" reload_to VerifyClientCertIfGiven
auth_case VerifyClientCertIfGiven 200 none 200
check "RequestClientCert: taken" reload_to RequestClientCert
auth_case RequestClientCert 200 200 200
# client_allowed_sans: a certificate the CA signed but whose SAN is not
# listed gets no answer; listed, it is served.
check "client_allowed_sans without scraper.example: taken" reload_to RequireAndVerifyClientCert \
	"  client_allowed_sans: [other.example, 127.0.0.1]"
auth_case "client_allowed_sans [other.example, 127.0.0.1]" none none none
req c8 "https://$A/health" "${CA[@]}" "${CERT[@]}"
expect_code 200 "/health with a certificate whose SAN is not allowed" c8
check "client_allowed_sans with scraper.example: taken" reload_to RequireAndVerifyClientCert \
	"  client_allowed_sans: [other.example, scraper.example]"
auth_case "client_allowed_sans [other.example, scraper.example]" none none 200
check "the client-certificate exporter still runs" kill -0 "$CERTS_PID"
stop_exporters "the client-certificate exporter"

# --- --health-auth: /health asks for the certificate and the password too.
web_config "$CONF" RequireAndVerifyClientCert
start_exporter hauth -- --replay "$DEMO" --headless --web-config "$CONF" --health-auth
A=$ADDR
req ha1 "https://$A/health" "${CA[@]}"
expect_no_answer "--health-auth: /health without a certificate" ha1
req ha2 "https://$A/health" "${CA[@]}" "${CERT[@]}"
expect_code 401 "--health-auth: /health with the certificate, without the password" ha2
check "--health-auth: its 401 has the Basic challenge" has_header ha2 WWW-Authenticate 'Basic realm="gpur"'
req ha3 "https://$A/health" "${CA[@]}" "${CERT[@]}" "${AUTH[@]}"
expect_code 200 "--health-auth: /health with both" ha3
check "--health-auth: /health says ok" test "$(cat "$T/ha3.b")" = ok
stop_exporters "--health-auth"

# --- Basic auth without TLS, and rate_limit: a burst of 3 per minute,
# which counts a request before its password is checked (as the
# exporter-toolkit does), so that wrong passwords cannot make the server
# run bcrypt without bound.
{
	echo "basic_auth_users:"
	echo "  alice: '$HASH'"
	echo "rate_limit:"
	echo "  interval: 1m"
	echo "  burst: 3"
} > "$CONF"
start_exporter http -- --replay "$DEMO" --headless --web-config "$CONF"
A=$ADDR
check "without tls_server_config it serves plain HTTP" grep -q "^gpur: serving metrics at http://$A/metrics\$" "$T/http.err"
req b1 "http://$A/metrics"
expect_code 401 "plain HTTP, no credentials (1 of the burst of 3)" b1
check "plain HTTP: the Basic challenge" has_header b1 WWW-Authenticate 'Basic realm="gpur"'
req b2 "http://$A/metrics" "${AUTH[@]}"
expect_code 200 "plain HTTP, the right password (2 of the burst of 3)" b2
req b3 "http://$A/metrics" "${AUTH[@]}"
expect_code 200 "rate_limit: 3 of the burst of 3" b3
req b4 "http://$A/metrics" "${AUTH[@]}"
expect_code 429 "rate_limit: the fourth within the minute" b4
req b4x "http://$A/metrics" -u alice:wrong
expect_code 429 "rate_limit: a wrong password over the limit is not even checked" b4x
req b5 "http://$A/health"
expect_code 200 "rate_limit does not hold /health" b5
# SIGHUP from plain HTTP to HTTPS: the message says so, and the same port
# speaks TLS.
web_config "$CONF" NoClientCert
kill -HUP "$PID"
check "SIGHUP to a file with TLS: 'serving with it over HTTPS'" \
	wait_until 20 grep -qxF "gpur: --web-config $CONF: re-read; serving with it over HTTPS" "$T/http.err"
req b6 "https://$A/metrics" "${CA[@]}" "${AUTH[@]}"
expect_code 200 "after SIGHUP: HTTPS on the same port" b6
# The protocol versions and curves: by default TLS 1.2 and 1.3.
req v1 "https://$A/health" "${CA[@]}" --tls-max 1.2
expect_code 200 "by default a TLS 1.2 client is served" v1
req v2 "https://$A/health" "${CA[@]}" --tlsv1.3
expect_code 200 "by default a TLS 1.3 client is served" v2
req v2x "https://$A/health" "${CA[@]}" --curves X25519
expect_code 200 "by default a client offering only X25519 is served" v2x
# http_re_read FILE: the file is taken on SIGHUP (the next re-read line).
http_re_read() {
	local n
	n=$(grep -c 're-read; serving with it' "$T/http.err")
	kill -HUP "$PID"
	wait_until 20 reloads_above "$T/http.err" "$n"
}
# TLS 1.1, which curl speaks only at OpenSSL's security level 0: with
# min_version TLS11 it is served (so this client can), by default it is not.
OLD=(--ciphers 'DEFAULT@SECLEVEL=0' --tlsv1.1 --tls-max 1.1)
web_config "$CONF" NoClientCert "  min_version: TLS11"
check "min_version TLS11: taken" http_re_read
req v3 "https://$A/health" "${CA[@]}" "${OLD[@]}"
if [ "$CODE" = 200 ]; then
	web_config "$CONF" NoClientCert
	check "back to the default versions: taken" http_re_read
	req v3 "https://$A/health" "${CA[@]}" "${OLD[@]}"
	check "by default TLS 1.1 is refused, though this client speaks it (curl exit $CRC)" \
		test "$CODE" = 000 -a "$CRC" -ne 0
else
	skip "TLS 1.1 is refused here even with min_version TLS11 (system crypto policy?): the default's refusal of it is not checked"
fi
web_config "$CONF" NoClientCert "  min_version: TLS13"
check "min_version TLS13: taken" http_re_read
req v4 "https://$A/health" "${CA[@]}" --tls-max 1.2
check "min_version TLS13: a TLS 1.2 client is refused (curl exit $CRC)" test "$CODE" = 000 -a "$CRC" -ne 0
req v5 "https://$A/health" "${CA[@]}" --tlsv1.3
expect_code 200 "min_version TLS13: a TLS 1.3 client is served" v5
web_config "$CONF" NoClientCert "  max_version: TLS12"
check "max_version TLS12: taken" http_re_read
req v6 "https://$A/health" "${CA[@]}" --tlsv1.3
check "max_version TLS12: a TLS 1.3 client is refused (curl exit $CRC)" test "$CODE" = 000 -a "$CRC" -ne 0
req v7 "https://$A/health" "${CA[@]}" --tls-max 1.2
expect_code 200 "max_version TLS12: a TLS 1.2 client is served" v7
web_config "$CONF" NoClientCert "  curve_preferences: [CurveP384]"
check "curve_preferences [CurveP384]: taken" http_re_read
req v8 "https://$A/health" "${CA[@]}" --curves X25519
check "curve_preferences [CurveP384]: a client offering only X25519 is refused (curl exit $CRC)" \
	test "$CODE" = 000 -a "$CRC" -ne 0
req v9 "https://$A/health" "${CA[@]}" --curves secp384r1
expect_code 200 "curve_preferences [CurveP384]: a client offering P-384 is served" v9
stop_exporters "basic auth over HTTP, rate_limit"

# --- Without --web-config, SIGHUP still stops gpur (status 0).
start_exporter nocfg -- --replay "$DEMO" --headless
kill -HUP "$PID"
wait "$PID"
RC=$?
expect_rc 0 "SIGHUP without --web-config ends gpur"
SERVE_PIDS=""
EXPORTERS=""

# --- A real Prometheus scraping over HTTPS with a client certificate and
# basic auth; a job with a wrong password, and one without a client
# certificate, are down.
if need_prometheus; then
	web_config "$CONF" RequireAndVerifyClientCert
	start_exporter prom -- --replay "$DEMO" --headless --web-config "$CONF"
	A=$ADDR
	job() {
		cat << YML
  - job_name: $1
    scrape_interval: 1s
    scrape_timeout: 900ms
    scheme: https
    tls_config:
      ca_file: $PKI/ca.crt
$2
    basic_auth:
      username: alice
      password: $3
    static_configs:
      - targets: ['$A']
YML
	}
	{
		printf 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n'
		job gpur-tls "      cert_file: $PKI/client.crt
      key_file: $PKI/client.key" s3cret
		job gpur-badpw "      cert_file: $PKI/client.crt
      key_file: $PKI/client.key" wrong
		job gpur-nocert "" s3cret
	} > "$T/prometheus.yml"
	q() { curl -s --max-time 10 --get --data-urlencode "query=$1" "$P/api/v1/query"; }
	# has QUERY: a successful query with at least one series.
	has() { q "$1" | python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(0 if d["status"] == "success" and d["data"]["result"] else 1)'; }
	if check "Prometheus is ready" start_prometheus "$T/tsdb"; then
		check "Prometheus scrapes gpur over HTTPS with a client certificate and basic auth: up == 1" \
			wait_until 40 has 'up{job="gpur-tls"} == 1'
		check "DCGM_FI_DEV_GPU_UTIL is queryable from that job" \
			wait_until 20 has 'DCGM_FI_DEV_GPU_UTIL{job="gpur-tls",gpu="0"} >= 0'
		check "the job with a wrong password is down" wait_until 20 has 'up{job="gpur-badpw"} == 0'
		check "the job without a client certificate is down" wait_until 20 has 'up{job="gpur-nocert"} == 0'
		n=$(q 'count(DCGM_FI_DEV_GPU_UTIL{job=~"gpur-badpw|gpur-nocert"})' | python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
		check "the refused jobs have no GPU series ($n)" test "$n" = 0
		check "Prometheus saw a 401 for the wrong password" \
			sh -c "curl -s '$P/api/v1/targets' | python3 -c 'import json, sys
t = [x for x in json.load(sys.stdin)[\"data\"][\"activeTargets\"] if x[\"labels\"][\"job\"] == \"gpur-badpw\"]
sys.exit(0 if t and \"401\" in t[0][\"lastError\"] else 1)'"
	else
		sed 's/^/    /' "$T/prometheus.log" | tail -n 20 >&2
	fi
	stop_exporters "the exporter Prometheus scraped"
fi
stop_all
finish
