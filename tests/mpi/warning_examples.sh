#!/usr/bin/env bash
# Warning examples in otherData are placement-independent (file
# basenames, line numbers, no hosts or folders): byte-identical traces for
# np 1 and np 3 with the files in other folders; the console names path,
# MPI rank and host.
#   usage: warning_examples.sh XSTACK WORKDIR
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 2 --gpus-per-trainer 2 --steps 2 --ops-per-step 50 --seed 5 2>/dev/null
for i in 1 2 3 4 5; do echo "junk line $i" >> "$work/data/dcgm/dcgm.1"; done
printf '{"name":"tx","ts":1,"args":{"a":1e999}}\nnot json\n' >> "$work/data/net/net.0"
cp -r "$work/data" "$work/elsewhere"
opts=(--gpus-per-trainer 2 --no-progress)
"$xstack" report --data-dir "$work/data" "${opts[@]}" --out "$work/np1" 2>"$work/log1" || fail "np 1: $(cat "$work/log1")"
xmpirun 3 "$xstack" report --data-dir "$work/elsewhere" "${opts[@]}" --out "$work/np3" 2>"$work/log3" || fail "np 3: $(cat "$work/log3")"
same_dir "$work/np1" "$work/np3"
python3 - "$work/np1" <<'PY'
import json, os, sys
d = sys.argv[1]
seen = {}
for n in sorted(os.listdir(d)):
    if n.startswith('traceFile_'):
        other = json.load(open(os.path.join(d, n)))['otherData']
        for k, ex in other.get('warning_examples', {}).items():
            assert len(ex) <= 3 and other['warnings'][k] >= len(ex), (n, k, ex)
            assert all('/' not in x for x in ex), (n, k, ex)
            seen.setdefault(k, ex)
assert seen.get('dcgm_noise_line', [''])[0].startswith('dcgm.1:'), seen
assert len(seen['dcgm_noise_line']) == 3, seen
assert seen.get('net_bad_line', [''])[0].startswith('net.0:'), seen
PY
grep -q "^xstack:   dcgm_noise_line: dcgm.1:[0-9]*: .*\[$work/elsewhere/dcgm/dcgm.1, read by MPI rank [0-2] on " "$work/log3" \
  || fail "console examples without path, MPI rank, host: $(cat "$work/log3")"
echo "ok: warning examples identical for np 1 and 3"
