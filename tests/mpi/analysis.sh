#!/usr/bin/env bash
# Analysis (docs/ANALYSIS.md) on synchronous jobs from `xstack synth --sync`:
# findings.json names exactly the injected slow ranks/steps (nothing on a
# healthy job), steps.csv matches the generator's truth within 1 %, and the
# analysis files are byte-identical for np 1 / 3 and --display-size 1 / 4.
#   usage: analysis.sh XSTACK WORKDIR CASE   (CASE: healthy slow_rank slow_step slow_node identical)
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
job=(--trainers 8 --gpus-per-trainer 2 --steps 10 --ops-per-step 600 --seed 3)
report=(--gpus-per-trainer 2 --group-size 4 --no-progress)

# expect_findings OUT PYTHON-EXPR: the findings list as (kind, ranks, steps) tuples.
expect_findings() {
  python3 - "$1/findings.json" "$2" <<'PY' || fail "findings: $(cat "$1/findings.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
got = [(f["kind"], f["ranks"], f["steps"]) for f in doc["findings"]]
want = eval(sys.argv[2])
assert got == want, f"got {got}, want {want}"
for f in doc["findings"]:
    assert f["evidence"] and f["score"] > 0, f
PY
}

# matches_truth DATA OUT: steps.csv within 1 % of sync_truth.csv per rank and step.
matches_truth() {
  python3 - "$1/sync_truth.csv" "$2/steps.csv" <<'PY' || fail "steps.csv differs from the truth"
import csv, sys
truth = {(r["rank"], r["step"]): r for r in csv.DictReader(open(sys.argv[1]))}
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == len(truth), (len(rows), len(truth))
keys = [(r["rank"], r["step"]) for r in rows]
assert keys == sorted(keys, key=lambda k: (int(k[0]), int(k[1]))), "not ordered by rank, step"
for r in rows:
    t = truth[(r["rank"], r["step"])]
    for col in ("step_ns", "compute_ns", "comm_ns", "memcpy_ns"):
        a, b = int(r[col]), int(t[col])
        assert abs(a - b) <= max(0.01 * b, 1000), (r["rank"], r["step"], col, a, b)
    parts = sum(int(r[c]) for c in ("compute_ns", "comm_ns", "memcpy_ns", "idle_ns")) - int(r["overlap_ns"])
    assert parts == int(r["step_ns"]), ("union parts", r)
print("steps.csv matches the truth:", len(rows), "rows")
PY
}

