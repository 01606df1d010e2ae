#!/bin/bash
# test_report_html.sh: the HTML report as a browser sees it: headless
# Chromium renders the report of the bundled demo (8 GPUs, GPU 3 lost
# halfway, one signal sent); the DOM has one SVG plot per GPU, with data, and the tables
# #gpus, #processes, #groups with one row per entry of the JSON summary of
# the same recording; a screenshot is not blank; the page needs nothing
# from outside (no link, img, iframe, object, nor any URL but the SVG
# namespace).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"
DEMO="$SOURCE_DIR/share/demo/demo.jsonl"

run --replay "$DEMO" --report "$T/demo.html"
expect_rc 0 "--report demo.html"
run --replay "$DEMO" --report "$T/demo.json"
expect_rc 0 "--report demo.json"
count() { python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))[sys.argv[2]]))" "$T/demo.json" "$1"; }
NG=$(count gpus)
NP=$(count processes)
NR=$(count groups)
NE=$(count events)
check "the demo has 8 GPUs" [ "$NG" -eq 8 ]
check "the demo has processes and groups" [ "$NP" -gt 0 ] && [ "$NR" -gt 0 ]
check "no external resource: the only URL is the SVG namespace" \
	[ -z "$(grep -o "https\\?://[^\"']*" "$T/demo.html" | grep -v '^http://www.w3.org/2000/svg$')" ]
check "the page is small (under 2 MB)" [ "$(stat -c %s "$T/demo.html")" -lt 2000000 ]

if [ -z "$CHROMIUM" ]; then
	skip "chromium-headless-shell is not installed (scripts/deps.sh test installs it): no rendering checks"
	finish
fi
render "$T/demo.html" "$T/demo.dom"
check "Chromium rendered the page" grep -q '<table id="gpus">' "$T/demo.dom"
python3 "$DOM_PY" dom "$T/demo.dom" > "$T/dom.facts"
check "one SVG plot per GPU" [ "$(fact "$T/dom.facts" plots)" -eq "$NG" ]
check "every plot has paths with data (5 lanes x band and mean)" [ "$(fact "$T/dom.facts" paths)" -ge $((NG * 10)) ]
check "#gpus has one row per GPU" [ "$(fact "$T/dom.facts" 'rows gpus')" -eq "$NG" ]
check "#processes has one row per process" [ "$(fact "$T/dom.facts" 'rows processes')" -eq "$NP" ]
check "#groups has one row per group" [ "$(fact "$T/dom.facts" 'rows groups')" -eq "$NR" ]
check "the demo has two events (the signal and the lost GPU)" [ "$NE" -eq 2 ]
check "#events has one row per event" [ "$(fact "$T/dom.facts" 'rows events')" -eq "$NE" ]
check "the lost stretch is shaded" grep -q '<rect class="lost"' "$T/demo.dom"
check "no img, iframe, object, link" [ "$(grep -c '^tag \(img\|iframe\|object\|embed\|link\) 0$' "$T/dom.facts")" -eq 5 ]

shoot "$T/demo.html" "$T/demo.png"
check "a screenshot was taken" [ -s "$T/demo.png" ]
python3 "$DOM_PY" png "$T/demo.png" > "$T/png.facts"
check "the screenshot is 1100 x 1500" [ "$(fact "$T/png.facts" size)" = "1100 1500" ]
# Blank would be one colour; the plots draw lines in several colours with antialiasing.
check "the screenshot is not blank (many colours)" [ "$(fact "$T/png.facts" colours)" -gt 50 ]
check "the screenshot is not blank (ink on the page)" python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 2)" "$(fact "$T/png.facts" inked)"
finish
