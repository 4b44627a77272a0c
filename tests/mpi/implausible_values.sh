#!/usr/bin/env bash
# Inputs that lie about ids and values, end to end on 2 ranks,
# --gpus-per-trainer inferred. Each case: the traces of the clean data set, exit 0, and the
# bad input named; never a negative or overflowed --gpus-per-trainer, never a 0 for a value
# that is not finite.
#   usage: implausible_values.sh XSTACK WORKDIR CASE
# Cases:
#   gpu_id     no time files (P comes from the DCGM GPU ids) and DCGM rows GPU
#              9223372036854775807 and GPU 4000000000: dcgm_bad_row, P stays 2.
#   time_name  a stray time.txt.999999999999999999.11 next to the real time files:
#              skipped and named, P stays 2.
#   time_stray a stray time.txt.1000.0 (a GPU id under the bound) next to the real
#              time files: not one trainer of 1001 GPUs, but rc 2 naming the file, the
#              1001 it implies and the 2 the others imply; nothing written. Alone (no
#              other time file): rc 2 too.
#   dcgm_stray no time files and one DCGM row of GPU 1000 (under the bound) beside GPUs
#              0..1: not trainers of 1001 GPUs, but rc 2 naming the ids and the DCGM
#              files; nothing written. Given --gpus-per-trainer 2: exit 0, the clean traces.
#   ratio      a DCGM row with FBUSD 1e308 over FBTTL 1e-300: dcgm_bad_ratio, and no
#              FB_USED_RATIO sample at its time (before: written as 0).
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 2 --gpus-per-trainer 2 --steps 1 --ops-per-step 10 --seed 3 2>/dev/null
dcgm=$work/data/dcgm/dcgm.0
report() {  # report OUT LOG: 2 ranks, P inferred; sets rc
  set +e
  xmpirun 2 "$xstack" report --data-dir "$work/data" --no-progress --out "$1" 2>"$2"
  rc=$?
  set -e
}
if [ "$case" = gpu_id ] || [ "$case" = dcgm_stray ]; then rm -r "$work/data/time"; fi
report "$work/clean" "$work/clean.log"
[ "$rc" -eq 0 ] || fail "clean run exit $rc: $(cat "$work/clean.log")"
grep -q "gpus-per-trainer 2" "$work/clean.log" || fail "clean run did not infer 2: $(cat "$work/clean.log")"

if [ "$case" = time_stray ]; then
  cp "$work/data/time/time.txt.0.0" "$work/data/time/time.txt.1000.0"
  report "$work/out" "$work/log"
  [ "$rc" -eq 2 ] || fail "stray time file: exit $rc, expected 2: $(cat "$work/log")"
  grep -q "error: the time files imply --gpus-per-trainer 1001 (time.txt.1000.0 in $work/data/time name GPU 1000)" \
    "$work/log" || fail "stray time file not named: $(cat "$work/log")"
  grep -q "the other time files imply --gpus-per-trainer 2" "$work/log" ||
    fail "the other value not given: $(cat "$work/log")"
  [ -z "$(ls -A "$work/out" 2>/dev/null)" ] || fail "stray time file: files written"
  find "$work/data/time" -name 'time.txt.*' ! -name 'time.txt.1000.0' -delete
  report "$work/out" "$work/log"
  [ "$rc" -eq 2 ] || fail "lone stray time file: exit $rc, expected 2: $(cat "$work/log")"
  grep -q "no other time file names a GPU" "$work/log" || fail "lone stray: $(cat "$work/log")"
  # Given, the option is checked as before: the stray file names a GPU >= 2.
  set +e
  xmpirun 2 "$xstack" report --data-dir "$work/data" --no-progress --out "$work/out" \
    --gpus-per-trainer 2 2>"$work/log"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] && grep -q "time.txt.1000.0" "$work/log" || fail "given 2: $rc $(cat "$work/log")"
  echo "ok: $case"
  exit 0
fi

