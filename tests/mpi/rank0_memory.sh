#!/usr/bin/env bash
# Rank 0's memory through the analysis: 256 training ranks whose 48
# kernels each have 4 KiB names, read by 4 MPI ranks (64 training ranks each). Rank 0
# must not hold every rank's kernel names: its peak RSS stays within 12 MiB of the
# largest peak of the other MPI ranks, which hold only their own ranks' tables (before:
# 166 MB against 133 MB; after: 117 MB against 120 MB). The report still names the
# kernels in full, and its files are the same bytes with 1 MPI rank as with 4.
#   usage: rank0_memory.sh XSTACK WORKDIR CASE
# Cases:
#   longnames  the above
#   ties       16 ranks whose kernels k00..k29 have the same total on every rank (spread
#              0, 30 tied at the 8th place): rank 0, which sees only digests, asks the
#              readers for the names and keeps the first by name (k00, k01, ...), as with
#              the names in hand; the same files with 1 and 4 MPI ranks
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
if [ "$case" = ties ]; then
  "$xstack" synth --out "$work/data" --format kineto --trainers 4 --gpus-per-trainer 4 --steps 4 \
    --ops-per-step 60 --seed 3 2>/dev/null
  python3 - "$work/data/profile" <<'PY'
# The first 180 non-collective kernels of every rank become k00..k29 (6 each, 10 us:
# the same total on every rank, spread 0, all tied); the others get names of their
# own rank (in one rank only: no spread).
import gzip, json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).glob('*.pt.trace.json.gz')):
    d = json.loads(gzip.decompress(f.read_bytes()))
    i = 0
    for e in d['traceEvents']:
        if e.get('cat') == 'kernel' and 'nccl' not in e['name'].lower():
            e['name'] = (f"k{i % 30:02d}_" if i < 180 else f"{f.name[:8]}_{i}_") + 't' * 200
            e['dur'] = 10.0
            i += 1
    assert i >= 180, (f, i)
    f.write_bytes(gzip.compress(json.dumps(d).encode(), 1))
PY
  for np in 1 4; do
    xmpirun $np "$xstack" report --data-dir "$work/data" --gpus-per-trainer 4 --no-progress \
      --out "$work/out$np" 2>"$work/log$np" || fail "np $np: $(cat "$work/log$np")"
  done
  cmp "$work/out1/findings.json" "$work/out4/findings.json" || fail "findings.json differs"
  cmp "$work/out1/report.html" "$work/out4/report.html" || fail "report.html differs"
  python3 - "$work/out4/findings.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))['kernel_spread']
key = [(k['slowest_ns'] - k['median_ns'], k['name']) for k in s]
assert len(s) == 8 and key == sorted(key, key=lambda x: (-x[0], x[1])), key
tied = [name for spread, name in key if name.startswith('k')]
assert all(spread == 0 for spread, name in key if name.startswith('k')), key
# Of the 30 kernels tied at spread 0, the first by name.
assert tied == [f"k{j:02d}_" + 't' * 200 for j in range(len(tied))] and len(tied) >= 4, key
PY
  echo "ok: ties at the cut are cut by name with 1 and 4 MPI ranks"
  exit 0
fi
[ "$case" = longnames ] || fail "unknown case $case"
"$xstack" synth --out "$work/data" --format kineto --trainers 64 --gpus-per-trainer 4 --steps 4 \
  --ops-per-step 60 --seed 3 2>/dev/null
# Kernel i of every rank is renamed "<name>_<i % 48>_ttt..." (4096 bytes): 48 kernels per
# rank, the same names on every rank, as in one model trained data-parallel.
python3 - "$work/data/profile" <<'PY'
import gzip, json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).glob('*.pt.trace.json.gz')):
    d = json.loads(gzip.decompress(f.read_bytes()))
    i = 0
    for e in d['traceEvents']:
        if e.get('cat') == 'kernel':
            base = f"{e['name']}_{i % 48}_"
            e['name'] = base + 't' * (4096 - len(base))
            i += 1
    f.write_bytes(gzip.compress(json.dumps(d).encode(), 1))
PY
# Each rank under /usr/bin/time: its peak RSS in KiB, one file each.
xmpirun 4 bash -c '/usr/bin/time -f %M -o "$0.rss.$OMPI_COMM_WORLD_RANK" "$@"' "$work/m" \
  "$xstack" report --data-dir "$work/data" --gpus-per-trainer 4 --no-progress --out "$work/out4" \
  2>"$work/log4" || fail "mpirun: $(cat "$work/log4")"
rank0=$(tail -1 "$work/m.rss.0") others=0
for r in 1 2 3; do
  kib=$(tail -1 "$work/m.rss.$r")
  [ "$kib" -gt "$others" ] && others=$kib
done
echo "rank 0 peak RSS $rank0 KiB, the other ranks' largest $others KiB"
# Under AddressSanitizer peak RSS is the allocator's, not ours: freed blocks wait in a
# quarantine of up to 256 MiB and every block has redzones, so the ranks that allocate most
# often (rank 0 receives every piece) look larger by tens of MiB whatever they keep (CI saw
# 535 MB against 516 MB). The bound is checked in the plain build; the ASan build checks
# the rest (names in full, np 1 = np 4).
if ldd "$xstack" | grep libasan >/dev/null || grep -a __asan_init "$xstack" >/dev/null; then
  echo "note: ASan build, the RSS bound is not checked here (allocator quarantine)"
else
  [ "$rank0" -le $((others + 12 * 1024)) ] ||
    fail "rank 0 peak RSS $rank0 KiB, more than 12 MiB over the other ranks' $others KiB"
fi
python3 - "$work/out4/findings.json" <<'PY'
import json, sys
spread = json.load(open(sys.argv[1]))['kernel_spread']
assert spread and all(len(k['name']) == 4096 for k in spread if k['name'].endswith('t')), spread
assert sum(len(k['name']) == 4096 for k in spread) >= 4, [len(k['name']) for k in spread]
PY
"$xstack" report --data-dir "$work/data" --gpus-per-trainer 4 --no-progress --out "$work/out1" \
  2>"$work/log1" || fail "np 1: $(cat "$work/log1")"
for f in findings.json report.html steps.csv ranks.csv kernels.csv; do
  cmp "$work/out1/$f" "$work/out4/$f" || fail "$f differs between np 1 and np 4"
done
echo "ok: rank 0 holds no rank's kernel names beyond its own through the analysis"
