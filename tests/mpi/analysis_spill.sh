#!/usr/bin/env bash
# The analysis' sorters spill past their share of --memory-mb (docs/ANALYSIS.md
# "Memory"): the analysis files are the same bytes whatever the budget, and a
# spill that cannot be made fails the file it was for, naming it and the folder.
#   usage: analysis_spill.sh XSTACK WORKDIR CASE
#   CASE same:     a Kineto job with a host-stalled rank (its gap op named in
#                  findings.json), np 2: steps.csv, ranks.csv, kernels.csv,
#                  findings.json byte-identical with --memory-mb 1 (every
#                  sorter spills runs of 1024 records and merges them in
#                  passes) and the default; also the default budget with a
#                  --spill-dir that does not exist (nothing spills: rc 0).
#   CASE baddir:   --memory-mb 1 and a --spill-dir that does not exist: no trace
#                  can be read, rc 2, every profile named as failed, with the folder.
#   CASE diskfull: --memory-mb 1 and a --spill-dir on a 64 KiB tmpfs: rc 2,
#                  the profiles named, "No space left" (skipped, 77, when a
#                  tmpfs cannot be mounted).
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
job=(--trainers 2 --gpus-per-trainer 2 --steps 6 --ops-per-step 800 --seed 7 --format kineto)
report=(--data-dir "$work/data" --gpus-per-trainer 2 --no-progress --display-size 0)
analysis_files=(steps.csv ranks.csv kernels.csv findings.json)

"$xstack" synth --out "$work/data" "${job[@]}" --stall 1:3 2>"$work/synth.log" \
  || fail "synth: $(cat "$work/synth.log")"

expect_rc() {  # expect_rc WANT LOG -- command...
  local want=$1 log=$2; shift 3
  set +e; "$@" 2>"$log"; local rc=$?; set -e
  [ "$rc" -eq "$want" ] || fail "exit $rc, expected $want; stderr: $(cat "$log")"
}

# failed_with LOG WORDS: every profile of the job is named as failed, with WORDS.
failed_with() {
  local log=$1 words=$2 n=0
  for f in "$work"/data/profile/*; do
    grep -F "$(basename "$f")" "$log" | grep -F "$words" >/dev/null || fail "$(basename "$f") not named with '$words': $(cat "$log")"
    n=$((n + 1))
  done
  [ "$n" -eq 4 ] || fail "expected 4 profiles, found $n"
}

case $case in
  same)
    expect_rc 0 "$work/default.log" -- xmpirun 2 "$xstack" report "${report[@]}" --out "$work/default"
    expect_rc 0 "$work/small.log" -- xmpirun 2 "$xstack" report "${report[@]}" --out "$work/small" \
      --memory-mb 1 --spill-dir "$work"
    expect_rc 0 "$work/nodir.log" -- xmpirun 2 "$xstack" report "${report[@]}" --out "$work/nodir" \
      --spill-dir "$work/no-such-folder"
    for f in "${analysis_files[@]}"; do
      [ -s "$work/default/$f" ] || fail "no $f"
      cmp "$work/default/$f" "$work/small/$f" || fail "$f differs with --memory-mb 1"
      cmp "$work/default/$f" "$work/nodir/$f" || fail "$f differs with an unused --spill-dir"
    done
    # The job's analysis is not trivial: the stalled rank is found, its host op named.
    python3 - "$work/default/findings.json" <<'PY' || fail "findings: $(cat "$work/default/findings.json")"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert [(x["ranks"], x["cause"]) for x in f] == [([1], "host")], f
assert f[0]["host_op"]["kind"] == "data-loader op", f[0]
PY
    for f in "$work"/* "$work"/.[!.]*; do  # the scratch files were unlinked at once
      case $(basename "$f") in data | default | small | nodir | *.log | '.[!.]*') ;;
        *) fail "left in the spill folder: $f" ;; esac
    done
    ;;
  baddir)
    expect_rc 2 "$work/log" -- xmpirun 2 "$xstack" report "${report[@]}" --out "$work/out" \
      --memory-mb 1 --spill-dir "$work/no-such-folder"
    failed_with "$work/log" "$work/no-such-folder"
    ;;
  diskfull)
    full=$work/full && mkdir -p "$full"
    if ! mount -t tmpfs -o size=64k tmpfs "$full" 2>/dev/null; then
      echo "SKIP: cannot mount a tmpfs"
      exit 77
    fi
    trap 'umount "$full"' EXIT
    expect_rc 2 "$work/log" -- xmpirun 2 "$xstack" report "${report[@]}" --out "$work/out" \
      --memory-mb 1 --spill-dir "$full"
    failed_with "$work/log" "No space left"
    grep -qF "$full" "$work/log" || fail "the spill folder is not named: $(cat "$work/log")"
    ;;
  *) fail "unknown case $case" ;;
esac
echo "PASS analysis_spill $case"
