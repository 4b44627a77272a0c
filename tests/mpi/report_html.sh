#!/usr/bin/env bash
# report.html in a real headless browser (Debian's chromium, installed when
# missing; the test is skipped, exit 77, when it cannot be): no console
# error, no network request (net log), plots present (svg, canvas) with
# their axis titles, ticks, zero baselines and legends as text, sortable
# tables with units, the tool version, the finding kind shown verbatim with
# its ranks and evidence. Then a 3D-parallel job (TP2 x PP4 x DP2, rank 5
# slow): "Who waits for whom" and the collectives table hold waits.csv's and
# collectives.csv's numbers, report.html is the same with np 1 and np 3, and a
# click on a header sorts the rows in the browser (a copy of the page with a
# script that clicks after the page's own).
#   usage: report_html.sh XSTACK WORKDIR [SCREENSHOT.png [WHO_WAITS_SCREENSHOT.png]]
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 shot=${3:-} shot3d=${4:-}
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
assert dom.count('class="sortable"') == 6, "sortable tables missing"  # findings, who waits, collectives, critical path, ranks, kernels
assert re.search(r'<th>cost \(ms\)</th>', dom) and "total over 10 steps" in dom, "table units missing"
assert re.search(r'<p class="note" id="version">xstack \d+\.\d+\.\d+, git ', dom), "version missing"
print("browser check ok: %d svg, %d rect, %d axis labels, findings %s" %
      (dom.count("<svg"), dom.count("<rect"), len(axes), rows))
PY

# The collectives' sections of a 3D-parallel job: np 1 and np 3 write the same page.
"$xstack" synth --format kineto --tp 2 --pp 4 --dp 2 --slow 5:1.3 --out "$work/data3d" 2>/dev/null
"$xstack" report --data-dir "$work/data3d" --out "$work/out3d" --no-progress 2>"$work/report3d.log" ||
  fail "report (3D): $(cat "$work/report3d.log")"
xmpirun 3 "$xstack" report --data-dir "$work/data3d" --out "$work/out3d_np3" --no-progress \
  2>"$work/report3d_np3.log" || fail "report (3D, np 3): $(tail -5 "$work/report3d_np3.log")"
cmp "$work/out3d/report.html" "$work/out3d_np3/report.html" || fail "report.html differs between np 1 and np 3"
# Sorting in the browser: ascending by "others waited for it" (one click), by bytes (one click).
python3 - "$work/out3d/report.html" "$work/out3d/sorted.html" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
click = ("<script>function xsClick(t,i){document.querySelectorAll('#'+t+' th')[i].click();}"
         "xsClick('waitsfor',2);xsClick('collectives',2);</script>")
assert page.count("</body>") == 1
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("</body>", click + "</body>"))
PY
mkdir -p "$work/dom3d"
load_page "$work/out3d/sorted.html" "$work/dom3d" 'traceFile_\d+_\d+\.json'
if [ -n "$shot3d" ]; then
  profile=$(mktemp -d)
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$profile" \
    --window-size=1400,2000 --screenshot="$shot3d" "file://$work/out3d/report.html" >/dev/null 2>&1 ||
    fail "screenshot failed"
  rm -rf "$profile"
fi
python3 - "$work/dom3d/dom.html" "$work/out3d" <<'PY' || fail "browser check (3D job)"
import csv, os, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
out = sys.argv[2]
src = open(os.path.join(out, "report.html"), encoding="utf-8").read()
def rows(text, table):
    body = re.search(r'<table class="sortable" id="%s">.*?<tbody>(.*?)</tbody>' % table, text, re.S)
    assert body, table + " missing"
    return [re.findall(r'<td[^>]*?(?: data-v="([^"]*)")?>(.*?)</td>', r)
            for r in re.findall(r'<tr>(.*?)</tr>', body.group(1))]
assert "<h2 id=\"who-waits\">Who waits for whom" in dom and "Collectives (collectives.csv)" in dom
waits = {r["rank"]: r for r in csv.DictReader(open(os.path.join(out, "waits.csv")))}
late = [r for r in waits.values() if float(r["caused_ms_per_step"]) > 0]
page, shown = rows(src, "waitsfor"), rows(dom, "waitsfor")
assert len(shown) == len(late) == len(page) > 2, (len(shown), len(late))
for cells in shown:  # the numbers of waits.csv; its own part at most all of it, never "waiting"
    w = waits[cells[0][1]]
    assert (cells[1][1], cells[2][1], cells[5][1]) == (
        w["node"], w["caused_ms_per_step"], w["waited_ms_per_step"]), (cells, w)
    assert int(cells[3][0]) <= int(cells[2][0]), cells
    assert cells[4][1] in ("compute", "host", "unknown", "-"), cells
    assert cells[4][1] != "-" or int(cells[3][0]) == 0, cells
    assert re.match(r'^<span class="grp">[^<]+</span>: \d+\.\d{3} \(\d+\)', cells[6][1]), cells[6]
# As written: the most waited for for their own reasons first (then the most waited for); after
# one click on "others waited for it": ascending by it, the same rows.
own = lambda r: (int(r[3][0]), int(r[2][0]))
assert [own(r) for r in page] == sorted((own(r) for r in page), reverse=True)
key = lambda r: int(r[2][0])
assert [key(r) for r in shown] == sorted(key(r) for r in page) and shown != page, "waitsfor not sorted"
coll = list(csv.DictReader(open(os.path.join(out, "collectives.csv"))))
page, shown = rows(src, "collectives"), rows(dom, "collectives")
assert len(shown) == len(coll) == len(page) > 2
byKey = {(c["group"], c["collective"], c["bytes"]): c for c in coll}
for cells in shown:
    c = byKey[(cells[0][1], cells[1][1], cells[2][1])]
    assert (cells[3][1], cells[4][1], cells[5][1], cells[7][1], cells[8][1]) == (
        c["count"], c["transfer_p50_ms"], c["transfer_p95_ms"], c["wait_ms"], c["top_late_rank"]), (cells, c)
assert [int(r[7][0]) for r in page] == sorted((int(r[7][0]) for r in page), reverse=True)
assert [int(r[2][1]) for r in shown] == sorted(int(r[2][1]) for r in page) and shown != page, "collectives not sorted"
# The critical-path share, when the run has critical paths: at most 30 ranks, shares in %.
if 'id="critical"' in dom:
    crit = rows(dom, "critical")
    assert 0 < len(crit) <= 30 and all(0 <= float(r[-1][1]) <= 100 for r in crit), crit[:3]
print("browser check ok (3D job): %d late ranks, %d collectives rows, sorted by click" % (len(late), len(coll)))
PY
echo "ok: report.html in $browser"
