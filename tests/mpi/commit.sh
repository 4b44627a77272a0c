#!/usr/bin/env bash
# The commit protocol of --out:
# docs/RELIABILITY.md. Each case: the documented exit code, and every trace
# left in --out is exactly one run's.
#   usage: commit.sh XSTACK WORKDIR CASE
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
for s in 1 2; do
  "$xstack" synth --out "$work/data$s" --trainers 2 --gpus-per-trainer 2 --steps 3 --ops-per-step 300 --seed $s 2>/dev/null
done
opts=(--gpus-per-trainer 2 --no-progress)
for s in 1 2; do "$xstack" report --data-dir "$work/data$s" "${opts[@]}" --out "$work/ref$s" 2>/dev/null || fail "reference run $s"; done

no_leftovers() {
  [ -z "$(find "$1" -maxdepth 1 \( -name '*.tmp' -o -name '*.tmp.*' -o -name '*xstack-commit*' \) -print -quit)" ] || fail "leftovers in $1: $(ls -A "$1")"
}
# one_run DIR: the traces and analysis files in DIR are exactly those of ref1 or exactly those of ref2.
one_run() {
  local d=$1 s
  for s in 1 2; do
    if diff -q <(cd "$work/ref$s" && ls) <(cd "$d" && ls 2>/dev/null) >/dev/null; then
      local all=1 f
      for f in "$work/ref$s"/*; do cmp -s "$f" "$d/$(basename "$f")" || all=0; done
      [ $all -eq 1 ] && { echo $s; return 0; }
    fi
  done
  fail "$d holds traces of no single run: $(ls -A "$d")"
}

case $case in
  concurrent)  # two runs with the same pid (pid namespaces) into one --out, three tries
    command -v unshare >/dev/null || fail "unshare (util-linux) missing"
    for try in 1 2 3; do
      out=$work/out$try
      mkdir -p "$out"
      set +e
      unshare --pid --fork "$xstack" report --data-dir "$work/data1" "${opts[@]}" --out "$out" 2>"$work/log1.$try" &
      p1=$!
      unshare --pid --fork "$xstack" report --data-dir "$work/data2" "${opts[@]}" --out "$out" 2>"$work/log2.$try" &
      p2=$!
      wait $p1; rc1=$?; wait $p2; rc2=$?
      set -e
      for rc in $rc1 $rc2; do [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "try $try: exit $rc"; done
      [ "$rc1" -eq 0 ] || [ "$rc2" -eq 0 ] || fail "try $try: neither run committed"
      for i in 1 2; do
        rc=$([ $i -eq 1 ] && echo $rc1 || echo $rc2)
        if [ "$rc" -eq 1 ]; then grep -q "another xstack run" "$work/log$i.$try" || fail "run $i: rc 1 without saying why: $(cat "$work/log$i.$try")"; fi
      done
      won=$(one_run "$out")
      no_leftovers "$out"
      echo "try $try: rc $rc1/$rc2, traces of run $won"
    done
    ;;
  notreplaceable)  # a folder where a trace goes: rc 1, named, nothing replaced
    cp -r "$work/ref1" "$work/out"
    rm "$work/out/traceFile_0_1.json" && mkdir "$work/out/traceFile_0_1.json"
    cp -r "$work/out" "$work/before"
    set +e; xmpirun 2 "$xstack" report --data-dir "$work/data2" "${opts[@]}" --out "$work/out" 2>"$work/log"; rc=$?; set -e
    [ "$rc" -eq 1 ] || fail "exit $rc, expected 1: $(cat "$work/log")"
    grep -q "traceFile_0_1.json: is a folder" "$work/log" || fail "folder not named: $(cat "$work/log")"
    grep -q "none was replaced" "$work/log" || fail "not said that nothing was replaced: $(cat "$work/log")"
    cmp "$work/before/traceFile_0_0.json" "$work/out/traceFile_0_0.json" || fail "a trace was replaced"
    no_leftovers "$work/out"
    ;;
  stale)  # a rerun with another layout: earlier traceFile_* removed after the commit, counted; other files kept
    "$xstack" report --data-dir "$work/data1" --gpus-per-trainer 2 --group-size 1 --display-size 1 --no-progress --out "$work/out" 2>/dev/null
    [ "$(cd "$work/out" && ls traceFile_* | wc -l)" -eq 4 ] || fail "expected 4 traces: $(ls "$work/out")"
    echo mine > "$work/out/notes.txt"
    echo mine > "$work/out/traceFile_notes.txt"
    set +e; xmpirun 2 "$xstack" report --data-dir "$work/data1" "${opts[@]}" --out "$work/out" 2>"$work/log"; rc=$?; set -e
    [ "$rc" -eq 0 ] || fail "exit $rc: $(cat "$work/log")"
    grep -q "removed 2 earlier output files" "$work/log" || fail "removal not counted: $(cat "$work/log")"
    [ "$(cat "$work/out/notes.txt")" = mine ] && [ -f "$work/out/traceFile_notes.txt" ] || fail "a user's file was touched"
    rm "$work/out/notes.txt" "$work/out/traceFile_notes.txt"
    same_dir "$work/ref1" "$work/out"
    no_leftovers "$work/out"
    ;;
  kill)  # SIGKILL in the middle of the commit, then a rerun: the journal says which, the rerun finishes
    # The analysis files are in the commit set: each is old or new like a trace.
    cp -r "$work/ref1" "$work/out"
    for f in steps.csv findings.json report.html; do cmp -s "$work/ref1/$f" "$work/ref2/$f" && fail "$f is the same for both runs"; done
    set +e; XSTACK_INJECT_FAULT=kill-commit:0 "$xstack" report --data-dir "$work/data2" "${opts[@]}" --out "$work/out" 2>"$work/log"; rc=$?; set -e
    [ "$rc" -ne 0 ] || fail "exit 0 after SIGKILL"
    [ -f "$work/out/.xstack-commit" ] || fail "no journal after an interrupted commit: $(ls -A "$work/out")"
    # Each trace is old or new; each one still old has its new temporary named in the journal.
    for f in "$work/ref1"/*; do
      n=$(basename "$f")
      if cmp -s "$f" "$work/out/$n"; then
        t=$(awk -F'\t' -v n="$n" '$1=="new" && $2==n {print $3}' "$work/out/.xstack-commit")
        [ -n "$t" ] && [ -f "$work/out/$t" ] || fail "$n is old and its new temporary is not there"
      else
        cmp "$work/ref2/$n" "$work/out/$n" || fail "$n is neither old nor new"
      fi
    done
    # A rerun (here with the first data set) finishes the interrupted commit, then commits its own.
    set +e; xmpirun 2 "$xstack" report --data-dir "$work/data1" "${opts[@]}" --out "$work/out" 2>"$work/log2"; rc=$?; set -e
    [ "$rc" -eq 0 ] || fail "rerun exit $rc: $(cat "$work/log2")"
    grep -q "completed the interrupted commit" "$work/log2" || fail "rerun did not say it finished the commit: $(cat "$work/log2")"
    same_dir "$work/ref1" "$work/out"
    no_leftovers "$work/out"
    ;;
  leftovers)  # temporaries of dead runs (new and old names) removed by the next run; a user's hidden file kept
    mkdir -p "$work/out"
    head -c 100000 /dev/urandom > "$work/out/.traceFile_0_0.json.xstack-0123456789abcdef.tmp"
    head -c 100 /dev/urandom > "$work/out/.traceFile_1_0.json.gz.tmp.4242"
    echo keep > "$work/out/.mine.tmp"
    set +e; xmpirun 2 "$xstack" report --data-dir "$work/data1" "${opts[@]}" --out "$work/out" 2>"$work/log"; rc=$?; set -e
    [ "$rc" -eq 0 ] || fail "exit $rc: $(cat "$work/log")"
    grep -q "removed 2 temporary files" "$work/log" || fail "cleanup not reported: $(cat "$work/log")"
    [ -f "$work/out/.mine.tmp" ] || fail "a user's hidden file was removed"
    rm "$work/out/.mine.tmp"
    same_dir "$work/ref1" "$work/out"
    no_leftovers "$work/out"
    ;;
  sigterm)  # SIGTERM to a run while it writes: no temporary left, old traces kept
    cp -r "$work/ref1" "$work/out"
    "$xstack" synth --out "$work/big" --trainers 2 --gpus-per-trainer 2 --steps 20 --ops-per-step 3000 --seed 3 2>/dev/null
    "$xstack" report --data-dir "$work/big" "${opts[@]}" --out "$work/out" 2>/dev/null &
    pid=$!
    for _ in $(seq 200); do [ -n "$(find "$work/out" -maxdepth 1 -name '*xstack-*.tmp' -print -quit)" ] && break; sleep 0.02; done
    kill -TERM $pid
    set +e; wait $pid; rc=$?; set -e
    [ "$rc" -ne 0 ] || { echo "run ended before SIGTERM; nothing to check"; exit 0; }
    same_dir "$work/ref1" "$work/out"
    no_leftovers "$work/out"
    ;;
  noanalysis)  # analysis files are in the commit set: --no-analysis removes an earlier run's
    cp -r "$work/ref1" "$work/out"
    for f in steps.csv ranks.csv kernels.csv collectives.csv waits.csv critical_path.csv findings.json report.html; do [ -f "$work/out/$f" ] || fail "reference has no $f"; done
    set +e; xmpirun 2 "$xstack" report --data-dir "$work/data2" "${opts[@]}" --no-analysis --out "$work/out" 2>"$work/log"; rc=$?; set -e
    [ "$rc" -eq 0 ] || fail "exit $rc: $(cat "$work/log")"
    grep -q "removed 8 earlier output files" "$work/log" || fail "removal not counted: $(cat "$work/log")"
    for f in steps.csv ranks.csv kernels.csv collectives.csv waits.csv critical_path.csv findings.json report.html; do [ ! -e "$work/out/$f" ] || fail "stale $f of another run kept"; done
    for f in "$work/ref2"/traceFile_*; do cmp "$f" "$work/out/$(basename "$f")" || fail "$(basename "$f") is not run 2's"; done
    no_leftovers "$work/out"
    ;;
  foreign)  # a sticky shared --out holding another user's stale traceFile_*
    # The run is made as nobody (root may unlink anything in a sticky folder), in a folder of
    # its own under /tmp; the foreign file belongs to uid 1234. It cannot be removed: rc 3,
    # the file named with the reason, it stays; every other output is this run's, and a stale
    # trace of nobody's own is removed as usual.
    command -v setpriv >/dev/null || fail "setpriv (util-linux) missing"
    tmp=$(mktemp -d /tmp/xstack-foreign.XXXXXX)
    trap 'rm -rf "$tmp"' EXIT
    cp "$xstack" "$tmp/xstack" && cp -r "$work/data1" "$tmp/data"
    "$tmp/xstack" report --data-dir "$tmp/data" "${opts[@]}" --out "$tmp/ref" 2>/dev/null || fail "reference run"
    chmod -R a+rwX "$tmp"
    out=$tmp/out
    mkdir "$out" && chmod 1777 "$out"
    echo theirs > "$out/traceFile_9_9.json" && chown 1234:1234 "$out/traceFile_9_9.json"
    echo mine > "$out/traceFile_5_5.json" && chown 65534:65534 "$out/traceFile_5_5.json"
    set +e
    HOME=$tmp setpriv --reuid=65534 --regid=65534 --clear-groups \
      "$MPIRUN" --timeout "$MPI_TIMEOUT" -np 2 --oversubscribe --bind-to none --mca btl self,tcp,vader \
      "$tmp/xstack" report --data-dir "$tmp/data" "${opts[@]}" --out "$out" 2>"$work/log"
    rc=$?
    set -e
    [ "$rc" -eq 3 ] || fail "exit $rc, expected 3: $(cat "$work/log")"
    grep -qF "cannot remove the earlier output file $out/traceFile_9_9.json: Operation not permitted" "$work/log" ||
      fail "the foreign file not named with the reason: $(cat "$work/log")"
    grep -q "removed 1 earlier output files" "$work/log" || fail "own stale trace not counted: $(cat "$work/log")"
    [ "$(cat "$out/traceFile_9_9.json")" = theirs ] || fail "the foreign file changed"
    [ ! -e "$out/traceFile_5_5.json" ] || fail "own stale trace kept"
    rm -f "$out/traceFile_9_9.json"  # as root: the rest must be exactly the run's
    same_dir "$tmp/ref" "$out"
    no_leftovers "$out"
    ;;
  moved)  # --out renamed and made anew during the run (mv out out.old; mkdir out)
    # The run's folder is the one --out named when it started (locked, held open): every file,
    # the stale listing and removals and the journal stay there, now out.old. The new out is
    # not touched: what the user put there stays, nothing is created there (no output, no
    # temporary, no journal for the next run). rc 3 says where the files went.
    cp -r "$work/ref2" "$work/out"
    echo stale > "$work/out/traceFile_7_7.json"  # another layout's: stale in the run's folder
    echo mine > "$work/out/notes.txt"
    cmd="mkdir '$work/done' 2>/dev/null && mv '$work/out' '$work/out.old' && mkdir '$work/out' &&
      echo theirs > '$work/out/traceFile_6_6.json' && echo later > '$work/out/notes.txt' || true"
    set +e
    XSTACK_INJECT_FAULT="render-read-cmd:0,render-read-cmd:1" XSTACK_INJECT_COMMAND="$cmd" \
      xmpirun 2 "$xstack" report --data-dir "$work/data1" "${opts[@]}" --out "$work/out" 2>"$work/log"
    rc=$?
    set -e
    [ -d "$work/done" ] || fail "the hook did not run"
    [ "$rc" -eq 3 ] || fail "exit $rc, expected 3: $(cat "$work/log")"
    grep -qF -- "--out $work/out was renamed or replaced during the run" "$work/log" &&
      grep -qF "now at $work/out.old" "$work/log" || fail "not said where the files went: $(cat "$work/log")"
    grep -qE "wrote [0-9]+ trace files .* to $work/out.old in" "$work/log" &&
      grep -qF "report: $work/out.old/report.html" "$work/log" || fail "the summary names another folder: $(cat "$work/log")"
    [ "$(cat "$work/out.old/notes.txt")" = mine ] || fail "the user's file in out.old was touched"
    [ "$(ls -A "$work/out")" = "$(printf 'notes.txt\ntraceFile_6_6.json')" ] ||
      fail "the new out was touched: $(ls -A "$work/out")"
    [ "$(cat "$work/out/traceFile_6_6.json")" = theirs ] && [ "$(cat "$work/out/notes.txt")" = later ] ||
      fail "the user's files in the new out changed"
    rm "$work/out.old/notes.txt"
    same_dir "$work/ref1" "$work/out.old"  # the whole set in one folder, its stale trace gone
    no_leftovers "$work/out.old"
    ;;
  moved_kill)  # --out renamed during the run, then SIGKILL in the commit
    # The journal is in the run's folder (out.old) and names it; the new out gets none, so a
    # run into out has nothing to replay; a run into out.old completes the commit.
    cp -r "$work/ref2" "$work/out"
    cmd="mkdir '$work/done' 2>/dev/null && mv '$work/out' '$work/out.old' && mkdir '$work/out' &&
      echo theirs > '$work/out/traceFile_6_6.json' || true"
    set +e
    XSTACK_INJECT_FAULT="render-read-cmd:0,render-read-cmd:1,kill-commit:0" XSTACK_INJECT_COMMAND="$cmd" \
      "$xstack" report --data-dir "$work/data1" "${opts[@]}" --out "$work/out" 2>"$work/log"
    rc=$?
    set -e
    [ -d "$work/done" ] || fail "the hook did not run"
    [ "$rc" -ne 0 ] || fail "exit 0 after SIGKILL"
    [ -f "$work/out.old/.xstack-commit" ] || fail "no journal in the run's folder: $(ls -A "$work/out.old")"
    [ "$(ls -A "$work/out")" = traceFile_6_6.json ] || fail "the new out was touched: $(ls -A "$work/out")"
    set +e; xmpirun 2 "$xstack" report --data-dir "$work/data1" "${opts[@]}" --out "$work/out.old" 2>"$work/log2"; rc=$?; set -e
    [ "$rc" -eq 0 ] || fail "rerun into out.old: exit $rc: $(cat "$work/log2")"
    grep -q "completed the interrupted commit" "$work/log2" || fail "the journal was not applied: $(cat "$work/log2")"
    same_dir "$work/ref1" "$work/out.old"
    no_leftovers "$work/out.old"
    [ "$(cat "$work/out/traceFile_6_6.json")" = theirs ] || fail "the user's file in the new out changed"
    ;;
  *) fail "unknown case $case" ;;
esac
echo "ok: $case"
