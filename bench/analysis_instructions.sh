#!/usr/bin/env bash
# The analysis' cost in instructions (docs/PERFORMANCE.md "The analysis in instructions"):
# `xstack report` with the analysis against `--no-analysis` under callgrind, one process,
# `--threads 1`, on a small synthetic 3D-parallel Kineto job. Instruction counts do not depend
# on the machine's load, so the ratio is the same on a busy shared machine (wall ratios of the
# same job moved 1.05-1.40x between runs there). Per-rank shapes (collectives a step, events a
# rank) are those of the large jobs; only the number of ranks is small.
#
#   bench/analysis_instructions.sh [--keep]
#
# Environment (all optional):
#   TP, PP, DP    the job's shape (default 2, 4, 2: 16 ranks)
#   STEPS         training steps (default 10)
#   MICROBATCHES  microbatches per step (default 62, as bench/collectives_scale.sh)
#   XSTACK_BUILD_DIR (default <repo>/build), BENCH_WORK (parent of the work folder, default
#   /var/tmp)
#
# Prints both totals, their ratio, and the analysis' largest inclusive costs (the functions
# only the analysis runs), each as instructions and as a share of what the analysis adds.
# Costs about 3 minutes (two callgrind runs of about 80 s each, and the synth).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/options.sh
. "$repo/bench/options.sh"
bench_options analysis_instructions "$@"
command -v valgrind >/dev/null || { echo "analysis_instructions: needs valgrind (callgrind)" >&2; exit 1; }
build=${XSTACK_BUILD_DIR:-$repo/build}
xstack=$build/bin/xstack
[ -x "$xstack" ] || { echo "analysis_instructions: no $xstack (run scripts/build)" >&2; exit 1; }
work=$(mktemp -d "${BENCH_WORK:-/var/tmp}/xstack-instr.XXXXXX")
((keep)) || trap 'rm -rf "$work"' EXIT

tp=${TP:-2} pp=${PP:-4} dp=${DP:-2} steps=${STEPS:-10} mb=${MICROBATCHES:-62}
"$xstack" synth --format kineto --tp "$tp" --pp "$pp" --dp "$dp" --microbatches "$mb" \
  --steps "$steps" --seed 1 --out "$work/job" >/dev/null 2>&1

count() {  # count NAME ARGS... -> the run's instructions (callgrind's "Collected")
  local name=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$work/$name.cg" "$xstack" report \
    --data-dir "$work/job" --out "$work/out-$name" --gpus-per-trainer 8 --threads 1 \
    --no-progress "$@" >/dev/null 2>"$work/$name.log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/$name.log"
}
with=$(count analysis)
without=$(count none --no-analysis)
echo "job: TP$tp x PP$pp x DP$dp = $((tp * pp * dp)) ranks, $steps steps, $mb microbatches"
awk -v a="$with" -v n="$without" 'BEGIN {
  printf "instructions: analysis %.3f G, --no-analysis %.3f G, ratio %.3f\n", a / 1e9, n / 1e9, a / n }'
echo "the analysis' parts (inclusive; share of the $(( (with - without) / 1000000 )) M it adds):"
callgrind_annotate --inclusive=yes "$work/analysis.cg" 2>/dev/null |
  grep -E 'CollectivesJob::merge|collectiveTrackRows\(std|StepsRankPart::(finish|onSlice)|ArrivalRecorder::(finish|onSlice)|KernelStatsBuilder::add\(|KernelsJob::merge|StepsJob::(merge|write)|CollectivesJob::write|summarizeOwned\(xstack::OwnedGroups|routeInRounds|walkCriticalPaths|returnOutcomes\(' |
  sed -E 's/\(anonymous namespace\):: *//g; s/^ *([0-9,]+) .*:(xstack::[^(]*)\(.*/\1 \2/' | tr -d , |
  awk -v d="$((with - without))" '$2 ~ /^xstack::/ && !seen[$2]++ { printf "  %8.1f M  %5.1f %%  %s\n", $1 / 1e6, 100 * $1 / d, $2 }' |
  sort -rn
