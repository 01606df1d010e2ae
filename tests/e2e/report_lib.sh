# report_lib.sh: helpers for the --report tests (sourced after lib.sh).
#   CHROMIUM             chromium-headless-shell, or empty when not installed
#   render HTML OUT.dom  the DOM after rendering (--dump-dom)
#   shoot HTML OUT.png   a screenshot, 1100 × 1500
#   fact FILE.facts KEY  the value of one line of report_dom.py's output
DOM_PY="$SOURCE_DIR/tests/e2e/report_dom.py"
CHROMIUM=$(command -v chromium-headless-shell || true)
# Root needs --no-sandbox; no GPU, no network, no profile left behind.
chromium_run() {
	HOME="$T" timeout 120 "$CHROMIUM" --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chromium" \
		--hide-scrollbars "$@" 2>> "$T/chromium.err"
}
render() { chromium_run --dump-dom "file://$1" > "$2"; }
shoot() { chromium_run --window-size=1100,1500 --screenshot="$2" "file://$1" > /dev/null; }
fact() { sed -n "s/^$2 //p" "$1" | head -n 1; }
