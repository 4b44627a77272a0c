#!/usr/bin/env bash
# A sparse 6 GiB profile (truncate -s 6G: no disk blocks) among good ones:
# rejected at byte 0 after its first piece, never read whole. Exit 3 naming it, the other
# traces written, and every rank's peak RSS well under 100 MB (before: 6.3 GB).
#   usage: sparse_profile.sh XSTACK WORKDIR CASE
# Cases:
#   zeros      all zeros: tag 0 at byte 0
#   hugeevent  one event (field 1) whose length claims the whole file, then zeros: its
#              first field has tag 0 ("malformed event" at byte 0, as a whole read says)
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 1 --gpus-per-trainer 2 --steps 2 --ops-per-step 30 --seed 4 2>/dev/null
bad=$work/data/profile/profile_rank.1
case $case in
  zeros) rm "$bad" && truncate -s 6G "$bad" && why="bad field (number 0, wire type 0)" ;;
  hugeevent)
    python3 -c '
import sys
n = (6 << 30) - 6  # tag (1 byte) and a 5-byte length: the event ends at the end of the file
v = b""
while True:
    v += bytes([(n & 0x7f) | (0x80 if n > 0x7f else 0)])
    n >>= 7
    if not n: break
assert len(v) == 5
sys.stdout.buffer.write(b"\x0a" + v)' >"$bad"
    truncate -s 6G "$bad" && why="malformed event" ;;
  *) fail "unknown case $case" ;;
esac
# Each rank under /usr/bin/time: its peak RSS in KiB and its exit code, one file each. The
# wrapper exits 0 so that mpirun does not kill the other ranks before they are measured.
xmpirun 2 bash -c '/usr/bin/time -f %M -o "$0.rss.$OMPI_COMM_WORLD_RANK" "$@"; echo $? >"$0.rc.$OMPI_COMM_WORLD_RANK"' \
  "$work/m" "$xstack" report --data-dir "$work/data" --gpus-per-trainer 2 --no-progress \
  --out "$work/out" 2>"$work/log" || fail "mpirun: $(cat "$work/log")"
rc=$(cat "$work/m.rc.0")
[ "$rc" -eq 3 ] || fail "exit $rc, expected 3: $(cat "$work/log")"
grep -qF "profile_rank.1 (read by rank 0 on $(hostname)): not a profile (byte 0 of 6442450944: $why)" "$work/log" ||
  grep -qF "profile_rank.1 (read by rank 1 on $(hostname)): not a profile (byte 0 of 6442450944: $why)" "$work/log" ||
  fail "not named: $(cat "$work/log")"
valid_json "$work/out"
# The bound: 100 MB (a rank peaks near 20 MB). Under AddressSanitizer its shadow memory and
# quarantine add about 80 MB to any process (measured: 95-101 MB a rank), so a sanitized
# binary gets 300 MB: still 20x under the 6.3 GB an unbounded read took.
limit=100000
if ldd "$xstack" 2>/dev/null | grep 'libasan\|libtsan' >/dev/null; then limit=300000; fi
for r in 0 1; do
  kib=$(tail -1 "$work/m.rss.$r")
  [ "$kib" -lt "$limit" ] || fail "rank $r peak RSS $kib KiB (limit $limit KiB)"
  echo "rank $r peak RSS $kib KiB"
done
echo "ok: a sparse 6 GiB profile rejected in bounded memory"
