#!/usr/bin/env bash
# Stragglers by lateness (docs/ANALYSIS.md) on synchronous
# jobs from `xstack synth`: each injected straggler (slow compute, host stall
# with the GPU idle and the same kernels, slow copies, a one-step stall, a
# stalled node) is exactly one finding with the injected ranks, steps and
# cause, in every input format; three stragglers of three causes at once
# (multi: slow compute, host stall, slow copies, over 3 % jitter) are three
# findings, each with its own cause; a healthy job with 3 % jitter has no finding
# and nothing below threshold. np 1 --display-size 1 and np 3 --display-size 4
# give byte-identical analysis files; np 1 and np 3 with --display-size 1 the
# same traces, where every rank a finding names is shown in detail in the
# trace file the finding names.
#   usage: lateness.sh XSTACK WORKDIR CASE   (CASE: <kind>_<format>, kind in
#   healthy compute host memcpy stallstep node multi; format in paddle kineto pjson)
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
job=(--trainers 4 --gpus-per-trainer 2 --steps 10 --ops-per-step 600 --seed 5)
report=(--gpus-per-trainer 2 --group-size 4 --no-progress)

kind=${case%_*} format=${case##*_}
case $format in
  paddle) fmt=(--sync) ;;
  kineto) fmt=(--format kineto) ;;
  pjson) fmt=(--format paddle-json) ;;
  *) fail "unknown format $format" ;;
esac

# The injection and the one finding it must give: ranks, steps, cause, host op
# kind ("" when the cause is not host). A stall is a data-loader op.
case $kind in
  healthy) inject=(--noise 3) want="[]" ;;
  compute) inject=(--slow 5:1.15) want="[([5], 'all', 'compute', '')]" ;;
  host) inject=(--stall 3:4) want="[([3], 'all', 'host', 'data-loader op')]" ;;
  memcpy) inject=(--slow-memcpy 6:6) want="[([6], 'all', 'memcpy', '')]" ;;
  stallstep) inject=(--stall-step 2:6:12) want="[([2], [6], 'host', 'data-loader op')]" ;;
  node) inject=(--stall-trainer 1:4) want="[([2, 3], 'all', 'host', 'data-loader op')]" ;;
  # Three stragglers at once, each named with its own cause.
  multi)
    job=(--trainers 4 --gpus-per-trainer 2 --steps 10 --ops-per-step 300 --seed 5)
    inject=(--noise 3 --slow 5:1.2 --stall 2:3 --slow-memcpy 7:5)
    want="[([2], 'all', 'host', 'data-loader op'), ([5], 'all', 'compute', ''), ([7], 'all', 'memcpy', '')]" ;;
  *) fail "unknown case $kind" ;;
esac

"$xstack" synth --out "$work/data" "${job[@]}" "${fmt[@]}" "${inject[@]}" 2>"$work/synth.log" \
  || fail "synth: $(cat "$work/synth.log")"
"$xstack" report --data-dir "$work/data" --out "$work/np1" "${report[@]}" --display-size 1 \
  2>"$work/np1.log" || fail "report np 1: $(cat "$work/np1.log")"
xmpirun 3 "$xstack" report --data-dir "$work/data" --out "$work/np3" "${report[@]}" --display-size 4 \
  2>"$work/np3.log" || fail "report np 3: $(cat "$work/np3.log")"
xmpirun 3 "$xstack" report --data-dir "$work/data" --out "$work/np3d1" "${report[@]}" --display-size 1 \
  2>"$work/np3d1.log" || fail "report np 3 --display-size 1: $(cat "$work/np3d1.log")"
same_dir "$work/np1" "$work/np3d1"  # traces too, with the findings' ranks shown
for f in steps.csv ranks.csv kernels.csv findings.json report.html; do
  cmp "$work/np1/$f" "$work/np3/$f" || fail "$f differs between np 1 --display-size 1 and np 3 --display-size 4"
done

python3 - "$work/np1/findings.json" "$want" <<'PY' || fail "findings: $(cat "$work/np1/findings.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
got = [(f["ranks"], f["steps"], f["cause"], f.get("host_op", {}).get("kind", "")) for f in doc["findings"]]
want = eval(sys.argv[2])
# Most costly first; the injected findings are listed by rank.
assert sorted(got) == want, f"got {got}, want {want}"
costs = [f["cost_ms"] for f in doc["findings"]]
assert costs == sorted(costs, reverse=True), costs
assert doc["below_threshold"] == [] if not want else True, doc["below_threshold"]
# Several stragglers at once: nothing, not even below threshold, names a rank
# not injected. (The single-straggler cases may list a below-threshold entry:
# compute_* has rank 7 in step 1 at 0.2 % once rank 5 leaves the reference.)
if len(want) > 1:
    injected = {r for w in want for r in w[0]}
    for f in doc["below_threshold"]:
        assert set(f["ranks"]) <= injected, f["evidence"]
