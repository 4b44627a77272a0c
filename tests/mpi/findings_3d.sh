#!/usr/bin/env bash
# Root causes on 3D-parallel jobs (TP x PP x DP, 1F1B) from `xstack synth
# --format kineto` (docs/ANALYSIS.md "Role rule", "Network rule"): the
# injected fault is the one finding with its cause (a slow-compute rank:
# compute; a host-stalled rank: host, naming the data-loader op; a one-step
# stall: host in that step only; a slow node's network: network, naming that
# node, on a 4-node job where some cross-node transfers avoid it), and a
# healthy job has none (3 seeds). np 1 and np 3 give byte-identical analysis
# files. The moe* cases do the same on a mixture-of-experts job (synth --moe:
# every layer's tokens go through two all-to-alls of the DP group, each
# member's share its own), whose all-to-alls must all match: one alltoallv row
# per DP group, nothing unmatched.
#   usage: findings_3d.sh XSTACK WORKDIR CASE
#   CASE: healthy | compute222 | compute444 | host222 | host444 | stallstep222 |
#         stallstep444 | network1 | network0 | computeTppdp | moehealthy |
#         moecompute | moehost
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
s222=(--tp 2 --pp 4 --dp 2) s444=(--tp 4 --pp 4 --dp 4) s4node=(--tp 2 --pp 4 --dp 4)
smoe=(--tp 2 --pp 2 --dp 4 --moe)

# The job, the injection and the one finding it must give: (ranks, steps,
# cause, host op kind or "", node or None).
seeds=(1)
case $case in
  healthy) shapes=("${s222[*]}" "${s444[*]}") inject=() seeds=(1 2 3) want="[]" ;;
  compute222) shapes=("${s222[*]}") inject=(--slow 5:1.3) want="[([5], 'all', 'compute', '', None)]" ;;
  compute444) shapes=("${s444[*]}") inject=(--slow 37:1.3) want="[([37], 'all', 'compute', '', None)]" ;;
  host222) shapes=("${s222[*]}") inject=(--stall 6:4) want="[([6], 'all', 'host', 'data-loader op', None)]" ;;
  host444) shapes=("${s444[*]}") inject=(--stall 20:4) want="[([20], 'all', 'host', 'data-loader op', None)]" ;;
  stallstep222) shapes=("${s222[*]}") inject=(--stall-step 9:2:20) want="[([9], [2], 'host', 'data-loader op', None)]" ;;
  stallstep444) shapes=("${s444[*]}") inject=(--stall-step 50:1:20) want="[([50], [1], 'host', 'data-loader op', None)]" ;;
  network1) shapes=("${s4node[*]}") inject=(--slow-link 1:3)
    want="[([8, 9, 10, 11, 12, 13, 14, 15], 'all', 'network', '', '1')]" ;;
  network0) shapes=("${s4node[*]}") inject=(--slow-link 0:3)
    want="[([0, 1, 2, 3, 4, 5, 6, 7], 'all', 'network', '', '0')]" ;;
  computeTppdp) shapes=("${s222[*]} --rank-order tp-pp-dp") inject=(--slow 3:1.3)
    want="[([3], 'all', 'compute', '', None)]" ;;
  moehealthy) shapes=("${smoe[*]}") inject=() seeds=(1 2) want="[]" ;;
  moecompute) shapes=("${smoe[*]}") inject=(--slow 6:1.3) want="[([6], 'all', 'compute', '', None)]" ;;
  moehost) shapes=("${smoe[*]}") inject=(--stall 9:4) want="[([9], 'all', 'host', 'data-loader op', None)]" ;;
  *) fail "unknown case $case" ;;
esac

n=0
for shape in "${shapes[@]}"; do
  for seed in "${seeds[@]}"; do
    n=$((n + 1)) d="$work/$n"
    read -r -a job <<<"$shape"
    "$xstack" synth --format kineto --out "$d/data" "${job[@]}" --seed "$seed" "${inject[@]}" \
      2>"$d.synth.log" || fail "synth $shape: $(cat "$d.synth.log")"
    "$xstack" report --data-dir "$d/data" --out "$d/np1" --no-progress 2>"$d.np1.log" \
      || fail "report np 1 ($shape seed $seed): $(cat "$d.np1.log")"
    xmpirun 3 "$xstack" report --data-dir "$d/data" --out "$d/np3" --no-progress 2>"$d.np3.log" \
      || fail "report np 3 ($shape seed $seed): $(cat "$d.np3.log")"
    for f in steps.csv ranks.csv findings.json collectives.csv waits.csv report.html; do
      cmp "$d/np1/$f" "$d/np3/$f" || fail "$f differs between np 1 and np 3 ($shape seed $seed)"
    done
    python3 - "$d/np1/findings.json" "$want" "$shape seed $seed" <<'PY' || fail "findings: $(cat "$d/np1/findings.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
got = [(f["ranks"], f["steps"], f["cause"], f.get("host_op", {}).get("kind", ""), f.get("node"))
       for f in doc["findings"]]
want = eval(sys.argv[2])
assert got == want, f"{sys.argv[3]}: got {got}, want {want}"
if not want:
    assert doc["below_threshold"] == [], doc["below_threshold"]
for f in doc["findings"]:
    assert f["cost_pct"] >= 1.0 and f["cost_ms"] > 0, f
    assert ("cause " + f["cause"]) in f["evidence"], f["evidence"]
print(sys.argv[3], "findings:", got)
PY
    [[ $shape == *--moe* ]] || continue
    # 4 steps x 4 microbatches x 2 layers x (forward, backward) x (dispatch, combine)
    # all-to-alls in each of the tp x pp = 4 DP groups.
    grep -q ' matched (0 unmatched)' "$d.np1.log" || fail "unmatched collectives ($shape): $(cat "$d.np1.log")"
    rows=$(grep -c ',alltoallv,0,128,' "$d/np1/collectives.csv")
    [[ $rows == 4 ]] || fail "want 4 alltoallv rows of 128 calls ($shape): $(cat "$d/np1/collectives.csv")"
    # Their bytes_p50: the median call's largest share, each share drawn in [1/2, 3/2] of an
    # activation (the TP all-reduce's bytes): the largest of 4 is above one activation in the median.
    python3 - "$d/np1/collectives.csv" <<'PY' || fail "alltoallv bytes_p50 ($shape): $(cat "$d/np1/collectives.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
act = {int(r["bytes"]) for r in rows if r["collective"] == "allreduce"}
assert len(act) == 1, act
act = act.pop()
for r in rows:
    if r["collective"] == "alltoallv":
        assert act < int(r["bytes_p50"]) <= act * 3 // 2, (r, act)
    else:
        assert r["bytes_p50"] == r["bytes"], r
PY
  done
done
