#!/usr/bin/env bash
# Transfers are split into MPI messages of at most --mpi-chunk-bytes (MPI
# counts are int; real transfers can pass 2 GiB). With the smallest accepted
# chunks (4 KiB) and pieces (16 KiB) thousands of messages cross; the traces
# must be identical.
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 2 --gpus-per-trainer 2 --steps 2 --ops-per-step 30 --seed 5 2>/dev/null
opts=(--data-dir "$work/data" --gpus-per-trainer 2 --no-progress)
"$xstack" report "${opts[@]}" --out "$work/serial" 2>/dev/null || fail "serial run"
xmpirun 3 "$xstack" report "${opts[@]}" --out "$work/mpi" --mpi-chunk-bytes 4096 --piece-kb 16 2>"$work/log" \
  || fail "mpirun: $(cat "$work/log")"
same_dir "$work/serial" "$work/mpi"
echo "ok: tiny chunks, identical"
# --compress: gzip streams whose content is exactly the plain traces.
xmpirun 2 "$xstack" report "${opts[@]}" --out "$work/gz" --compress 2>"$work/log" || fail "--compress: $(cat "$work/log")"
for f in "$work"/serial/traceFile_*.json; do  # the analysis files are never gzipped
  zcat "$work/gz/$(basename "$f").gz" | cmp - "$f" || fail "$(basename "$f").gz content differs"
done
echo "ok: --compress content identical"
