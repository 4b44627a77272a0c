#!/usr/bin/env bash
# Peak RSS of one `xstack report` process against --threads and --memory-mb: the rank's
# memory is its budget plus a floor that does not grow with the threads (docs/PERFORMANCE.md,
# "Strong scaling", Memory).
#
#   bash bench/thread_memory.sh [--big] [--keep]
#
#   --big   also a Kineto job of twice the events per rank (--ops-per-step 8000), to show
#           that the floor does not grow with the input's size either
#   --keep  keep the work folder
#
# Jobs: the 8-rank Kineto job `xstack synth --format kineto --trainers 1 --gpus-per-trainer 8
# --steps 10 --ops-per-step 4000 --seed 1` (gzip JSON, streamed), and the same in Paddle's
# protobuf (`--format paddle`, 7.8 MB files decoded whole). Each cell is one run under
# `/usr/bin/time -f %M` (peak RSS, MB = 1000 KB) at --memory-mb 1/16/64 x --threads 1/2/4,
# with the default outputs; every run's bytes are compared (cmp) with the first run's of its
# job. --memory-mb 1 shows the floor (what does not depend on the budget). The "binary" line
# is the RSS of `xstack report --help` (the binary and its libraries, nothing read).
# Environment: XSTACK_BUILD_DIR (default <repo>/build), BENCH_WORK (default /var/tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
big=0 keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --big) big=1 ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
xstack=$(realpath "${XSTACK_BUILD_DIR:-build}/bin/xstack")
work=$(mktemp -d "${BENCH_WORK:-/var/tmp}/xstack-thread-memory.XXXXXX")
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT

# peak JOB MB THREADS: one report's peak RSS in MB, its outputs compared with the job's first.
peak() {
  local job=$1 mb=$2 threads=$3 out=$work/out
  rm -rf "$out"
  /usr/bin/time -f '%M' -o "$work/rss" "$xstack" report --data-dir "$work/$job" --out "$out" \
    --no-progress --memory-mb "$mb" --threads "$threads" 2>"$work/log"
  if [ -d "$work/ref-$job" ]; then
    for f in "$work/ref-$job"/*; do
      cmp -s "$f" "$out/$(basename "$f")" || { echo "FAIL: $job $mb $threads: $(basename "$f") differs" >&2; exit 1; }
    done
  else
    cp -r "$out" "$work/ref-$job"
  fi
  awk '{ printf "%d", $1 / 1000 }' "$work/rss"
}

# table JOB: the peak RSS of JOB at --memory-mb 1/16/64 x --threads 1/2/4.
table() {
  local job=$1
  echo "| $job: --memory-mb | --threads 1 | 2 | 4 |"
  echo "|---|---|---|---|"
  for mb in 1 16 64; do
    printf '| %s |' "$mb"
    for threads in 1 2 4; do printf ' %s MB |' "$(peak "$job" "$mb" "$threads")"; done
    echo
  done
}

synth() {  # synth FOLDER FORMAT OPS_PER_STEP
  "$xstack" synth --format "$2" --trainers 1 --gpus-per-trainer 8 --steps 10 \
    --ops-per-step "$3" --seed 1 --out "$work/$1" >/dev/null 2>&1
}
synth kineto kineto 4000
synth paddle paddle 4000
[ "$big" = 0 ] || synth kineto-big kineto 8000
/usr/bin/time -f '%M' -o "$work/rss" "$xstack" report --help >/dev/null
echo "binary (xstack report --help): $(awk '{ printf "%d", $1 / 1000 }' "$work/rss") MB"
table kineto
table paddle
[ "$big" = 0 ] || table kineto-big
