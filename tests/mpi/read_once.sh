#!/usr/bin/env bash
# A folder every rank sees (as a shared file system does) is read once per
# file, not once per rank: the plan names exactly one reader for each file,
# and the work is spread over the ranks.
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 2 --gpus-per-trainer 4 --steps 2 --ops-per-step 40 --seed 3 2>/dev/null
xmpirun 4 "$xstack" report --data-dir "$work/data" --gpus-per-trainer 4 --out "$work/out" --plan --no-progress \
  2>"$work/log" || fail "mpirun: $(cat "$work/log")"
grep '^xstack: plan: ' "$work/log" > "$work/plan" || fail "no plan lines"
total=$(find "$work/data" -type f | wc -l)
[ "$(wc -l < "$work/plan")" -eq "$total" ] || fail "plan has $(wc -l < "$work/plan") lines for $total files"
dups=$(awk '{print $4}' "$work/plan" | sort | uniq -d)
[ -z "$dups" ] || fail "files read more than once: $dups"
readers=$(sed -E 's/.* -> rank ([0-9]+) on .*/\1/' "$work/plan" | sort -u | wc -l)
[ "$readers" -eq 4 ] || fail "expected all 4 ranks to read, got $readers"
echo "ok: $total files, each read once, by $readers ranks"
