#!/usr/bin/env bash
# Strong scaling of `xstack report` (issue 32): one job, more cores.
#
#   bash bench/strong_scaling.sh [--runs N] [--big] [--keep]
#
#   --runs N  rounds (default 3): every configuration once per round, in an order that
#             rotates each round (interleaved), and the median wall of the rounds reported
#   --big     also the 2-rank job of 280 MB ranks (about 1 minute per run on 2 cores)
#   --keep    keep the work folder
#
# Jobs: the 8-rank Kineto job `xstack synth --format kineto --trainers 1 --gpus-per-trainer 8
# --steps 10 --ops-per-step 4000 --seed 1` (36 MB of gzip, 1.15 M events), and with --big 2
# ranks of `--ops-per-step 95000` (280 MB of JSON each). Configurations: one process and
# `mpirun -np 2 --bind-to none`, each at --threads 1 and --threads 2 (and the default, the
# CPUs of sched_getaffinity). Every run writes the default outputs; its bytes are compared with
# the first run's (cmp): a table is printed only when every run made the same files. "cores
# used" is the CPU seconds of all the run's processes over its wall: on a shared machine it
# shows how much of the cores a run was given.
# Environment: XSTACK_BUILD_DIR (default <repo>/build), BENCH_WORK (default /var/tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3 big=0 keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift ;;
    --big) big=1 ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
xstack=$(realpath "${XSTACK_BUILD_DIR:-build}/bin/xstack")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d "${BENCH_WORK:-/var/tmp}/xstack-strong.XXXXXX")
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT

# run NAME NP THREADS DATA: one report under /usr/bin/time; its wall seconds appended to
# $work/NAME.times, its cores used (CPU seconds of every process / wall) to $work/NAME.cores.
run() {
  local name=$1 np=$2 threads=$3 data=$4 out=$work/out-$1
  local args=(report --data-dir "$data" --out "$out" --no-progress --timings)
  local launch=()
  [ "$threads" = default ] || args+=(--threads "$threads")
  [ "$np" = 1 ] || launch=(mpirun -np "$np" --oversubscribe --bind-to none)
  rm -rf "$out"
  /usr/bin/time -f '%e %U %S' -o "$work/time" "${launch[@]}" "$xstack" "${args[@]}" 2>"$work/$name.log"
  awk '{ print $1 }' "$work/time" >>"$work/$name.times"
  awk '{ printf "%.2f\n", ($2 + $3) / ($1 > 0 ? $1 : 1) }' "$work/time" >>"$work/$name.cores"
  if [ -d "$work/ref" ]; then
    for f in "$work/ref"/*; do
      cmp -s "$f" "$out/$(basename "$f")" || { echo "FAIL: $name: $(basename "$f") differs" >&2; exit 1; }
    done
  else
    cp -r "$out" "$work/ref"
  fi
}

median() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

bench_job() {  # bench_job LABEL DATA
  local label=$1 data=$2
  local configs=("np1_t1 1 1" "np1_t2 1 2" "np1_default 1 default" "np2_t1 2 1" "np2_t2 2 2")
  rm -rf "$work/ref" "$work"/*.times "$work"/*.cores
  for ((r = 0; r < runs; ++r)); do
    for ((i = 0; i < ${#configs[@]}; ++i)); do
      # shellcheck disable=SC2086
      run ${configs[$(((i + r) % ${#configs[@]}))]} "$data"
    done
  done
  local base
  base=$(median "$work/np1_t1.times")
  echo "## $label ($runs interleaved rounds, medians; load before: $(cut -d' ' -f1-3 /proc/loadavg))"
  echo "| run | wall s (median) | all runs | x one process --threads 1 | cores used (median) |"
  echo "|---|---|---|---|---|"
  for c in "${configs[@]}"; do
    local name=${c%% *} m
    m=$(median "$work/$name.times")
    echo "| $name | $m | $(sort -n "$work/$name.times" | tr '\n' ' ')| $(awk -v a="$m" -v b="$base" 'BEGIN { printf "%.2f", a / b }') | $(median "$work/$name.cores") |"
  done
  echo "rank 0's --timings of the last np2_t2 run:"
  grep "timings rank" "$work/np2_t2.log" | sed 's/^/    /'
}

"$xstack" synth --format kineto --out "$work/job8" --trainers 1 --gpus-per-trainer 8 --steps 10 \
  --ops-per-step 4000 --seed 1 2>/dev/null
echo "xstack $("$xstack" --version 2>/dev/null | head -1), $(nproc) CPUs"
bench_job "8 Kineto ranks, 36 MB gzip" "$work/job8"
if [ "$big" = 1 ]; then
  "$xstack" synth --format kineto --out "$work/job2" --trainers 1 --gpus-per-trainer 2 \
    --steps 10 --ops-per-step 95000 --seed 1 2>/dev/null
  bench_job "2 Kineto ranks of 280 MB" "$work/job2"
fi
