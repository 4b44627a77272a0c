#!/usr/bin/env bash
# `xstack diff` (docs/DIFF.md) between a healthy synchronous job and the same
# job with one slow rank (xstack synth --slow), both through `xstack report`
# (the slow one under mpirun -np 2):
#   cli:     the text names rank 5, the step-time change and the kernels that
#            changed on rank 5, the waits rank 5 caused (waits.csv) and the
#            collectives' wait (collectives.csv); --json parses and says the same, and that
#            rank 5 takes over the critical path (critical_path.csv); diff.html in
#            B (or --out); A == A is "no change"; usage rc 2, an unreadable
#            folder rc 1 naming it, a --no-analysis folder says what is missing.
#   browser: diff.html in headless chromium (as tests/mpi/report_html.sh): no
#            console message, no request, axis titles as text, sortable tables
#            (skipped, 77, without chromium).
#   kineto:  the same jobs as Kineto JSON traces: rank 5 named, quoted kernel names read back.
#   usage: diff.sh XSTACK WORKDIR CASE
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
job=(--trainers 8 --gpus-per-trainer 2 --steps 10 --ops-per-step 400 --seed 3)
report=(--gpus-per-trainer 2 --group-size 4 --no-progress)

format=()  # kineto: the same jobs as PyTorch traces (kernel names with commas, quoted in kernels.csv)
[ "$case" = kineto ] && format=(--format kineto)
"$xstack" synth --out "$work/healthy_data" "${job[@]}" "${format[@]}" --sync >/dev/null 2>&1 ||
  fail "synth healthy"
"$xstack" synth --out "$work/slow_data" "${job[@]}" "${format[@]}" --slow 5:1.2 >/dev/null 2>&1 ||
  fail "synth slow"
"$xstack" report --data-dir "$work/healthy_data" --out "$work/healthy" "${report[@]}" \
  2>"$work/report_healthy.log" || fail "report healthy: $(cat "$work/report_healthy.log")"
xmpirun 2 "$xstack" report --data-dir "$work/slow_data" --out "$work/slow" "${report[@]}" \
  2>"$work/report_slow.log" || fail "report slow: $(cat "$work/report_slow.log")"

if [ "$case" = kineto ]; then
  "$xstack" diff "$work/healthy" "$work/slow" >"$work/diff.txt" || fail "diff rc $?"
  # PyTorch's words (docs/FORMAT.md section 2, "Words"), from ranks.csv's node and local_rank.
  grep -q '^  rank 5 (node 2, local rank 1): compute moved' "$work/diff.txt" || fail "rank 5 not named"
  grep -q '^  new: straggler rank 5 (steps all' "$work/diff.txt" || fail "new finding missing"
  grep -q '^  ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm\*, unsigned long, ncclWork\*) \[COMMUNICATION\]: total' \
    "$work/diff.txt" || fail "quoted kernel name: $(cat "$work/diff.txt")"
  echo "ok: xstack diff on Kineto traces"
  exit 0
fi

if [ "$case" = browser ]; then
  find_chromium
  "$xstack" diff "$work/healthy" "$work/slow" >/dev/null || fail "diff"
  html=$work/slow/diff.html
  load_page "$html" "$work"
  python3 - "$work/dom.html" <<'PY' || fail "browser check"
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
assert dom.count("<svg") >= 2, "charts missing"
axes = re.findall(r'<text class="axis"[^>]*>([^<]*)</text>', dom)
for title in ("step time, cross-rank median (ms)", "step", "change of % of GPU span (pt)", "rank"):
    assert title in axes, (title, axes[:20])
assert "zero baseline" in axes
assert dom.count('class="sortable"') == 7, "tables missing"
assert 'id="collectives"' in dom and 'id="waits"' in dom, "collectives or waits table missing"
assert 'id="critical_path"' in dom, "critical path table missing"
rows = re.findall(r'<td class="status">new</td><td>straggler</td><td>5</td>', dom)
assert rows, "new finding on rank 5 missing"
print("browser check ok: %d svg, %d axis labels" % (dom.count("<svg"), len(axes)))
PY
  echo "ok: diff.html in $browser"
  exit 0
fi

# The text: rank 5, the step time change, the kernels that changed on rank 5.
"$xstack" diff "$work/healthy" "$work/slow" >"$work/diff.txt" 2>"$work/diff.err" ||
  fail "diff rc $?: $(cat "$work/diff.err")"
cat "$work/diff.txt"
grep -q '^step time .*: [0-9.]* ms -> [0-9.]* ms (+[0-9.]* ms, +[0-9.]* %)' "$work/diff.txt" ||
  fail "no step time change"
grep -q '^  rank 5 (trainer 2, gpu 1): compute moved' "$work/diff.txt" || fail "rank 5 not named"
grep -q '^  new: straggler rank 5 (steps all' "$work/diff.txt" || fail "new finding missing"
grep -qE '^  .* \[COMPUTATION\]: total .* changed on 1 of 16 ranks \(rank 5 \+' "$work/diff.txt" ||
  fail "no kernel that changed on rank 5"
grep -q '^collectives (collectives.csv, .*; wait (summed) [0-9.]* ms -> [0-9.]* ms (+' "$work/diff.txt" ||
  fail "no collectives' wait change"
grep -q '^  rank 5 (node 2): waited .*, caused [0-9.]* ms -> [0-9.]* ms (+[0-9.]* ms); top cause [a-z]* -> compute' \
  "$work/diff.txt" || fail "rank 5's caused waits not first"