# trace_instants OUT FILE RANK STEPS: FILE (and no other trace) carries RANK's
# findings as instant events, one per slow step, on a last process of their own.
trace_instants() {
  python3 - "$1" "$2" "$3" "$4" <<'PY' || fail "findings in the traces"
import json, os, sys
out, want_file, rank, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for name in sorted(n for n in os.listdir(out) if n.startswith("traceFile_")):
    ev = json.load(open(os.path.join(out, name)))["traceEvents"]
    inst = [e for e in ev if e["ph"] == "i"]
    if name != want_file:
        assert not inst, (name, inst[:1])
        continue
    assert len(inst) == steps and all(e["tid"] == rank + 1 and e["name"] == "straggler" for e in inst), inst
    pid = inst[0]["pid"]
    assert pid == max(e["pid"] for e in ev) and all(e["pid"] == pid for e in inst)
    names = [e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name" and e["pid"] == pid]
    assert names == ["%02d_findings" % (pid - 1)], names  # NN_: its place, pid - 1
    assert "computes" in inst[0]["args"]["evidence"]
print("findings in", want_file)
PY
}

# ranks_and_kernels OUT RANKS: ranks.csv (one row per rank, HTA's columns) and
# kernels.csv (rows ordered by rank then name, counts that add up) as documented.
ranks_and_kernels() {
  python3 - "$1" "$2" <<'PY' || fail "ranks.csv / kernels.csv"
import csv, os, sys
out, ranks = sys.argv[1], int(sys.argv[2])
head = open(os.path.join(out, "ranks.csv")).readline()
assert head == ("rank,trainer,gpu,steps,span_ns,idle_ns,compute_ns,non_compute_ns,idle_pct,"
                "compute_pct,non_compute_pct,comm_comp_overlap_pct\n"), head
rows = list(csv.DictReader(open(os.path.join(out, "ranks.csv"), newline="")))
assert [int(r["rank"]) for r in rows] == list(range(ranks)), [r["rank"] for r in rows]
for r in rows:
    span = int(r["span_ns"])
    assert span > 0 and int(r["steps"]) == 10, r
    assert int(r["idle_ns"]) + int(r["compute_ns"]) + int(r["non_compute_ns"]) == span, r
    assert abs(float(r["compute_pct"]) - 100 * int(r["compute_ns"]) / span) <= 0.005, r
    assert r["comm_comp_overlap_pct"] != "", r  # the synthetic jobs all-reduce
head = open(os.path.join(out, "kernels.csv")).readline()
assert head == "rank,name,category,count,total_ns,mean_ns,min_ns,max_ns\n", head
rows = list(csv.DictReader(open(os.path.join(out, "kernels.csv"), newline="")))
keys = [(int(r["rank"]), r["name"].encode()) for r in rows]
assert keys == sorted(keys) and len(set(keys)) == len(keys), "not ordered by rank, name"
assert {k[0] for k in keys} == set(range(ranks))
for r in rows:
    n, total = int(r["count"]), int(r["total_ns"])
    assert r["category"] in ("COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER"), r
    assert n > 0 and int(r["mean_ns"]) == total // n, r
    assert int(r["min_ns"]) <= int(r["mean_ns"]) <= int(r["max_ns"]), r
print("ranks.csv and kernels.csv:", ranks, "ranks,", len(rows), "kernel rows")
PY
}

run_case() {  # run_case NAME SYNTH-ARGS... -- expected findings
  local name=$1 want=$2; shift 2
  "$xstack" synth --out "$work/$name" "${job[@]}" "$@" 2>/dev/null
  "$xstack" report --data-dir "$work/$name" --out "$work/$name.out" "${report[@]}" 2>"$work/$name.log" \
    || fail "report $name: $(cat "$work/$name.log")"
  grep -q "analysis: 16 ranks x 10 steps" "$work/$name.log" || fail "no terminal summary: $(cat "$work/$name.log")"
  [ "$(grep -c '' "$work/$name.log")" -le 14 ] || fail "terminal output too long"
  expect_findings "$work/$name.out" "$want"
  matches_truth "$work/$name" "$work/$name.out"
}

case $case in
  healthy) run_case healthy "[]" --sync --noise 3 ;;
  slow_rank) run_case slow_rank "[('straggler', [5], 'all')]" --slow 5:1.12
    trace_instants "$work/slow_rank.out" traceFile_0_1.json 5 10 ;;
  slow_step) run_case slow_step "[('straggler', [9], [4])]" --slow-step 9:4:1.5
    trace_instants "$work/slow_step.out" traceFile_1_1.json 9 1 ;;
  slow_node) run_case slow_node "[('straggler', [6, 7], 'all')]" --slow-trainer 3:1.2 ;;
  identical)
    "$xstack" synth --out "$work/data" "${job[@]}" --slow 5:1.2 --slow-step 12:3:1.4 2>/dev/null
    "$xstack" report --data-dir "$work/data" --out "$work/serial" "${report[@]}" --display-size 1 2>"$work/s.log" || fail "serial"
    xmpirun 3 "$xstack" report --data-dir "$work/data" --out "$work/np3" "${report[@]}" --display-size 4 2>"$work/m.log" \
      || fail "np 3: $(cat "$work/m.log")"
    xmpirun 2 "$xstack" report --data-dir "$work/data" --out "$work/np2" "${report[@]}" --display-size 2 2>"$work/c.log" \
      || fail "np 2 --display-size 2: $(cat "$work/c.log")"
    xmpirun 3 "$xstack" report --data-dir "$work/data" --out "$work/np3d1" "${report[@]}" --display-size 1 2>"$work/m1.log" \
      || fail "np 3 --display-size 1: $(cat "$work/m1.log")"
    same_dir "$work/serial" "$work/np3d1"  # traces with findings too
    for f in steps.csv ranks.csv kernels.csv findings.json report.html; do
      cmp "$work/serial/$f" "$work/np3/$f" || fail "$f differs between np 1 --display-size 1 and np 3 --display-size 4"
      cmp "$work/serial/$f" "$work/np2/$f" || fail "$f differs with np 2 --display-size 2"
    done
    "$xstack" report --data-dir "$work/data" --out "$work/off" "${report[@]}" --no-analysis 2>/dev/null || fail "--no-analysis"
    for f in steps.csv ranks.csv kernels.csv findings.json report.html; do
      [ ! -e "$work/off/$f" ] || fail "--no-analysis wrote $f"
    done
    ranks_and_kernels "$work/serial" 16
    expect_findings "$work/serial" "[('straggler', [5], 'all'), ('straggler', [12], [3])]"
    ;;
  *) fail "unknown case $case" ;;
esac
echo "ok: analysis $case"