for f in doc["findings"]:
    assert f["cost_pct"] >= 1.0 and f["cost_ms"] > 0 and f["late_ms_per_step"] > 0, f
    assert " ms (" in f["evidence"] and "0.000 s" not in f["evidence"], f["evidence"]
    assert ("cause " + f["cause"]) in f["evidence"], f["evidence"]
    mine, median = f["per_step_ms"][{"host": "host_idle"}.get(f["cause"], f["cause"])]
    assert mine > median, f
print("findings:", got)
PY
# The waits a rank slow in compute or copies made the others wait carry that cause in waits.csv
# (with several stragglers, one that is never the last to arrive caused no wait).
python3 - "$work/np1" <<'PY' || fail "waits.csv's causes: $(cat "$work/np1/waits.csv")"
import csv, json, os, sys
out = sys.argv[1]
waits = {int(r["rank"]): r for r in csv.DictReader(open(os.path.join(out, "waits.csv")))}
for f in json.load(open(os.path.join(out, "findings.json")))["findings"]:
    if f["cause"] in ("compute", "memcpy") and len(f["ranks"]) == 1:
        row = waits[f["ranks"][0]]
        if float(row["caused_ms_per_step"]) > 0:
            assert row["top_cause"] == f["cause"], (f["ranks"], f["cause"], row)
            print("waits.csv: rank %s top_cause %s" % (row["rank"], row["top_cause"]))
PY
# Every rank a finding names has detailed rows in the trace the finding
# names, with --display-size 1 (none of the injected ranks is its group's
# first trainer), and otherData says why.
python3 - "$work/np1" <<'PY' || fail "the findings' ranks are not shown in detail"
import json, os, sys
out = sys.argv[1]
doc = json.load(open(os.path.join(out, "findings.json")))
for f in doc["findings"]:
    for r in f["ranks"]:
        want = [n for n in f["trace_files"] if n.endswith("_%d.json" % (r % 2))]
        assert len(want) == 1, (r, f["trace_files"])
        t = json.load(open(os.path.join(out, want[0])))
        names = [e["args"]["name"] for e in t["traceEvents"]
                 if e.get("ph") == "M" and e["name"] == "process_name"]
        assert any(":" in n and n.split("_", 1)[1].startswith("trainerRank.%03d:" % r) for n in names), (r, names)
        assert r in t["otherData"]["shown_for_findings"], t["otherData"]
        # ... with its trainer's DCGM and net counters beside its rows (P = 2).
        counters = {e["name"] for e in t["traceEvents"] if e.get("ph") == "C"}
        # The inputs have telemetry (DCGM on pids 2..6; not the JSON cases).
        if any(e.get("ph") == "C" and 2 <= e["pid"] <= 6 for e in t["traceEvents"]):
            for c in ("trainer %d GPU %d" % (r // 2, r % 2), "trainer %d tx" % (r // 2)):
                assert c in counters, (r, c, sorted(counters))
        assert t["otherData"]["options"]["display_size"] == 1
        assert f["evidence"].endswith("see " + ", ".join(f["trace_files"])), f["evidence"]
print("shown in detail:", [(f["ranks"], f["trace_files"]) for f in doc["findings"]])
PY
if [ "$want" != "[]" ]; then
  grep -q "findings: shown in detail beyond --display-size 1: rank " "$work/np1.log" \
    || fail "the summary does not say which ranks are shown: $(cat "$work/np1.log")"
fi
# The summary shows the findings, costs in ms, never "0.000 s".
! grep -q "0\.000 s" "$work/np1.log" || fail "a cost in s: $(cat "$work/np1.log")"
if [ "$want" = "[]" ]; then
  grep -q "findings: none" "$work/np1.log" || fail "summary: $(cat "$work/np1.log")"
else
  grep -q "straggler: .*cause " "$work/np1.log" || fail "summary: $(cat "$work/np1.log")"
fi
grep -q "report: $work/np1/report.html" "$work/np1.log" || fail "the summary does not say where report.html is"
echo "ok: lateness $case"