grep -q "^diff.html: $work/slow/diff.html$" "$work/diff.txt" || fail "diff.html path"
[ -s "$work/slow/diff.html" ] || fail "no diff.html in B"
# The new finding's cost, in ms as findings.json has it (cost_ms), in the text and diff.html
# (the --json output is checked below); never 0 for a finding that costs something.
cost=$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["findings"]; assert len(f)==1, f
c=f[0]["cost_ms"]; assert c > 0, c; print("%.3f" % c)' "$work/slow/findings.json") ||
  fail "findings.json of the slow run: no cost_ms"
grep -q "^  new: straggler rank 5 (steps all, cause [a-z]*, cost $cost ms): " "$work/diff.txt" ||
  fail "the text does not give the finding's cost $cost ms: $(grep new: "$work/diff.txt")"
grep -q "<td class=\"status\">new</td><td>straggler</td><td>5</td><td>all</td><td>[a-z]*</td><td class=\"n\" data-v=\"[0-9.]*\">$cost</td>" \
  "$work/slow/diff.html" || fail "diff.html does not give the finding's cost $cost ms"
[ -z "$(find "$work/slow" -name '*.tmp')" ] || fail "temporary left behind"

# --json: one document, the same answers.
"$xstack" diff "$work/healthy" "$work/slow" --json --out "$work/elsewhere" >"$work/diff.json" ||
  fail "diff --json"
[ -s "$work/elsewhere/diff.html" ] || fail "--out: no diff.html"
python3 - "$work/diff.json" "$work/slow/findings.json" <<'PY' || fail "diff --json: $(head -c 2000 "$work/diff.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["no_change"] is False and j["missing"] == []
assert j["steps"]["delta_ns"] > 0 and len(j["steps"]["per_step"]) == 10, j["steps"]
assert j["ranks"]["changed"][0]["rank"] == 5, j["ranks"]["changed"]
assert len(j["ranks"]["by_rank"]) == 16
assert [f["ranks"] for f in j["findings"]["new"]] == [[5]], j["findings"]
cost = json.load(open(sys.argv[2]))["findings"][0]["cost_ms"]
assert cost > 0 and j["findings"]["new"][0]["cost_ms"] == cost, (cost, j["findings"]["new"][0])
assert "cost_s" not in j["findings"]["new"][0]
assert j["findings"]["vanished"] == []
w = j["waits"]
assert w["top"][0]["rank"] == 5 and w["top"][0]["b"]["top_cause"] == "compute", w["top"][:2]
assert w["b_waited_ms_per_step"] > w["a_waited_ms_per_step"], w
c = j["collectives"]
assert c["rows_a"] > 0 and c["b_wait_ms"] > c["a_wait_ms"], c
# The slow rank takes over the critical path, computing; the path grows.
p = j["critical_path"]
assert p["top"][0]["rank"] == 5 and p["top"][0]["b"]["main_kind"] == "compute", p["top"][:2]
assert p["top"][0]["b"]["ms_per_step"] > p["top"][0]["a"]["ms_per_step"], p["top"][0]
assert p["b_ms_per_step"] > p["a_ms_per_step"], p
top = j["kernels"]["top"]
assert top and any(k["top_ranks"] and k["top_ranks"][0]["rank"] == 5 and
                   k["category"] == "COMPUTATION" and k["b"]["total_ns"] > k["a"]["total_ns"]
                   for k in top), top[:3]
print("diff --json ok")
PY

# A == A: no change.
"$xstack" diff "$work/healthy" "$work/healthy" --out "$work/same" >"$work/same.txt" || fail "A == A"
grep -q '^no change' "$work/same.txt" || fail "A == A: $(cat "$work/same.txt")"
"$xstack" diff "$work/healthy" "$work/healthy" --json --out "$work/same" |
  python3 -c 'import json,sys; assert json.load(sys.stdin)["no_change"] is True' || fail "A == A json"

# Usage (rc 2), an unreadable folder (rc 1, named), a --no-analysis folder (missing files named).
rc=0; "$xstack" diff "$work/healthy" 2>"$work/usage.err" || rc=$?
[ "$rc" -eq 2 ] || fail "one folder: rc $rc"
rc=0; "$xstack" diff "$work/healthy" "$work/nowhere" 2>"$work/nowhere.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "$work/nowhere" "$work/nowhere.err" || fail "missing folder: rc $rc"
mkdir -p "$work/broken" && cp "$work/healthy/"*.csv "$work/broken/" && echo '{"findings":' >"$work/broken/findings.json"
rc=0; "$xstack" diff "$work/healthy" "$work/broken" 2>"$work/broken.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "broken/findings.json" "$work/broken.err" || fail "broken findings.json: rc $rc"
[ ! -e "$work/broken/diff.html" ] || fail "diff.html written for a broken folder"
"$xstack" report --data-dir "$work/healthy_data" --out "$work/plain" "${report[@]}" --no-analysis \
  2>/dev/null || fail "report --no-analysis"
"$xstack" diff "$work/healthy" "$work/plain" >"$work/plain.txt" || fail "diff with --no-analysis"
grep -q '^missing .*B: steps.csv, B: ranks.csv, B: kernels.csv, B: findings.json, B: collectives.csv, B: waits.csv, B: critical_path.csv' "$work/plain.txt" ||
  fail "missing files not named: $(cat "$work/plain.txt")"
# diff.html that cannot be written: rc 1, the comparison still printed, the error named.
touch "$work/a_file"
rc=0; "$xstack" diff "$work/healthy" "$work/slow" --out "$work/a_file/sub" >"$work/nohtml.txt" \
  2>"$work/nohtml.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q '^  rank 5 ' "$work/nohtml.txt" && grep -q 'a_file/sub' "$work/nohtml.err" ||
  fail "unwritable --out: rc $rc"
echo "ok: xstack diff"
