# e2e_render.sh - the HTML report as a browser lays it out: headless Chromium renders a report of
# crafted results (mkbench, tests/e2e/lib.sh) with tests/tools/render_probe.js added, and
# tests/tools/render_check.py holds the chart of measured times against the file: every tooltip states
# a time the file holds, every mark sits where the axis puts that time, every axis covers what it
# draws and not much more (an undrawn warm-up point once stretched one to three times the data).
# Without Chromium the check is skipped with a message; `make test-render` installs it first
# (scripts/deps.sh --also chromium).
. tests/e2e/lib.sh

A=$BUILD/allocab

chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
	skip "html render check" "Chromium is not installed (make test-render installs it)"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip "html render check" "python3 is needed to judge the rendering"
	exit 0
fi

# Two workloads, both regimes, the warm-up rounds' cold repetitions ten times the measured ones
# (as a first run on a cold machine): what is drawn must set the axes, not those.
mkbench "$TMP/r.json" arms=system=1,mimalloc=0.8,jemalloc=1.1/0.05 wls=parquet_load,feature_extract rounds=8 reps=4 colds=system=1.5 warmcold=10
expect_status "render: html written" 0 "$A" compare "$TMP/r.json" --format html -o "$TMP/r.html"
{
	sed '/^<\/body>/,$d' "$TMP/r.html"
	printf '<script>\n'
	cat tests/tools/render_probe.js
	printf '</script>\n</body>\n</html>\n'
} >"$TMP/probe.html"
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,3000 \
	--virtual-time-budget=5000 --dump-dom "file://$TMP/probe.html" >"$TMP/dom.html" 2>"$TMP/chrome.err"
if [ ! -s "$TMP/dom.html" ]; then
	notok "render: Chromium dumped the page" "$(tail -2 "$TMP/chrome.err")"
	exit 1
fi
python3 tests/tools/render_check.py "$TMP/r.json" "$TMP/dom.html" || t_fail=1
exit $t_fail
