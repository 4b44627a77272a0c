#!/usr/bin/env bash
# Rank 0's memory through the analysis: peak RSS (KiB,
# /usr/bin/time %M) of rank 0 and the largest of the other MPI ranks, with and
# without --no-analysis, on PyTorch (Kineto) jobs from `xstack synth` whose
# kernels all have 4 KiB names:
#   (a) 4, 16 and 64 training ranks, 240 distinct kernels each, mpirun -np 2;
#   (b) 64 and 256 training ranks, 48 distinct kernels each, mpirun -np 8.
# The names are the same on every rank (one model, data-parallel).
#   usage: bench/rank0_memory.sh XSTACK WORKDIR
set -euo pipefail
xstack=$1 work=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$work"
dataset() {  # dataset RANKS DISTINCT -> the folder (made once)
  local d=$work/r$1_k$2
  if [ ! -d "$d" ]; then
    "$xstack" synth --out "$d" --format kineto --trainers $(($1 / 4)) --gpus-per-trainer 4 \
      --steps 4 --ops-per-step 60 2>/dev/null
    python3 - "$d/profile" "$2" <<'PY'
import gzip, json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).glob('*.pt.trace.json.gz')):
    d = json.loads(gzip.decompress(f.read_bytes()))
    i = 0
    for e in d['traceEvents']:
        if e.get('cat') == 'kernel':
            base = f"{e['name']}_{i % int(sys.argv[2])}_"
            e['name'] = base + 't' * (4096 - len(base))
            i += 1
    f.write_bytes(gzip.compress(json.dumps(d).encode(), 1))
PY
  fi
  echo "$d"
}
peaks() {  # peaks NP DATA ARGS... -> "rank0_kib others_max_kib"
  local np=$1 data=$2; shift 2
  rm -rf "$work/out" "$work"/m.rss.*
  mpirun -np "$np" --oversubscribe --bind-to none bash -c \
    '/usr/bin/time -f %M -o "$0.rss.$OMPI_COMM_WORLD_RANK" "$@"' "$work/m" \
    "$xstack" report --data-dir "$data" --out "$work/out" --gpus-per-trainer 4 --no-progress \
    "$@" >/dev/null 2>&1
  local others=0 r kib
  for ((r = 1; r < np; ++r)); do
    kib=$(tail -1 "$work/m.rss.$r")
    [ "$kib" -gt "$others" ] && others=$kib
  done
  echo "$(tail -1 "$work/m.rss.0") $others"
}
echo "training_ranks distinct_kernels np rank0_kib others_kib rank0_no_analysis_kib others_no_analysis_kib"
for c in "4 240 2" "16 240 2" "64 240 2" "64 48 8" "256 48 8"; do
  read -r ranks distinct np <<<"$c"
  d=$(dataset "$ranks" "$distinct")
  echo "$ranks $distinct $np $(peaks "$np" "$d") $(peaks "$np" "$d" --no-analysis)"
done
