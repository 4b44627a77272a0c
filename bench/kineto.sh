#!/usr/bin/env bash
# The Kineto set: xstack on PyTorch profiler traces, against HTA's published figures
# on this machine (docs/PERFORMANCE.md "Kineto traces").
#
#   bench/kineto.sh [--quick] [--runs N] [--keep]
#
# 1. One rank of about 50 MB and one of about 500 MB of Kineto JSON (`xstack synth --format
#    kineto`, gzip as PyTorch writes it): `xstack report` with its default outputs, one
#    process, under /usr/bin/time (wall seconds, max RSS), median of N runs; and the floor on
#    the same file (bench/chrome_json_bench: gunzip + tokenize every event, no output).
# 2. Rank 0's memory as ranks grow: 2, 8 and 32 training ranks of one job (small ranks),
#    `mpirun -np 2`, max RSS of each MPI rank.
# --quick: 5 MB and 50 MB ranks, 2 and 8 ranks, 1 run.
#
# Environment: XSTACK_BUILD_DIR (default <repo>/build), BENCH_WORK (default /var/tmp).
set -euo pipefail
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }  # arithmetic on decimals (no bc needed)
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${XSTACK_BUILD_DIR:-$repo/build}
X=$build/bin/xstack
B=$build/bin/chrome_json_bench
runs=3
sizes=(50 500)
world=(2 8 32)
keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --quick) runs=1 sizes=(5 50) world=(2 8) ;;
    --runs) runs=$2; shift ;;
    --keep) keep=1 ;;
    *) echo "usage: bench/kineto.sh [--quick] [--runs N] [--keep]" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$X" ] && [ -x "$B" ] || { echo "build first: scripts/build (needs $X and $B)" >&2; exit 2; }
work=$(mktemp -d "${BENCH_WORK:-/var/tmp}/xstack-kineto.XXXXXX")
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# timed OUT CMD...: "<wall s> <max RSS MB>" of one run
timed() {
  local out=$1
  shift
  /usr/bin/time -f '%e %M' -o "$out.time" "$@" >/dev/null 2>"$out.log"
  awk '{printf "%s %.1f\n", $1, $2 / 1024}' "$out.time"
}

# ~586 MB of Kineto JSON per 400,000 operators (synth's density): ops for MB megabytes.
ops_for() { echo $(( $1 * 400000 / 586 / 10 )); }

echo "== one rank: xstack report (default outputs, 1 process) vs the floor (gunzip + tokenize)"
printf '%8s %10s %10s %9s %9s %9s %9s\n' "JSON MB" "gzip MB" "events" "wall s" "RSS MB" "floor s" "x floor"
for mb in "${sizes[@]}"; do
  d=$work/r$mb
  "$X" synth --format kineto --out "$d" --trainers 1 --gpus-per-trainer 1 --steps 10 \
    --ops-per-step "$(ops_for "$mb")" --seed 1 >/dev/null 2>&1
  f=$(ls "$d"/profile/*.json.gz)
  json=$(gzip -dc "$f" | wc -c)
  walls=() rss=()
  for _ in $(seq "$runs"); do
    read -r w m < <(timed "$work/out$mb" "$X" report --data-dir "$d" --out "$work/out$mb" --gpus-per-trainer 1)
    walls+=("$w") rss+=("$m")
  done
  events=$(grep -oE 'inputs: 1 profile; [0-9]+ events' "$work/out$mb.log" | awk '{print $4}')
  floor=$("$B" "$f" "$runs" | awk '$1 == "xstack-file" {print $2}')
  w=$(printf '%s\n' "${walls[@]}" | median)
  m=$(printf '%s\n' "${rss[@]}" | median)
  printf '%8.1f %10.1f %10s %9s %9s %9s %9.2f\n' "$(calc "$json / 1000000")" \
    "$(calc "$(stat -c %s "$f") / 1000000")" "$events" "$w" "$m" "$floor" \
    "$(calc "$w / $floor")"
done

echo "== rank 0's memory as ranks grow (mpirun -np 2; max RSS per MPI rank, MB)"
printf '%8s %12s %12s %9s\n' "ranks" "rank 0 MB" "rank 1 MB" "wall s"
for n in "${world[@]}"; do
  d=$work/w$n
  "$X" synth --format kineto --out "$d" --trainers "$n" --gpus-per-trainer 1 --steps 10 \
    --ops-per-step 200 --seed 1 >/dev/null 2>&1
  start=$(date +%s.%N)
  mpirun -np 2 --oversubscribe --bind-to none \
    bash -c '/usr/bin/time -f %M -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$work/w$n.rss" \
    "$X" report --data-dir "$d" --out "$work/wout$n" --gpus-per-trainer 1 >/dev/null 2>"$work/w$n.log" ||
    { cat "$work/w$n.log" >&2; exit 1; }
  end=$(date +%s.%N)
  printf '%8s %12.1f %12.1f %9.2f\n' "$n" "$(($(cat "$work/w$n.rss.0") / 1024))" \
    "$(($(cat "$work/w$n.rss.1") / 1024))" "$(calc "$end - $start")"
done
