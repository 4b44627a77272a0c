#!/usr/bin/env bash
# Sums that would overflow (docs/FORMAT.md "Sums that would overflow"), end to end on a
# hand-written Kineto job of 2 ranks, with real mpirun at np 1 and np 3 (the same bytes):
# - rank 0's kernel ending past 2^63 - 1 ns is dropped and counted (json_bad_time), never drawn
#   nor in kernels.csv;
# - rank 0's three kernels of one name, 7e18 ns each (21e18: past 2^64), have total_ns
#   2^63 - 1 in kernels.csv, counted (sum_saturated), never a wrapped total;
# - rank 0's GPU memory: three blocks of 2^62 bytes, then their frees: the trace's counter is
#   held at 2^63 - 1 (memory_sum_overflow), comes back to 0 and is never negative; its peak is
#   findings.json's memory peak of rank 0;
# - `xstack diff` on two kernels.csv whose totals over ranks pass 2^64: totals held at
#   2^63 - 1 and said (saturated_sums, a warning line), never wrapped;
# - a job whose step medians sum past 2^63 - 1 ns: the job's step time in findings.json is held
#   at 2^63 - 1 (saturated_sums, sum_saturated on stderr).
#   checked_sums.sh XSTACK WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
X=$1
W=$2
rm -rf "$W"
mkdir -p "$W/data/profile"

# Rank files: relative ts/dur in us from a base of 1.7e18 ns. Rank 1 is an ordinary rank.
python3 - "$W/data/profile" <<'PY'
import json, os, sys
out = sys.argv[1]
BASE = 1700000000000000000
def kernel(name, ts, dur, device, stream, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": device, "tid": stream, "ts": ts,
            "dur": dur, "args": {"device": device, "stream": stream, "correlation": corr}}
def mem(ts, addr, delta, total, device):
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1,
            "tid": 1, "ts": ts, "args": {"Addr": addr, "Bytes": delta, "Total Allocated": total,
                                         "Device Type": 1, "Device Id": device}}
def step(n, ts, dur):
    return {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": 1,
            "tid": 1, "ts": ts, "dur": dur}
for rank in (0, 1):
    ev = [step(1, 500, 10000), step(2, 10500, 10000)]
    ev += [kernel("ordinary_kernel", 1000 + 10000 * s, 2000, rank, 7, 10 + s) for s in range(2)]
    if rank == 0:
        big = 7000000000000000  # us: 7e18 ns; three of them sum past 2^64 ns
        ev += [kernel("huge_kernel", 2000 + 1000 * i, big, 0, 8 + i, 20 + i) for i in range(3)]
        # ends at 1.7e18 + 4e6 + 8e18 ns > 2^63 - 1
        ev.append(kernel("kernel_past_2262", 4000, 8000000000000000, 0, 11, 30))
        block = 1 << 62
        ev += [mem(600, 1, block, block, 0), mem(700, 2, block, 2 * block, 0),
               mem(800, 3, block, 3 * block, 0), mem(900, 1, -block, 2 * block, 0),
               mem(1000, 2, -block, block, 0), mem(1100, 3, -block, 0, 0)]
    doc = {"schemaVersion": 1,
           "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
           "traceEvents": ev, "baseTimeNanoseconds": BASE}
    with open(os.path.join(out, "rank%d.node0_%d.1700000000000.pt.trace.json" % (rank, rank)),
              "w") as f:
        json.dump(doc, f)
PY

for np in 1 3; do
  set +e
  xmpirun "$np" "$X" report --data-dir "$W/data" --out "$W/out$np" --gpus-per-trainer 2 \
    --no-progress 2>"$W/log$np"
  rc=$?
  set -e
  [ "$rc" = 0 ] || { cat "$W/log$np"; fail "np $np: rc $rc, want 0"; }
  for t in "json_bad_time 1" "sum_saturated 1" "memory_sum_overflow"; do
    grep -qF -- "$t" "$W/log$np" || { cat "$W/log$np"; fail "np $np: '$t' not on stderr"; }
  done
done
same_dir "$W/out1" "$W/out3"
valid_json "$W/out1"

python3 - "$W/out1" <<'PY' || fail "checked sums in the report's outputs"
import csv, json, os, sys
d = sys.argv[1]
MAX = 2**63 - 1
rows = list(csv.DictReader(open(os.path.join(d, "kernels.csv"), newline="")))
names = {(r["rank"], r["name"]): r for r in rows}
assert ("0", "kernel_past_2262") not in names, "the kernel ending past 2^63 - 1 ns is in kernels.csv"
huge = names[("0", "huge_kernel")]
assert int(huge["count"]) == 3, huge
assert int(huge["total_ns"]) == MAX, "huge_kernel total_ns %s, want 2^63 - 1" % huge["total_ns"]
assert int(huge["max_ns"]) == 7 * 10**18 and int(huge["mean_ns"]) <= MAX, huge
for r in rows:
    for k in ("total_ns", "mean_ns", "min_ns", "max_ns"):
        assert 0 <= int(r[k]) <= MAX, (k, r)
# The trace: no slice past 2^63 - 1 ns, the memory counter never negative, held at 2^63 - 1.
samples, names_drawn = [], set()
for name in sorted(n for n in os.listdir(d) if n.startswith("traceFile_")):
    doc = json.load(open(os.path.join(d, name)))
    for e in doc["traceEvents"]:
        if e.get("ph") == "X":
            names_drawn.add(e.get("name"))
        if e.get("ph") == "C" and "allocated_bytes" in e.get("args", {}):
            samples.append((e["name"], e["ts"], e["args"]["allocated_bytes"]))