if [ "$case" = dcgm_stray ]; then
  row=$(grep -m 1 '^GPU 1 ' "$dcgm")
  echo "${row/GPU 1 /GPU 1000 }" >>"$dcgm"
  report "$work/out" "$work/log"
  [ "$rc" -eq 2 ] || fail "stray DCGM id: exit $rc, expected 2: $(cat "$work/log")"
  grep -q "the DCGM rows (dcgm.0, dcgm.1 in $work/data/dcgm) name GPU ids 0..1, 1000" "$work/log" ||
    fail "stray DCGM id not named: $(cat "$work/log")"
  [ -z "$(ls -A "$work/out" 2>/dev/null)" ] || fail "stray DCGM id: files written"
  set +e
  xmpirun 2 "$xstack" report --data-dir "$work/data" --no-progress --out "$work/given" \
    --gpus-per-trainer 2 2>"$work/log"
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || fail "given 2: exit $rc: $(cat "$work/log")"
  [ "$(find "$work/given" -name 'traceFile_*' | wc -l)" -eq "$(find "$work/clean" -name 'traceFile_*' | wc -l)" ] ||
    fail "given 2: not the clean run's traces"
  echo "ok: $case"
  exit 0
fi

case $case in
  gpu_id)
    row=$(grep -m 1 '^GPU 1 ' "$dcgm")
    { echo "${row/GPU 1 /GPU 9223372036854775807 }"; echo "${row/GPU 1 /GPU 4000000000 }"; } >>"$dcgm"
    ;;
  time_name)
    cp "$work/data/time/time.txt.0.0" "$work/data/time/time.txt.999999999999999999.11"
    ;;
  ratio)
    # The last row's FBTTL (field 7) and FBUSD (8) become 1e-300 and 1e308.
    last=$(grep -c '^GPU ' "$dcgm")
    awk -v n="$last" '/^GPU /{k++} /^GPU / && k==n {$7="1e-300"; $8="1e308"} {print}' "$dcgm" >"$dcgm.new"
    mv "$dcgm.new" "$dcgm"
    ts=$(grep '^GPU ' "$dcgm" | tail -1 | awk '{print $NF}')
    ;;
  *) fail "unknown case $case" ;;
esac
report "$work/out" "$work/log"
[ "$rc" -eq 0 ] || fail "exit $rc, expected 0: $(cat "$work/log")"
traces() { find "$1" -maxdepth 1 -name 'traceFile_*' -printf '%f\n' | sort | tr '\n' ' '; }
[ "$(traces "$work/out")" = "$(traces "$work/clean")" ] ||
  fail "trace files differ: $(traces "$work/out") vs $(traces "$work/clean"); $(cat "$work/log")"
valid_json "$work/out"
case $case in
  gpu_id)
    grep -q "gpus-per-trainer 2" "$work/log" || fail "P not 2: $(cat "$work/log")"
    grep -q "dcgm.0:.*bad GPU id \"9223372036854775807\"" "$work/log" || fail "row not named: $(cat "$work/log")"
    ;;
  time_name)
    grep -q "gpus-per-trainer 2" "$work/log" || fail "P not 2: $(cat "$work/log")"
    grep -q "skipped: .*time.txt.999999999999999999.11: implausible GPU id" "$work/log" ||
      fail "stray time file not named: $(cat "$work/log")"
    same_dir "$work/clean" "$work/out"
    ;;
  ratio)
    grep -q "dcgm_bad_ratio 1" "$work/log" || fail "ratio not counted: $(cat "$work/log")"
    python3 - "$work/out" "$ts" <<'PY' || fail "a FB_USED_RATIO value at the bad row's time"
import json, os, sys
from decimal import Decimal
d, ts = sys.argv[1], Decimal(sys.argv[2])
ratios = []
for name in sorted(os.listdir(d)):
    if not name.startswith('traceFile_'):
        continue
    for e in json.load(open(os.path.join(d, name)))['traceEvents']:
        if e.get('ph') == 'C':
            for k, v in e.get('args', {}).items():
                if 'FB_USED_RATIO' in k or 'FB_USED_RATIO' in e.get('name', ''):
                    ratios.append((e['ts'], v))
assert ratios, 'no FB_USED_RATIO samples at all'
# The bad row is GPU 1's last sample of trainer 0; every other ratio is in (0, 1].
zeros = [r for r in ratios if r[1] == 0]
assert not zeros, zeros[:5]
PY
    ;;
esac
echo "ok: $case"
