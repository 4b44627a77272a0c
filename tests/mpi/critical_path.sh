#!/usr/bin/env bash
# critical_path.csv (docs/FORMAT.md section 6) on a TP2 x PP4 x DP2 job from
# `xstack synth --format kineto` (16 ranks, 4 steps, a known schedule):
#   healthy    each step's segments are contiguous, ordered, of the five kinds,
#              start at the step start of the rank they start on, end at the
#              latest step end, and add up to that span (within 1 % of the
#              longest step time of steps.csv: the first pipeline stage's)
#   slow       with --slow 5:1.5, rank 5 holds most of the path and its compute
#              is its largest kind
#   identical  np 1, 2 and 3 give the same bytes, and np 3 with --memory-mb 1
#              (routing in many rounds) and np 2 with --threads 1 and 3 the same
#              analysis files; a 64-rank job at np 3 with --memory-mb 1 (the
#              owners' stores spill, the outcomes return in rounds) every file; a
#              32-rank job of one group (the owner's sorter spills; rank 9 computes
#              1.3x slower: the one finding, compute) every file
#   usage: critical_path.sh XSTACK WORKDIR CASE
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
job=(--format kineto --tp 2 --pp 4 --dp 2)
report=(--no-progress)

# check_path OUT: the documented form of critical_path.csv, against steps.csv.
check_path() {
  python3 - "$1" <<'PY' || fail "critical_path.csv: $(head -5 "$1/critical_path.csv")"
import collections, csv, os, sys
out = sys.argv[1]
head = open(os.path.join(out, "critical_path.csv")).readline()
assert head == "step,order,rank,kind,start_ns,dur_ns,detail\n", head
rows = list(csv.DictReader(open(os.path.join(out, "critical_path.csv"), newline="")))
steps = {(int(r["rank"]), int(r["step"])): r for r in csv.DictReader(open(os.path.join(out, "steps.csv")))}
by_step = collections.defaultdict(list)
for r in rows:
    assert r["kind"] in ("compute", "host", "memcpy", "transfer", "wait"), r
    assert int(r["dur_ns"]) > 0, r
    by_step[int(r["step"])].append(r)
assert sorted(by_step) == sorted({s for _, s in steps}), sorted(by_step)
assert [(int(r["step"]), int(r["order"])) for r in rows] == sorted(
    (s, o) for s in by_step for o in range(len(by_step[s]))), "not ordered by step, order"
for s, seg in by_step.items():
    for a, b in zip(seg, seg[1:]):
        assert int(a["start_ns"]) + int(a["dur_ns"]) == int(b["start_ns"]), (a, b)
    first, last = int(seg[0]["start_ns"]), int(seg[-1]["start_ns"]) + int(seg[-1]["dur_ns"])
    assert first == int(steps[(int(seg[0]["rank"]), s)]["start_ns"]), ("not a step start", s)
    ends = [int(r["start_ns"]) + int(r["step_ns"]) for (_, t), r in steps.items() if t == s]
    assert last == max(ends), ("not the latest step end", s, last, max(ends))
    total = sum(int(r["dur_ns"]) for r in seg)
    assert total == last - first
    longest = max(int(r["step_ns"]) for (_, t), r in steps.items() if t == s)
    assert abs(total - longest) <= 0.01 * longest, ("path vs step time", s, total, longest)
print("critical_path.csv:", len(rows), "segments,", len(by_step), "steps")
PY
}

# shares OUT: "rank kind share" lines of the path's time, largest first.
shares() {
  python3 - "$1/critical_path.csv" <<'PY'
import collections, csv, sys
ns = collections.Counter()
for r in csv.DictReader(open(sys.argv[1], newline="")):
    ns[(int(r["rank"]), r["kind"])] += int(r["dur_ns"])
total = sum(ns.values())
for (rank, kind), v in ns.most_common():
    print(rank, kind, "%.3f" % (v / total))
PY
}

run() {  # run NAME NP SYNTH-ARGS...
  local name=$1 np=$2; shift 2
  [ -d "$work/$name" ] || "$xstack" synth --out "$work/$name" "${job[@]}" "$@" >/dev/null 2>&1
  xmpirun "$np" "$xstack" report --data-dir "$work/$name" --out "$work/$name.np$np" "${report[@]}" \
    2>"$work/$name.np$np.log" || fail "report $name np $np: $(cat "$work/$name.np$np.log")"
}

