#!/usr/bin/env bash
# Faults on one rank at every stage, bad options, bad output folders, a full
# disk, a huge length prefix. Each case: the documented exit code, no hang
# (mpirun --timeout), valid JSON for what was written, nothing half-written.
#   usage: faults.sh XSTACK WORKDIR CASE
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 2 --gpus-per-trainer 2 --steps 2 --ops-per-step 30 --seed 9 2>/dev/null
opts=(--data-dir "$work/data" --gpus-per-trainer 2 --no-progress)
"$xstack" report "${opts[@]}" --out "$work/clean" 2>/dev/null || fail "clean run"

expect_rc() {  # expect_rc WANT LOG -- command...
  local want=$1 log=$2; shift 3
  set +e; "$@" 2>"$log"; local rc=$?; set -e
  [ "$rc" -eq "$want" ] || fail "exit $rc, expected $want; stderr: $(cat "$log")"
}
# scratch_fault STAGE SYNTH-ARGS...: a Kineto job (synth SYNTH-ARGS --seed 3) read at
# --memory-mb 1 (every store past 32 KiB spills to $work) by 3 MPI ranks with fault hook STAGE
# armed on every rank: exit 3, valid JSON, as many trace files as a clean run's (in
# $work/kclean; the faulted run's in $work/out, its stderr in $work/log).
scratch_fault() {
  local stage=$1; shift
  "$xstack" synth --format kineto "$@" --seed 3 --out "$work/kineto" 2>/dev/null
  kopts=(--data-dir "$work/kineto" --no-progress --memory-mb 1 --spill-dir "$work")
  "$xstack" report "${kopts[@]}" --out "$work/kclean" 2>/dev/null || fail "clean Kineto run"
  XSTACK_INJECT_FAULT="$stage:0" expect_rc 3 "$work/log" -- \
    xmpirun 3 "$xstack" report "${kopts[@]}" --out "$work/out"
  valid_json "$work/out"
  local traces=("$work"/out/traceFile_*) clean=("$work"/kclean/traceFile_*)
  [ -e "${traces[0]}" ] && [ "${#traces[@]}" -eq "${#clean[@]}" ] || fail "trace files missing: $(ls "$work/out")"
}
no_temps() { [ -z "$(find "$1" -maxdepth 1 \( -name '*.tmp' -o -name '*.tmp.*' -o -name '*xstack-commit*' \) -print -quit)" ] || fail "temporary files left in $1: $(ls -A "$1")"; }

