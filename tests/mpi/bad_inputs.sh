#!/usr/bin/env bash
# Over 8 ranks: one profile cut mid-event, one random bytes, one a FIFO nobody writes:
# exit 3 within the timeout (no hang), all three files named on stderr,
# every trace valid JSON, and the trace of the untouched GPU unchanged.
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 2 --gpus-per-trainer 4 --steps 2 --ops-per-step 40 --seed 11 2>/dev/null
opts=(--data-dir "$work/data" --gpus-per-trainer 4 --no-progress)
"$xstack" report "${opts[@]}" --out "$work/clean" 2>/dev/null || fail "clean run"
p=$work/data/profile
truncate -s $(( $(stat -c %s "$p/profile_rank.1") / 2 + 3 )) "$p/profile_rank.1"
head -c 5000 /dev/urandom > "$p/profile_rank.2"
rm "$p/profile_rank.3" && mkfifo "$p/profile_rank.3"
set +e
MPI_TIMEOUT=60 xmpirun 8 "$xstack" report "${opts[@]}" --out "$work/bad" 2>"$work/log"
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "exit $rc, expected 3: $(cat "$work/log")"
for r in 1 2 3; do grep -q "profile_rank.$r" "$work/log" || fail "profile_rank.$r not named: $(cat "$work/log")"; done
valid_json "$work/bad"
cmp "$work/clean/traceFile_0_0.json" "$work/bad/traceFile_0_0.json" || fail "untouched GPU 0 trace changed"
python3 - "$work/bad/traceFile_0_1.json" <<'PY' || fail "problems not listed in otherData"
import json, sys
d = json.load(open(sys.argv[1]))
probs = d['otherData']['problems']
assert any(p['file'] == 'profile_rank.1' and p['status'] == 'partial' for p in probs), probs
PY
echo "ok: exit 3, three bad files named, other traces intact"