case $case in
  healthy)
    run healthy 1
    check_path "$work/healthy.np1" ;;
  slow)
    run slow 1 --slow 5:1.5
    check_path "$work/slow.np1"
    shares "$work/slow.np1" >"$work/shares.txt"
    python3 - "$work/shares.txt" <<'PY' || fail "rank 5 is not the path: $(head -5 "$work/shares.txt")"
import collections, sys
lines = [l.split() for l in open(sys.argv[1])]
by_rank = collections.Counter()
for rank, kind, share in lines:
    by_rank[int(rank)] += float(share)
assert by_rank.most_common(1)[0][0] == 5 and by_rank[5] >= 0.5, by_rank
assert lines[0][:2] == ["5", "compute"] and float(lines[0][2]) >= 0.4, lines[0]
PY
    ;;
  identical)
    run slow 1 --slow 5:1.5
    for np in 2 3; do
      run slow "$np"
      cmp "$work/slow.np1/critical_path.csv" "$work/slow.np$np/critical_path.csv" ||
        fail "critical_path.csv differs between np 1 and np $np"
    done
    # --memory-mb 1: the arrivals are routed in rounds of 64 KiB (a few parts
    # each), and the walk decodes its profiles again as it reaches them.
    report+=(--memory-mb 1)
    run slow 3
    mv "$work/slow.np3" "$work/slow.np3.m1"
    for f in critical_path.csv collectives.csv waits.csv findings.json; do
      cmp "$work/slow.np1/$f" "$work/slow.np3.m1/$f" || fail "$f differs at np 3 with --memory-mb 1"
    done
    # --threads: the owners' groups and the routing's index run on threads;
    # one thread and three (more than the groups of some owners) give the same bytes.
    for t in 1 3; do
      report=(--no-progress --threads "$t")
      run slow 2
      mv "$work/slow.np2" "$work/slow.np2.t$t"
      for f in critical_path.csv collectives.csv waits.csv findings.json steps.csv; do
        cmp "$work/slow.np1/$f" "$work/slow.np2.t$t/$f" || fail "$f differs at np 2 with --threads $t"
      done
    done
    # A larger job (64 ranks, 55,808 arrivals) at np 3 with --memory-mb 1 (128 KiB a store):
    # every owner spills its arrivals, its outcome sorter and its trace slices, and the
    # outcomes go back in several rounds; every file, the traces included, the same bytes
    # as np 1 with the default budget.
    job=(--format kineto --tp 2 --pp 4 --dp 8 --microbatches 62 --steps 2)
    report=(--no-progress)
    run wide 1
    report=(--no-progress --memory-mb 1)
    run wide 3
    for f in "$work/wide.np1"/*; do
      cmp "$f" "$work/wide.np3/${f##*/}" || fail "${f##*/} differs at np 3 with --memory-mb 1 (64 ranks)"
    done
    [ "$(ls "$work/wide.np1" | wc -l)" = "$(ls "$work/wide.np3" | wc -l)" ] || fail "other files at np 3"
    # One group of every rank (TP 32, 7,936 arrivals): its owner walks it through a
    # sorter that spills runs of 1,024 records and merges them at --memory-mb 1; every
    # file the same bytes as np 1 with the default budget.
    job=(--format kineto --tp 32 --pp 1 --dp 1 --microbatches 62 --steps 1 --slow 9:1.3)
    report=(--no-progress)
    run one 1
    grep -q "collectives: 1 group, 248 instances matched (0 unmatched)" "$work/one.np1.log" ||
      fail "one group: $(grep collectives: "$work/one.np1.log")"
    python3 - "$work/one.np1/findings.json" <<'PY' || fail "one group: $(cat "$work/one.np1/findings.json")"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert [(x["ranks"], x["cause"]) for x in f] == [([9], "compute")], f
PY
    report=(--no-progress --memory-mb 1)
    run one 3
    for f in "$work/one.np1"/*; do
      cmp "$f" "$work/one.np3/${f##*/}" || fail "${f##*/} differs at np 3 with --memory-mb 1 (one group)"
    done ;;
  *) fail "unknown case $case" ;;
esac