case $case in
  list|read|render)  # one rank fails at this stage; the others' work is written, exit 3
    XSTACK_INJECT_FAULT="$case:1" expect_rc 3 "$work/log" -- \
      xmpirun 3 "$xstack" report "${opts[@]}" --out "$work/out"
    valid_json "$work/out"
    [ "$(ls "$work/out" | wc -l)" -eq "$(ls "$work/clean" | wc -l)" ] || fail "trace files missing"
    no_temps "$work/out"
    if [ "$case" = list ]; then same_dir "$work/clean" "$work/out"; fi  # shared folder: others read all
    grep -q "rank 1" "$work/log" || fail "rank 1 not named: $(cat "$work/log")"
    ;;
  kill)  # a rank SIGKILLed while rendering: non-zero exit, earlier traces untouched
    cp -r "$work/clean" "$work/out"
    set +e; XSTACK_INJECT_FAULT="kill-render:1" xmpirun 3 "$xstack" report "${opts[@]}" --out "$work/out" 2>"$work/log"
    rc=$?; set -e
    [ "$rc" -ne 0 ] || fail "exit 0 after a rank was killed"
    same_dir "$work/clean" "$work/out"
    # mpirun sends the survivors SIGTERM and then SIGKILL, under load within a
    # millisecond (seen with strace): rank 0's handler may not finish, so its
    # hidden temporaries can stay. They must be one dead run's, never outputs,
    # and the next run into the folder removes them and writes the right set.
    tokens=$(find "$work/out" -maxdepth 1 -name '.*.tmp' -printf '%f\n' | sed -n 's/.*\.xstack-\([0-9a-f]*\)\.tmp$/\1/p' | sort -u | wc -l)
    [ "$tokens" -le 1 ] || fail "temporaries of $tokens runs in $work/out: $(ls -A "$work/out")"
    [ ! -e "$work/out/.xstack-commit" ] || fail "a commit journal after a kill before the commit"
    xmpirun 3 "$xstack" report "${opts[@]}" --out "$work/out" 2>"$work/log2" || fail "rerun: $(cat "$work/log2")"
    same_dir "$work/clean" "$work/out"
    no_temps "$work/out"
    ;;
  usage)  # bad options: exit 2, one message naming the option, from rank 0 only
    for bad in "--group-size 0" "--display-size 9 --group-size 8" "--gpus-per-trainer -1" "--time-origin-ns x"; do
      # shellcheck disable=SC2086
      expect_rc 2 "$work/log" -- xmpirun 2 "$xstack" report "${opts[@]}" --out "$work/u" $bad
      name=$(echo "$bad" | awk '{print $1}')
      [ "$(grep -c -- "$name" "$work/log")" -eq 1 ] || fail "'$bad': want one message naming $name: $(cat "$work/log")"
    done
    expect_rc 2 "$work/log" -- "$xstack" report --data-dir "$work/nope" --out "$work/u"
    grep -q "not found" "$work/log" || fail "missing data folder not named"
    [ ! -e "$work/u" ] || fail "output folder created on a usage error"
    ;;
  outdir)  # --out is a file: exit 1, nothing written
    touch "$work/afile"
    expect_rc 1 "$work/log" -- xmpirun 2 "$xstack" report "${opts[@]}" --out "$work/afile"
    grep -q "afile" "$work/log" || fail "output path not named"
    ;;
  diskfull)  # the file size limit hit mid-write: exit 1, temporaries removed, old traces untouched
    cp -r "$work/clean" "$work/out"
    expect_rc 1 "$work/log" -- bash -c "ulimit -f 64; exec \"$xstack\" report ${opts[*]} --out \"$work/out\""
    grep -qi "write failed" "$work/log" || fail "no write error message: $(cat "$work/log")"
    same_dir "$work/clean" "$work/out"
    no_temps "$work/out"
    ;;
  hugelength)  # a 6-byte profile whose length prefix claims 2 GiB: an error, no allocation
    printf '\x0a\x80\x80\x80\x80\x08' > "$work/huge.0"
    # ASan reserves terabytes of address space for its shadow memory, so the address-space
    # limit applies only to a build without it (the unit tests count the allocations anyway).
    limit="ulimit -v 400000;"
    # grep reads all of ldd's output: grep -q could exit first and, under pipefail, ldd's SIGPIPE
    # would fail the test (it did in CI). Static ASan runtimes (clang) are found by their symbol.
    if ldd "$xstack" | grep libasan >/dev/null || grep -a __asan_init "$xstack" >/dev/null; then limit=""; fi
    expect_rc 1 "$work/log" -- bash -c "$limit exec \"$xstack\" inspect \"$work/huge.0\""
    grep -q "huge.0" "$work/log" || fail "file not named"
    ;;
  duplicate)  # two different files claim rank 0: exit 1 naming both, nothing written
    cp "$work/data/profile/profile_rank.1" "$work/data/profile/other_name.0"
    expect_rc 1 "$work/log" -- xmpirun 2 "$xstack" report "${opts[@]}" --out "$work/out"
    grep -q "other_name.0" "$work/log" && grep -q "profile_rank.0" "$work/log" || fail "both paths not named: $(cat "$work/log")"
    [ -z "$(ls -A "$work/out" 2>/dev/null)" ] || fail "outputs written despite the conflict"
    ;;
  noid)  # a name without an integer suffix is skipped, named, and the rest works (exit 0)
    cp "$work/data/profile/profile_rank.1" "$work/data/profile/notes.txt"
    expect_rc 0 "$work/log" -- xmpirun 2 "$xstack" report "${opts[@]}" --out "$work/out"
    grep -q "notes.txt" "$work/log" || fail "skipped file not named"
    same_dir "$work/clean" "$work/out"
    ;;
  unreadable)  # mode 000 (run as an unprivileged user: root reads anything): exit 3, named
    command -v setpriv >/dev/null || fail "setpriv (util-linux) missing"
    # Everything the unprivileged user needs lives in a world-readable folder of its own
    # (the build folder may sit under a private home).
    tmp=$(mktemp -d /tmp/xstack-unreadable.XXXXXX)
    trap 'rm -rf "$tmp"' EXIT
    cp "$xstack" "$tmp/xstack" && cp -r "$work/data" "$tmp/data"
    chmod -R a+rwX "$tmp" && chmod 000 "$tmp/data/profile/profile_rank.2"
    expect_rc 3 "$work/log" -- setpriv --reuid=65534 --regid=65534 --clear-groups \
      "$tmp/xstack" report --data-dir "$tmp/data" --gpus-per-trainer 2 --no-progress --out "$tmp/out"
    grep -q "profile_rank.2.*Permission denied" "$work/log" || fail "unreadable file not named: $(cat "$work/log")"
    valid_json "$tmp/out"
    ;;
  synthfull)  # synth on a full disk (a 256 KiB tmpfs, else a file size limit): exit 1, named
    full=$work/full && mkdir -p "$full"
    big=(synth --trainers 2 --gpus-per-trainer 2 --steps 4 --ops-per-step 400 --out "$full/data")
    if mount -t tmpfs -o size=256k tmpfs "$full" 2>/dev/null; then
      trap 'umount "$full"' EXIT
      expect_rc 1 "$work/log" -- "$xstack" "${big[@]}"
    else
      expect_rc 1 "$work/log" -- bash -c "ulimit -f 64; exec \"$xstack\" ${big[*]}"
    fi
    grep -q "synth: cannot write $full/data/" "$work/log" || fail "no write error naming the file: $(cat "$work/log")"
    ! grep -q "wrote" "$work/log" || fail "claims it wrote: $(cat "$work/log")"
    ;;
  notfolder)  # a dcgm path that is a file, a net file of junk: exit 3, both named
    rm -r "$work/data/dcgm" && echo "not a folder" > "$work/data/dcgm"
    head -c 3000 /dev/urandom > "$work/data/net/net.1"
    expect_rc 3 "$work/log" -- xmpirun 2 "$xstack" report "${opts[@]}" --out "$work/out"
    grep -q "dcgm path $work/data/dcgm exists but is not a folder (seen by rank 0 on" "$work/log" || fail "dcgm path not named: $(cat "$work/log")"
    grep -q "failed: net $work/data/net/net.1 (read by rank" "$work/log" || fail "junk net file not named: $(cat "$work/log")"
    valid_json "$work/out"
    ;;
  shelfread)  # the analyses' per-rank parts spilled and cannot be read back (fault hook shelf-read,
    # every rank; 1 MiB of memory: every rank's parts spill): exit 3, the traces written, the
    # analysis not, and each rank says why (the scratch folder and the reason)
    scratch_fault shelf-read --tp 2 --pp 2 --dp 2 --microbatches 40 --steps 2
    grep -q "analysis not written" "$work/log" || fail "the analysis' failure not said: $(cat "$work/log")"
    for r in 0 1 2; do
      grep -q "rank $r on .*: the analyses' per-rank parts: cannot read back a scratch file in $work" \
        "$work/log" || fail "rank $r does not say why its parts are empty: $(cat "$work/log")"
    done
    ;;
  tracksread)  # the collectives' trace slices spilled and cannot be read back (fault hook
    # tracks-read, every rank; 1 MiB of memory: the owners' slices past 32 KiB spill): exit 3,
    # every trace file written and valid, without those tracks; the analysis files all written;
    # the failed tracks named with their group, the scratch folder and the reason
    scratch_fault tracks-read --tp 2 --pp 2 --dp 2 --microbatches 40 --steps 2
    for f in collectives.csv waits.csv critical_path.csv findings.json steps.csv; do
      cmp "$work/kclean/$f" "$work/out/$f" || fail "$f differs from the clean run's"
    done
    grep -q 'the collectives'"'"' slices of group ".*" could not be read back from --spill-dir: cannot read back a scratch file in '"$work"': injected fault tracks-read' \
      "$work/log" || fail "the tracks' failure not said: $(cat "$work/log")"
    # The groups whose slices spilled are not drawn; those held in memory are.
    drawn=$(cat "$work"/out/traceFile_* | grep -c '"cat":"collective"' || true)
    all=$(cat "$work"/kclean/traceFile_* | grep -c '"cat":"collective"')
    [ "$drawn" -lt "$all" ] || fail "$drawn collective slices drawn of $all: none from the unreadable shelf missing"
    ;;
  outcomesread)  # the outcomes a reader keeps for the critical path spilled and cannot be read
    # back (fault hook outcomes-read, every rank; 1 MiB of memory): exit 3, every trace file
    # written and valid, the analysis not written, and why: the scratch folder and the reason
    # (64 ranks: each reader's outcomes pass the 32 KiB a store holds at --memory-mb 1)
    scratch_fault outcomes-read --tp 2 --pp 4 --dp 8 --microbatches 62 --steps 2
    grep -q "analysis not written: .*the collective outcomes kept for the critical path: cannot read back a scratch file in $work: injected fault outcomes-read" \
      "$work/log" || fail "the outcomes' failure not said: $(cat "$work/log")"
    ;;
  *) fail "unknown case $case" ;;
esac
echo "ok: $case"
