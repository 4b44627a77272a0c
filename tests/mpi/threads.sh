#!/usr/bin/env bash
# --threads: a rank reads (and renders) its files on several threads; every output file is
# the same bytes for --threads 1, 2 and 4 at np 1, 2 and 3, and with the budget split between
# the files in flight (--memory-mb 1: every file spills).
#   usage: threads.sh XSTACK WORKDIR CASE
# Cases:
#   kineto   a Kineto job (gzip JSON: rows kept from the read for rendering)
#   paddle   Paddle protobuf dumps with DCGM, net and time files (rows decoded again)
#   onegroup a Kineto job of one process group (TP 8: 2,560 arrivals): at 2 and 4 threads its
#            walks are split into shards (--timings: group_shards), with the same bytes
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
shape=(--trainers 2 --gpus-per-trainer 2 --steps 3 --ops-per-step 400 --seed 11)
layout=(--gpus-per-trainer 2 --group-size 2 --display-size 1)
case $case in
  kineto) "$xstack" synth --format kineto --out "$work/data" "${shape[@]}" 2>/dev/null ;;
  paddle) "$xstack" synth --out "$work/data" "${shape[@]}" 2>/dev/null ;;
  onegroup) "$xstack" synth --format kineto --out "$work/data" --tp 8 --pp 1 --dp 1 \
              --microbatches 40 --steps 2 --seed 3 2>/dev/null
            layout=(--gpus-per-trainer 8) ;;
  *) fail "unknown case $case" ;;
esac
report() {  # report NP THREADS OUT [ARGS...]
  local np=$1 threads=$2 out=$3
  shift 3
  xmpirun "$np" "$xstack" report --data-dir "$work/data" --out "$out" --no-progress \
    "${layout[@]}" --threads "$threads" "$@" \
    2>"$out.log" || fail "np $np --threads $threads $*: $(cat "$out.log")"
}
report 1 1 "$work/ref"
for f in traceFile_0_0.json steps.csv ranks.csv kernels.csv collectives.csv waits.csv \
         critical_path.csv findings.json report.html; do
  [ -s "$work/ref/$f" ] || fail "$f missing from the outputs: $(ls "$work/ref")"
done
for np in 1 2 3; do
  for threads in 1 2 4; do
    [ "$np$threads" = 11 ] && continue
    report "$np" "$threads" "$work/np${np}_t$threads"
    same_dir "$work/ref" "$work/np${np}_t$threads"
  done
done
if [ "$case" = onegroup ]; then
  for threads in 1 2 4; do
    report 1 "$threads" "$work/timed_t$threads" --timings
    shards=$(sed -n 's/.*group_shards \([0-9]*\).*/\1/p' "$work/timed_t$threads.log")
    want=$((threads > 1 ? threads - 1 : 0))
    [ "$shards" = "$want" ] || fail "--threads $threads: group_shards '$shards', want $want"
  done
fi
report 2 4 "$work/spilled" --memory-mb 1 --spill-dir "$work"
same_dir "$work/ref" "$work/spilled"
echo "ok: threads 1/2/4 x np 1/2/3 (and --memory-mb 1 at 4 threads) give the same bytes ($case)"
