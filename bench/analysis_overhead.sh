#!/usr/bin/env bash
# Analysis overhead: wall time of `xstack report` with and without
# --no-analysis, alternating runs, on (a) the standard benchmark set
# (2 trainers x 8 GPUs, 10 steps x 2000 ops, mpirun -np 2) and (b) the
# synchronous 16-rank job (8 trainers x 2 GPUs, --group-size 4
# --display-size 2, half the ranks analysed but not drawn).
#   usage: bench/analysis_overhead.sh XSTACK WORKDIR [RUNS]
set -euo pipefail
xstack=$1 work=$2 runs=${3:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$work"
[ -d "$work/std" ] || "$xstack" synth --out "$work/std" --trainers 2 --gpus-per-trainer 8 --steps 10 --ops-per-step 2000 --seed 1 2>/dev/null
[ -d "$work/sync" ] || "$xstack" synth --out "$work/sync" --trainers 8 --gpus-per-trainer 2 --steps 10 --ops-per-step 2000 --seed 1 --slow 5:1.12 2>/dev/null
wall() {  # wall NP ARGS... -> "wall_seconds cpu_seconds" (cpu: user+sys summed over the ranks)
  local np=$1; shift
  local t0 t1 cpu
  rm -f "$work"/cpu.*
  t0=$(date +%s.%N)
  mpirun -np "$np" --oversubscribe --bind-to none sh -c \
    'exec /usr/bin/time -f "%U %S" -o "$0/cpu.$OMPI_COMM_WORLD_RANK" "$@"' "$work" \
    "$xstack" report --no-progress "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  cpu=$(cat "$work"/cpu.* | awk '{s += $1 + $2} END {print s}')
  echo "$(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }") $cpu"
}
measure() {  # measure NAME NP ARGS...
  local name=$1 np=$2; shift 2
  local on=() off=()
  local t
  for _ in $(seq "$runs"); do
    rm -rf "$work/out"; read -r -a t <<<"$(wall "$np" "$@" --out "$work/out" --no-analysis)"; off+=("${t[@]}")
    rm -rf "$work/out"; read -r -a t <<<"$(wall "$np" "$@" --out "$work/out")"; on+=("${t[@]}")
  done
  python3 - "$name" "${off[*]}" "${on[*]}" <<'PY'
import sys, statistics as st
name = sys.argv[1]
def pairs(t):
    v = list(map(float, t.split()))
    return v[0::2], v[1::2]
(ow, oc), (nw, nc) = pairs(sys.argv[2]), pairs(sys.argv[3])
for what, off, on in (("wall", ow, nw), ("cpu (all ranks)", oc, nc)):
    mo, mn = st.median(off), st.median(on)
    print(f"{name}, {what}: --no-analysis median {mo:.3f} s (min {min(off):.3f}), analysis median "
          f"{mn:.3f} s (min {min(on):.3f}); overhead {100*(mn-mo)/mo:+.1f} % (medians), "
          f"{100*(min(on)-min(off))/min(off):+.1f} % (minima)")
PY
}
measure "standard set, np 2" 2 --data-dir "$work/std"
measure "sync 16 ranks, np 2" 2 --data-dir "$work/sync" --gpus-per-trainer 2 --group-size 4 --display-size 2
