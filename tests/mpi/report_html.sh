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
find_chromium install

"$xstack" synth --out "$work/data" --trainers 8 --gpus-per-trainer 2 --steps 10 --ops-per-step 300 \
  --slow 5:1.3 --slow-step 9:4:1.5 --stall 12:6 2>/dev/null
"$xstack" report --data-dir "$work/data" --out "$work/out" --gpus-per-trainer 2 --group-size 4 \
  --no-progress 2>"$work/report.log" || fail "report: $(cat "$work/report.log")"
html=$work/out/report.html
[ -s "$html" ] || fail "no report.html"

# The only links: each finding's trace files, relative, beside report.html (never loaded).
load_page "$html" "$work" 'traceFile_\d+_\d+\.json'
if [ -n "$shot" ]; then
  profile=$(mktemp -d)
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$profile" \
    --window-size=1280,1500 --screenshot="$shot" "file://$html" >/dev/null 2>&1 || fail "screenshot failed"
  rm -rf "$profile"
fi

python3 - "$work/dom.html" "$html" <<'PY' || fail "browser check"
import os, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
links = re.findall(r'<a class="trace" href="([^"]+)"', dom)
assert links and all(os.path.isfile(os.path.join(os.path.dirname(sys.argv[2]), l)) for l in links), links
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
# Every chart carries its axes as text: titles with units, tick labels, the
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
