#!/usr/bin/env bash
# Ranks larger than --memory-mb: a displayed rank's rows and its analysis
# tables spill to --spill-dir and the outputs are the same bytes as with everything held.
#   usage: spill.sh XSTACK WORKDIR CASE
# Cases:
#   kineto   a Kineto job (gzip JSON, flows, memory blocks, overlapping ops), json and perfetto:
#            --memory-mb 1 at np 1 and np 3 = the default at np 1 (every output file)
#   paddle   the same for Paddle protobuf dumps (rows decoded again for rendering)
#   baddir   --memory-mb 1 with a --spill-dir that does not exist: no trace can be read, rc 2,
#            nothing written, the files and the folder named; the default budget needs no folder
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
case $case in
  kineto) "$xstack" synth --format kineto --out "$work/data" --trainers 2 --gpus-per-trainer 2 \
            --steps 4 --ops-per-step 3000 --seed 5 2>/dev/null ;;
  paddle) "$xstack" synth --out "$work/data" --trainers 2 --gpus-per-trainer 2 --steps 4 \
            --ops-per-step 3000 --seed 5 2>/dev/null ;;
  baddir) "$xstack" synth --format kineto --out "$work/data" --trainers 1 --gpus-per-trainer 2 \
            --steps 3 --ops-per-step 3000 --seed 6 2>/dev/null ;;
  *) fail "unknown case $case" ;;
esac
report() {  # report NP OUT [ARGS...]
  local np=$1 out=$2
  shift 2
  xmpirun "$np" "$xstack" report --data-dir "$work/data" --out "$out" --no-progress \
    --format json,perfetto "$@"
}
if [ "$case" = baddir ]; then
  rc=0
  report 2 "$work/out" --memory-mb 1 --spill-dir "$work/missing" 2>"$work/log" || rc=$?
  # Every trace needs the folder (its analysis spills at 1 MiB): no trace can be read, which
  # is rc 2 with nothing written, each file named with the folder (docs/RELIABILITY.md).
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2: $(cat "$work/log")"
  grep -qF "$work/missing" "$work/log" || fail "the spill folder is not named: $(cat "$work/log")"
  grep -qE "rank0\.[^ ]*pt\.trace\.json\.gz|rank1\.[^ ]*pt\.trace\.json\.gz" "$work/log" ||
    fail "the rank's file is not named: $(cat "$work/log")"
  grep -qF "no readable trace" "$work/log" || fail "not the no-readable-trace error: $(cat "$work/log")"
  [ ! -e "$work/out/traceFile_0_0.json" ] || fail "a trace was written with rc 2"
  report 2 "$work/out2" --spill-dir "$work/missing" 2>"$work/log2" ||
    fail "the default budget needed the spill folder: $(cat "$work/log2")"
  echo "ok: an unusable spill folder is named, rc 2, nothing written"
  exit 0
fi
report 1 "$work/held" 2>"$work/log.held" || fail "default: $(cat "$work/log.held")"
for np in 1 3; do
  report "$np" "$work/spilled$np" --memory-mb 1 --spill-dir "$work" 2>"$work/log$np" ||
    fail "np $np --memory-mb 1: $(cat "$work/log$np")"
  same_dir "$work/held" "$work/spilled$np"
done
for left in "$work"/*xstack-spill*; do
  [ -e "$left" ] && fail "a scratch file was left in $work: $left"
done
grep -q '"flow_out":true' "$work/held"/traceFile_0_0.json || [ "$case" = paddle ] ||
  fail "no flow in the traces: the case does not cover flows"
echo "ok: --memory-mb 1 gives the same bytes as the default at np 1 and 3 ($case)"
