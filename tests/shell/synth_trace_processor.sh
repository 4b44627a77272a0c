#!/usr/bin/env bash
# Perfetto's own importer on `xstack synth --format kineto` and `--format paddle-json` files: one
# rank's trace of each must load with no import error or data loss (stats), with its slices and
# launch -> kernel flows. One exception, Paddle's format itself: it prints ts truncated to whole
# us but dur exact, so two events of one row less than 1 us apart may overlap by < 1 us in the
# file; Perfetto keeps them (on an overflow track) and counts slice_spill_overlapping_complete_event.
# Allowed for paddle-json only, and for at most 5% of the slices. Uses ../shared/tools/trace_processor_shell (shared/tools/README.md);
# skips (77) when the shared folder is absent. XSTACK_SHARED_DIR overrides its place.
# usage: tests/shell/synth_trace_processor.sh XSTACK
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
xstack=$1
shared=${XSTACK_SHARED_DIR:-$repo/../shared}
tp=$shared/tools/trace_processor_shell
[[ -x $tp ]] || { echo "SKIP: $tp not found (the shared folder is absent)"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >"$work/q.sql" <<'SQL'
SELECT 'problem', name, value FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0;
SELECT 'slices', count(*) FROM slice;
SELECT 'flows', count(*) FROM flow;
SQL
for format in kineto paddle-json; do
  "$xstack" synth --out "$work/$format" --format "$format" --trainers 2 --gpus-per-trainer 2 \
    --steps 3 --ops-per-step 20 --seed 5 2>/dev/null || fail "synth --format $format"
  # Rank 3: trainer 1 (skewed clock), local GPU 1.
  trace=$(find "$work/$format/profile" -name '*rank3.*' | head -1)
  [[ -n $trace ]] || fail "no rank 3 file for $format"
  "$tp" query -f "$work/q.sql" "$trace" >"$work/out" 2>"$work/err" ||
    { cat "$work/err" >&2; fail "trace_processor_shell failed on $trace"; }
  slices=$(awk -F, '/^"slices"/ {print $2}' "$work/out")
  spills=$(awk -F, '/^"problem","slice_spill_overlapping_complete_event"/ {print $3}' "$work/out")
  if [[ $format == paddle-json && -n $spills ]] && ((spills * 20 <= slices)); then
    sed -i '/slice_spill_overlapping_complete_event/d' "$work/out"
  fi
  ! grep -q '"problem"' "$work/out" || { cat "$work/out" >&2; fail "import problems in $trace"; }
  flows=$(awk -F, '/^"flows"/ {print $2}' "$work/out")
  # 3 steps x 20 ops: at least the ops, their launches and kernels; a flow per launch.
  ((slices >= 180)) || fail "$format: $slices slices"
  ((flows >= 63)) || fail "$format: $flows flows"
  echo "ok: $format $(basename "$trace"): $slices slices, $flows flows," \
    "${spills:-0} sub-us overlaps, no other import problem"
done
