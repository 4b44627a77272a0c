#!/usr/bin/env bash
# report.html in a real headless browser (Debian's chromium, installed when
# missing; the test is skipped, exit 77, when it cannot be): no console
# error, no network request (net log), plots present (svg, canvas) with
# their axis titles, ticks, zero baselines and legends as text, sortable
# tables with units, the tool version, the finding kind shown verbatim with
# its ranks and evidence.
#   usage: report_html.sh XSTACK WORKDIR [SCREENSHOT.png]
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 shot=${3:-}
rm -rf "$work" && mkdir -p "$work"
browser=""
for b in chromium chromium-browser; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ] && command -v apt-get >/dev/null 2>&1; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$work/apt.log" 2>&1 || true
  if command -v chromium >/dev/null 2>&1; then browser=chromium; fi
fi
if [ -z "$browser" ]; then echo "SKIP: no chromium and it cannot be installed"; exit 77; fi

"$xstack" synth --out "$work/data" --trainers 8 --gpus-per-trainer 2 --steps 10 --ops-per-step 300 \
  --slow 5:1.3 --slow-step 9:4:1.5 --stall 12:6 2>/dev/null
"$xstack" report --data-dir "$work/data" --out "$work/out" --gpus-per-trainer 2 --group-size 4 \
  --no-progress 2>"$work/report.log" || fail "report: $(cat "$work/report.log")"
html=$work/out/report.html
[ -s "$html" ] || fail "no report.html"

profile=$(mktemp -d)
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
       --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile"
       --enable-logging=stderr --v=0 --log-net-log="$work/net.json" --virtual-time-budget=5000
       --host-resolver-rules="MAP * ~NOTFOUND")
rc=0
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$html" >"$work/dom.html" 2>"$work/console.log" || rc=$?
[ "$rc" -eq 0 ] || fail "chromium --dump-dom exited $rc: $(tail -5 "$work/console.log")"
if [ -n "$shot" ]; then
  rm -rf "$profile" && profile=$(mktemp -d)
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$profile" \
    --window-size=1280,1500 --screenshot="$shot" "file://$html" >/dev/null 2>&1 || fail "screenshot failed"
fi
rm -rf "$profile"

python3 - "$work/dom.html" "$work/console.log" "$work/net.json" "$html" <<'PY' || fail "browser check"
import json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
console = open(sys.argv[2], encoding="utf-8", errors="replace").read()
# Any console message from the page (errors, uncaught exceptions) is a failure.
bad = [l for l in console.splitlines() if "CONSOLE" in l or "Uncaught" in l]
assert not bad, "console: " + "\n".join(bad[:5])
# No request initiated by the page: the browser's own background requests
# (component updater, accounts; initiator "not an origin", and blocked by
# --host-resolver-rules anyway) are not the page's.
log = json.load(open(sys.argv[3], encoding="utf-8", errors="replace"))
start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
page = [e["params"]["url"] for e in log["events"]
        if e["type"] == start and "url" in e.get("params", {})
        and e["params"].get("initiator") != "not an origin"]
remote = [u for u in page if not u.startswith(("file:", "data:", "blob:"))]
assert not remote, f"network requests from the page: {remote}"
# And nothing in the file that could load anything.
src = open(sys.argv[4], encoding="utf-8").read()
# The only links: each finding's trace files, relative, beside report.html (never loaded).
for pattern in (r'\bsrc\s*=', r'\bhref\s*=(?!"traceFile_\d+_\d+\.json")', r'url\(', r'@import',
                r'\bfetch\(', r'XMLHttpRequest', r'<link\b'):
    assert not re.search(pattern, src), f"report.html contains {pattern}"
import os
links = re.findall(r'<a class="trace" href="([^"]+)"', dom)
assert links and all(os.path.isfile(os.path.join(os.path.dirname(sys.argv[4]), l)) for l in links), links
for row in re.findall(r'<tr><td class="kind">.*?</tr>', dom):
    assert '<a class="trace" href="traceFile_' in row, "a finding without its trace link: " + row[:200]
assert re.search(r'<code id="command">xstack report --data-dir DIR --gpus-per-trainer 2 '
                 r'--group-size 4 --time-origin-ns \d+</code>', dom), "command line missing"
assert "idle: host wait (% of stream idle)" in dom, "HTA idle split missing"
assert dom.count("<svg") >= 3, "plots missing: %d svg" % dom.count("<svg")
assert dom.count("<rect") >= 40, "bars missing: %d rect" % dom.count("<rect")
assert "<polyline" in dom and "<canvas" in dom, "step plot or heatmap missing"
rows = re.findall(r'<td class="kind">([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>', dom)
assert ("straggler", "5", "all") in rows and ("straggler", "9", "4") in rows, rows
assert re.search(r"rank 5 \(trainer 2, gpu 1\) reaches the last collective [0-9.]+ ms after the median rank "
                 r"in 10/10 steps; cause compute: it computes 1\.[23]\dx the step median", dom), "evidence missing"
# Every chart carries its axes as text (issue 20 item 4): titles with units, tick labels, the
# zero baseline of the value axes, legends; tables sort; the tool version is shown.
axes = re.findall(r'<text[^>]*class="axis[^"]*"[^>]*>([^<]*)</text>', dom)
for title in ("rank", "step", "GPU time per step (ms)", "step time (ms)",
              "compute / the step median (ratio)", "compute only", "compute+comm overlap", "idle",
              "median rank", "zero baseline", "0 ms", "1.30x", "rank 5", "rank 9",
              "mean lateness at the last collective (ms after the median rank)",
              "zero baseline = the median rank"):
    assert title in axes, (title, axes[:40])
assert sum(t.startswith("zero baseline") for t in axes) == 3, axes
# The latest-ranks strip, latest first: the compute straggler and the host-stalled rank (whose
# compute is the median's) lead it.
latest = [t for t in axes if t.startswith("rank ")]
assert set(latest[:2]) == {"rank 5", "rank 12"}, latest
assert all(str(r) in axes for r in range(16)), "rank ticks of the heatmap missing"
assert dom.count('class="sortable"') == 3, "sortable tables missing"
assert re.search(r'<th>cost \(ms\)</th>', dom) and "total over 10 steps" in dom, "table units missing"
assert re.search(r'<p class="note" id="version">xstack \d+\.\d+\.\d+, git ', dom), "version missing"
print("browser check ok: %d svg, %d rect, %d axis labels, findings %s" %
      (dom.count("<svg"), dom.count("<rect"), len(axes), rows))
PY
echo "ok: report.html in $browser"
