#!/usr/bin/env bash
# report --format json,perfetto on data with odd event names (invalid UTF-8,
# control characters, quotes), unpaired and replaced markers, an event that
# ends before it starts, overlapping events and clock skew between trainers:
# - the .pftrace files are byte-identical for np 1 and np 3;
# - pftrace_check: no Perfetto rule broken, exactly the JSON's slices, counter
#   samples, instants and process/thread names, every thread named, memory
#   counters in bytes;
# - --compress: each .pftrace.gz decompresses to the same bytes.
#   usage: perfetto.sh XSTACK PFTRACE_CHECK WORKDIR
source "$(dirname "$0")/lib.sh"
xstack=$1 pfcheck=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 3 --gpus-per-trainer 2 --steps 3 --ops-per-step 60 \
  --seed 5 --skew-ns 3000000 --slow 1:3 2>/dev/null
# Protobuf messages concatenate: appended Profile.events fields add events.
python3 - "$work/data/profile/profile_rank.0" <<'PY'
import struct, sys
def varint(v):
    out = b''
    while True:
        b = v & 0x7f; v >>= 7
        if v: out += bytes([b | 0x80])
        else: return out + bytes([b])
def field(num, wire, payload):
    key = varint(num << 3 | wire)
    return key + (varint(payload) if wire == 0 else varint(len(payload)) + payload)
def event(name, start, end, dev=-1, sub=7, detail=None, gpu=False):
    e = field(1, 2, name) + field(2, 0, start) + field(3, 0, end)
    e += field(5, 0, dev & (2**64 - 1)) + field(6, 0, sub) + field(8, 0, 1 if gpu else 0)
    if detail is not None: e += field(9, 2, detail)
    return field(1, 2, e)
t = 1_700_000_000_000_000_000
evs = [
    event(b'bad \xff\xfe utf8 \xe2\x82', t + 1000, t + 5000),
    event(b'ctl \x01\x1f "quote" back\\slash', t + 2000, t + 3000),
    event(b'overlap A', t + 10000, t + 20000),
    event(b'overlap B', t + 15000, t + 25000),
    event(b'ends before start', t + 30000, t + 29000),
    event(b'gpu \xc3\xa9 stream', t + 4000, t + 9000, dev=0, sub=13, gpu=True),
    event(b'marker/compute/MarkerCUDA', t + 500, t + 600, detail=b'marker_backward_E'),
    event(b'marker/compute/MarkerCUDA', t + 700, t + 800, detail=b'marker_forward_B'),
]
with open(sys.argv[1], 'ab') as f:
    f.write(b''.join(evs))
PY
opts=(--data-dir "$work/data" --gpus-per-trainer 2 --group-size 2 --display-size 1 --no-progress)
"$xstack" report "${opts[@]}" --format json,perfetto --timings --out "$work/np1" 2>"$work/np1.log" || fail "np 1: $(cat "$work/np1.log")"
"$xstack" report "${opts[@]}" --format json --timings --out "$work/json1" 2>"$work/json1.log" || fail "json: $(cat "$work/json1.log")"
xmpirun 3 "$xstack" report "${opts[@]}" --format json,perfetto --out "$work/both3" 2>"$work/both3.log" || fail "np 3 both: $(cat "$work/both3.log")"
xmpirun 3 "$xstack" report "${opts[@]}" --format perfetto --out "$work/np3" 2>"$work/np3.log" || fail "np 3: $(cat "$work/np3.log")"
xmpirun 2 "$xstack" report "${opts[@]}" --format perfetto --compress --out "$work/gz" 2>"$work/gz.log" || fail "gzip: $(cat "$work/gz.log")"
n=$(ls "$work/np1"/*.pftrace | wc -l)
[ "$n" -eq 4 ] || fail "expected 4 .pftrace files, got $n"
grep -q "string_invalid_utf8" "$work/np1.log" || fail "odd names not seen: $(cat "$work/np1.log")"
for p in "$work/np1"/*.pftrace; do
  f=$(basename "$p")
  cmp "$p" "$work/np3/$f" || fail "$f differs between np 1 and np 3"
  gzip -dc "$work/gz/$f.gz" | cmp - "$p" || fail "$f.gz does not decompress to $f"
  "$pfcheck" "$p" "${p%.pftrace}.json" >"$work/check.log" 2>&1 || fail "pftrace_check $f: $(cat "$work/check.log")"
  cat "$work/check.log" >>"$work/checks.log"
done
# One decode and one walk for both formats: as many profile decodes for rendering as a JSON-only
# run (one per displayed rank: 4 files x display size 1), the same JSON bytes, and np 3 (chunks
# rendered on other ranks, both formats in lockstep) = np 1.
decodes() { sed -n 's/.*render_decodes \([0-9]*\).*/\1/p' "$1" | head -n 1; }
[ "$(decodes "$work/np1.log")" = 4 ] || fail "json,perfetto decoded $(decodes "$work/np1.log") profiles for rendering, expected 4"
[ "$(decodes "$work/json1.log")" = 4 ] || fail "json decoded $(decodes "$work/json1.log") profiles, expected 4"
for j in "$work/json1"/traceFile_*.json; do
  cmp "$j" "$work/np1/$(basename "$j")" || fail "$(basename "$j"): json,perfetto's JSON differs from a JSON-only run"
done
for p in "$work/np1"/traceFile_*; do
  cmp "$p" "$work/both3/$(basename "$p")" || fail "$(basename "$p"): json,perfetto np 3 differs from np 1"
done
grep -q "slices [1-9]" "$work/checks.log" || fail "no slices checked: $(cat "$work/checks.log")"
grep -q "instants [1-9]" "$work/checks.log" || fail "no finding instants checked (--slow 1:3): $(cat "$work/checks.log")"
echo "ok: $n .pftrace files equal to their JSON, np 1 = np 3, gzip same bytes"
