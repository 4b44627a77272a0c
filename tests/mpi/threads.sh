#!/usr/bin/env bash
# --threads: a rank reads (and renders) its files on several threads; every output file is
# the same bytes for --threads 1, 2 and 4 at np 1, 2 and 3, and with the budget split between
# the files in flight (--memory-mb 1: every file spills).
#   usage: threads.sh XSTACK WORKDIR CASE
# Cases:
#   kineto   a Kineto job (gzip JSON: rows kept from the read for rendering)
#   paddle   Paddle protobuf dumps with DCGM, net and time files (rows decoded again)
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
shape=(--trainers 2 --gpus-per-trainer 2 --steps 3 --ops-per-step 400 --seed 11)
case $case in
  kineto) "$xstack" synth --format kineto --out "$work/data" "${shape[@]}" 2>/dev/null ;;
  paddle) "$xstack" synth --out "$work/data" "${shape[@]}" 2>/dev/null ;;
  *) fail "unknown case $case" ;;
esac
report() {  # report NP THREADS OUT [ARGS...]
  local np=$1 threads=$2 out=$3
  shift 3
  xmpirun "$np" "$xstack" report --data-dir "$work/data" --out "$out" --no-progress \
    --gpus-per-trainer 2 --group-size 2 --display-size 1 --threads "$threads" "$@" \
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
report 2 4 "$work/spilled" --memory-mb 1 --spill-dir "$work"
same_dir "$work/ref" "$work/spilled"
echo "ok: threads 1/2/4 x np 1/2/3 (and --memory-mb 1 at 4 threads) give the same bytes ($case)"
