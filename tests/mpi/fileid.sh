#!/usr/bin/env bash
# A file is known by more than (path, size).
#   replaced  rank 0's profile is replaced by another file between its first
#             read and its rendering's second read (hook render-read-cmd)
#   rewritten the same, but rewritten in place: same size, same mtime, one byte
#             changed (only the digest can tell)
#   rewritten_json  the same for a PyTorch JSON trace: one digit of a ts changed
#   hosts2, hosts3  two "hosts" (XSTACK_TEST_HOST, a working folder each, one
#             relative --data-dir) hold rank 0's profile under one path and size
#             with different contents: rc 1 naming both hosts, for 2 and 3 ranks.
# A1 cases: rc 3, the file named on stderr and in otherData.problems, and no
# trace event that the first version does not give (no mix of two versions).
#   usage: fileid.sh XSTACK WORKDIR CASE
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
format=paddle ops=30
synth() {
  "$xstack" synth --out "$1" --format "$format" --trainers 1 --gpus-per-trainer 2 --steps 2 \
    --ops-per-step "$ops" --seed "$2" 2>/dev/null
  if [ "$format" = kineto ]; then gunzip "$1"/profile/*.gz; fi  # plain text, to edit one digit
}
expect_rc() {  # expect_rc WANT LOG -- command...
  local want=$1 log=$2; shift 3
  set +e; "$@" 2>"$log"; local rc=$?; set -e
  [ "$rc" -eq "$want" ] || fail "exit $rc, expected $want; stderr: $(cat "$log")"
}
# events_subset A B: every trace event (otherData aside) of the traces in A is in B's.
events_subset() {
  python3 - "$1" "$2" <<'PY'
import collections, glob, gzip, json, os, sys
def events(d):
    c = collections.Counter()
    for p in sorted(glob.glob(os.path.join(d, 'traceFile_*.json'))):
        for e in json.load(open(p))['traceEvents']:
            c[json.dumps(e, sort_keys=True)] += 1
    return c
a, b = events(sys.argv[1]), events(sys.argv[2])
extra = a - b
assert not extra, f"{sum(extra.values())} events not in the first version, e.g. {next(iter(extra))}"
print("events:", sum(a.values()), "all of the first version")
PY
}
# --threads 1: the hook (render-read-cmd) changes the file before the first read for rendering;
# with several render threads another chunk's read may already be under way.
opts=(--gpus-per-trainer 2 --no-progress --threads 1)

case $case in
  replaced|rewritten|rewritten_json)
    # JSON rows kept from the read are rendered on their reader, never read twice: ranks larger
    # than what --memory-mb 1 keeps (4096 ops) are read again by their renderer.
    if [ "$case" = rewritten_json ]; then format=kineto ops=1200 opts+=(--memory-mb 1); fi
    synth "$work/data" 3
    p=$(find "$work/data" -name 'profile_rank.0' -o -name '*rank*0.pb' | head -1)
    [ -n "$p" ] || p=$(find "$work/data" -type f -path '*profile*' | sort | head -1)
    [ -n "$p" ] || fail "no rank 0 profile in $(find "$work/data" -type f)"
    xmpirun 2 "$xstack" report --data-dir "$work/data" "${opts[@]}" --out "$work/clean" 2>"$work/clean.log" ||
      fail "clean run: $(cat "$work/clean.log")"
    synth "$work/other" 11
    q=$(find "$work/other" -type f -name "$(basename "$p")" | head -1)
    if [ "$case" = replaced ]; then
      cmd="mkdir '$work/done' 2>/dev/null && cp '$q' '$p.new' && mv '$p.new' '$p' || true"
    else
      cp -p "$p" "$work/orig"
      off=$(($(stat -c %s "$p") / 2))
      if [ "$format" = kineto ]; then  # the first digit of a "ts" past the middle
        off=$(python3 -c 'import re, sys; b = open(sys.argv[1], "rb").read(); h = len(b) // 2
print(h + re.search(rb"\"ts\": *([0-9])", b[h:]).start(1))' "$p")
        [ "$(dd if="$p" bs=1 skip="$off" count=1 status=none)" != 9 ] || fail "a 9 at $off"
      fi
      byte='\377'
      [ "$format" = kineto ] && byte=9
      cmd="mkdir '$work/done' 2>/dev/null && printf '$byte' | dd of='$p' bs=1 seek=$off conv=notrunc status=none && touch -r '$work/orig' '$p' || true"
    fi
    XSTACK_INJECT_FAULT="render-read-cmd:0,render-read-cmd:1" XSTACK_INJECT_COMMAND="$cmd" \
      expect_rc 3 "$work/log" -- xmpirun 2 "$xstack" report --data-dir "$work/data" "${opts[@]}" --out "$work/out"
    [ -d "$work/done" ] || fail "the hook did not run"
    grep -q "$(basename "$p").*changed since it was first read" "$work/log" ||
      fail "the changed file is not named: $(cat "$work/log")"
    grep -l "changed since it was first read" "$work"/out/traceFile_*.json >/dev/null ||
      fail "otherData.problems does not say"
    events_subset "$work/out" "$work/clean"
    ;;
  hosts2|hosts3)
    np=${case#hosts}
    mkdir -p "$work/A" "$work/B"
    synth "$work/A/data" 3
    cp -r "$work/A/data" "$work/B/data"
    p=$(cd "$work/B" && find data -type f -path '*profile*' | sort | head -1)
    off=$(($(stat -c %s "$work/B/$p") / 2))
    printf '\377' | dd of="$work/B/$p" bs=1 seek="$off" conv=notrunc status=none
    cmp -s "$work/A/$p" "$work/B/$p" && fail "the copies do not differ"
    app() { apps+=(-np "$1" -wdir "$work/$2" -x "XSTACK_TEST_HOST=host$2" "$xstack" report --data-dir data "${opts[@]}" --out "$work/out"); }
    apps=()
    app 1 A
    apps+=(:)
    app $((np - 1)) B
    # MPMD (one app per "host"), so mpirun directly rather than xmpirun NP
    expect_rc 1 "$work/log" -- "$MPIRUN" --timeout "$MPI_TIMEOUT" --oversubscribe --bind-to none \
      --mca btl self,tcp,vader "${apps[@]}"
    grep -q "different contents under one path claim profile rank 0: $p (.* on hostA); $p (.* on hostB)" "$work/log" ||
      fail "both hosts not named: $(cat "$work/log")"
    [ ! -e "$work/out" ] || [ -z "$(ls "$work/out")" ] || fail "traces written: $(ls "$work/out")"
    ;;
  *) fail "unknown case $case" ;;
esac
echo "ok: $case"
