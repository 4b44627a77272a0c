#!/usr/bin/env bash
# The PyTorch family's words (docs/FORMAT.md section 2, "Words"): on a 2-node job of
# PyTorch traces (xstack synth --format kineto, 4 GPUs per node, rank 5 slow), the stderr
# straggler line, findings.json's evidence and report.html name the rank "rank 5 (node 1,
# local rank 1)"; a slow node is "node 1 (ranks 2, 3, ...)"; ranks.csv, steps.csv,
# waits.csv and report.html's ranks table carry node and local rank; no message says
# trainer or --gpus-per-trainer. The same traces named by tensorboard_trace_handler's default worker (<host>_<pid>.<time>) name
# the node by that host. A job of Paddle's JSON traces keeps Paddle's words ("rank 5
# (trainer 1, gpu 1)", no extra columns). np 1 and np 3 give byte-identical outputs.
#   usage: pytorch_words.sh XSTACK WORKDIR
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
job=(--trainers 2 --gpus-per-trainer 4 --steps 4 --ops-per-step 200 --seed 3)

# report NAME DATA: np 1 and np 3 into $work/NAME.np1 and .np3, byte-identical.
report() {
  local name=$1 data=$2
  "$xstack" report --data-dir "$data" --out "$work/$name.np1" --no-progress \
    2>"$work/$name.np1.log" || fail "$name np 1: $(cat "$work/$name.np1.log")"
  xmpirun 3 "$xstack" report --data-dir "$data" --out "$work/$name.np3" --no-progress \
    2>"$work/$name.np3.log" || fail "$name np 3: $(cat "$work/$name.np3.log")"
  same_dir "$work/$name.np1" "$work/$name.np3"
}

# words NAME WHO NODE: the straggler named WHO on stderr, in findings.json and in report.html;
# node/local_rank columns (NODE: the node of rank 5; "" for Paddle's words: no such column).
words() {
  local name=$1 who=$2 node=$3 out=$work/$1.np1 log=$work/$1.np1.log
  grep -qF "xstack: straggler: $who " "$log" || { cat "$log"; fail "$name: no straggler line naming $who"; }
  grep -qF "$who " "$out/report.html" || fail "$name: report.html does not name $who"
  if [ -n "$node" ]; then
    grep -qF "<th>node</th><th>local rank</th>" "$out/report.html" || fail "$name: no node columns in report.html"
  elif grep -qF "<th>local rank</th>" "$out/report.html"; then
    fail "$name: PyTorch's columns in report.html"
  fi
  python3 - "$out" "$who" "$node" <<'PY' || fail "$name: analysis files"
import csv, json, sys
out, who, node = sys.argv[1:]
f = json.load(open(out + "/findings.json"))["findings"]
assert len(f) == 1 and f[0]["evidence"].startswith(who + " "), f
for name in ("ranks.csv", "steps.csv", "waits.csv"):
    rows = list(csv.DictReader(open(out + "/" + name, newline="")))
    five = [r for r in rows if r["rank"] == "5"]
    assert five, name
    if node:
        assert all(r["node"] == node and r["local_rank"] == "1" for r in five), (name, five[0])
    else:
        assert "local_rank" not in five[0], (name, five[0])
PY
}

"$xstack" synth --out "$work/k" --format kineto "${job[@]}" --slow 5:1.3 2>/dev/null || fail "synth kineto"
report kineto "$work/k"
words kineto "rank 5 (node 1, local rank 1)" 1
for log in "$work/kineto.np1.log" "$work/kineto.np3.log"; do
  if grep -E "trainer|\(node [0-9]+, gpu" "$log"; then fail "Paddle's words on a PyTorch job ($log)"; fi
done
grep -qF "note: --gpus-per-node 4, from the traces' deviceProperties" "$work/kineto.np1.log" ||
  { cat "$work/kineto.np1.log"; fail "no --gpus-per-node note"; }

# The same traces under tensorboard_trace_handler's default names: the node is the host.
mkdir -p "$work/named"
for f in "$work"/k/profile/rank*.pt.trace.json.gz; do
  base=${f##*/} rank=${base%%.*} rank=${rank#rank}
  cp "$f" "$work/named/gpu-n$((rank / 4))_$((4000 + rank)).1700000000000.pt.trace.json.gz"
done
report named "$work/named"
words named "rank 5 (node gpu-n1, local rank 1)" gpu-n1

# A slow node: the whole node, named by its node.
"$xstack" synth --out "$work/kn" --format kineto --trainers 4 --gpus-per-trainer 2 --steps 4 \
  --ops-per-step 200 --seed 3 --stall-trainer 1:4 2>/dev/null || fail "synth kineto node"
report node "$work/kn"
grep -qF "xstack: straggler: node 1 (ranks 2, 3, all its 2 GPUs) reach " "$work/node.np1.log" ||
  { cat "$work/node.np1.log"; fail "slow node: no straggler line naming node 1"; }
python3 - "$work/node.np1/findings.json" <<'PY' || fail "slow node: $(cat "$work/node.np1/findings.json")"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and f[0]["ranks"] == [2, 3], f
assert f[0]["evidence"].startswith("node 1 (ranks 2, 3, all its 2 GPUs) "), f[0]["evidence"]
assert f[0]["node"] == "1" and f[0]["trainer"] == 1, f[0]
PY

# Paddle's JSON traces keep Paddle's words.
"$xstack" synth --out "$work/p" --format paddle-json "${job[@]}" --slow 5:1.3 2>/dev/null ||
  fail "synth paddle-json"
report paddle "$work/p"
words paddle "rank 5 (trainer 1, gpu 1)" ""
! grep -q "gpus-per-node\|local rank" "$work/paddle.np1.log" || fail "PyTorch's words on a Paddle job"
echo "pytorch words: ok"
