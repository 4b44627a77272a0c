#!/usr/bin/env bash
# Steps are paired across ranks by their number (ProfilerStep#N), never by
# position (docs/FORMAT.md section 8, docs/ANALYSIS.md): on a synchronous
# Kineto job of 8 ranks where rank 5 computes 1.3x slower,
#   shifted: rank 5's trace lacks ProfilerStep#0 (it started one step later):
#            rank 5 is still the one finding, cause compute, and step 0 is
#            named as missing on rank 5;
#   nosteps: rank 3 has no ProfilerStep span at all: it is named in the
#            summary and in findings.json's ranks_without_steps, never dropped
#            silently, and rank 5 is still found;
#   beginend: every rank's ProfilerStep#N is a B/E pair, not an X event: the
#            same steps and the same analysis files as the X events give;
#   unordered: rank 2's step numbers do not increase: warning
#            step_number_ignored names its file, steps numbered by position.
# np 1 and np 3 give byte-identical analysis files.
#   usage: step_numbers.sh XSTACK WORKDIR CASE
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --format kineto --trainers 1 --gpus-per-trainer 8 --sync --slow 5:1.3 --steps 6 \
  --out "$work/data" 2>"$work/synth.log" || fail "synth: $(cat "$work/synth.log")"
cp -r "$work/data" "$work/plain"

# edit.py CASE PROFILE_DIR: rewrites the traces as the case says.
python3 - "$case" "$work/data/profile" <<'PY' || fail "could not edit the traces"
import glob, gzip, json, os, sys
case, folder = sys.argv[1], sys.argv[2]
def edit(rank, change):
    path = glob.glob(os.path.join(folder, f"rank{rank}.*"))[0]
    doc = json.load(gzip.open(path))
    doc["traceEvents"] = change(doc["traceEvents"])
    with gzip.open(path, "wt") as f:
        json.dump(doc, f)
steps = lambda e: e.get("name", "").startswith("ProfilerStep#")
if case == "shifted":
    edit(5, lambda ev: [e for e in ev if e.get("name") != "ProfilerStep#0"])
elif case == "nosteps":
    edit(3, lambda ev: [e for e in ev if not steps(e)])
elif case == "beginend":
    def pairs(ev):
        out = []
        for e in ev:
            if steps(e) and e["ph"] == "X":
                b = dict(e, ph="B"); b.pop("dur")
                end = {"ph": "E", "pid": e["pid"], "tid": e["tid"], "ts": round(e["ts"] + e["dur"], 3)}
                out += [b, end]
            else:
                out.append(e)
        return out
    for r in range(8):
        edit(r, pairs)
elif case == "unordered":
    def swap(ev):
        names = {"ProfilerStep#1": "ProfilerStep#2", "ProfilerStep#2": "ProfilerStep#1"}
        return [dict(e, name=names.get(e.get("name"), e.get("name"))) for e in ev]
    edit(2, swap)
else:
    sys.exit(f"unknown case {case}")
PY

"$xstack" report --data-dir "$work/data" --out "$work/np1" --no-progress 2>"$work/np1.log" \
  || fail "report np 1: $(cat "$work/np1.log")"
xmpirun 3 "$xstack" report --data-dir "$work/data" --out "$work/np3" --no-progress 2>"$work/np3.log" \
  || fail "report np 3: $(cat "$work/np3.log")"
for f in steps.csv ranks.csv findings.json collectives.csv waits.csv; do
  cmp "$work/np1/$f" "$work/np3/$f" || fail "$f differs between np 1 and np 3"
done

python3 - "$case" "$work/np1" "$work/np1.log" <<'PY' || fail "$case: $(cat "$work/np1.log")"
import json, sys
case, out, log = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
doc = json.load(open(out + "/findings.json"))
got = [(f["ranks"], f["cause"]) for f in doc["findings"]]
assert got == [([5], "compute")], f"findings {got}"
steps = {}
for line in open(out + "/steps.csv").read().splitlines()[1:]:
    rank, step = map(int, line.split(",")[0:4:3])
    steps.setdefault(rank, []).append(step)
if case == "shifted":
    assert steps[5] == [1, 2, 3, 4, 5] and steps[0] == [0, 1, 2, 3, 4, 5], steps
    assert doc["steps_lacking_ranks"] == [{"step": 0, "ranks": [5]}], doc["steps_lacking_ranks"]
    assert "step 0 is missing on 1 ranks (5)" in log, log
if case == "nosteps":
    assert doc["ranks_without_steps"] == [3], doc["ranks_without_steps"]
    assert "ranks have no step" in log and "ranks 3" in log, log
    assert 3 not in steps, steps
if case in ("beginend", "unordered"):
    assert all(v == [0, 1, 2, 3, 4, 5] for v in steps.values()), steps
if case == "unordered":
    assert "step_number_ignored" in log and "rank2." in log, log
print(case, "ok:", got)
PY
if [ "$case" = beginend ]; then
  "$xstack" report --data-dir "$work/plain" --out "$work/plain_out" --no-progress 2>"$work/plain.log" \
    || fail "report of the X-event traces: $(cat "$work/plain.log")"
  for f in steps.csv ranks.csv findings.json collectives.csv waits.csv; do
    cmp "$work/np1/$f" "$work/plain_out/$f" || fail "$f differs between B/E and X steps"
  done
fi
