#!/usr/bin/env bash
# Stragglers by lateness on jobs built from real PyTorch traces: 4 ranks made from
# ../shared/traces/kineto/trace_filter's ranks 0 and 1 (ranks 2 and 3 are copies of 0 and 1 on a
# second node, --gpus-per-trainer 2), each rank's clock skewed by rank x 7 ms. HTA, on such jobs,
# named whichever rank's clock is latest when no rank was late, and another rank than the late one.
#   healthy  no rank late: no finding, nothing below threshold (the skew is not lateness)
#   late     rank 2 reaches each step's last collective 20 ms late (its start 20 ms later, same
#            end: the others wait for it; 3 % of the 610 ms steps): exactly one finding, rank 2,
#            both steps, cause host (its GPU idles, same compute)
#   small    rank 2 late by 2 ms (0.3 % of a step): under the 1 % floor, no finding
# np 1 and np 3 give byte-identical analysis files. Skips (77) when ../shared is absent.
#   usage: lateness_real.sh XSTACK WORKDIR CASE
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
here="$(cd "$(dirname "$0")" && pwd)"
SHARED=${XSTACK_SHARED_DIR:-$here/../../../shared}
src=$SHARED/traces/kineto/trace_filter
[ -d "$src" ] || { echo "SKIP: $src not found (the shared folder is absent)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"

case $case in
  healthy) late_ms=0 want="[]" ;;
  late) late_ms=20 want="[([2], 'all', 'host')]" ;;
  small) late_ms=2 want="[]" ;;
  *) fail "unknown case $case" ;;
esac

python3 - "$src" "$work/data" "$late_ms" <<'PY' || fail "could not build the job"
import gzip, json, os, sys
src, out, late_ms = sys.argv[1], sys.argv[2], float(sys.argv[3])
os.makedirs(out)
for rank in range(4):
    doc = json.load(gzip.open(f"{src}/sampled_rank-{rank % 2}.json.gz"))
    doc["distributedInfo"].update(rank=rank, world_size=4)
    events = doc["traceEvents"]
    for e in events:  # this rank's clock: rank x 7 ms ahead
        if isinstance(e.get("ts"), (int, float)):
            e["ts"] += rank * 7000
    if rank == 2 and late_ms > 0:  # reaches each step's last collective late, ends with the others
        nccl = [e for e in events if e.get("cat") == "kernel" and "nccl" in e.get("name", "").lower()]
        for s in (e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")):
            last = max((e for e in nccl if s["ts"] <= e["ts"] < s["ts"] + s["dur"]), key=lambda e: e["ts"])
            assert last["dur"] > 2 * late_ms * 1000, last
            last["ts"] += late_ms * 1000
            last["dur"] -= late_ms * 1000
    with gzip.open(f"{out}/rank{rank}.pt.trace.json.gz", "wt") as f:
        json.dump(doc, f)
PY
report=(--gpus-per-trainer 2 --no-progress)
"$xstack" report --data-dir "$work/data" --out "$work/np1" "${report[@]}" 2>"$work/np1.log" ||
  fail "report np 1: $(cat "$work/np1.log")"
xmpirun 3 "$xstack" report --data-dir "$work/data" --out "$work/np3" "${report[@]}" \
  2>"$work/np3.log" || fail "report np 3: $(cat "$work/np3.log")"
for f in steps.csv ranks.csv kernels.csv findings.json report.html; do
  cmp "$work/np1/$f" "$work/np3/$f" || fail "$f differs between np 1 and np 3"
done
python3 - "$work/np1/findings.json" "$want" <<'PY' || fail "findings: $(cat "$work/np1/findings.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
got = [(f["ranks"], f["steps"], f["cause"]) for f in doc["findings"]]
want = eval(sys.argv[2])
assert got == want, f"got {got}, want {want}"
assert doc["below_threshold"] == [], doc["below_threshold"]
for f in doc["findings"]:
    assert f["cost_pct"] >= 1.0 and 15 <= f["late_ms_per_step"] <= 25, f
PY
if [[ $case == late ]]; then
  grep -q 'straggler: rank 2 ' "$work/np1.log" || fail "the summary does not name rank 2: $(cat "$work/np1.log")"
else
  grep -q 'findings: none' "$work/np1.log" || fail "the summary names a straggler: $(cat "$work/np1.log")"
fi
echo "lateness on real traces ($case): ok"
