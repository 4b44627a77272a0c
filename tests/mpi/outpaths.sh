#!/usr/bin/env bash
# --out that the file system refuses: exit 1 naming the path, no
# std::filesystem_error (SIGABRT, rc 134, a core), no hang under mpirun (2 ranks).
#   usage: outpaths.sh XSTACK WORKDIR CASE
# Cases:
#   nosearch  --out under a folder the user cannot search (mode 0600). The tests run as root,
#             which searches anything, so the run is made as nobody (setpriv --reuid 65534) in a
#             world-writable folder of its own under /tmp.
#   loop      --out through a symlink loop (loop -> loop): ELOOP.
#   long      --out of more than 4096 bytes (PATH_MAX): ENAMETOOLONG.
#   notdir    --out through a regular file (afile/out): ENOTDIR.
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 1 --gpus-per-trainer 2 --steps 1 --ops-per-step 10 --seed 3 2>/dev/null
opts=(--gpus-per-trainer 2 --no-progress)

# check RC LOG NAME: exit 1, NAME on stderr, no uncaught exception nor abort.
check() {
  local rc=$1 log=$2 name=$3
  [ "$rc" -ne 134 ] || fail "SIGABRT (rc 134): $(head -c 2000 "$log")"
  ! grep -qi "terminate called\|filesystem_error\|core dumped" "$log" || fail "uncaught exception: $(head -c 2000 "$log")"
  [ "$rc" -eq 1 ] || fail "exit $rc, expected 1: $(head -c 2000 "$log")"
  grep -qF -- "$name" "$log" || fail "path not named: $(head -c 2000 "$log")"
}

run() {  # run OUT: report into OUT on 2 ranks; sets rc
  set +e
  MPI_TIMEOUT=60 xmpirun 2 "$xstack" report --data-dir "$work/data" "${opts[@]}" --out "$1" 2>"$work/log"
  rc=$?
  set -e
}

case $case in
  nosearch)
    command -v setpriv >/dev/null || fail "setpriv (util-linux) missing"
    tmp=$(mktemp -d /tmp/xstack-nosearch.XXXXXX)
    trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
    cp "$xstack" "$tmp/xstack" && cp -r "$work/data" "$tmp/data"
    mkdir -p "$tmp/locked/sub"
    chmod -R a+rwX "$tmp" && chmod 0666 "$tmp/locked"  # read and write, no search (x)
    out=$tmp/locked/sub/out
    set +e
    HOME=$tmp MPI_TIMEOUT=60 setpriv --reuid=65534 --regid=65534 --clear-groups \
      "$MPIRUN" --timeout 60 -np 2 --oversubscribe --bind-to none --mca btl self,tcp,vader \
      "$tmp/xstack" report --data-dir "$tmp/data" "${opts[@]}" --out "$out" 2>"$work/log"
    rc=$?
    set -e
    check "$rc" "$work/log" "$out"
    grep -q "Permission denied" "$work/log" || fail "the reason not given: $(cat "$work/log")"
    ;;
  loop)
    ln -s loop "$work/loop"
    run "$work/loop/out"
    check "$rc" "$work/log" "$work/loop/out"
    ;;
  long)
    long=$work
    while [ ${#long} -le 4200 ]; do long=$long/$(printf 'd%.0s' {1..200}); done
    run "$long"
    check "$rc" "$work/log" "$long"
    ;;
  notdir)
    touch "$work/afile"
    run "$work/afile/out"
    check "$rc" "$work/log" "$work/afile/out"
    ;;
  *) fail "unknown case $case" ;;
esac
echo "ok: $case: exit 1, path named"
