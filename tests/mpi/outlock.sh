#!/usr/bin/env bash
# The lock on --out is taken by rank 0 before any rank lists or reads an input, and it is
# the folder's (device, inode), not the path's: a second run into an alias of --out made
# while the first run is still before its reading is refused (rc 1, "another xstack run is
# writing into this folder"), and the first run ends rc 0 with exactly a clean run's set.
#   usage: outlock.sh XSTACK WORKDIR CASE
# Cases (2 ranks each):
#   symlink  the second run's --out is a symlink to the first's; the first run is paused
#            by the hook list-cmd on rank 0 (after the lock, before the listing).
#   dotdot   the second run's --out is o/../o.
#   order    no hook: under strace, rank 0's flock comes before the first open of anything
#            under the data folder by any rank (the binary before this change listed and
#            sampled the inputs first, then locked).
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
"$xstack" synth --out "$work/data" --trainers 1 --gpus-per-trainer 2 --steps 1 --ops-per-step 10 --seed 3 2>/dev/null
opts=(--data-dir "$work/data" --gpus-per-trainer 2 --no-progress)
MPI_TIMEOUT=60 xmpirun 2 "$xstack" report "${opts[@]}" --out "$work/clean" 2>/dev/null ||
  fail "the clean run failed"

case $case in
  symlink | dotdot)
    mkdir "$work/o"
    if [ "$case" = symlink ]; then
      ln -s o "$work/link"
      alias=$work/link
    else
      alias=$work/o/../o
    fi
    # rank 0 of the first run says it is paused, then waits (at most 60 s) for the go
    wait_go="touch '$work/paused'; i=0; while [ ! -e '$work/go' ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done"
    set +e
    XSTACK_INJECT_FAULT=list-cmd:0 XSTACK_INJECT_COMMAND="$wait_go" MPI_TIMEOUT=120 \
      xmpirun 2 "$xstack" report "${opts[@]}" --out "$work/o" 2>"$work/first.log" &
    first=$!
    for _ in $(seq 600); do
      [ -e "$work/paused" ] || ! kill -0 "$first" 2>/dev/null && break
      sleep 0.1
    done
    if [ ! -e "$work/paused" ]; then
      wait "$first"
      fail "the first run never paused before its listing (hook list-cmd): $(head -c 2000 "$work/first.log")"
    fi
    MPI_TIMEOUT=60 xmpirun 2 "$xstack" report "${opts[@]}" --out "$alias" 2>"$work/second.log"
    rc2=$?
    touch "$work/go"
    wait "$first"
    rc1=$?
    set -e
    [ "$rc2" -eq 1 ] || fail "second run into $alias: exit $rc2, expected 1: $(head -c 2000 "$work/second.log")"
    grep -qF "another xstack run is writing into this folder" "$work/second.log" ||
      fail "second run: no clear message: $(head -c 2000 "$work/second.log")"
    grep -qF -- "--out $alias" "$work/second.log" || fail "second run: --out not named: $(cat "$work/second.log")"
    ! grep -q "^xstack: plan:\|wrote" "$work/second.log" || fail "second run went on: $(cat "$work/second.log")"
    [ "$rc1" -eq 0 ] || fail "first run: exit $rc1: $(head -c 2000 "$work/first.log")"
    same_dir "$work/clean" "$work/o"
    hidden=$(find "$work/o" -mindepth 1 -name '.*')
    [ -z "$hidden" ] || fail "hidden files left in o: $hidden"
    ;;
  order)
    command -v strace >/dev/null || fail "strace missing"
    strace -f -o "$work/strace.txt" -e trace=openat,open,flock \
      "$MPIRUN" --timeout 60 -np 2 --oversubscribe --bind-to none --mca btl self,tcp,vader \
      "$xstack" report "${opts[@]}" --out "$work/o" 2>"$work/first.log" ||
      fail "the run failed: $(head -c 2000 "$work/first.log")"
    # grep -m 1, not "| head -1": head leaving early would kill grep with
    # SIGPIPE, and pipefail would end the script without a word.
    lock=$(grep -n -m 1 'flock(.*LOCK_EX' "$work/strace.txt" | cut -d: -f1 || true)
    read=$(grep -n -m 1 "open.*\"$work/data" "$work/strace.txt" | cut -d: -f1 || true)
    [ -n "$lock" ] || fail "no flock seen"
    [ -n "$read" ] || fail "no open of the data folder seen"
    [ "$lock" -lt "$read" ] ||
      fail "an input was opened before --out was locked: $(sed -n "${read}p" "$work/strace.txt") (line $read) before $(sed -n "${lock}p" "$work/strace.txt") (line $lock)"
    same_dir "$work/clean" "$work/o"
    ;;
  *) fail "unknown case $case" ;;
esac
echo "PASS outlock $case"
