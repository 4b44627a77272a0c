#!/usr/bin/env bash
# An option that shapes the outputs or the protocol, given per
# rank (MPMD: `mpirun -np 1 xstack ... : -np 1 xstack ...`), differs between
# ranks: rc 2 on every rank within seconds, rank 0 naming the option, the
# values and the ranks; nothing read or written. Per-node folders may differ.
#   usage: agree.sh XSTACK WORKDIR
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 2 --gpus-per-trainer 2 --steps 2 --ops-per-step 50 --seed 3 2>/dev/null
# Per-node folders: node A holds trainer 0's files, node B trainer 1's.
mkdir -p "$work"/nodeA/{profile,dcgm,net,time} "$work"/nodeB/{profile,dcgm,net,time}
(cd "$work/data" && for f in */*; do
  case $f in
    profile/*.[01] | dcgm/*.0 | net/*.0 | time/*.0.?) cp "$f" "$work/nodeA/$f" ;;
    *) cp "$f" "$work/nodeB/$f" ;;
  esac
done)
base=(--no-progress)  # --gpus-per-trainer inferred (2)
# mpmd OUT LOG ARGS0 -- ARGS1 -- ARGS2: three ranks, each its own extra options
# (--data-dir DATA unless the rank's options give one).
mpmd() {
  local out=$1 log=$2; shift 2
  local a0=() a1=() a2=() cur=0 x
  for x in "$@" --; do
    if [ "$x" = "--" ]; then
      local -n a="a$cur"
      [[ " ${a[*]} " == *" --data-dir "* ]] || a+=(--data-dir "$work/data")
      unset -n a
      cur=$((cur + 1))
      continue
    fi
    case $cur in 0) a0+=("$x") ;; 1) a1+=("$x") ;; *) a2+=("$x") ;; esac
  done
  set +e
  timeout 60 "$MPIRUN" --timeout 60 --oversubscribe --bind-to none --mca btl self,tcp,vader \
    -np 1 "$xstack" report "${base[@]}" --out "$out" "${a0[@]}" : \
    -np 1 "$xstack" report "${base[@]}" --out "$out" "${a1[@]}" : \
    -np 1 "$xstack" report "${base[@]}" --out "$out" "${a2[@]}" >"$log" 2>&1
  echo $?
  set -e
}
expect_usage() {  # expect_usage MESSAGE ARGS...: rc 2, the message, --out not created
  local want=$1; shift
  local out=$work/out_$RANDOM rc
  rc=$(mpmd "$out" "$work/log" "$@")
  [ "$rc" -eq 2 ] || fail "rc $rc (expected 2) for $*: $(cat "$work/log")"
  grep -qF -- "$want" "$work/log" || fail "no '$want' for $*: $(cat "$work/log")"
  [ ! -e "$out" ] || fail "$out was created for $*"
  echo "ok: $want"
}
expect_usage "--display-size differs between ranks: 2 on ranks 0-1; 1 on rank 2" \
  --display-size 2 -- --display-size 2 -- --display-size 1
expect_usage "--group-size differs between ranks: 8 on ranks 0,2; 4 on rank 1" \
  -- --group-size 4 --
expect_usage "--mpi-chunk-bytes differs between ranks: 4096 on rank 0; 1073741824 on ranks 1-2" \
  --mpi-chunk-bytes 4096 -- --
expect_usage "--piece-kb differs between ranks: 4096 on ranks 0-1; 64 on rank 2" -- -- --piece-kb 64
expect_usage "--time-origin-ns differs between ranks: (not given) on ranks 0-1; 5 on rank 2" \
  -- -- --time-origin-ns 5
expect_usage "--compress differs between ranks: given on rank 0; (not given) on ranks 1-2" --compress -- --
expect_usage "--no-analysis differs between ranks: (not given) on rank 0; given on ranks 1-2" \
  -- --no-analysis -- --no-analysis
expect_usage "--fsync differs between ranks" -- --fsync --
expect_usage "--format differs between ranks: json on ranks 0-1; json,perfetto on rank 2" \
  -- -- --format json,perfetto
expect_usage "--gpus-per-trainer differs between ranks: (not given) on ranks 0-1; 4 on rank 2" \
  -- -- --gpus-per-trainer 4
# Open MPI's banner (docs/RELIABILITY.md): `mpirun -q` drops it and keeps the rc.
set +e
timeout 60 "$MPIRUN" -q --oversubscribe --bind-to none --mca btl self,tcp,vader \
  -np 1 "$xstack" report "${base[@]}" --data-dir "$work/data" --out "$work/q" --display-size 1 : \
  -np 1 "$xstack" report "${base[@]}" --data-dir "$work/data" --out "$work/q" >"$work/log" 2>&1
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "mpirun -q: rc $rc (expected 2): $(cat "$work/log")"
grep -q "display-size differs" "$work/log" || fail "mpirun -q: no message: $(cat "$work/log")"
! grep -q "job has been aborted" "$work/log" || fail "mpirun -q printed the banner"
echo "ok: mpirun -q keeps rc 2 without the banner"
# Per-node folders and display-only options may differ: rc 0, the same traces as one rank.
"$xstack" report "${base[@]}" --data-dir "$work/data" --out "$work/ref" 2>/dev/null || fail "reference run"
rc=$(mpmd "$work/mixed" "$work/log" --timings --data-dir "$work/nodeA" -- --data-dir "$work/nodeA" \
  --plan -- --profile-dir "$work/nodeB/profile" --data-dir "$work/nodeB")
[ "$rc" -eq 0 ] || fail "per-node --data-dir: rc $rc: $(cat "$work/log")"
grep -q "timings rank 2" "$work/log" || fail "rank 0's --timings not honoured: $(cat "$work/log")"
same_dir "$work/ref" "$work/mixed"
echo "ok: per-node folders and display-only options may differ"
