#!/usr/bin/env bash
# The same data set gives byte-identical traces with NP MPI ranks as with a
# single process without mpirun (docs/FORMAT.md section 4). The data set has a
# partial last group (3 trainers, groups of 2) and clock skew.
source "$(dirname "$0")/lib.sh"
xstack=$1 np=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 3 --gpus-per-trainer 2 --steps 3 --ops-per-step 60 --seed 7 2>/dev/null
opts=(--data-dir "$work/data" --gpus-per-trainer 2 --group-size 2 --display-size 1 --no-progress)
"$xstack" report "${opts[@]}" --out "$work/serial" 2>"$work/serial.log" || fail "serial run: $(cat "$work/serial.log")"
xmpirun "$np" "$xstack" report "${opts[@]}" --out "$work/mpi" 2>"$work/mpi.log" || fail "mpirun -np $np: $(cat "$work/mpi.log")"
[ "$(ls "$work/serial"/traceFile_* | wc -l)" -eq 4 ] || fail "expected 4 trace files, got $(ls "$work/serial")"
same_dir "$work/serial" "$work/mpi"
valid_json "$work/mpi"
echo "ok: $np ranks, $(ls "$work/mpi" | wc -l) files identical"