assert "kernel_past_2262" not in names_drawn, "the kernel ending past 2^63 - 1 ns is drawn"
assert "huge_kernel" in names_drawn
rank0 = [s for s in samples if "0:gpu:0" in s[0] or "000:gpu:0" in s[0]]
assert rank0, samples
values = [v for _, _, v in rank0]
assert min(values) >= 0, "memory in use negative: %s" % values
assert max(values) == MAX, values
assert values[-1] == 0, "memory in use after every free: %s" % values
# findings.json: rank 0's GPU memory peak is the trace counter's peak.
f = json.load(open(os.path.join(d, "findings.json")))
peaks = dict((r, p) for r, p in f["memory_peaks"]["by_rank"])
assert peaks[0] == max(values), "findings.json peak %s, trace counter peak %s" % (peaks[0], max(values))
PY

# Step sums: 3 ranks of steps 1..3, each rank with two steps of 4.5e18 ns (a rank's steps do not
# overlap, so within 2^63 ns of base 1 s): every step's median is 4.5e18 ns, and the job's step
# time (their sum, 1.35e19 ns) is held at 2^63 - 1 and counted.
mkdir -p "$W/steps/profile"
python3 - "$W/steps/profile" <<'PY'
import json, os, sys
BIG, SMALL = 4500000000000000, 1000  # us
for rank, durs in enumerate(([BIG, SMALL, BIG], [BIG, BIG, SMALL], [SMALL, BIG, BIG])):
    ev, ts = [], 1000
    for n, dur in enumerate(durs, 1):
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": 1,
                   "tid": 1, "ts": ts, "dur": dur})
        ts += dur + 100
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": rank, "tid": 7, "ts": 1500,
               "dur": 10, "args": {"device": rank, "stream": 7}})
    doc = {"distributedInfo": {"rank": rank, "world_size": 3}, "traceEvents": ev,
           "baseTimeNanoseconds": 1000000000}
    with open(os.path.join(sys.argv[1], "rank%d.node0_%d.1.pt.trace.json" % (rank, rank)), "w") as f:
        json.dump(doc, f)
PY
for np in 1 3; do
  set +e
  xmpirun "$np" "$X" report --data-dir "$W/steps" --out "$W/steps.out$np" --gpus-per-trainer 3 \
    --no-progress 2>"$W/steps.log$np"
  rc=$?
  set -e
  [ "$rc" = 0 ] || { cat "$W/steps.log$np"; fail "steps, np $np: rc $rc, want 0"; }
  grep -qF "sum_saturated" "$W/steps.log$np" || { cat "$W/steps.log$np"; fail "steps: not said"; }
done
same_dir "$W/steps.out1" "$W/steps.out3"
python3 - "$W/steps.out1/findings.json" <<'PY' || fail "steps: the job's step time"
import json, sys
f = json.load(open(sys.argv[1]))
assert f["job"]["step_time_s"] == 9223372036.854776, f["job"]
assert f.get("saturated_sums", 0) >= 1, f.get("saturated_sums")
PY

# diff: A has three ranks of one kernel at 2^63 - 1 ns each (as report writes a held total):
# its total over ranks passes 2^64; B has one rank of it at 5e18 ns.
mkdir -p "$W/diff_a" "$W/diff_b"
header="rank,name,category,count,total_ns,mean_ns,min_ns,max_ns"
{
  echo "$header"
  for r in 0 1 2; do echo "$r,huge_kernel,Computation,3,9223372036854775807,3074457345618258602,1,9223372036854775807"; done
  echo "2,small_kernel,Computation,1,1000,1000,1000,1000"
} >"$W/diff_a/kernels.csv"
{
  echo "$header"
  echo "0,huge_kernel,Computation,1,5000000000000000000,5000000000000000000,5000000000000000000,5000000000000000000"
  echo "0,small_kernel,Computation,1,1000,1000,1000,1000"
} >"$W/diff_b/kernels.csv"
set +e
"$X" diff "$W/diff_a" "$W/diff_b" --json >"$W/diff.json" 2>"$W/diff.log"
rc=$?
"$X" diff "$W/diff_a" "$W/diff_b" >"$W/diff.txt" 2>>"$W/diff.log"
set -e
[ "$rc" -le 1 ] || { cat "$W/diff.log"; fail "diff: rc $rc"; }
grep -q "sum_saturated" "$W/diff.txt" || { cat "$W/diff.txt"; fail "diff: no saturation warning"; }
python3 - "$W/diff.json" <<'PY' || { cat "$W/diff.json"; fail "diff: kernel totals"; }
import json, sys
MAX = 2**63 - 1
k = json.load(open(sys.argv[1]))["kernels"]
assert k["a_total_ns"] == MAX, k["a_total_ns"]
assert k["b_total_ns"] == 5 * 10**18 + 1000, k["b_total_ns"]
assert k.get("saturated_sums") == 2, k.get("saturated_sums")  # A's huge_kernel and A's total
top = {t["name"]: t for t in k["top"]}
assert top["huge_kernel"]["a"]["total_ns"] == MAX, top["huge_kernel"]
assert top["huge_kernel"]["delta_total_ns"] == 5 * 10**18 - MAX, top["huge_kernel"]
for t in k["top"]:
    for side in ("a", "b"):
        assert 0 <= t[side]["total_ns"] <= MAX, t
    for r in t["top_ranks"]:
        assert 0 <= r["a_ns"] <= MAX and 0 <= r["b_ns"] <= MAX, r
PY
echo "ok: checked sums"
