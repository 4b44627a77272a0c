#!/usr/bin/env bash
# The serial build (-DXSTACK_MPI=OFF) links no MPI library and writes the same
# bytes as the MPI build (run alone and as `mpirun -np 2`), traces and
# analysis files, JSON and Perfetto.
#   usage: serial_same_bytes.sh SERIAL_XSTACK MPI_XSTACK
set -euo pipefail
serial=$1 mpi=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
if ldd "$serial" | grep -i 'libmpi' >/dev/null; then fail "$serial links an MPI library: $(ldd "$serial" | grep -i mpi)"; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$serial" synth --out "$work/data" --trainers 3 --gpus-per-trainer 4 --steps 4 --ops-per-step 400 \
  --seed 5 --slow 6:1.3 2>/dev/null
opts=(--group-size 2 --display-size 1 --format "json,perfetto" --no-progress)
"$serial" report --data-dir "$work/data" --out "$work/serial" "${opts[@]}" 2>"$work/s.log" ||
  fail "serial build: $(cat "$work/s.log")"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun -np 2 --oversubscribe --bind-to none "$mpi" report --data-dir "$work/data" --out "$work/mpi" \
  "${opts[@]}" 2>"$work/m.log" || fail "MPI build, np 2: $(cat "$work/m.log")"
n=0
for f in "$work/mpi"/*; do
  cmp "$f" "$work/serial/$(basename "$f")" || fail "$(basename "$f") differs between the serial and the MPI build"
  n=$((n + 1))
done
[ "$(find "$work/serial" -type f | wc -l)" -eq "$n" ] || fail "the builds wrote different file sets"
[ "$n" -ge 5 ] || fail "only $n files"
echo "serial build: no libmpi, $n files byte-identical to the MPI build's (np 2)"
