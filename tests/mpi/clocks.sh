#!/usr/bin/env bash
# Clock offsets between nodes (docs/FORMAT.md "Clock offsets"): a synthetic TP2 x PP4 x DP2 job
# in the order TP, PP, DP (its data-parallel all-reduces span the two nodes) with a slow rank,
# once on one clock (--skew-ns 0) and once with node 1's clock ahead (--skew-ns 3000000, the same
# seed). The estimate is 0 on the one clock and the synth's skew on the other, with spread 0;
# collectives.csv and waits.csv's blame columns are the same bytes for both (the skew is taken
# out); the terminal says so; np 1 and np 3 give the same bytes. Before the offsets, node 1's
# skew moved every cross-node wait: waits.csv differed between the two jobs.
#   usage: clocks.sh XSTACK WORKDIR
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
for skew in 0 3000000; do
  d=$work/skew$skew
  "$xstack" synth --format kineto --tp 2 --pp 4 --dp 2 --rank-order tp-pp-dp --steps 2 \
    --slow 3:1.3 --seed 4 --skew-ns "$skew" --out "$d/data" 2>"$d.synth.log" ||
    fail "synth: $(cat "$d.synth.log")"
  "$xstack" report --data-dir "$d/data" --out "$d/np1" --no-progress 2>"$d.np1.log" ||
    fail "report np 1 (skew $skew): $(cat "$d.np1.log")"
  xmpirun 3 "$xstack" report --data-dir "$d/data" --out "$d/np3" --no-progress 2>"$d.np3.log" ||
    fail "report np 3 (skew $skew): $(cat "$d.np3.log")"
  for f in collectives.csv waits.csv critical_path.csv findings.json; do
    cmp "$d/np1/$f" "$d/np3/$f" || fail "$f differs between np 1 and np 3 (skew $skew)"
  done
  grep -q "^xstack: clocks: 2 nodes compared by their collectives' ends; largest offset [+-][0-9]*\.[0-9]\{3\} us (node 1), spread up to 0.000 us; the collectives' times moved to node 0's clock$" "$d.np1.log" ||
    fail "no clocks line (skew $skew): $(grep clocks "$d.np1.log")"
done
cmp "$work/skew0/np1/collectives.csv" "$work/skew3000000/np1/collectives.csv" ||
  fail "collectives.csv depends on node 1's clock"
python3 - "$work/skew0/np1/waits.csv" "$work/skew3000000/np1/waits.csv" <<'PY' || fail "waits.csv"
import csv, sys
one, skewed = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
assert len(one) == len(skewed) == 16, (len(one), len(skewed))
blame = ["rank", "node", "waited_ms_per_step", "caused_ms_per_step", "top_cause"]
for a, b in zip(one, skewed):
    assert [a[k] for k in blame] == [b[k] for k in blame], (a, b)
    assert a["clock_offset_us"] == "0.000" and a["clock_spread_us"] == "0.000", a
    assert b["clock_spread_us"] == "0.000", b
    if b["node"] == "0":
        assert b["clock_offset_us"] == "0.000", b
    else:
        assert float(b["clock_offset_us"]) != 0, b
assert len({b["clock_offset_us"] for b in skewed if b["node"] == "1"}) == 1
print("clocks: node 1 at", skewed[8]["clock_offset_us"], "us; blame the same as on one clock")
PY
echo "PASS clocks"
