#!/bin/sh
# deps.sh: make sure the Debian packages gpur needs are installed.
#   scripts/deps.sh build   what `make` / `make run` need
#   scripts/deps.sh test    what `make test` needs (build + test tools)
# As root, missing packages are installed with apt-get; otherwise the one
# apt-get line to run is printed and the script fails.
set -eu

want="cmake make gcc pkg-config libncurses-dev libjansson-dev libcmocka-dev libpci-dev pci.ids libmicrohttpd-dev libgnutls28-dev libyaml-dev libcrypt-dev libcurl4-openssl-dev zlib1g-dev libzstd-dev"
case "${1:-build}" in
test) want="$want clang libclang-rt-14-dev libcmocka-dev libjansson-dev tmux util-linux procps prometheus curl openssl python3 zstd gzip chromium-headless-shell" ;;
bench) want="$want libjansson-dev time wrk curl python3 zstd prometheus" ;;
esac

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "gpur: missing Debian packages; run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "gpur: installing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have no package lists yet.
apt-get update -qq >/dev/null || true
# The prometheus package's service must not start: the tests run the binary
# themselves, on loopback. policy-rc.d (invoke-rc.d's veto) keeps every
# service of this install from starting, unless one is already in place.
policy=/usr/sbin/policy-rc.d
own_policy=""
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
fi
rc=0
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null || rc=$?
[ -z "$own_policy" ] || rm -f "$policy"
case " $missing " in
*" prometheus "*) systemctl disable --now prometheus >/dev/null 2>&1 || true ;;
esac
exit $rc
