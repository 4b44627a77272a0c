#!/bin/bash
# Synth data -> xstack report (JSON) -> json_to_pftrace -> pftrace_check:
# the .pftrace obeys the rules and holds exactly the JSON's slices and
# counter samples. Args: BIN_DIR (xstack, json_to_pftrace, pftrace_check).
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$bin/xstack" synth --out "$work/data" --trainers 2 --gpus-per-trainer 2 --steps 2 \
  --ops-per-step 300 --seed 3 >/dev/null
"$bin/xstack" report --data-dir "$work/data" --out "$work/out" --gpus-per-trainer 2 \
  --group-size 2 --no-progress >/dev/null 2>&1
n=0
for json in "$work"/out/traceFile_*.json; do
  "$bin/json_to_pftrace" "$json" "${json%.json}.pftrace"
  "$bin/pftrace_check" "${json%.json}.pftrace" "$json"
  n=$((n + 1))
done
[ "$n" -gt 0 ]
# Odd names (quotes, control characters, U+FFFD, emoji, empty), zero ts,
# zero values, overlapping X events on one tid, counters with and without id.
"$bin/json_to_pftrace" "$(dirname "$0")/odd_trace.json" "$work/odd.pftrace"
"$bin/pftrace_check" "$work/odd.pftrace" "$(dirname "$0")/odd_trace.json"
