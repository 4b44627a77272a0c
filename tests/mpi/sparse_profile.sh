#!/usr/bin/env bash
# A sparse 6 GiB profile (truncate -s 6G: zeros, no disk blocks) among good ones (issue 21
# item 6): rejected at byte 0 after its first piece, never read whole. Exit 3 naming it,
# the other traces written, and every rank's peak RSS well under 100 MB (before: 6.3 GB).
#   usage: sparse_profile.sh XSTACK WORKDIR
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 1 --gpus-per-trainer 2 --steps 2 --ops-per-step 30 --seed 4 2>/dev/null
rm "$work/data/profile/profile_rank.1"
truncate -s 6G "$work/data/profile/profile_rank.1"
# Each rank under /usr/bin/time: its peak RSS in KiB and its exit code, one file each. The
# wrapper exits 0 so that mpirun does not kill the other ranks before they are measured.
xmpirun 2 bash -c '/usr/bin/time -f %M -o "$0.rss.$OMPI_COMM_WORLD_RANK" "$@"; echo $? >"$0.rc.$OMPI_COMM_WORLD_RANK"' \
  "$work/m" "$xstack" report --data-dir "$work/data" --gpus-per-trainer 2 --no-progress \
  --out "$work/out" 2>"$work/log" || fail "mpirun: $(cat "$work/log")"
rc=$(cat "$work/m.rc.0")
[ "$rc" -eq 3 ] || fail "exit $rc, expected 3: $(cat "$work/log")"
grep -q "profile_rank.1.*not a profile (byte 0 of 6442450944" "$work/log" || fail "not named: $(cat "$work/log")"
valid_json "$work/out"
for r in 0 1; do
  kib=$(tail -1 "$work/m.rss.$r")
  [ "$kib" -lt 100000 ] || fail "rank $r peak RSS $kib KiB"
  echo "rank $r peak RSS $kib KiB"
done
echo "ok: a sparse 6 GiB profile rejected in bounded memory"
